/**
 * One role's GraphQL schema, built from the schema cache and memoised per cache object
 * (`WeakMap<SchemaCache, Map<role, RoleSchema>>`). The built graphql-js schema itself is shared:
 * roles whose permissions differ only in row filters, checks and limits get one schema (the planner
 * reads those for the request's role), and a new cache keeps a role's schema when nothing it was built
 * from changed (`schemaShape.ts`: the structure key, and the role's permissions with their filters).
 *
 * Roots: `query_root` (always, possibly empty), `mutation_root` (only when some mutation builder
 * contributes fields), `subscription_root` (the query fields, when any, and the subscription-only
 * fields of `parts.subscription`: the streaming fields). The builders come in as
 * `SchemaParts` (context.ts): each gets the build context (shared types: `tableObject`,
 * `boolExp`...) and returns field entries whose `extensions.svc` tags a planner understands.
 * When a source (`default` or another) follows the `graphql-default` naming convention, its types and root
 * fields are named so when made and the built schema is renamed once (graphqlCase.ts).
 * A source with a root-field namespace has its root fields under one field per root (namespaceFields.ts).
 * Otherwise the schema is a `LazySchema` (lazySchema.ts): the roots' fields are made at once, every
 * other type's fields when first reached, and the whole type map only when something asks for it
 * (introspection of `__schema`), so a role's first query costs what its roots and the types it
 * reaches cost, not the whole schema.
 */
import { GraphQLObjectType, GraphQLSchema, specifiedDirectives, type GraphQLFieldConfig } from 'graphql';
import { CACHED_DIRECTIVE } from '../request/cachedDirective.js';
import type { SchemaCache } from '../../metadata/index.js';
import { SchemaContext, type FieldEntry, type RootFieldsBuilder, type SchemaParts } from './context.js';
import { prepareQueryRootFields, queryRootFields, sortEntries, sortEntriesSliced } from './queryRoot.js';
import { anyGraphqlCase, rootFieldName, toGraphqlCase } from './graphqlCase.js';
import { withPrefixSuffix } from './namingCase.js';
import { prepareSchemaKeys, roleShapeKey, rowKeysOf, structureKey } from './schemaShape.js';
import { LazySchema } from './lazySchema.js';
import { LazyRootType } from './lazyRootType.js';
import { mutationRootFields, prepareMutationRootFields } from './mutationRoot.js';
import { TurnBudget } from '../../lib/index.js';
import { isNamespaceField, namespaceField } from './namespaceFields.js';

export interface RoleSchema {
  role: string;
  /** The schema of a trusted backend's request: the role's `backend_only` mutations included. */
  backendOnly: boolean;
  /** `role`, marked when `backendOnly` (plan-cache keys). */
  key: string;
  cache: SchemaCache;
  schema: GraphQLSchema;
  queryRoot: GraphQLObjectType;
  /** The schema's mutation root (made on first read: a role's query never makes its mutation fields). */
  readonly mutationRoot: GraphQLObjectType | null;
  subscriptionRoot: GraphQLObjectType | null;
}

const memo = new WeakMap<SchemaParts, WeakMap<SchemaCache, Map<string, RoleSchema>>>();

/**
 * A built schema and the cache it was built from (its fields carry that cache's table objects): held
 * weakly, with each role's permission key there (`fromKey(role)`: `roleShapeKey(from, role, true)`, computed
 * when first asked from the tables' permission maps, not the cache), so a kept schema does not keep its old
 * cache, and every schema memoised for it, alive.
 */
interface Built {
  from: WeakRef<SchemaCache>;
  fromKey: (role: string) => string;
  schema: GraphQLSchema;
  queryRoot: GraphQLObjectType;
  subscriptionRoot: GraphQLObjectType | null;
}

/**
 * Built schemas by (structure key, role shape key, backend-only), per parts; held weakly: a schema
 * lives while some cache's role memo holds it, and its entry goes with it (`builtOf` keeps a schema's
 * `Built` exactly as long).
 */
const shared = new WeakMap<SchemaParts, Map<string, WeakRef<GraphQLSchema>>>();
const builtOf = new WeakMap<GraphQLSchema, Built>();
const dropped = new FinalizationRegistry<{ map: Map<string, WeakRef<GraphQLSchema>>; key: string }>(({ map, key }) => {
  const ref = map.get(key);
  if (ref && ref.deref() === undefined) map.delete(key);
});

