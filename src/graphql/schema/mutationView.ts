/**
 * What one role may insert, update and delete in one table (admin: everything, unfiltered),
 * read from the schema cache's permissions. The mutation schema and the mutation planner both
 * read this, so a field or argument is in the schema exactly when the planner can plan it.
 *
 * - insert: the columns the client may give (permission columns minus preset ones), the presets,
 *   the check, the relationships whose remote table the role may also insert into, and whether
 *   `on_conflict` is offered (unique/primary key constraints exist, not a view, and the role has
 *   an update permission — or, for metadata written for Hasura < 1.0, `allow_upsert: true`);
 * - update: columns, filter, check, presets; delete: filter.
 */
import { ADMIN_ROLE, qualifiedKey } from '../../core/index.js';
import { TRUE, type BoolExp, type IrValue } from '../../ir/index.js';
import type { ColumnInfo, InsertPermInfo, RelationshipInfo, SchemaCache, TableInfo, UpdatePermInfo } from '../../metadata/index.js';
import { isGraphqlName } from './names.js';

/** A permission preset as an IR value cast to its column's type. */
export interface PresetValue {
  column: ColumnInfo;
  value: IrValue;
}

export interface UpsertView {
  /** Columns `update_columns` may name. */
  columns: ColumnInfo[];
  /** Only existing rows passing this are updated. */
  filter: BoolExp;
  /** Updated rows must pass this (null: the insert check applies). */
  check: BoolExp | null;
  presets: PresetValue[];
}

export interface InsertView {
  table: TableInfo;
  columns: ColumnInfo[];
  presets: PresetValue[];
  check: BoolExp;
  relationships: Array<{ rel: RelationshipInfo; remote: TableInfo }>;
  /** Unique and primary key constraint names (valid GraphQL names). */
  constraints: string[];
  upsert: UpsertView | null;
}

export interface UpdateView {
  table: TableInfo;
  columns: ColumnInfo[];
  filter: BoolExp;
  check: BoolExp | null;
  presets: PresetValue[];
}

export interface DeleteView {
  table: TableInfo;
  filter: BoolExp;
}

/** The type a value for `col` is cast to (schema-qualified outside pg_catalog and public). */
export function columnCastType(col: Pick<ColumnInfo, 'pgType' | 'pgTypeSchema'>): string {
  const s = col.pgTypeSchema;
  return !s || s === 'pg_catalog' || s === 'public' ? col.pgType : `${s}.${col.pgType}`;
}

/**
 * A number (JSON number or decimal text) bound for a `numeric` column, written the way Hasura's binary encoding sends it:
 * fractional digits padded to a multiple of four (Postgres stores numerics in base-10000 digits),
 * so `price * 1.1` keeps the scale Hasura gives (`16.5000`). Other values pass unchanged.
 */
export function columnParamValue(col: Pick<ColumnInfo, 'pgType'>, value: unknown): unknown {
  if (col.pgType !== 'numeric' || (typeof value !== 'number' && typeof value !== 'string')) return value;
  const text = String(value);
  const m = /^(-?\d+)\.(\d+)$/.exec(text);
  if (!m) return value;
  return `${m[1]}.${m[2].padEnd(Math.ceil(m[2].length / 4) * 4, '0')}`;
}

const isAdmin = (role: string): boolean => role === ADMIN_ROLE;

function presetValues(table: TableInfo, set: InsertPermInfo['set']): PresetValue[] {
  const out: PresetValue[] = [];
  for (const [name, p] of Object.entries(set)) {
    const column = table.columnsByName.get(name);
    if (!column) continue;
    const pgType = columnCastType(column);
    out.push({ column, value: p.kind === 'session' ? { source: { kind: 'session', name: p.name }, pgType } : { source: { kind: 'value', value: p.value }, pgType } });
  }
  return out;
}

/** Columns a mutation may write: valid GraphQL names, not generated (Postgres computes those). */
const usable = (cols: ColumnInfo[]): ColumnInfo[] => cols.filter((c) => isGraphqlName(c.gqlName) && !c.isGenerated);

