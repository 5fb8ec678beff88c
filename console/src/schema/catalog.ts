/**
 * What the Data pages read from the database's catalog (read-only run_sql, one statement each, the
 * answer built as JSON in Postgres): a table's columns, constraints, indexes, comment and view
 * definition; the schemas, tables and functions to choose from. The definitions kept here
 * (pg_get_constraintdef, pg_indexes.indexdef, pg_get_viewdef) are what make a drop reversible.
 */
import { runSql } from '../api';
import { literal } from '../sqlGen';
import type { CatalogColumn } from './catalogColumn.js';
import type { ForeignKey } from './names.js';

export { specOf, type CatalogColumn } from './catalogColumn.js';

export interface CatalogConstraint {
  name: string;
  /** p primary key, u unique, f foreign key, c check. */
  kind: 'p' | 'u' | 'f' | 'c' | string;
  definition: string;
  columns: string[];
}

export interface CatalogIndex {
  name: string;
  definition: string;
  /** The constraint this index backs (a primary key or unique): dropped through the constraint. */
  constraint: string | null;
}

export interface TableInfo {
  kind: 'table' | 'view' | 'other';
  comment: string | null;
  columns: CatalogColumn[];
  constraints: CatalogConstraint[];
  indexes: CatalogIndex[];
  viewDefinition: string | null;
}

/** One read-only statement on `source` (each function below reads the database of the source it is given). */
const one = async (sql: string, source: string): Promise<any> => {
  const r = await runSql(sql, { readOnly: true, source });
  return r.rows.length ? JSON.parse(r.rows[0][0] ?? 'null') : null;
};

/** The table or view, or null when it does not exist. */
export async function tableInfo(schema: string, name: string, source: string): Promise<TableInfo | null> {
  const rel = `(SELECT c.oid FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = ${literal(schema)} AND c.relname = ${literal(name)})`;
  return one(`SELECT json_build_object(
    'kind', CASE (SELECT relkind FROM pg_class WHERE oid = r.oid) WHEN 'r' THEN 'table' WHEN 'p' THEN 'table' WHEN 'v' THEN 'view' ELSE 'other' END,
    'comment', obj_description(r.oid, 'pg_class'),
    'viewDefinition', CASE WHEN (SELECT relkind FROM pg_class WHERE oid = r.oid) = 'v' THEN pg_get_viewdef(r.oid) END,
    'columns', coalesce((SELECT json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod), 'nullable', NOT a.attnotnull,
        'default', pg_get_expr(d.adbin, d.adrelid), 'identity', a.attidentity, 'comment', col_description(r.oid, a.attnum)) ORDER BY a.attnum)
      FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      WHERE a.attrelid = r.oid AND a.attnum > 0 AND NOT a.attisdropped), '[]'),
    'constraints', coalesce((SELECT json_agg(json_build_object('name', k.conname, 'kind', k.contype, 'definition', pg_get_constraintdef(k.oid),
        'columns', coalesce((SELECT json_agg(a.attname ORDER BY u.i) FROM unnest(k.conkey) WITH ORDINALITY u(n, i) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n), '[]')) ORDER BY k.contype DESC, k.conname)
      FROM pg_constraint k WHERE k.conrelid = r.oid), '[]'),
    'indexes', coalesce((SELECT json_agg(json_build_object('name', ic.relname, 'definition', pg_get_indexdef(i.indexrelid),
        'constraint', (SELECT conname FROM pg_constraint WHERE conindid = i.indexrelid AND conrelid = r.oid LIMIT 1)) ORDER BY ic.relname)
      FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid WHERE i.indrelid = r.oid), '[]')
  )::text FROM (SELECT ${rel} AS oid) r WHERE r.oid IS NOT NULL`, source);
}

export interface Relation {
  schema: string;
  name: string;
  kind: 'table' | 'view';
}

const USER_SCHEMAS = `NOT IN ('pg_catalog', 'information_schema', 'hdb_catalog', 'hdb_views', 'pg_toast') AND n.nspname NOT LIKE 'pg\\_%'`;

export async function schemas(source: string): Promise<string[]> {
  return (await one(`SELECT coalesce(json_agg(nspname ORDER BY nspname), '[]')::text FROM pg_namespace n WHERE n.nspname ${USER_SCHEMAS}`, source)) ?? [];
}

export async function relations(source: string): Promise<Relation[]> {
  return (await one(`SELECT coalesce(json_agg(json_build_object('schema', n.nspname, 'name', c.relname, 'kind', CASE c.relkind WHEN 'v' THEN 'view' ELSE 'table' END) ORDER BY n.nspname, c.relname), '[]')::text
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname ${USER_SCHEMAS}`, source)) ?? [];
}

export interface FunctionInfo {
  schema: string;
  name: string;
  /** `author` — the argument list as Postgres prints it. */
  args: string;
  returns: string;
  volatility: 'i' | 's' | 'v';
}

export async function functions(source: string): Promise<FunctionInfo[]> {
  return (await one(`SELECT coalesce(json_agg(json_build_object('schema', n.nspname, 'name', p.proname, 'args', pg_get_function_arguments(p.oid),
      'returns', pg_get_function_result(p.oid), 'volatility', p.provolatile) ORDER BY n.nspname, p.proname), '[]')::text
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.prokind = 'f' AND n.nspname ${USER_SCHEMAS}
      AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')`, source)) ?? [];
}

export type { ForeignKey } from './names.js';

/** Every foreign key between user tables. */
export async function foreignKeys(source: string): Promise<ForeignKey[]> {
  return (await one(`SELECT coalesce(json_agg(json_build_object('constraint', c.conname, 'from', json_build_object('schema', sn.nspname, 'name', s.relname),
      'to', json_build_object('schema', tn.nspname, 'name', t.relname),
      'columns', (SELECT json_agg(a.attname ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n),
      'refColumns', (SELECT json_agg(a.attname ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n)) ORDER BY c.conname), '[]')::text
    FROM pg_constraint c JOIN pg_class s ON s.oid = c.conrelid JOIN pg_namespace sn ON sn.oid = s.relnamespace
    JOIN pg_class t ON t.oid = c.confrelid JOIN pg_namespace tn ON tn.oid = t.relnamespace WHERE c.contype = 'f' AND sn.nspname ${USER_SCHEMAS.replace(/n\.nspname/g, 'sn.nspname')}`, source)) ?? [];
}
