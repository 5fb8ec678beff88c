/**
 * Name resolution and permission checks shared by the v1 DML operations, with Hasura v1.3's
 * messages (`RQL/DML/Internal.hs`): the table, the role's permission of each kind (admin has
 * all, unfiltered), `where` parsed against the table with every column it names required to be
 * selectable and every relationship it crosses AND-ed with the remote table's select filter,
 * and `returning` columns.
 */
import { ApiError, displayName, isBigNumType, pathKey, type QualifiedTable, type Session } from '../../core/index.js';
import { andAll, TRUE, type BoolExp, type IrValue, type RelationshipJoin, type SelectField } from '../../ir/index.js';
import { parseBoolExp, type ColumnInfo, type JsonObject, type SchemaCache, type TableInfo } from '../../metadata/index.js';
import { columnCastType, columnParamValue } from '../../graphql/index.js';
import { PlanContext } from '../../planner/index.js';

/** What a DML operation runs against. */
export interface DmlEnv {
  cache: SchemaCache;
  session: Session;
  /** Path of this operation's args (`$.args`). */
  path: string;
  stringify: boolean;
}

export interface SelectPerm {
  columns: Set<string>;
  filter: BoolExp;
  limit: number | null;
}

export const quote = (s: string): string => JSON.stringify(s);
export const quoteTable = (t: QualifiedTable): string => quote(displayName(t));
export const roleOf = (env: DmlEnv): string => env.session.role;

export function tableOf(env: DmlEnv, name: QualifiedTable): TableInfo {
  const t = env.cache.tables.get(`${name.schema}.${name.name}`);
  if (!t) throw new ApiError('not-exists', `table ${quoteTable(name)} does not exist`, { path: `${env.path}.table` });
  return t;
}

/** `<kind> on "t" for role "r" is not allowed. ` (+ why it is needed). */
export function permissionDenied(env: DmlEnv, kind: string, table: TableInfo, suffix = ''): ApiError {
  return new ApiError('permission-denied', `${kind} on ${quoteTable(table.name)} for role ${quote(roleOf(env))} is not allowed. ${suffix}`, { path: env.path });
}

/**
 * The role's select permission on `table` (admin: everything), or undefined. Columns an inherited
 * role sees in only some rows are left out: the v1 DML reads only what the role sees on every row.
 */
export function selectPermOf(env: DmlEnv, table: TableInfo): SelectPerm | undefined {
  if (env.session.isAdmin) return { columns: new Set(table.columns.map((c) => c.name)), filter: TRUE, limit: null };
  const p = table.permissions.get(roleOf(env))?.select;
  if (!p) return undefined;
  const partial = p.columnConditions;
  const columns = partial ? new Set([...p.columns].filter((c) => !partial.has(c))) : p.columns;
  return { columns, filter: p.filter, limit: p.limit };
}

/**
 * A relationship's join as the role sees its columns: an inherited role's join column hidden in a
 * row reads null there and joins nothing, as in GraphQL (PlanContext.join).
 */
export function visibleJoin(env: DmlEnv, local: TableInfo, remote: TableInfo, join: RelationshipJoin): RelationshipJoin {
  if (env.session.isAdmin) return join;
  return new PlanContext(env.cache, roleOf(env), false).join(local, remote, join);
}

export function requireSelect(env: DmlEnv, table: TableInfo, suffix = ''): SelectPerm {
  const p = selectPermOf(env, table);
  if (!p) throw permissionDenied(env, 'select', table, suffix);
  return p;
}

/** Hasura's checkPermOnCol: admin → the column does not exist; others → no permission. */
export function columnNotAllowed(env: DmlEnv, kind: string, column: string, path: string): ApiError {
  if (env.session.isAdmin) return new ApiError('not-exists', `no such column exists: ${quote(column)}`, { path });
  return new ApiError('permission-denied', `role ${quote(roleOf(env))} does not have permission to ${kind} column ${quote(column)}`, { path });
}

export function checkSelectColumn(env: DmlEnv, perm: SelectPerm, column: string, path: string): void {
  if (!perm.columns.has(column)) throw columnNotAllowed(env, 'select', column, path);
}