/** Whether `b` plans right for `role` under `cache`: built on it, or on one where the role's permissions were the same. */
function usable(b: Built, cache: SchemaCache, role: string): boolean {
  if (b.from.deref() === cache) return true;
  return b.fromKey(role) === roleShapeKey(cache, role, true);
}

/** Per cache: the built schemas its roles use, by shape key (roles of one cache share them first). */
const ofCache = new WeakMap<SchemaParts, WeakMap<SchemaCache, Map<string, Built>>>();

/** The schema `sharedBuild` would give without building one, if there is one. */
function sharedBuilt(cache: SchemaCache, role: string, parts: SchemaParts, backendOnly: boolean): Built | undefined {
  const key = sharedKey(cache, role, backendOnly);
  let perParts = ofCache.get(parts);
  if (!perParts) ofCache.set(parts, (perParts = new WeakMap()));
  let local = perParts.get(cache);
  if (!local) perParts.set(cache, (local = new Map()));
  const mine = local.get(key);
  if (mine && usable(mine, cache, role)) return keptFor(mine, cache);
  const held = shared.get(parts)?.get(key)?.deref();
  const have = held && builtOf.get(held);
  if (have && usable(have, cache, role)) {
    if (!mine) local.set(key, have);
    return keptFor(have, cache);
  }
  return undefined;
}

const sharedKey = (cache: SchemaCache, role: string, backendOnly: boolean): string =>
  `${structureKey(cache)}\u0000${roleShapeKey(cache, role)}\u0000${backendOnly ? 'b' : ''}`;

/** `ctx`: a context whose root entries were made ahead (`prepareRoleSchemas`). */
function sharedBuild(cache: SchemaCache, role: string, parts: SchemaParts, backendOnly: boolean, ctx?: SchemaContext): Built {
  const have = sharedBuilt(cache, role, parts, backendOnly);
  if (have) return have;
  const key = sharedKey(cache, role, backendOnly);
  const local = ofCache.get(parts)!.get(cache)!;
  let byKey = shared.get(parts);
  if (!byKey) shared.set(parts, (byKey = new Map()));
  const rs = buildRoleSchema(cache, role, parts, backendOnly, ctx);
  const built: Built = { from: new WeakRef(cache), fromKey: rowKeysOf(cache), schema: rs.schema, queryRoot: rs.queryRoot, subscriptionRoot: rs.subscriptionRoot };
  builtOf.set(built.schema, built);
  byKey.set(key, new WeakRef(built.schema));
  dropped.register(built.schema, { map: byKey, key });
  local.set(key, built);
  return built;
}

/**
 * `b` used by `cache`: a schema whose types are not all made yet makes the rest from `cache` from now on
 * (the same structure and role permissions as the cache it was built from), so it does not keep that
 * cache alive.
 */
function keptFor(b: Built, cache: SchemaCache): Built {
  const registry = b.schema instanceof LazySchema ? b.schema.registry : undefined;
  if (registry instanceof SchemaContext && registry.sc !== cache) registry.rebind(cache);
  return b;
}

/**
 * The role's schema for this cache, made of `parts` (built on first use). `backendOnly` (a trusted
 * backend's request) gives a second schema only for a role that has `backend_only` permissions;
 * for every other role it is the same schema.
 */
export function getRoleSchema(cache: SchemaCache, role: string, parts: SchemaParts, backendOnly?: boolean): RoleSchema {
  return roleSchemaFor(cache, role, parts, backendOnly);
}

function roleSchemaFor(cache: SchemaCache, role: string, parts: SchemaParts, backendOnly?: boolean, ctx?: SchemaContext): RoleSchema {
  partsSeen.add(parts);
  let byCache = memo.get(parts);
  if (!byCache) memo.set(parts, (byCache = new WeakMap()));
  let byRole = byCache.get(cache);
  if (!byRole) byCache.set(cache, (byRole = new Map()));
  const backend = backendOnly === true && cache.backendOnlyRoles?.has(role) === true;
  const key = backend ? `${role}\u0000backend_only` : role;
  let rs = byRole.get(key);
  if (!rs) {
    const b = sharedBuild(cache, role, parts, backend, backend ? undefined : ctx);
    rs = roleSchemaOf({ role, backendOnly: backend, key, cache, schema: b.schema, queryRoot: b.queryRoot, subscriptionRoot: b.subscriptionRoot });
    byRole.set(key, rs);
  }
  return rs;
}

/** The parts role schemas were asked of (the engine's and Relay's: a few module constants). */
const partsSeen = new Set<SchemaParts>();