/**
 * Whether `table` accepts inserts from `role` at all (permission and, for views, Postgres). A
 * `backend_only` permission is offered only in the schema of a trusted backend's request
 * (`backendOnly`: admin secret + `x-svc-use-backend-only-permissions: true`), as in Hasura.
 */
export function canInsert(table: TableInfo, role: string, backendOnly = false): boolean {
  if (!table.mutability.insertable) return false;
  if (isAdmin(role)) return true;
  const perm = table.permissions.get(role)?.insert;
  return perm !== undefined && (backendOnly || !perm.backendOnly);
}

function upsertView(table: TableInfo, role: string, insert: InsertPermInfo | undefined, insertColumns: ColumnInfo[], backendOnly: boolean): UpsertView | null {
  if (table.kind !== 'table' && table.kind !== 'partitioned_table') return null;
  if (constraintNames(table).length === 0) return null;
  if (isAdmin(role)) return { columns: usable(table.columns), filter: TRUE, check: null, presets: [] };
  const update = table.permissions.get(role)?.update;
  if (update && (!update.backendOnly || backendOnly)) return fromUpdate(table, update);
  // Metadata from before Hasura 1.0 allowed upserts with `allow_upsert` and no update permission:
  // the role may then only overwrite rows it could have inserted (the insert check filters them).
  if (insert?.allowUpsert) {
    return { columns: insertColumns, filter: insert.check, check: null, presets: [] };
  }
  return null;
}

function fromUpdate(table: TableInfo, update: UpdatePermInfo): UpsertView {
  return {
    columns: usable(table.columns.filter((c) => update.columns.has(c.name) && !(c.name in update.set))),
    filter: update.filter,
    check: update.check,
    presets: presetValues(table, update.set),
  };
}

/** Unique and primary key constraints usable as `<t>_constraint` values. */
export function constraintNames(table: TableInfo): string[] {
  const names = new Set<string>();
  if (table.primaryKeyConstraint) names.add(table.primaryKeyConstraint);
  for (const u of table.uniqueConstraints) names.add(u.name);
  return [...names].filter(isGraphqlName);
}

/** The role's insert view of `table`, or null when it may not insert. */
export function insertView(sc: SchemaCache, role: string, table: TableInfo, backendOnly = false): InsertView | null {
  if (!canInsert(table, role, backendOnly)) return null;
  const perm = isAdmin(role) ? undefined : table.permissions.get(role)?.insert;
  const presets = perm ? presetValues(table, perm.set) : [];
  const columns = usable(isAdmin(role) ? table.columns : table.columns.filter((c) => perm!.columns.has(c.name) && !(c.name in perm!.set)));
  const relationships: InsertView['relationships'] = [];
  for (const rel of table.relationships.values()) {
    const remote = sc.tables.get(qualifiedKey(rel.join.remoteTable));
    if (remote && isGraphqlName(rel.name) && canInsert(remote, role, backendOnly)) relationships.push({ rel, remote });
  }
  return {
    table,
    columns,
    presets,
    check: perm?.check ?? TRUE,
    relationships,
    constraints: constraintNames(table),
    upsert: upsertView(table, role, perm, columns, backendOnly),
  };
}

/** The role's update view of `table`, or null when it may not update (`backendOnly`: see canInsert). */
export function updateView(table: TableInfo, role: string, backendOnly = false): UpdateView | null {
  if (!table.mutability.updatable) return null;
  if (isAdmin(role)) return { table, columns: usable(table.columns), filter: TRUE, check: null, presets: [] };
  const perm = table.permissions.get(role)?.update;
  if (!perm || (perm.backendOnly && !backendOnly)) return null;
  return { table, ...fromUpdate(table, perm) };
}

/** The role's delete view of `table`, or null when it may not delete (`backendOnly`: see canInsert). */
export function deleteView(table: TableInfo, role: string, backendOnly = false): DeleteView | null {
  if (!table.mutability.deletable) return null;
  if (isAdmin(role)) return { table, filter: TRUE };
  const perm = table.permissions.get(role)?.delete;
  return perm && (!perm.backendOnly || backendOnly) ? { table, filter: perm.filter } : null;
}
