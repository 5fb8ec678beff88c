/**
 * Root-field name clashes between tables, functions and native queries (Hasura v1.3's `combineRootFields`): when two
 * tracked objects would give the admin role the same `query_root` or `mutation_root` field (a custom
 * root field named like another table's field, a function named like a table...), the metadata
 * change is refused with `following query root fields are duplicated: "x"`. Names only; no schema
 * is built. Admin sees every root field, so checking admin covers every role.
 *
 * The names are those of the cache's naming convention: under `graphql-default` the generated root
 * fields are compared in camelCase (custom root field names as given), with each other and with the
 * remote schemas' root fields. That convention can also merge names that differ under
 * `hasura-default` — columns `user_id` and `userId` of one table both give `userId`, tables
 * `user_account` and `userAccount` both give the type `UserAccount` — which Hasura does not report;
 * here they are refused the same way (`following fields of table "t" are duplicated: "userId"`,
 * `following types are duplicated: "UserAccount"`), so that no field or type silently hides another.
 *
 * The further sources' root fields are compared too, as their customization names them (their own
 * convention, prefix and suffix), or their root-field namespace as one root field (the fields under it
 * compared with each other).
 */
import { ApiError } from '../../core/index.js';
import { customizedRootFieldNames, type SchemaCache, type TableInfo } from '../../metadata/index.js';
import { isGraphqlName, rootFieldNames } from './names.js';
import { mutationFieldNames } from './mutationRoot.js';
import { snakeToCamel, snakeToPascal, withPrefixSuffix } from './namingCase.js';

function duplicates(names: readonly string[]): string[] {
  const seen = new Set<string>();
  const dups = new Set<string>();
  for (const n of names) (seen.has(n) ? dups : seen).add(n);
  return [...dups];
}

/** Query and mutation root field names of the remote schemas of `cache`. */
export function remoteRootFields(cache: SchemaCache): { query: string[]; mutation: string[] } {
  const query: string[] = [];
  const mutation: string[] = [];
  for (const r of cache.remoteSchemas?.values() ?? []) {
    const names = customizedRootFieldNames(r);
    query.push(...names.query);
    mutation.push(...names.mutation);
  }
  return { query, mutation };
}

/** What clashes in the admin role's schema; each list holds the duplicated names (empty: none). */
export interface NameClashes {
  query: string[];
  mutation: string[];
  /** `"field" of table "t"` keys: fields of one table's object type that the convention merges. */
  fields: Array<{ table: string; field: string }>;
  /** Table type names the convention merges. */
  types: string[];
}

const clashesOf = new WeakMap<SchemaCache, NameClashes>();

/**
 * The admin role's duplicated query and mutation root field names (remote schemas' included), and the
 * convention's merged names (memoised per cache: every metadata operation compares the live cache's with its new one's).
 */
export function duplicateRootFields(cache: SchemaCache): NameClashes {
  let c = clashesOf.get(cache);
  if (!c) clashesOf.set(cache, (c = findClashes(cache)));
  return c;
}

function findClashes(cache: SchemaCache): NameClashes {
  const remote = remoteRootFields(cache);
  const db = databaseRootFields(cache);
  const camel = cache.namingConvention === 'graphql-default';
  const src = sourceClashes(cache);
  return {
    query: [...duplicates([...db.query, ...remote.query, ...src.query]), ...src.nestedQuery],
    mutation: [...duplicates([...db.mutation, ...remote.mutation, ...src.mutation]), ...src.nestedMutation],
    fields: [...(camel ? tableFieldClashes(cache) : []), ...src.fields],
    types: [...typeClashes(cache, camel), ...src.types],
  };
}

/**
 * What the further sources put at the root: their root fields as their customization names them (convention,
 * prefix, suffix: withPrefixSuffix), or their namespace field; the names duplicated inside one namespace
 * (`ns.name`); and the fields and types each source's own `graphql-default` merges.
 */
