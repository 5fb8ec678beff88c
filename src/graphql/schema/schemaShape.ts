/**
 * What a role's GraphQL schema is built from, as two keys, so roles and schema caches can share one
 * built schema:
 *   - `structureKey(cache)`: everything every role's schema reads except the tables' permissions
 *     (tables, columns, relationships, computed fields, functions, enum values, custom names, the
 *     metadata outside the tables: actions, custom types, remote schemas and their permissions,
 *     the naming convention);
 *   - `roleShapeKey(cache, role)`: the role's resolved permissions on every table (inherited roles
 *     combined), filters and checks included, and what the rest of the metadata gives the role
 *     (action, function and remote-schema permissions, its inherited-role definition), so a schema shared under one key plans identically
 *     for every role and cache that has it (the planner reads a role's permissions from the
 *     table objects the schema's fields carry).
 * Two roles with equal keys get the same schema; a metadata change that leaves both keys of a role
 * equal keeps that role's schema (and its cached introspection) across the new cache.
 * Both are sha1 digests, computed once per cache (and role).
 */
import { createHash, type Hash } from 'node:crypto';
import { ADMIN_ROLE } from '../../core/index.js';
import type { TurnBudget } from '../../lib/index.js';
import type { RolePermissions, SchemaCache, TableInfo } from '../../metadata/index.js';

const replacer = (key: string, value: unknown): unknown => {
  if (value instanceof Map) return [...value];
  if (value instanceof Set) return [...value].sort();
  return value;
};

/** Object identities as numbers (remote introspections are reused across builds while unchanged). */
const ids = new WeakMap<object, number>();
let nextId = 0;
const idOf = (o: object): number => {
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = ++nextId));
  return id;
};

const tableDigests = new WeakMap<TableInfo, string>();

/** One table without its permissions (memoised per table object: builds may reuse them). */
function tableDigest(t: TableInfo): string {
  let d = tableDigests.get(t);
  if (d === undefined) {
    const { permissions: _p, columnsByName: _c, ...rest } = t;
    d = createHash('sha1').update(JSON.stringify(rest, replacer)).digest('base64');
    tableDigests.set(t, d);
  }
  return d;
}

const structures = new WeakMap<SchemaCache, string>();

export function structureKey(cache: SchemaCache): string {
  let key = structures.get(cache);
  if (key !== undefined) return key;
  const h = createHash('sha1');
  for (const [k, t] of cache.tables) h.update(k).update('\0').update(tableDigest(t)).update('\0');
  const { tables: _t, ...rest } = cache.metadata;
  h.update(JSON.stringify(rest, replacer));
  h.update(JSON.stringify([...cache.functions], replacer));
  for (const [name, r] of cache.remoteInputs ?? []) h.update(`\0${name}:${idOf(r)}`);
  h.update(`\0${cache.namingConvention ?? ''}`);
  // Every further source's tables and functions as its database has them (absent when unreadable).
  for (const [name, sc] of cache.sources ?? []) {
    h.update(`\0source:${name}\0${sc.namingConvention ?? ''}\0`);
    for (const [k, t] of sc.tables) h.update(k).update('\0').update(tableDigest(t)).update('\0');
    h.update(JSON.stringify([...sc.functions], replacer));
    h.update(JSON.stringify(sc.sourceRelationships ?? null, replacer));
  }
  // The relationships to a source's table that resolved (their targets' structure is hashed above).
  h.update(JSON.stringify(cache.sourceRelationships ?? null, replacer));
  key = h.digest('base64');
  structures.set(cache, key);
  return key;
}

/** What no schema shows: the row filters, checks and limits (the planner reads them at plan time). */
const ROW_RULES = new Set(['filter', 'check', 'limit']);
const shapeReplacer = (key: string, value: unknown): unknown => (ROW_RULES.has(key) ? undefined : replacer(key, value));

/**
 * What the role keys of one cache are computed from, without the cache: each table's permissions by role
 * (the table's own map: a build that changes a table's permissions gives it a new one) and the metadata
 * outside the tables; and the keys computed so far.
 */
interface KeySource {
  tables: Array<[string, ReadonlyMap<string, RolePermissions>]>;
  rest: object;
  keys: Map<string, string>;
}

