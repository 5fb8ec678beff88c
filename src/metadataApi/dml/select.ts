/**
 * The v1 `select` and `count` operations (Hasura v1.3 `RQL/DML/Select.hs`, `Count.hs`): the
 * requested columns (wildcards `*`, `*.*` expanded over what the role may select), relationships
 * expanded with their own where/order_by/limit/offset (array relationships only), the role's
 * select filter and row limit applied at every level; the rows come back as one JSON array
 * built in Postgres. `count` counts the filtered rows, or their DISTINCT columns.
 */
import { ApiError, pathKey } from '../../core/index.js';
import { andAll, type OrderByItem, type OrderByTarget, type SelectField, type SelectIR } from '../../ir/index.js';
import { compile, compileCount, compileSelect, resolveParams, type SqlFragment } from '../../sql/index.js';
import type { TableInfo } from '../../metadata/index.js';
import type { OpContext } from '../types.js';
import type { CountArgs, OrderByEntry, SelectArgs, SelectColumn, SelectQuery } from './decode.js';
import {
  checkSelectColumn, columnField, parseWhere, quote, quoteTable, requireSelect, roleOf, selectPermOf, tableOf,
  type DmlEnv, type SelectPerm, visibleJoin,
} from './resolve.js';

const unexpected = (message: string, path: string) => new ApiError('unexpected-payload', message, { path });

function remoteOf(env: DmlEnv, table: TableInfo, relName: string, path: string): { remote: TableInfo; perm: SelectPerm } {
  const rel = table.relationships.get(relName)!;
  const remote = env.cache.tables.get(`${rel.join.remoteTable.schema}.${rel.join.remoteTable.name}`);
  const perm = remote ? selectPermOf(env, remote) : undefined;
  if (!remote || !perm) {
    throw new ApiError('permission-denied',
      `role ${quote(roleOf(env))} does not have permission to read relationship ${quote(relName)}; no permission on table ${quoteTable(rel.join.remoteTable)}`,
      { path });
  }
  return { remote, perm };
}

/** Expands wildcards: explicit entries first, then the wildcard's columns (and relationships) not already named. */
function expandColumns(env: DmlEnv, table: TableInfo, perm: SelectPerm, columns: SelectColumn[]): SelectColumn[] {
  const explicit = columns.filter((c): c is Exclude<SelectColumn, { kind: 'star' }> => c.kind !== 'star');
  const depth = Math.max(0, ...columns.map((c) => (c.kind === 'star' ? c.depth : 0)));
  if (depth === 0) return explicit;
  const named = new Set(explicit.map((c) => c.name));
  const out = [...explicit];
  const starPath = columns.find((c) => c.kind === 'star')!.path;
  for (const col of table.columns) {
    if (perm.columns.has(col.name) && !named.has(col.name)) out.push({ kind: 'column', name: col.name, path: starPath });
  }
  if (depth > 1) {
    for (const rel of table.relationships.values()) {
      if (named.has(rel.name)) continue;
      const remote = env.cache.tables.get(`${rel.join.remoteTable.schema}.${rel.join.remoteTable.name}`);
      if (!remote || !selectPermOf(env, remote)) continue;
      out.push({ kind: 'rel', name: rel.name, query: { columns: [{ kind: 'star', depth: depth - 1, path: starPath }], given: [] }, path: starPath });
    }
  }
  return out;
}

function planFields(env: DmlEnv, table: TableInfo, perm: SelectPerm, columns: SelectColumn[]): SelectField[] {
  return expandColumns(env, table, perm, columns).map((entry): SelectField => {
    const c = { ...entry, path: env.path + entry.path };
    if (c.kind === 'star') throw new Error('unexpanded wildcard');
    if (c.kind === 'column') {
      const col = table.columnsByName.get(c.name);
      if (!col && table.relationships.has(c.name)) throw unexpected(`${quote(c.name)} is a relationship and should be expanded`, c.path);
      checkSelectColumn(env, perm, c.name, c.path);
      if (!col) throw new ApiError('not-exists', `no such column exists: ${quote(c.name)}`, { path: c.path });
      return columnField(env, col);
    }
    const rel = table.relationships.get(c.name);
    const namePath = pathKey(c.path, 'name');
    if (!rel) {
      if (table.columnsByName.has(c.name)) throw unexpected(`${quote(c.name)} is a database column and cannot be chained further`, namePath);
      throw new ApiError('not-exists', `relationship ${quote(c.name)} does not exist`, { path: namePath });
    }
    const { remote, perm: remotePerm } = remoteOf(env, table, c.name, namePath);
    const alias = c.alias ?? c.name;
    if (rel.type === 'object') {
      if (c.query.given.length > 0) throw unexpected("when selecting an object relationship, where, order_by, limit and offset can't be used", c.path);
      const select: SelectIR = { table: remote.name, fields: planFields(env, remote, remotePerm, c.query.columns), where: remotePerm.filter };
      return { alias, kind: 'object_rel', join: visibleJoin(env, table, remote, rel.join), select };
    }
    return { alias, kind: 'array_rel', join: visibleJoin(env, table, remote, rel.join), select: planQuery(env, remote, remotePerm, c.query, c.path) };
  });
}