function sourceClashes(cache: SchemaCache): { query: string[]; mutation: string[]; nestedQuery: string[]; nestedMutation: string[]; fields: NameClashes['fields']; types: string[] } {
  const out = { query: [] as string[], mutation: [] as string[], nestedQuery: [] as string[], nestedMutation: [] as string[], fields: [] as NameClashes['fields'], types: [] as string[] };
  for (const sc of cache.sources?.values() ?? []) {
    const rf = sc.sourceRootFields;
    const camel = sc.namingConvention === 'graphql-default';
    const names = databaseRootFields(sc);
    const query = names.query.map((n) => withPrefixSuffix(n, rf, camel));
    const mutation = names.mutation.map((n) => withPrefixSuffix(n, rf, camel));
    const ns = rf?.namespace;
    if (ns === undefined) {
      out.query.push(...query);
      out.mutation.push(...mutation);
    } else {
      if (query.length > 0) out.query.push(ns);
      if (mutation.length > 0) out.mutation.push(ns);
      out.nestedQuery.push(...duplicates(query).map((n) => `${ns}.${n}`));
      out.nestedMutation.push(...duplicates(mutation).map((n) => `${ns}.${n}`));
    }
    if (camel) out.fields.push(...tableFieldClashes(sc));
    out.types.push(...typeClashes(sc, camel));
  }
  return out;
}

/** Table type names the convention merges, and logical models (or native queries with relationships) named like a table's type (or like each other's under the convention). */
function typeClashes(cache: SchemaCache, camel: boolean): string[] {
  const typeName = (n: string) => (camel ? snakeToPascal(n) : n);
  const models = [...(cache.logicalModels?.values() ?? [])].map((m) => typeName(m.gqlName));
  // A native query with relationships has a type of its own, named after its root field: its model's name
  // is allowed while no native query without relationships needs the model's own type.
  const nqs = [...(cache.nativeQueries?.values() ?? [])];
  const modelTypeUsed = new Set(nqs.filter((nq) => !nq.relationships).map((nq) => nq.returns));
  for (const nq of nqs) if (nq.relationships && (nq.rootFieldName !== nq.returns || modelTypeUsed.has(nq.returns))) models.push(typeName(nq.rootFieldName));
  if (!camel && models.length === 0) return [];
  return duplicates([...[...cache.tables.values()].filter((t) => isGraphqlName(t.gqlName)).map((t) => typeName(t.gqlName)), ...models]);
}

/** A generated root field's name under the cache's convention (what the user named is kept). */
function rootCase(cache: SchemaCache, t?: TableInfo): (name: string) => string {
  if (cache.namingConvention !== 'graphql-default') return (name) => name;
  const custom = new Set(t ? Object.values(t.customRootFields) : []);
  return (name) => (custom.has(name) ? name : snakeToCamel(name));
}

/** One table's root field names, per table object and convention (an incremental build keeps the unchanged tables' objects). */
const tableRootNames = new WeakMap<TableInfo, { camel: boolean; query: string[]; mutation: string[] }>();
function tableRootFields(cache: SchemaCache, t: TableInfo, camel: boolean): { query: string[]; mutation: string[] } {
  const known = tableRootNames.get(t);
  if (known && known.camel === camel) return known;
  const named = rootCase(cache, t);
  const q = rootFieldNames(t);
  const m = mutationFieldNames(t);
  const hasPk = (t.primaryKey?.length ?? 0) > 0;
  const query = [q.select, q.selectAggregate, ...(hasPk ? [q.selectByPk] : [])].map(named);
  const mutation: string[] = [];
  if (t.mutability.insertable) mutation.push(named(m.insert), named(m.insertOne));
  if (t.mutability.updatable) mutation.push(...[m.update, m.updateMany, ...(hasPk ? [m.updateByPk] : [])].map(named));
  if (t.mutability.deletable) mutation.push(...[m.delete, ...(hasPk ? [m.deleteByPk] : [])].map(named));
  const names = { camel, query, mutation };
  tableRootNames.set(t, names);
  return names;
}

/** The admin role's query and mutation root field names from tables and functions, as the cache's naming convention gives them. */
export function databaseRootFields(cache: SchemaCache): { query: string[]; mutation: string[] } {
  const query: string[] = [];
  const mutation: string[] = [];
  const camel = cache.namingConvention === 'graphql-default';
  for (const t of cache.tables.values()) {
    if (!isGraphqlName(t.gqlName)) continue;
    const names = tableRootFields(cache, t, camel);
    for (const n of names.query) query.push(n);
    for (const n of names.mutation) mutation.push(n);
  }
  query.push(...functionRootFields(cache));
  return { query, mutation };
}

