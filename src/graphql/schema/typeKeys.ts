/**
 * A key per named type of a role schema, computed from the type's name and the role's permissions,
 * WITHOUT making the type: two role schemas of caches with one structure (`structureKey`) whose types of
 * one name have equal keys have equal types (the same fields, arguments and descriptions, naming the same
 * types), so their introspection texts can be shared (`typeTexts.ts`) and the second one need not make it.
 *
 * What decides a table's generated types (`<t>`, `<t>_bool_exp`, `<t>_insert_input`, `<t>_on_conflict`…)
 * for one role: the table itself (in the structure), the role's permissions on it and on the tables its
 * relationships and computed fields lead to (whether the role may select / insert into / update them,
 * which columns, which computed fields), whether the role is admin, whether the schema is a trusted
 * backend's, the parts it is made of, and what the metadata outside the tables gives the role (action and
 * remote-schema permissions, its inherited-role definition). Row filters, checks and limits decide no type.
 * `allow_aggregations` of a related table decides only `<t>` (its `<rel>_aggregate` fields) and
 * `<t>_order_by` (its `<rel>_aggregate` ordering): so a role that may aggregate shares every other type of
 * a table with one that may not.
 *
 * A type is found to be a table's by its name: every table whose GraphQL name the type's name starts with
 * is a candidate, and the key covers all of them (a name that some other table's name also starts with
 * only makes the key stricter); a name no table's name begins is the same type for every role (scalars,
 * enums, comparison expressions) but a built-in scalar's comparison expression. No key (so no sharing) for
 * the roots, for names of custom types, and for
 * every type of a schema whose types are not all generated from tables this way: remote schemas and
 * remote relationships, other sources and relationships to them, native queries, source type-name
 * customization, the `graphql-default` naming convention, the Relay API.
 */
import { createHash } from 'node:crypto';
import { ADMIN_ROLE, qualifiedKey } from '../../core/index.js';
import type { RolePermissions, SchemaCache, TableInfo } from '../../metadata/index.js';
import { roleRestKey } from './schemaShape.js';

/** What the keys read of a schema's parts (`SchemaParts`, context.ts). */
interface PartsLike {
  readonly tableInterfaces?: unknown;
}

/** Which parts a schema is made of, as a number (the engine has two or three `SchemaParts` objects). */
const partsIds = new WeakMap<PartsLike, number>();
let nextPartsId = 0;
function partsId(parts: PartsLike): number {
  let id = partsIds.get(parts);
  if (id === undefined) partsIds.set(parts, (id = ++nextPartsId));
  return id;
}

/** What no type shows: row filters, checks, limits; and `allowAggregations`, added back where it counts. */
const NOT_TYPES = new Set(['filter', 'check', 'limit', 'allowAggregations']);
const typeReplacer = (key: string, value: unknown): unknown => {
  if (NOT_TYPES.has(key)) return undefined;
  if (value instanceof Map) return [...value];
  if (value instanceof Set) return [...value].sort();
  return value;
};

const permTexts = new WeakMap<RolePermissions, string>();
/** A role's permissions on a table as the types see them (memoised per object: builds keep unchanged tables' objects). */
function permText(p: RolePermissions | undefined): string {
  if (!p) return '-';
  let t = permTexts.get(p);
  if (t === undefined) permTexts.set(p, (t = JSON.stringify(p, typeReplacer)));
  return t;
}

/** Per cache: table GraphQL name → tables, and whether its schemas can be keyed at all. */
interface CacheNames {
  byName: Map<string, TableInfo[]>;
  /** The longest table GraphQL name (candidates are the name's prefixes up to it). */
  longest: number;
  excluded: Set<string>;
  keyed: boolean;
}
const cacheNames = new WeakMap<SchemaCache, CacheNames>();

