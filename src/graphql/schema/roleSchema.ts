/**
 * One role's GraphQL schema, built from the schema cache and memoised per cache object
 * (`WeakMap<SchemaCache, Map<role, RoleSchema>>`), so installing a new cache drops them all.
 *
 * Roots: `query_root` (always, possibly empty), `mutation_root` (only when some mutation builder
 * contributes fields), `subscription_root` (the query fields, when any, and the subscription-only
 * fields of `parts.subscription`: the streaming fields). The builders come in as
 * `SchemaParts` (context.ts): each gets the build context (shared types: `tableObject`,
 * `boolExp`...) and returns field entries whose `extensions.svc` tags a planner understands.
 */
import { GraphQLObjectType, GraphQLSchema, type GraphQLFieldConfig } from 'graphql';
import type { SchemaCache } from '../../metadata/index.js';
import { SchemaContext, type SchemaParts } from './context.js';
import { sortEntries } from './queryRoot.js';

export interface RoleSchema {
  role: string;
  cache: SchemaCache;
  schema: GraphQLSchema;
  queryRoot: GraphQLObjectType;
  mutationRoot: GraphQLObjectType | null;
  subscriptionRoot: GraphQLObjectType | null;
}

const memo = new WeakMap<SchemaParts, WeakMap<SchemaCache, Map<string, RoleSchema>>>();

/** The role's schema for this cache, made of `parts` (built on first use). */
export function getRoleSchema(cache: SchemaCache, role: string, parts: SchemaParts): RoleSchema {
  let byCache = memo.get(parts);
  if (!byCache) memo.set(parts, (byCache = new WeakMap()));
  let byRole = byCache.get(cache);
  if (!byRole) byCache.set(cache, (byRole = new Map()));
  let rs = byRole.get(role);
  if (!rs) byRole.set(role, (rs = buildRoleSchema(cache, role, parts)));
  return rs;
}

/** Builds (without memoising) the schema of `role`. */
export function buildRoleSchema(cache: SchemaCache, role: string, parts: SchemaParts): RoleSchema {
  const ctx = new SchemaContext(cache, role, parts);
  const queryEntries = parts.query.flatMap((b) => b(ctx));
  const mutationEntries = parts.mutation.flatMap((b) => b(ctx));
  const subscriptionEntries = (parts.subscription ?? []).flatMap((b) => b(ctx));
  const queryFields = sortEntries(queryEntries);
  const queryRoot = new GraphQLObjectType({ name: 'query_root', description: 'query root', fields: queryFields });
  const mutationRoot = mutationEntries.length === 0 ? null
    : new GraphQLObjectType({ name: 'mutation_root', description: 'mutation root', fields: sortEntries(mutationEntries) });
  const subscriptionRoot = queryEntries.length === 0 ? null
    : new GraphQLObjectType({ name: 'subscription_root', description: 'subscription root', fields: sortEntries([...Object.entries(copyFields(queryFields)), ...subscriptionEntries]) });
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