/** The query root field names of tracked functions (as the convention names them) and native queries (as given). */
function functionRootFields(cache: SchemaCache): string[] {
  const query: string[] = [];
  for (const fn of cache.functions.values()) {
    const returns = cache.tables.get(`${fn.returnTable.schema}.${fn.returnTable.name}`);
    if (!isGraphqlName(fn.gqlName) || !returns) continue;
    const named = rootCase(cache, returns);
    query.push(named(fn.gqlName), named(`${fn.gqlName}_aggregate`));
  }
  for (const nq of cache.nativeQueries?.values() ?? []) if (cache.logicalModels?.has(nq.returns)) query.push(nq.rootFieldName);
  return query;
}

/**
 * Fields of a table's object type that `graphql-default` merges: columns by their camelCase names
 * (custom column names as given), relationships, computed fields and remote relationships by theirs.
 */
function tableFieldClashes(cache: SchemaCache): Array<{ table: string; field: string }> {
  const out: Array<{ table: string; field: string }> = [];
  for (const t of cache.tables.values()) for (const field of fieldClashesOf(t)) out.push({ table: displayName(t), field });
  return out;
}

const displayName = (t: TableInfo): string => (t.name.schema === 'public' ? t.name.name : `${t.name.schema}.${t.name.name}`);

/** The fields of one table's object type that `graphql-default` merges (per table object). */
const fieldClashMemo = new WeakMap<TableInfo, string[]>();
function fieldClashesOf(t: TableInfo): string[] {
  let out = fieldClashMemo.get(t);
  if (!out) {
    const names = [
      ...t.columns.map((c) => (c.gqlName !== c.name ? c.gqlName : snakeToCamel(c.name))),
      ...t.relationships.keys(),
      ...t.computedFields.keys(),
      ...(t.remoteRelationships?.keys() ?? []),
    ];
    fieldClashMemo.set(t, (out = duplicates(names)));
  }
  return out;
}

/** Throws Hasura's 400 `unexpected` error when `cache` has clashing root fields. */
export function assertNoRootFieldConflicts(cache: SchemaCache, path = '$.args'): void {
  const { query, mutation, fields, types } = duplicateRootFields(cache);
  const show = (ns: string[]) => ns.map((n) => `"${n}"`).join(', ');
  const remote = remoteRootFields(cache);
  const remoteQ = query.filter((n) => remote.query.includes(n));
  const remoteM = mutation.filter((n) => remote.mutation.includes(n));
  if (remoteQ.length > 0 || remoteM.length > 0) {
    throw new ApiError('remote-schema-conflicts', `conflicting root fields with remote schemas: ${show([...remoteQ, ...remoteM])}`, { path });
  }
  if (query.length > 0) throw new ApiError('unexpected', `following query root fields are duplicated: ${show(query)}`, { path });
  if (mutation.length > 0) throw new ApiError('unexpected', `following mutation root fields are duplicated: ${show(mutation)}`, { path });
  if (fields.length > 0) {
    const { table } = fields[0];
    throw new ApiError('unexpected', `following fields of table "${table}" are duplicated: ${show(fields.filter((f) => f.table === table).map((f) => f.field))}`, { path });
  }
  if (types.length > 0) throw new ApiError('unexpected', `following types are duplicated: ${show(types)}`, { path });
}

/**
 * How many tables give each query root field, mutation root field and type name (the tables only: functions,
 * native queries and remote schemas are few and counted when asked), for the tables of one cache at a time
 * (`at`). Moved to another cache by the tables whose objects differ between the two, in place: metadata
 * operations go from a cache to the next, which keeps every table object the change did not reach, so a
 * move costs the changed tables (and one identity check per table), never a copy of the counts.
 */
interface TableNameCounts {
  at: ReadonlyMap<string, TableInfo>;
  camel: boolean;
  query: Map<string, number>;
  mutation: Map<string, number>;
  types: Map<string, number>;
}
let counts: TableNameCounts | undefined;

const tableTypeName = (t: TableInfo, camel: boolean): string => (camel ? snakeToPascal(t.gqlName) : t.gqlName);

function countTable(cache: SchemaCache, c: TableNameCounts, t: TableInfo, by: 1 | -1): void {
  if (!isGraphqlName(t.gqlName)) return;
  const bump = (m: Map<string, number>, n: string) => {
    const k = (m.get(n) ?? 0) + by;
    if (k === 0) m.delete(n);
    else m.set(n, k);
  };
  const names = tableRootFields(cache, t, c.camel);
  for (const n of names.query) bump(c.query, n);
  for (const n of names.mutation) bump(c.mutation, n);
  bump(c.types, tableTypeName(t, c.camel));
}

