/**
 * What the permission editor's boolean-expression builder knows about the tracked tables: each
 * table's columns with their Postgres types, its relationships (resolved to the table they lead to,
 * through the foreign keys for `foreign_key_constraint_on`), its computed fields, and the session
 * variables the metadata already uses. Read with one catalog query (run_sql, read-only) plus the
 * exported metadata.
 */
import { lit, refOf, runSql, tableKey, type TableRef } from './api';

export interface CatalogColumn {
  name: string;
  /** The Postgres type's name (`int4`, `text`, `jsonb`, `_int4` for arrays …). */
  type: string;
}

export interface CatalogRelationship {
  name: string;
  kind: 'object' | 'array';
  target: TableRef;
}

export interface CatalogTable {
  ref: TableRef;
  columns: CatalogColumn[];
  relationships: CatalogRelationship[];
  computedFields: string[];
}

export interface Catalog {
  tables: Map<string, CatalogTable>;
  /** Session variables seen in the metadata's permissions, plus the usual ones. */
  sessionVariables: string[];
}

interface ForeignKey {
  from: TableRef;
  columns: string[];
  to: TableRef;
}

const asColumns = (v: unknown): string[] => (typeof v === 'string' ? [v] : Array.isArray(v) ? v.map(String) : []);

/** The table a relationship of `from` leads to, or undefined when its foreign key is not found. */
export function relationshipTarget(from: TableRef, kind: 'object' | 'array', using: any, fks: ForeignKey[]): TableRef | undefined {
  if (using?.manual_configuration?.remote_table) return refOf(using.manual_configuration.remote_table);
  const fk = using?.foreign_key_constraint_on;
  if (fk === undefined) return undefined;
  if (typeof fk === 'object' && !Array.isArray(fk) && fk.table) return refOf(fk.table);
  if (kind === 'array') return undefined;
  const cols = asColumns(typeof fk === 'object' && !Array.isArray(fk) ? (fk.columns ?? fk.column) : fk);
  const hit = fks.find((f) => tableKey(f.from) === tableKey(from) && f.columns.length === cols.length && cols.every((c) => f.columns.includes(c)));
  return hit?.to;
}

const SESSION_RE = /^x-svc-[a-z0-9_-]+$/i;

function collectSessionVariables(v: unknown, out: Set<string>): void {
  if (typeof v === 'string') {
    if (SESSION_RE.test(v)) out.add(v);
  } else if (Array.isArray(v)) {
    for (const x of v) collectSessionVariables(x, out);
  } else if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) collectSessionVariables(x, out);
  }
}

/** The builder's catalog from exported metadata (its `tables`: those of `source`) and reads of that source's catalog. */
export async function loadCatalog(metadata: any, source?: string): Promise<Catalog> {
  const entries: any[] = metadata?.tables ?? [];
  const refs = entries.map((t) => refOf(t.table));
  const schemas = [...new Set(refs.map((r) => r.schema))];
  const tables = new Map<string, CatalogTable>();
  if (refs.length === 0) return { tables, sessionVariables: sessionVariablesOf(metadata) };
  const inSchemas = schemas.map(lit).join(', ');
  const cols = await runSql(
    `SELECT c.table_schema, c.table_name, c.column_name, c.udt_name FROM information_schema.columns c WHERE c.table_schema IN (${inSchemas}) ORDER BY c.table_schema, c.table_name, c.ordinal_position`,
    { readOnly: true, ...(source !== undefined ? { source } : {}) },
  );
  const fkRows = await runSql(
    `SELECT sn.nspname, st.relname, tn.nspname, tt.relname, (SELECT json_agg(a.attname ORDER BY k.n) FROM unnest(con.conkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum)::text
     FROM pg_constraint con JOIN pg_class st ON st.oid = con.conrelid JOIN pg_namespace sn ON sn.oid = st.relnamespace
     JOIN pg_class tt ON tt.oid = con.confrelid JOIN pg_namespace tn ON tn.oid = tt.relnamespace
     WHERE con.contype = 'f' AND sn.nspname IN (${inSchemas})`,
    { readOnly: true, ...(source !== undefined ? { source } : {}) },
  );
  const fks: ForeignKey[] = fkRows.rows.map((r) => ({ from: { schema: r[0]!, name: r[1]! }, to: { schema: r[2]!, name: r[3]! }, columns: JSON.parse(r[4] ?? '[]') as string[] }));
  const byTable = new Map<string, CatalogColumn[]>();
  for (const [schema, name, column, type] of cols.rows) {
    const k = tableKey({ schema: schema!, name: name! });
    if (!byTable.has(k)) byTable.set(k, []);
    byTable.get(k)!.push({ name: column!, type: type! });
  }
  entries.forEach((t, i) => {
    const ref = refs[i];
    const relationships: CatalogRelationship[] = [];
    for (const kind of ['object', 'array'] as const) {
      for (const rel of t[`${kind}_relationships`] ?? []) {
        const target = relationshipTarget(ref, kind, rel.using, fks);
        if (target) relationships.push({ name: rel.name, kind, target });
      }
    }
    tables.set(tableKey(ref), { ref, columns: byTable.get(tableKey(ref)) ?? [], relationships, computedFields: (t.computed_fields ?? []).map((c: any) => c.name) });
  });
  return { tables, sessionVariables: sessionVariablesOf(metadata) };
}

/** The session variables the metadata's permissions use (plus X-Svc-User-Id and X-Svc-Role), each once. */
export function sessionVariablesOf(metadata: any): string[] {
  const seen = new Set<string>(['X-Svc-User-Id', 'X-Svc-Role']);
  for (const t of metadata?.tables ?? []) for (const a of ['insert', 'select', 'update', 'delete']) collectSessionVariables(t[`${a}_permissions`]?.map((p: any) => p.permission), seen);
  const lower = new Set<string>();
  return [...seen].filter((s) => !lower.has(s.toLowerCase()) && lower.add(s.toLowerCase()));
}

/** Every role named in the metadata: table permissions and inherited roles. */
export function rolesOf(metadata: any): string[] {
  const roles = new Set<string>();
  for (const t of metadata?.tables ?? []) for (const a of ['insert', 'select', 'update', 'delete']) for (const p of t[`${a}_permissions`] ?? []) roles.add(p.role);
  for (const r of metadata?.inherited_roles ?? []) {
    roles.add(r.role_name);
    for (const m of r.role_set ?? []) roles.add(m);
  }
  return [...roles].sort();
}
