/**
 * Argument decoders of the v1 DML operations, shaped like Hasura v1.3's `RQL/Types/DML.hs`
 * records (errors in aeson's words, paths relative to `args` as `$`):
 *
 *   select {table, columns, where?, order_by?, limit?, offset?}   columns: "col" | "*" | "*.*" | {name, alias?, columns, where?, ...}
 *   count  {table, distinct?, where?}
 *   insert {table, objects, on_conflict?: {constraint? | constraint_on?, action}, returning?}
 *   update {table, where, $set? (or values), $inc?, $mul?, $default?, returning?}
 *   delete {table, where, returning?}
 *
 * Only structure is checked here; names are resolved against the schema cache when the
 * operation runs (errors then point at `$.args…`).
 */
import { ApiError, parseQualifiedName, pathKey, type QualifiedTable } from '../../core/index.js';
import { asArray, asInt, asObject, asString, isObject, jsonTypeName, optional, parseError, required, type JsonObject } from '../../metadata/index.js';

/** `path` of a select column: relative to `args` (`.columns[2]`), made absolute when the operation runs. */
export type SelectColumn =
  | { kind: 'column'; name: string; path: string }
  /** `*` (depth 1), `*.*` (depth 2)...: every column, and at depth > 1 every relationship expanded. */
  | { kind: 'star'; depth: number; path: string }
  | { kind: 'rel'; name: string; alias?: string; query: SelectQuery; path: string };