function orderTarget(env: DmlEnv, table: TableInfo, perm: SelectPerm, names: string[], path: string): OrderByTarget {
  const [first, ...rest] = names;
  if (first === undefined) throw unexpected("can't be empty", pathKey(path, 'column'));
  const col = table.columnsByName.get(first);
  const rel = table.relationships.get(first);
  if (rest.length === 0) {
    if (col) {
      checkSelectColumn(env, perm, first, path);
      return { kind: 'column', column: first };
    }
    if (rel) throw unexpected(`${quote(first)} is a relationship and should be expanded`, path);
    throw new ApiError('not-exists', `no such column exists: ${quote(first)}`, { path });
  }
  if (col) throw unexpected(`${quote(first)} is a database column and cannot be chained further`, path);
  if (!rel) throw new ApiError('not-exists', `relationship ${quote(first)} does not exist`, { path });
  if (rel.type === 'array') throw unexpected(`${quote(first)} is an array relationship and can't be used in order_by`, path);
  const { remote, perm: remotePerm } = remoteOf(env, table, first, path);
  return { kind: 'object_rel', join: visibleJoin(env, table, remote, rel.join), filter: remotePerm.filter, target: orderTarget(env, remote, remotePerm, rest, path) };
}

function planOrderBy(env: DmlEnv, table: TableInfo, perm: SelectPerm, entries: OrderByEntry[], path: string): OrderByItem[] {
  if (entries.length === 0) throw unexpected('order_by array should not be empty', path);
  return entries.map((e, i) => {
    const item: OrderByItem = { target: orderTarget(env, table, perm, e.column, pathKey(path, i)), direction: e.direction ?? 'asc' };
    if (e.nulls) item.nulls = e.nulls;
    return item;
  });
}

/** A select over `table` (root, or an array relationship): fields, filter AND where, order, limit, offset. */
function planQuery(env: DmlEnv, table: TableInfo, perm: SelectPerm, q: SelectQuery, path: string): SelectIR {
  const ir: SelectIR = {
    table: table.name,
    fields: planFields(env, table, perm, q.columns),
    where: andAll([perm.filter, parseWhere(env, table, perm, q.where, pathKey(path, 'where'))]),
  };
  if (q.orderBy) ir.orderBy = planOrderBy(env, table, perm, q.orderBy, pathKey(path, 'order_by'));
  // As Hasura's convSelectQ: negative values are refused after the decode, under the op's path (`$.args.limit`).
  nonNegative(q.limit, pathKey(path, 'limit'));
  nonNegative(q.offset, pathKey(path, 'offset'));
  const limit = q.limit === undefined ? perm.limit : perm.limit === null ? q.limit : Math.min(q.limit, perm.limit);
  if (limit !== null && limit !== undefined) ir.limit = limit;
  if (q.offset !== undefined) ir.offset = q.offset;
  return ir;
}

/** Hasura's `onlyPositiveInt`: a negative limit/offset is `not-supported`. */
function nonNegative(n: number | undefined, path: string): void {
  if (n !== undefined && n < 0) throw new ApiError('not-supported', 'unexpected negative value', { path });
}

async function runJson(ctx: OpContext, statement: SqlFragment): Promise<string | null> {
  const { text, params } = compile(statement);
  return ctx.client.queryJsonText(text, resolveParams(params, undefined, ctx.session));
}

/** The rows as a JSON array (text built by Postgres). */
export async function runSelect(ctx: OpContext, env: DmlEnv, args: SelectArgs): Promise<string> {
  const table = tableOf(env, args.table);
  const perm = requireSelect(env, table);
  return (await runJson(ctx, compileSelect(planQuery(env, table, perm, args, env.path)))) ?? '[]';
}

/** `{"count": n}`. */
export async function runCount(ctx: OpContext, env: DmlEnv, args: CountArgs): Promise<string> {
  const table = tableOf(env, args.table);
  const perm = requireSelect(env, table, '; "count" is only allowed if the role has "select" permissions on the table');
  const distinct = args.distinct ?? [];
  distinct.forEach((c, i) => {
    const path = pathKey(`${env.path}.distinct`, i);
    checkSelectColumn(env, perm, c, path);
    if (!table.columnsByName.has(c)) throw new ApiError('not-exists', `no such column exists: ${quote(c)}`, { path });
  });
  const where = andAll([perm.filter, parseWhere(env, table, perm, args.where, `${env.path}.where`)]);
  return (await runJson(ctx, compileCount(table.name, where, distinct))) ?? '{"count":0}';
}