/**
 * Makes, a slice per event-loop turn, the schemas `next` will be asked for: those of the roles that have one on
 * `prev` (the cache it replaces), so that the first request of each after `next` is installed finds it made
 * instead of building it (every table's root fields: a few hundred milliseconds in one turn at 5,000 tables after
 * a change to a table's structure). A role whose schema `next` keeps (both keys unchanged) costs the keys.
 * `which`: the roles to make (all by default).
 */
export async function prepareRoleSchemas(prev: SchemaCache, next: SchemaCache, budget: TurnBudget, which: (role: string) => boolean = () => true): Promise<void> {
  for (const parts of partsSeen) {
    const roles = memo.get(parts)?.get(prev);
    if (!roles || !parts.query.includes(queryRootFields)) continue;
    for (const rs of [...roles.values()]) {
      if (rs.backendOnly || !which(rs.role)) continue;
      await prepareSchemaKeys(next, budget, rs.role);
      if (memo.get(parts)?.get(next)?.has(rs.role)) continue;
      if (sharedBuilt(next, rs.role, parts, false) === undefined) {
        const ctx = new SchemaContext(next, rs.role, parts, false);
        await prepareQueryRootFields(ctx, budget);
        await budget.pause();
        if (!memo.get(parts)?.get(next)?.has(rs.role)) roleSchemaFor(next, rs.role, parts, false, ctx);
      } else {
        roleSchemaFor(next, rs.role, parts, false);
      }
      await budget.pause();
    }
  }
}