/** A column of `table` for writing (`$set`, objects): it must exist and not be a relationship. */
export function writableColumn(table: TableInfo, name: string, path: string): ColumnInfo {
  const col = table.columnsByName.get(name);
  if (col?.isGenerated) throw new ApiError('validation-failed', `column ${quote(name)} is a generated column and cannot be written`, { path });
  if (col) return col;
  if (table.relationships.has(name)) {
    throw new ApiError('unexpected-payload', `expecting a database column; but, ${quote(name)} is a relationship`, { path });
  }
  throw new ApiError('not-exists', `column ${quote(name)} does not exist`, { path });
}

/** A JSON value for `column`, cast to its type. */
export function jsonValue(column: ColumnInfo, value: unknown): IrValue {
  return { source: { kind: 'value', value: columnParamValue(column, value) }, pgType: columnCastType(column) };
}

/** A column in a response row (big numbers as strings when the server stringifies them). */
export function columnField(env: DmlEnv, column: ColumnInfo, alias = column.name): SelectField {
  const f: SelectField = { alias, kind: 'column', column: column.name, pgType: column.pgType };
  if (env.stringify && isBigNumType(column.pgType)) f.stringify = true;
  return f;
}

/** `returning` columns: each must exist and be selectable. */
export function returningFields(env: DmlEnv, table: TableInfo, perm: SelectPerm, columns: string[]): SelectField[] {
  // Hasura's checkRetCols runs under `withPathK "returning"` without an index: errors are at `$.args.returning`.
  const path = `${env.path}.returning`;
  return columns.map((name) => {
    checkSelectColumn(env, perm, name, path);
    const col = table.columnsByName.get(name);
    if (!col) throw new ApiError('not-exists', `no such column exists: ${quote(name)}`, { path });
    return columnField(env, col);
  });
}

/** `where` → BoolExp with the role's select permissions applied (the table's own filter is not added). */
export function parseWhere(env: DmlEnv, table: TableInfo, perm: SelectPerm, where: JsonObject | undefined, path: string): BoolExp {
  if (!where) return TRUE;
  const exp = parseBoolExp(where, table, { tables: env.cache.tables, mode: 'dml' }, path).exp;
  return env.session.isAdmin ? exp : applySelectPerms(env, table, perm, table, perm, exp, path);
}

function applySelectPerms(env: DmlEnv, table: TableInfo, perm: SelectPerm, root: TableInfo, rootPerm: SelectPerm, exp: BoolExp, path: string): BoolExp {
  const walk = (e: BoolExp): BoolExp => applySelectPerms(env, table, perm, root, rootPerm, e, path);
  switch (exp.kind) {
    case 'true':
      return exp;
    case 'and':
    case 'or':
      return { kind: exp.kind, items: exp.items.map(walk) };
    case 'not':
      return { kind: 'not', item: walk(exp.item) };
    case 'compare':
    case 'is_null':
      checkSelectColumn(env, perm, exp.column.column, path);
      return exp;
    case 'compare_column':
      checkSelectColumn(env, perm, exp.column.column, path);
      checkSelectColumn(env, exp.otherIsRoot ? rootPerm : perm, exp.other.column, path);
      return exp;
    case 'exists_rel': {
      const remote = env.cache.tables.get(`${exp.rel.remoteTable.schema}.${exp.rel.remoteTable.name}`);
      const remotePerm = remote ? selectPermOf(env, remote) : undefined;
      if (!remote || !remotePerm) {
        const rel = [...table.relationships.values()].find((r) => r.join === exp.rel);
        const what = rel ? `read relationship ${quote(rel.name)}` : `read table ${quoteTable(exp.rel.remoteTable)}`;
        throw new ApiError('permission-denied',
          `role ${quote(roleOf(env))} does not have permission to ${what}; no permission on table ${quoteTable(exp.rel.remoteTable)}`, { path });
      }
      const inner = applySelectPerms(env, remote, remotePerm, root, rootPerm, exp.where, path);
      return { kind: 'exists_rel', rel: visibleJoin(env, table, remote, exp.rel), where: andAll([inner, remotePerm.filter]) };
    }
    case 'exists_fn': // only permission filters hold computed fields; a DML `where` never does
      return exp;
  }
}