/** The tables of `after` whose objects are not `before`'s at the same key, and the tables of `before` they replace or that are gone. */
function changedTables(before: ReadonlyMap<string, TableInfo>, after: ReadonlyMap<string, TableInfo>): { gone: TableInfo[]; added: TableInfo[] } {
  const gone: TableInfo[] = [];
  const added: TableInfo[] = [];
  if (before === after) return { gone, added };
  for (const [k, t] of after) if (before.get(k) !== t) added.push(t);
  for (const [k, t] of before) if (after.get(k) !== t) gone.push(t);
  return { gone, added };
}

/** Whether two objects of one table give the same root field and type names (then their counts cancel out). */
function sameNames(cache: SchemaCache, a: TableInfo, b: TableInfo, camel: boolean): boolean {
  if (a.gqlName !== b.gqlName) return false;
  if (!isGraphqlName(a.gqlName)) return true;
  const x = tableRootFields(cache, a, camel);
  const y = tableRootFields(cache, b, camel);
  const same = (p: readonly string[], q: readonly string[]) => p.length === q.length && p.every((n, i) => n === q[i]);
  return same(x.query, y.query) && same(x.mutation, y.mutation);
}

/**
 * `changedTables` without the pairs (one key, a new object) that give the same names: what moves the name
 * counts. After a `replace_metadata` or a reload every table object is new and nearly every pair is such a
 * pair: the counts then move by the few tables whose names changed, not by every table twice.
 */
function renamedTables(cache: SchemaCache, before: ReadonlyMap<string, TableInfo>, after: ReadonlyMap<string, TableInfo>, camel: boolean): { gone: TableInfo[]; added: TableInfo[] } {
  const gone: TableInfo[] = [];
  const added: TableInfo[] = [];
  if (before === after) return { gone, added };
  for (const [k, t] of after) {
    const old = before.get(k);
    if (old === t) continue;
    if (old === undefined || !sameNames(cache, old, t, camel)) {
      added.push(t);
      if (old !== undefined) gone.push(old);
    }
  }
  for (const [k, t] of before) if (!after.has(k)) gone.push(t);
  return { gone, added };
}

/** The counts, moved to `cache`'s tables. */
function tableNameCounts(cache: SchemaCache): TableNameCounts {
  const camel = cache.namingConvention === 'graphql-default';
  if (counts && counts.camel === camel) {
    const { gone, added } = renamedTables(cache, counts.at, cache.tables, camel);
    for (const t of gone) countTable(cache, counts, t, -1);
    for (const t of added) countTable(cache, counts, t, 1);
    counts.at = cache.tables;
    return counts;
  }
  counts = { at: cache.tables, camel, query: new Map(), mutation: new Map(), types: new Map() };
  for (const t of cache.tables.values()) countTable(cache, counts, t, 1);
  return counts;
}

/** The root field and type names of what is not a table (functions, native queries, logical models, remote schemas). */
function otherNames(cache: SchemaCache): { query: string[]; mutation: string[]; types: string[] | undefined } {
  const camel = cache.namingConvention === 'graphql-default';
  const query = functionRootFields(cache);
  const remote = remoteRootFields(cache);
  query.push(...remote.query);
  const src = sourceClashes(cache);
  query.push(...src.query);
  // Type names count only where typeClashes looks at them (graphql-default, or logical models / native queries with relationships).
  const typeName = (n: string) => (camel ? snakeToPascal(n) : n);
  const models = [...(cache.logicalModels?.values() ?? [])].map((m) => typeName(m.gqlName));
  const nqs = [...(cache.nativeQueries?.values() ?? [])];
  const modelTypeUsed = new Set(nqs.filter((nq) => !nq.relationships).map((nq) => nq.returns));
  for (const nq of nqs) if (nq.relationships && (nq.rootFieldName !== nq.returns || modelTypeUsed.has(nq.returns))) models.push(typeName(nq.rootFieldName));
  return { query, mutation: [...remote.mutation, ...src.mutation], types: !camel && models.length === 0 ? undefined : models };
}

/**
 * Whether `after` (the cache a metadata change would install) has a root-field, type or (under
 * `graphql-default`) field clash that `before` does not have, as comparing `duplicateRootFields` of the
 * two says; only the names of the tables whose objects changed, and of what is not a table, are looked at.
 */