export interface OrderByEntry {
  /** `["author", "name"]` for `author.name`. */
  column: string[];
  direction?: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

export interface SelectQuery {
  columns: SelectColumn[];
  where?: JsonObject;
  orderBy?: OrderByEntry[];
  limit?: number;
  offset?: number;
  /** Which of where/order_by/limit/offset were given (object relationships allow none). */
  given: string[];
}

export interface SelectArgs extends SelectQuery {
  table: QualifiedTable;
}

export interface CountArgs {
  table: QualifiedTable;
  distinct?: string[];
  where?: JsonObject;
}

export interface OnConflictArgs {
  constraint?: string;
  constraintOn?: string[];
  action: 'ignore' | 'update';
}

export interface InsertArgs {
  table: QualifiedTable;
  objects: unknown;
  onConflict?: OnConflictArgs;
  returning?: string[];
}

export interface UpdateArgs {
  table: QualifiedTable;
  where: JsonObject;
  set: JsonObject;
  inc: JsonObject;
  mul: JsonObject;
  defaults: string[];
  returning?: string[];
}

export interface DeleteArgs {
  table: QualifiedTable;
  where: JsonObject;
  returning?: string[];
}

const asColumnList = (v: unknown, path: string): string[] => asArray(v, path).map((x, i) => asString(x, pathKey(path, i)));

function decodeSelectColumn(v: unknown, path: string, root: string): SelectColumn {
  const rel = path.slice(root.length);
  if (typeof v === 'string') {
    if (/^\*(\.\*)*$/.test(v)) return { kind: 'star', depth: v.split('.').length, path: rel };
    return { kind: 'column', name: v, path: rel };
  }
  if (isObject(v)) {
    const name = required(v, 'name', path, asString);
    const alias = optional(v, 'alias', path, asString);
    const col: SelectColumn = { kind: 'rel', name, query: decodeSelectQuery(v, path, root), path: rel };
    if (alias !== undefined) col.alias = alias;
    return col;
  }
  throw parseError('A column should either be a string or an object (relationship)', path);
}

function decodeOrderByEntry(v: unknown, path: string): OrderByEntry {
  if (typeof v === 'string') {
    let text = v;
    let direction: OrderByEntry['direction'];
    if (text.startsWith('+')) { direction = 'asc'; text = text.slice(1); }
    else if (text.startsWith('-')) { direction = 'desc'; text = text.slice(1); }
    const entry: OrderByEntry = { column: text === '' ? [] : text.split('.') };
    if (direction) entry.direction = direction;
    return entry;
  }
  const o = asObject(v, path);
  const column = required(o, 'column', path, asString);
  const entry: OrderByEntry = { column: column === '' ? [] : column.split('.') };
  const type = optional(o, 'type', path, asString);
  if (type !== undefined) {
    if (type !== 'asc' && type !== 'desc') throw parseError('expecting asc or desc', pathKey(path, 'type'));
    entry.direction = type;
  }
  const nulls = optional(o, 'nulls', path, asString);
  if (nulls !== undefined) {
    if (nulls !== 'first' && nulls !== 'last') throw parseError('expecting first or last', pathKey(path, 'nulls'));
    entry.nulls = nulls;
  }
  return entry;
}

function decodeOrderBy(v: unknown, path: string): OrderByEntry[] {
  if (Array.isArray(v)) return v.map((x, i) => decodeOrderByEntry(x, pathKey(path, i)));
  return [decodeOrderByEntry(v, path)];
}

const asWhere = (v: unknown, path: string): JsonObject => asObject(v, path);


function decodeSelectQuery(o: JsonObject, path: string, root: string): SelectQuery {
  const q: SelectQuery = {
    columns: required(o, 'columns', path, (v, p) => asArray(v, p).map((x, i) => decodeSelectColumn(x, pathKey(p, i), root))),
    given: ['where', 'order_by', 'limit', 'offset'].filter((k) => o[k] !== undefined && o[k] !== null),
  };
  const where = optional(o, 'where', path, asWhere);
  if (where) q.where = where;
  const orderBy = optional(o, 'order_by', path, decodeOrderBy);
  if (orderBy) q.orderBy = orderBy;
  const limit = optional(o, 'limit', path, asInt);
  if (limit !== undefined) q.limit = limit;
  const offset = optional(o, 'offset', path, asInt);
  if (offset !== undefined) q.offset = offset;
  return q;
}

export function decodeSelectArgs(args: unknown, path: string): SelectArgs {
  const o = asObject(args, path);
  const table = required(o, 'table', path, parseQualifiedName);
  return { table, ...decodeSelectQuery(o, path, path) };
}

export function decodeCountArgs(args: unknown, path: string): CountArgs {
  const o = asObject(args, path);
  const out: CountArgs = { table: required(o, 'table', path, parseQualifiedName) };
  const distinct = optional(o, 'distinct', path, asColumnList);
  if (distinct) out.distinct = distinct;
  const where = optional(o, 'where', path, asWhere);
  if (where) out.where = where;
  return out;
}

function decodeOnConflict(v: unknown, path: string): OnConflictArgs {
  const o = asObject(v, path);
  if (!('action' in o)) throw parseError("the key 'action' was not present", path);
  const action = o.action;
  if (action !== 'ignore' && action !== 'update') throw parseError("Expecting 'ignore' or 'update'", pathKey(path, 'action'));
  const out: OnConflictArgs = { action };
  const constraint = optional(o, 'constraint', path, asString);
  if (constraint !== undefined) out.constraint = constraint;
  const on = optional(o, 'constraint_on', path, (x, p) => {
    if (typeof x === 'string') return [x];
    if (Array.isArray(x)) return asColumnList(x, p);
    throw parseError(`Expecting String or Array, encountered ${jsonTypeName(x)}`, p);
  });
  if (on !== undefined) out.constraintOn = on;
  return out;
}

export function decodeInsertArgs(args: unknown, path: string): InsertArgs {
  const o = asObject(args, path);
  const out: InsertArgs = {
    table: required(o, 'table', path, parseQualifiedName),
    objects: required(o, 'objects', path, (x) => x),
  };
  const onConflict = optional(o, 'on_conflict', path, decodeOnConflict);
  if (onConflict) out.onConflict = onConflict;
  const returning = optional(o, 'returning', path, asColumnList);
  if (returning) out.returning = returning;
  return out;
}

const asObjectMap = (v: unknown, path: string): JsonObject => asObject(v, path);

export function decodeUpdateArgs(args: unknown, path: string): UpdateArgs {
  const o = asObject(args, path);
  const out: UpdateArgs = {
    table: required(o, 'table', path, parseQualifiedName),
    where: required(o, 'where', path, asWhere),
    set: optional(o, '$set', path, asObjectMap) ?? optional(o, 'values', path, asObjectMap) ?? {},
    inc: optional(o, '$inc', path, asObjectMap) ?? {},
    mul: optional(o, '$mul', path, asObjectMap) ?? {},
    defaults: optional(o, '$default', path, asColumnList) ?? [],
  };
  const returning = optional(o, 'returning', path, asColumnList);
  if (returning) out.returning = returning;
  return out;
}

export function decodeDeleteArgs(args: unknown, path: string): DeleteArgs {
  const o = asObject(args, path);
  const out: DeleteArgs = {
    table: required(o, 'table', path, parseQualifiedName),
    where: required(o, 'where', path, asWhere),
  };
  const returning = optional(o, 'returning', path, asColumnList);
  if (returning) out.returning = returning;
  return out;
}
