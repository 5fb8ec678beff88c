/**
 * Runs the introspection query and turns its JSON into a typed `DbSnapshot`; then reads the rows
 * of the tables the metadata marks `is_enum` (a second small query per enum table), checking that
 * each can serve as an enum the way Hasura v1.3 does.
 */
import { qualifiedKey } from '../../core/index.js';
import type { QualifiedTable } from '../../core/index.js';
import type { DbClient } from '../../execution/index.js';
import { compile, sql } from '../../sql/index.js';
import { INTROSPECTION_QUERY } from './introspectionQuery.js';
import type { DbFunction, DbFunctionArg, DbSnapshot, DbTable, EnumTableValues, RelationKind } from './types.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type RawRow = Record<string, any>;

const KIND: Record<string, RelationKind> = {
  r: 'table',
  v: 'view',
  m: 'materialized_view',
  f: 'foreign_table',
  p: 'partitioned_table',
};

const VOLATILITY = { i: 'IMMUTABLE', s: 'STABLE', v: 'VOLATILE' } as const;

/* The introspection query's arrays (introspectionQuery.ts), by position. */
type RawTable = [oid: number, schema: string, name: string, relkind: string, comment: string | null, updatable: number, columns: RawColumn[], constraints: RawConstraint[], sessionFreeWrites: boolean];
type RawColumn = [
  name: string, position: number, type: string, typeSchema: string, typtype: string, isArray: boolean, enumLabels: string[] | null,
  display: string, nullable: boolean, hasDefault: boolean, identity: boolean, generated: boolean, comment: string | null,
];
type RawConstraint = [
  name: string, oid: number, type: string, conkey: number[] | null, refSchema: string | null, refName: string | null,
  refOid: number, confkey: number[] | null, refNames: string[] | null,
];

/** Column names by attnum, per relation oid. */
type ColumnNames = Map<number, Map<number, string>>;

function namesOf(keys: number[] | null, columns: Map<number, string> | undefined): string[] {
  const out: string[] = [];
  for (const k of keys ?? []) {
    const name = columns?.get(k);
    if (name !== undefined) out.push(name);
  }
  return out;
}

function toTable(r: RawTable, names: ColumnNames): DbTable {
  const [oid, schema, name, relkind, comment, updatable, columns, constraints, sessionFreeWrites] = r;
  const kind = KIND[relkind] ?? 'table';
  const upd = Number(updatable ?? 0);
  const isPlain = kind === 'table' || kind === 'partitioned_table';
  const own = names.get(Number(oid));
  const pk = constraints.find((c) => c[2] === 'p');
  return {
    oid: Number(oid),
    schema,
    name,
    kind,
    comment: comment ?? null,
    columns: columns.map((c) => ({
      name: c[0],
      position: c[1],
      type: c[2],
      typeSchema: c[3],
      typeKind: c[4],
      isArray: !!c[5],
      ...(Array.isArray(c[6]) ? { enumLabels: c[6] } : {}),
      displayType: c[7],
      nullable: !!c[8],
      hasDefault: !!c[9] || !!c[10],
      isIdentity: !!c[10],
      isGenerated: !!c[11],
      comment: c[12] ?? null,
    })),
    primaryKey: pk ? { name: pk[0], columns: namesOf(pk[3], own) } : null,
    uniqueConstraints: constraints.filter((c) => c[2] === 'u').map((c) => ({ name: c[0], columns: namesOf(c[3], own) })),
    foreignKeys: constraints
      .filter((c) => c[2] === 'f')
      .map((c) => ({
        name: c[0],
        oid: Number(c[1]),
        columns: namesOf(c[3], own),
        refTable: { schema: c[4] as string, name: c[5] as string },
        refColumns: c[8] ?? namesOf(c[7], names.get(Number(c[6]))),
      })),
    // pg_relation_is_updatable bits: 1<<2 update, 1<<3 insert, 1<<4 delete.
    insertable: isPlain || (upd & 8) !== 0,
    updatable: isPlain || (upd & 4) !== 0,
    deletable: isPlain || (upd & 16) !== 0,
    sessionFreeWrites: sessionFreeWrites === true,
  };
}

function toFunction(r: RawRow): DbFunction {
  const types = (r.arg_types ?? []) as RawRow[];
  const names = (r.arg_names ?? []) as Array<string | null>;
  const modes = (r.arg_modes ?? null) as string[] | null;
  const inputs: DbFunctionArg[] = [];
  let hasVariadic = false;
  types.forEach((t, i) => {
    const mode = modes ? modes[i] : 'i';
    if (mode !== 'i' && mode !== 'b' && mode !== 'v') return;
    if (mode === 'v') hasVariadic = true;
    const name = names[i];
    inputs.push({ name: name ? name : null, type: t.type, typeSchema: t.type_schema, typeKind: t.typtype, hasDefault: false });
  });
  const nDefaults = Number(r.n_defaults ?? 0);
  for (let i = inputs.length - nDefaults; i < inputs.length; i++) if (i >= 0) inputs[i].hasDefault = true;
  return {
    oid: Number(r.oid),
    schema: r.schema,
    name: r.name,
    args: inputs,
    returnType: r.return_type,
    returnTypeSchema: r.return_type_schema,
    returnTypeKind: r.return_typtype,
    returnTable: r.return_rel_name ? { schema: r.return_rel_schema, name: r.return_rel_name } : null,
    returnsSet: !!r.returns_set,
    volatility: VOLATILITY[r.volatility as 'i' | 's' | 'v'] ?? 'VOLATILE',
    comment: r.comment ?? null,
    kind: r.kind,
    hasVariadic,
  };
}