const keySources = new WeakMap<SchemaCache, KeySource>();

function keySource(cache: SchemaCache): KeySource {
  let src = keySources.get(cache);
  if (!src) {
    const { tables: _t, ...rest } = cache.metadata;
    src = { tables: [...cache.tables].map(([k, t]) => [k, t.permissions]), rest, keys: new Map() };
    keySources.set(cache, src);
  }
  return src;
}

function keyOf(src: KeySource, role: string, rows: boolean): string {
  if (role === ADMIN_ROLE) return ADMIN_ROLE;
  const memoKey = rows ? `${role}\0rows` : role;
  let key = src.keys.get(memoKey);
  if (key !== undefined) return key;
  const h: Hash = createHash('sha1');
  for (const [k, perms] of src.tables) {
    const p = perms.get(role);
    if (p) h.update(k).update('\0').update(permissionText(p, rows)).update('\0');
  }
  // What the metadata outside the tables gives this role (action, function and remote-schema
  // permissions, its inherited-role definition): every `[{role, …}]` list kept to this role's entries.
  h.update(JSON.stringify(src.rest, (k, v: unknown) => {
    if (!Array.isArray(v) || v.length === 0 || !v.every((x) => x !== null && typeof x === 'object' && ('role' in x || 'role_name' in x))) return replacer(k, v);
    return v.filter((x: { role?: unknown; role_name?: unknown }) => x.role === role || x.role_name === role);
  }));
  key = h.digest('base64');
  src.keys.set(memoKey, key);
  return key;
}

/**
 * A role's permissions on one table as a digest of their text (memoised per object: incremental builds keep unchanged
 * tables' objects; the digest, not the text, is kept: at 5,000 tables the texts of five roles were ~10 MB).
 */
const permissionTexts = new WeakMap<RolePermissions, { shape?: string; rows?: string }>();
const digestOf = (text: string): string => createHash('sha1').update(text).digest('base64');
function permissionText(p: RolePermissions, rows: boolean): string {
  let t = permissionTexts.get(p);
  if (!t) permissionTexts.set(p, (t = {}));
  if (rows) return (t.rows ??= digestOf(JSON.stringify(p, replacer)));
  return (t.shape ??= digestOf(JSON.stringify(p, shapeReplacer)));
}

/**
 * The role's permissions as a key. `rows`: with the row filters, checks and limits (two roles of one
 * cache whose keys without them are equal have the same schema; a schema kept across caches needs
 * the role's key with them equal, as the planner reads them from the tables the schema was built on).
 */
export function roleShapeKey(cache: SchemaCache, role: string, rows = false): string {
  return keyOf(keySource(cache), role, rows);
}

/**
 * `role => roleShapeKey(cache, role, true)`, computed when asked (a role's key costs a pass over every
 * table) from what the cache's keys are made of, without holding the cache itself alive.
 */
export function rowKeysOf(cache: SchemaCache): (role: string) => string {
  const src = keySource(cache);
  return (role) => keyOf(src, role, true);
}

/**
 * Computes ahead, a slice per event-loop turn, what the keys of `cache` are made of: each table's digest
 * (`structureKey`) and the permission digests (`roleShapeKey`, with and without rows) of `role`, or of every
 * role when none is given, memoised per table and permission object. After `replace_metadata` or
 * `reload_metadata` every table object is new, and the first request on the new cache (any role's) computed
 * them all in one turn (~100–200 ms at 5,000 tables); after an incremental build only the changed tables'
 * are new. With this done before the cache is installed, its keys are a pass over memoised digests.
 */
export async function prepareSchemaKeys(cache: SchemaCache, budget: TurnBudget, role?: string): Promise<void> {
  const tables = [...cache.tables.values(), ...[...(cache.sources?.values() ?? [])].flatMap((sc) => [...sc.tables.values()])];
  for (const t of tables) {
    tableDigest(t);
    if (role === undefined) {
      for (const p of t.permissions.values()) {
        permissionText(p, false);
        permissionText(p, true);
      }
    } else if (role !== ADMIN_ROLE) {
      const p = t.permissions.get(role);
      if (p) {
        permissionText(p, false);
        permissionText(p, true);
      }
    }
    await budget.pause();
  }
  structureKey(cache);
}
