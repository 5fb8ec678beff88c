/**
 * Decoders for the four permission kinds (`select`, `insert`, `update`, `delete`) and the
 * `{role, permission, comment}` wrapper. Boolean expressions stay raw JSON objects here; they are
 * resolved against the database when the schema cache is built (see ../boolExp.ts).
 */
import { pathKey } from '../../core/index.js';
import type {
  DeletePermission,
  InsertPermission,
  PermissionMetadata,
  SelectPermission,
  UpdatePermission,
  BoolExpJson,
} from './metadata.js';
import { asBool, asInt, asObject, asString, asStringArray, optional, parseError, required } from './json.js';

export type PermType = 'insert' | 'select' | 'update' | 'delete';
export const PERM_TYPES: readonly PermType[] = ['insert', 'select', 'update', 'delete'];

export type AnyPermission = SelectPermission | InsertPermission | UpdatePermission | DeletePermission;

/** `"*"` or a list of column names. */
export function decodeColumns(v: unknown, path: string): string[] | '*' {
  if (v === '*') return '*';
  if (typeof v === 'string') throw parseError('expected Array, encountered String', path);
  return asStringArray(v, path);
}

export function decodeBoolExpJson(v: unknown, path: string): BoolExpJson {
  return asObject(v, path);
}

function decodePresets(v: unknown, path: string): Record<string, unknown> {
  return { ...asObject(v, path) };
}

export function decodeSelectPermission(v: unknown, path: string): SelectPermission {
  const o = asObject(v, path);
  const limit = optional(o, 'limit', path, asInt);
  if (limit !== undefined && limit < 0) throw parseError('unexpected negative value', pathKey(path, 'limit'));
  const out: SelectPermission = {
    columns: required(o, 'columns', path, decodeColumns),
    filter: required(o, 'filter', path, decodeBoolExpJson),
    allow_aggregations: optional(o, 'allow_aggregations', path, asBool) ?? false,
    computed_fields: optional(o, 'computed_fields', path, asStringArray) ?? [],
  };
  if (limit !== undefined) out.limit = limit;
  return out;
}

export function decodeInsertPermission(v: unknown, path: string): InsertPermission {
  const o = asObject(v, path);
  const out: InsertPermission = { check: required(o, 'check', path, decodeBoolExpJson) };
  const set = optional(o, 'set', path, decodePresets);
  if (set !== undefined) out.set = set;
  const columns = optional(o, 'columns', path, decodeColumns);
  if (columns !== undefined) out.columns = columns;
  out.backend_only = optional(o, 'backend_only', path, asBool) ?? false;
  // Pre-1.0 `allow_upsert`: kept so old metadata keeps its upserts.
  if (optional(o, 'allow_upsert', path, asBool)) out.allow_upsert = true;
  return out;
}

export function decodeUpdatePermission(v: unknown, path: string): UpdatePermission {
  const o = asObject(v, path);
  const out: UpdatePermission = {
    columns: required(o, 'columns', path, decodeColumns),
    filter: required(o, 'filter', path, decodeBoolExpJson),
  };
  const check = optional(o, 'check', path, decodeBoolExpJson);
  if (check !== undefined) out.check = check;
  const set = optional(o, 'set', path, decodePresets);
  if (set !== undefined) out.set = set;
  if (optional(o, 'backend_only', path, asBool)) out.backend_only = true;
  return out;
}

export function decodeDeletePermission(v: unknown, path: string): DeletePermission {
  const o = asObject(v, path);
  const out: DeletePermission = { filter: required(o, 'filter', path, decodeBoolExpJson) };
  if (optional(o, 'backend_only', path, asBool)) out.backend_only = true;
  return out;
}

export const permissionDecoders: { [K in PermType]: (v: unknown, path: string) => AnyPermission } = {
  select: decodeSelectPermission,
  insert: decodeInsertPermission,
  update: decodeUpdatePermission,
  delete: decodeDeletePermission,
};

/**
 * Equal permissions decoded inside `sharingPermissions` are one object (a document of thousands of tables
 * often gives every table and several roles the same permission: one object each instead of tens of
 * thousands). Safe because a decoded document is never edited in place (operations edit copy-on-write drafts).
 */
let shared: Map<string, unknown> | undefined;

/**
 * Runs `decode` with equal permissions (and role names) decoded as one shared object (see `shared`); `pool`
 * carries the sharing across several calls (a document decoded a slice per event-loop turn).
 */
export function sharingPermissions<T>(decode: () => T, pool: Map<string, unknown> = new Map()): T {
  if (shared) return decode();
  shared = pool;
  try {
    return decode();
  } finally {
    shared = undefined;
  }
}

const share = <T>(key: string, value: T): T => {
  if (!shared) return value;
  const known = shared.get(key);
  if (known !== undefined) return known as T;
  shared.set(key, value);
  return value;
};

/** `{role, permission, comment?}` for one permission kind. */
export function decodePermissionDef<P extends AnyPermission>(type: PermType, v: unknown, path: string): PermissionMetadata<P> {
  const o = asObject(v, path);
  const role = required(o, 'role', path, asString);
  const permission = required(o, 'permission', path, permissionDecoders[type]) as P;
  return {
    role: share(`r\0${role}`, role),
    permission: shared ? share(`${type}\0${JSON.stringify(permission)}`, permission) : permission,
    comment: optional(o, 'comment', path, asString) ?? null,
  };
}