export function hasNewNameClashes(before: SchemaCache, after: SchemaCache): boolean {
  const camel = after.namingConvention === 'graphql-default';
  if (camel !== (before.namingConvention === 'graphql-default')) return anyNewClash(duplicateRootFields(before), duplicateRootFields(after));
  // Further sources: their names at the root count with what is not a table (otherNames); the names they
  // duplicate inside a namespace, and the fields and types their own convention merges, are compared here.
  if ((after.sources?.size ?? 0) > 0) {
    const was = sourceClashes(before);
    const now = sourceClashes(after);
    const fresh = (a: readonly string[], b: readonly string[]) => b.some((n) => !a.includes(n));
    if (fresh(was.nestedQuery, now.nestedQuery) || fresh(was.nestedMutation, now.nestedMutation) || fresh(was.types, now.types)) return true;
    if (now.fields.some((f) => !was.fields.some((o) => o.table === f.table && o.field === f.field))) return true;
  }
  const was = tableNameCounts(before);
  const wasOther = otherNames(before);
  const nowOther = otherNames(after);
  const { added } = changedTables(before.tables, after.tables);
  const renamed = renamedTables(after, before.tables, after.tables, camel);
  // The counts of `after`: `before`'s with the changed tables' names moved (only the names looked at below).
  const delta = { query: new Map<string, number>(), mutation: new Map<string, number>(), types: new Map<string, number>() };
  for (const [list, by] of [[renamed.gone, -1], [renamed.added, 1]] as const) {
    for (const t of list) {
      if (!isGraphqlName(t.gqlName)) continue;
      const names = tableRootFields(after, t, camel);
      for (const n of names.query) delta.query.set(n, (delta.query.get(n) ?? 0) + by);
      for (const n of names.mutation) delta.mutation.set(n, (delta.mutation.get(n) ?? 0) + by);
      const type = tableTypeName(t, camel);
      delta.types.set(type, (delta.types.get(type) ?? 0) + by);
    }
  }
  const now = (kind: 'query' | 'mutation' | 'types', n: string) => (was[kind].get(n) ?? 0) + (delta[kind].get(n) ?? 0);
  const occurrences = (list: readonly string[] | undefined) => {
    const m = new Map<string, number>();
    for (const n of list ?? []) m.set(n, (m.get(n) ?? 0) + 1);
    return m;
  };
  /** Whether a name of `candidates` is given twice or more in `after` and not in `before`. */
  const newDuplicate = (kind: 'query' | 'mutation' | 'types', candidates: Iterable<string>): boolean => {
    const wasList = wasOther[kind];
    const nowList = nowOther[kind];
    if (kind === 'types' && !nowList) return false;
    const wasRest = occurrences(wasList);
    const nowRest = occurrences(nowList);
    for (const n of candidates) {
      const after = now(kind, n) + (nowRest.get(n) ?? 0);
      if (after < 2) continue;
      const before = kind === 'types' && !wasList ? 0 : (was[kind].get(n) ?? 0) + (wasRest.get(n) ?? 0);
      if (before < 2) return true;
    }
    return false;
  };
  for (const kind of ['query', 'mutation'] as const) {
    if (newDuplicate(kind, [...delta[kind].keys(), ...wasOther[kind], ...nowOther[kind]])) return true;
  }
  // Every table's type counts once type names are looked at: when they were not before, any duplicate is new.
  if (nowOther.types) {
    const candidates = wasOther.types ? [...delta.types.keys(), ...wasOther.types, ...nowOther.types] : [...was.types.keys(), ...delta.types.keys(), ...nowOther.types];
    if (newDuplicate('types', candidates)) return true;
  }
  if (camel) {
    for (const t of added) {
      const had = before.tables.get(`${t.name.schema}.${t.name.name}`);
      const old = had ? fieldClashesOf(had) : [];
      if (fieldClashesOf(t).some((f) => !old.includes(f))) return true;
    }
  }
  return false;
}

function anyNewClash(old: NameClashes, fresh: NameClashes): boolean {
  const isNew = (kind: 'query' | 'mutation' | 'types') => fresh[kind].some((n) => !old[kind].includes(n));
  return isNew('query') || isNew('mutation') || isNew('types') || fresh.fields.some((f) => !old.fields.some((o) => o.table === f.table && o.field === f.field));
}