/** Builds (without memoising) the schema of `role` (with its `backend_only` mutations when `backendOnly`). */
export function buildRoleSchema(
  cache: SchemaCache, role: string, parts: SchemaParts, backendOnly = false, ctx = new SchemaContext(cache, role, parts, backendOnly),
): RoleSchema {
  const queryEntries = rootNames(ctx)(parts.query.flatMap((b) => b(ctx)));
  // Every further source's tables and functions, built the same way over its own cache (read from the
  // context's cache when the fields are made: a kept schema's context is rebound to the newer cache).
  const sourceList = (): SchemaCache[] => (parts.sources && ctx.sc.sources ? [...ctx.sc.sources.values()] : []);
  const ofSource = (sc: SchemaCache, pick: (p: NonNullable<SchemaParts['sources']>) => readonly RootFieldsBuilder[] | undefined): FieldEntry[] =>
    rootNames(ctx.forSource(sc))((pick(parts.sources!) ?? []).flatMap((b) => b(ctx.forSource(sc))));
  // A source with a root-field namespace: its fields under one root field (namespaceFields.ts); its query
  // fields are kept apart for its `<namespace>_subscription` type.
  const namespacedQuery = new Map<SchemaCache, FieldEntry[]>();
  for (const sc of sourceList()) {
    const entries = ofSource(sc, (p) => p.query);
    if (sc.sourceRootFields?.namespace === undefined) queryEntries.push(...entries);
    else {
      namespacedQuery.set(sc, entries);
      queryEntries.push(...namespaceField(ctx.forSource(sc), 'query', entries));
    }
  }
  const queryFields = sortEntries(queryEntries);
  // Each field defined when first read (a role's first query defines the fields it names, not thousands).
  const queryRoot = new LazyRootType({ name: 'query_root', description: 'query root', fields: queryFields });
  let mutationRoot: GraphQLObjectType | null | undefined;
  const mutationEntries = (): FieldEntry[] => {
    const entries = rootNames(ctx)(parts.mutation.flatMap((b) => b(ctx)));
    for (const sc of sourceList()) {
      const fields = ofSource(sc, (p) => p.mutation);
      entries.push(...(sc.sourceRootFields?.namespace === undefined ? fields : namespaceField(ctx.forSource(sc), 'mutation', fields)));
    }
    return entries;
  };
  // Each field made when first read (a role's first mutation makes the fields it names, not all of them).
  const mutationRootOf = (fields: ReturnType<typeof sortEntries> | null): LazyRootType | null =>
    fields === null ? null : new LazyRootType({ name: 'mutation_root', description: 'mutation root', fields });
  const mutation = (): GraphQLObjectType | null => {
    if (mutationRoot !== undefined) return mutationRoot;
    const entries = mutationEntries();
    return (mutationRoot = mutationRootOf(entries.length === 0 ? null : sortEntries(entries)));
  };
  // A role's first mutation: every table's entries made a slice per turn, then sorted into the root's
  // fields and its field map made, a slice per turn too (LazySchema.prepareMutation).
  const prepareMutation = async (budget: TurnBudget): Promise<void> => {
    if (mutationRoot !== undefined) return;
    if (parts.mutation.includes(mutationRootFields)) await prepareMutationRootFields(ctx, budget);
    await budget.next();
    if (mutationRoot !== undefined) return;
    const entries = mutationEntries();
    const fields = entries.length === 0 ? null : await sortEntriesSliced(entries, budget);
    if (mutationRoot !== undefined) return;
    const root = (mutationRoot = mutationRootOf(fields));
    await root?.prepareFields(budget);
  };
  // Each field made when first read, as the other roots' (an introspection makes them in slices).
  const subscriptionRoot = queryEntries.length === 0 ? null
    : new LazyRootType({
      name: 'subscription_root',
      description: 'subscription root',
      fields: () => {
        // The query fields (a namespace's `<namespace>_query` field is not one: its source's fields go to `<namespace>_subscription`).
        const entries = Object.entries(copyFields(queryFields)).filter(([, f]) => !isNamespaceField(f));
        entries.push(...rootNames(ctx)((parts.subscription ?? []).flatMap((b) => b(ctx))));
        for (const sc of sourceList()) {
          const fields = ofSource(sc, (p) => p.subscription);
          const queried = namespacedQuery.get(sc);
          entries.push(...(queried === undefined ? fields : namespaceField(ctx.forSource(sc), 'subscription', [...Object.entries(copyFields(Object.fromEntries(queried))), ...fields])));
        }
        return sortEntries(entries);
      },
    });
  const directives = [...specifiedDirectives, CACHED_DIRECTIVE];
  const key = backendOnly ? `${role}\u0000backend_only` : role;
  if (anyGraphqlCase(cache)) {
    // Types named after the first build of each (the eager order of before: query, mutation, subscription fields;
    // the query fields' types are made on first read of each, so all are read here first).
    copyFields(queryFields);
    const mutationType = mutation();
    subscriptionRoot?.getFields();
    const schema = new GraphQLSchema({
      query: queryRoot, mutation: mutationType, subscription: subscriptionRoot, types: ctx.allTypes(), directives,
      // An empty query_root is legal here (Hasura answers it); skip graphql-js's schema checks.
      assumeValid: true,
    });
    const renamed = toGraphqlCase(schema, cache, ctx.graphqlCaseTypes);
    return { role, backendOnly, key, cache, schema: renamed, queryRoot: renamed.getQueryType()!, mutationRoot: renamed.getMutationType() ?? null, subscriptionRoot: renamed.getSubscriptionType() ?? null };
  }
  const schema = new LazySchema({
    query: queryRoot,
    mutation,
    prepareMutation,
    subscription: subscriptionRoot,
    types: () => {
      subscriptionRoot?.getFields();
      return ctx.allTypes();
    },
    directives,
    // Its tables' select root entries made a slice per turn first (at 5,000 tables they are a long turn).
    fresh: async () => {
      const freshCtx = new SchemaContext(ctx.sc, role, parts, backendOnly);
      if (parts.query.includes(queryRootFields)) await prepareQueryRootFields(freshCtx, new TurnBudget());
      return buildRoleSchema(freshCtx.sc, role, parts, backendOnly, freshCtx).schema as LazySchema;
    },
  }, ctx);
  return roleSchemaOf({ role, backendOnly, key, cache, schema, queryRoot, subscriptionRoot });
}

/** A `RoleSchema` whose `mutationRoot` is its schema's (made on first use). */
function roleSchemaOf(rs: Omit<RoleSchema, 'mutationRoot'>): RoleSchema {
  return Object.defineProperty(rs, 'mutationRoot', { get: () => rs.schema.getMutationType() ?? null, enumerable: true }) as RoleSchema;
}

/**
 * The root-field entries made over `ctx`'s source, named as its convention says (`graphql-default`: camelCase,
 * what the user named kept) and then with its `customization.root_fields` prefix and suffix (withPrefixSuffix).
 */
function rootNames(ctx: SchemaContext): (entries: FieldEntry[]) => FieldEntry[] {
  const rf = ctx.sc.sourceRootFields;
  const camel = ctx.graphqlCase;
  if (!camel && (!rf || (rf.prefix === undefined && rf.suffix === undefined))) return (entries) => entries;
  return (entries) => entries.map(([name, field]) => [withPrefixSuffix(camel ? rootFieldName(name, field) : name, rf, camel), field]);
}

function copyFields(fields: Record<string, GraphQLFieldConfig<unknown, unknown>>): Record<string, GraphQLFieldConfig<unknown, unknown>> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { ...v }]));
}
