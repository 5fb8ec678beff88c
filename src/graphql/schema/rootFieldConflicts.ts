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
  for (const fn of cache.functions.values()) {
    const returns = cache.tables.get(`${fn.returnTable.schema}.${fn.returnTable.name}`);
    if (!isGraphqlName(fn.gqlName) || !returns) continue;
    const named = rootCase(cache, returns);
    query.push(named(fn.gqlName), named(`${fn.gqlName}_aggregate`));
  }
  // Native queries: their root field name as given.
  for (const nq of cache.nativeQueries?.values() ?? []) if (cache.logicalModels?.has(nq.returns)) query.push(nq.rootFieldName);
  return { query, mutation };
}

/**
 * Fields of a table's object type that `graphql-default` merges: columns by their camelCase names
 * (custom column names as given), relationships, computed fields and remote relationships by theirs.
 */
function tableFieldClashes(cache: SchemaCache): Array<{ table: string; field: string }> {
  const out: Array<{ table: string; field: string }> = [];
  for (const t of cache.tables.values()) {
    const names = [
      ...t.columns.map((c) => (c.gqlName !== c.name ? c.gqlName : snakeToCamel(c.name))),
      ...t.relationships.keys(),
      ...t.computedFields.keys(),
      ...(t.remoteRelationships?.keys() ?? []),
    ];
    for (const field of duplicates(names)) out.push({ table: t.name.schema === 'public' ? t.name.name : `${t.name.schema}.${t.name.name}`, field });
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