function namesOf(sc: SchemaCache): CacheNames {
  let n = cacheNames.get(sc);
  if (n) return n;
  const keyed = sc.namingConvention !== 'graphql-default' && !sc.sourceTypeNames
    && (sc.sources?.size ?? 0) === 0 && (sc.sourceRelationships?.size ?? 0) === 0
    && (sc.remoteSchemas?.size ?? 0) === 0 && (sc.nativeQueries?.size ?? 0) === 0;
  const byName = new Map<string, TableInfo[]>();
  let longest = 0;
  for (const t of sc.tables.values()) {
    const list = byName.get(t.gqlName);
    if (list) list.push(t);
    else byName.set(t.gqlName, [t]);
    if (t.gqlName.length > longest) longest = t.gqlName.length;
  }
  const excluded = new Set<string>(['query_root', 'mutation_root', 'subscription_root']);
  for (const name of sc.customTypes?.objects.keys() ?? []) excluded.add(name);
  for (const name of sc.customTypes?.inputNames ?? []) excluded.add(name);
  n = { byName, longest, excluded, keyed };
  cacheNames.set(sc, n);
  return n;
}

/** The tables a table's types refer to: its relationships' and its table computed fields' targets. */
function neighbours(sc: SchemaCache, t: TableInfo): TableInfo[] {
  const out: TableInfo[] = [];
  for (const rel of t.relationships.values()) {
    const r = sc.tables.get(qualifiedKey(rel.join.remoteTable));
    if (r) out.push(r);
  }
  for (const cf of t.computedFields.values()) {
    if (cf.returns.kind !== 'table') continue;
    const r = sc.tables.get(qualifiedKey(cf.returns.table));
    if (r) out.push(r);
  }
  return out;
}

const BUILTIN_COMPARISONS = /^(Int|Float|String|Boolean|ID)_comparison_exp$/;

/** Whether the type named `name` of table `t` reads `allow_aggregations` of the tables it refers to. */
const readsAggregations = (t: TableInfo, name: string): boolean => name === t.gqlName || name === `${t.gqlName}_order_by`;

/**
 * The type keyer of one role schema's build: `name → key` (undefined: not shared). Keys of one keyer are
 * comparable with another's only under one structure key (the caller scopes them by it).
 */
export function typeKeyer(sc: SchemaCache, role: string, parts: PartsLike, backendOnly: boolean): ((name: string) => string | undefined) | undefined {
  const names = namesOf(sc);
  if (!names.keyed || parts.tableInterfaces) return undefined;
  const admin = role === ADMIN_ROLE;
  const base = `${partsId(parts)}${backendOnly ? 'b' : ''}\u0000${admin ? ADMIN_ROLE : roleRestKey(sc, role)}`;
  /** Per table: the digest of the role's permissions on it and its neighbours (without, with their aggregations). */
  const digests = new Map<TableInfo, [string?, string?]>();
  const digest = (t: TableInfo, aggregations: boolean): string => {
    if (admin) return ADMIN_ROLE;
    let d = digests.get(t);
    if (!d) digests.set(t, (d = []));
    const i = aggregations ? 1 : 0;
    let v = d[i];
    if (v === undefined) {
      const h = createHash('sha1');
      const add = (x: TableInfo): void => {
        const p = x.permissions.get(role);
        h.update(qualifiedKey(x.name)).update('\u0000').update(permText(p)).update(aggregations ? (p?.select?.allowAggregations ? '\u0001' : '\u0002') : '').update('\u0000');
      };
      add(t);
      for (const r of neighbours(sc, t)) add(r);
      v = d[i] = h.digest('base64');
    }
    return v;
  };
  return (name) => {
    if (names.excluded.has(name) || name.startsWith('__')) return undefined;
    let key = '';
    const max = Math.min(name.length, names.longest);
    for (let len = 1; len <= max; len++) {
      const tables = names.byName.get(name.slice(0, len));
      if (tables) for (const t of tables) key += `\u0000${digest(t, readsAggregations(t, name))}`;
    }
    // A name no table's name begins: a scalar, `order_by`, `conflict_action`, `numeric_comparison_exp`, a
    // function's `_args`: the same for every role. Not a built-in scalar's comparison expression: several
    // Postgres types are `String`, and the first column a role sees decides its `_like` family.
    if (key === '') return BUILTIN_COMPARISONS.test(name) ? undefined : `${name}\u0000*`;
    return `${name}\u0000${base}${key}`;
  };
}
