/**
 * One role's GraphQL schema, built from the schema cache and memoised per cache object
 * (`WeakMap<SchemaCache, Map<role, RoleSchema>>`), so installing a new cache drops them all.
 *
 * Roots: `query_root` (always, possibly empty), `mutation_root` (only when some registered
 * mutation builder contributes fields), `subscription_root` (the query fields, when any).
 * Later work plugs in with `registerRootFields('mutation' | 'query', builder)`: a builder gets
 * the build context (shared types: `tableObject`, `boolExp`...) and returns field entries whose
 * `extensions.svc` tags its planner understands.
 */
import { GraphQLObjectType, GraphQLSchema, type GraphQLFieldConfig } from 'graphql';
import type { SchemaCache } from '../../metadata/index.js';
import { SchemaContext } from './context.js';
import { queryRootFields, sortEntries, type FieldEntry } from './queryRoot.js';

export interface RoleSchema {
  role: string;
  cache: SchemaCache;
  schema: GraphQLSchema;
  queryRoot: GraphQLObjectType;
  mutationRoot: GraphQLObjectType | null;
  subscriptionRoot: GraphQLObjectType | null;
}

/** Contributes root fields for one role; returns `[name, field config]` entries. */
export type RootFieldsBuilder = (ctx: SchemaContext) => FieldEntry[];

const builders: Record<'query' | 'mutation', RootFieldsBuilder[]> = { query: [queryRootFields], mutation: [] };

/** Adds a root-field builder (mutations, actions, remote schemas...). Call at module load. */
export function registerRootFields(root: 'query' | 'mutation', builder: RootFieldsBuilder): void {
  if (!builders[root].includes(builder)) builders[root].push(builder);
}

const memo = new WeakMap<SchemaCache, Map<string, RoleSchema>>();

/** The role's schema for this cache (built on first use). */
export function getRoleSchema(cache: SchemaCache, role: string): RoleSchema {
  let byRole = memo.get(cache);
  if (!byRole) memo.set(cache, (byRole = new Map()));
  let rs = byRole.get(role);
  if (!rs) byRole.set(role, (rs = buildRoleSchema(cache, role)));
  return rs;
}

/** Builds (without memoising) the schema of `role`. */
export function buildRoleSchema(cache: SchemaCache, role: string): RoleSchema {
  const ctx = new SchemaContext(cache, role);
  const queryEntries = builders.query.flatMap((b) => b(ctx));
  const mutationEntries = builders.mutation.flatMap((b) => b(ctx));
  const queryFields = sortEntries(queryEntries);
  const queryRoot = new GraphQLObjectType({ name: 'query_root', description: 'query root', fields: queryFields });
  const mutationRoot = mutationEntries.length === 0 ? null
    : new GraphQLObjectType({ name: 'mutation_root', description: 'mutation root', fields: sortEntries(mutationEntries) });
  const subscriptionRoot = queryEntries.length === 0 ? null
    : new GraphQLObjectType({ name: 'subscription_root', description: 'subscription root', fields: copyFields(queryFields) });
  const schema = new GraphQLSchema({
    query: queryRoot,
    mutation: mutationRoot,
    subscription: subscriptionRoot,
    types: ctx.allTypes(),
    // An empty query_root is legal here (Hasura answers it); skip graphql-js's schema checks.
    assumeValid: true,
  });
  return { role, cache, schema, queryRoot, mutationRoot, subscriptionRoot };
}

function copyFields(fields: Record<string, GraphQLFieldConfig<unknown, unknown>>): Record<string, GraphQLFieldConfig<unknown, unknown>> {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { ...v }]));
}