/** Parses the introspection query's JSON text. */
export function parseSnapshot(text: string): DbSnapshot {
  const raw = JSON.parse(text) as { tables: RawTable[]; functions: RawRow[] };
  const names: ColumnNames = new Map();
  for (const r of raw.tables) names.set(Number(r[0]), new Map(r[6].map((c) => [c[1], c[0]])));
  const tables = new Map<string, DbTable>();
  for (const r of raw.tables) {
    const t = toTable(r, names);
    tables.set(qualifiedKey(t), t);
  }
  const functions = new Map<string, DbFunction[]>();
  for (const r of raw.functions) {
    const f = toFunction(r);
    const key = qualifiedKey(f);
    const list = functions.get(key);
    if (list) list.push(f);
    else functions.set(key, [f]);
  }
  return { tables, functions, enumValues: new Map() };
}

/**
 * Introspects the database through `client` (inside the caller's transaction when there is one),
 * then fetches the values of `enumTables`.
 */
export async function introspectDatabase(client: DbClient, enumTables: readonly QualifiedTable[] = []): Promise<DbSnapshot> {
  const r = await client.query(INTROSPECTION_QUERY);
  const snapshot = parseSnapshot(String(r.rows[0].snapshot));
  await loadEnumValues(client, snapshot, enumTables);
  return snapshot;
}

/** Fills `snapshot.enumValues` for the given tables (those that exist). */
export async function loadEnumValues(client: DbClient, snapshot: DbSnapshot, enumTables: readonly QualifiedTable[]): Promise<void> {
  for (const q of enumTables) {
    const key = qualifiedKey(q);
    const table = snapshot.tables.get(key);
    if (!table || snapshot.enumValues.has(key)) continue;
    snapshot.enumValues.set(key, await fetchEnumTable(client, table));
  }
}

const quote = (s: string) => JSON.stringify(s);

function reasonMessage(table: DbTable, errors: string[]): string {
  const name = quote(table.schema === 'public' ? table.name : `${table.schema}.${table.name}`);
  const body = errors.length === 1 ? `because ${errors[0]}` : `for the following reasons:\n${errors.map((e) => `  • ${e}\n`).join('')}`;
  return `the table ${name} cannot be used as an enum ${body}`;
}

/** Validates an enum table's shape and reads its values (Hasura's fetchAndValidateEnumValues). */
async function fetchEnumTable(client: DbClient, table: DbTable): Promise<EnumTableValues> {
  const errors: string[] = [];
  const pkCols = table.primaryKey?.columns ?? [];
  let pk = undefined as DbTable['columns'][number] | undefined;
  if (pkCols.length === 0) errors.push('the table must have a primary key');
  else if (pkCols.length > 1) errors.push(`the table’s primary key must not span multiple columns (${[...pkCols].sort().join(', ')})`);
  else {
    const col = table.columns.find((c) => c.name === pkCols[0])!;
    if (col.type === 'text') pk = col;
    else errors.push(`the table’s primary key (${quote(col.name)}) must have type "text", not type ${quote(col.displayType)}`);
  }
  const others = table.columns.filter((c) => c !== pk);
  let comment: DbTable['columns'][number] | undefined;
  if (others.length === 1) {
    if (others[0].type === 'text') comment = others[0];
    else errors.push(`the table’s comment column (${quote(others[0].name)}) must have type "text", not type ${quote(others[0].displayType)}`);
  } else if (others.length > 1) {
    errors.push(
      `the table must have exactly one primary key and optionally one comment column, not ${others.length} columns (${others
        .map((c) => c.name)
        .sort()
        .join(', ')})`,
    );
  }
  if (!pk) return { ok: false, reason: reasonMessage(table, errors) };
  const q = compile(
    sql`SELECT ${sql.ident(pk.name)} AS value, ${comment ? sql.ident(comment.name) : sql`NULL::text`} AS comment FROM ${sql.table(table)}`,
  );
  const rows = (await client.query(q.text, [])).rows as Array<{ value: string; comment: string | null }>;
  if (rows.length === 0) errors.push('the table must have at least one row');
  const bad = rows.map((r) => r.value).filter((v) => !/^[_A-Za-z][_0-9A-Za-z]*$/.test(v) || v === 'true' || v === 'false' || v === 'null');
  if (bad.length > 0) {
    const sorted = [...bad].sort();
    let text: string;
    if (sorted.length === 1) text = `value ${quote(sorted[0])} is not a valid GraphQL enum value name`;
    else if (sorted.length === 2) text = `values ${quote(sorted[0])} and ${quote(sorted[1])} are not valid GraphQL enum value names`;
    else
      text = `values ${sorted
        .slice(0, -1)
        .map(quote)
        .join(', ')}, and ${quote(sorted[sorted.length - 1])} are not valid GraphQL enum value names`;
    errors.push(`the ${text}`);
  }
  if (errors.length > 0) return { ok: false, reason: reasonMessage(table, errors) };
  return { ok: true, values: rows.map((r) => ({ value: r.value, comment: r.comment ?? null })) };
}
