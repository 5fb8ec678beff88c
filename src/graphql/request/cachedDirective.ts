/**
 * `@cached(ttl: Int! = 60, refresh: Boolean! = false)` on a query (Hasura v2's response caching):
 * the directive in every role's schema, and its arguments read from an operation. Only a query
 * may carry it: on a mutation or a subscription it is refused, as Hasura does (its location is
 * QUERY). Arguments are literals or variables; a variable is read per request (`resolveCached`).
 */
import { DirectiveLocation, GraphQLBoolean, GraphQLDirective, GraphQLInt, GraphQLNonNull, Kind, type OperationDefinitionNode, type ValueNode } from 'graphql';
import { vf } from './messages.js';

export const DEFAULT_CACHE_TTL = 60;

export const CACHED_DIRECTIVE = new GraphQLDirective({
  name: 'cached',
  description: 'whether this query should be cached (the response cache of the engine)',
  locations: [DirectiveLocation.QUERY],
  args: {
    ttl: { type: new GraphQLNonNull(GraphQLInt), defaultValue: DEFAULT_CACHE_TTL, description: 'measured in seconds' },
    refresh: { type: new GraphQLNonNull(GraphQLBoolean), defaultValue: false, description: 'refresh the cache entry' },
  },
});

/** An argument of `@cached`: its literal value, or the variable that holds it. */
export type CachedArg<T> = T | { variable: string };

export interface CachedSpec {
  ttl: CachedArg<number>;
  refresh: CachedArg<boolean>;
}

/** The `@cached` of `operation` (undefined when it has none); refused on mutations and subscriptions. */
export function cachedSpecOf(operation: OperationDefinitionNode): CachedSpec | undefined {
  const d = operation.directives?.find((x) => x.name.value === 'cached');
  if (!d) return undefined;
  const path = '$.directives.cached';
  if (operation.operation !== 'query') throw vf(`directive "cached" is not allowed on a ${operation.operation}`, path);
  if (operation.directives!.filter((x) => x.name.value === 'cached').length > 1) throw vf('the following directives are used more than once: "cached"', '$.directives');
  const spec: CachedSpec = { ttl: DEFAULT_CACHE_TTL, refresh: false };
  for (const a of d.arguments ?? []) {
    const name = a.name.value;
    if (name === 'ttl') spec.ttl = argValue(a.value, Kind.INT, (v) => Number(v), `${path}.args.ttl`);
    else if (name === 'refresh') spec.refresh = argValue(a.value, Kind.BOOLEAN, (v) => v === true, `${path}.args.refresh`);
    else throw vf(`"cached" has no argument named "${name}"`, `${path}.args`);
  }
  return spec;
}

function argValue<T>(v: ValueNode, kind: Kind.INT | Kind.BOOLEAN, read: (x: string | boolean) => T, path: string): CachedArg<T> {
  if (v.kind === Kind.VARIABLE) return { variable: v.name.value };
  if (v.kind === kind) return read(v.kind === Kind.BOOLEAN ? v.value : v.value);
  throw vf(`expected ${kind === Kind.INT ? 'an Int' : 'a Boolean'} for this argument`, path);
}

/** The ttl (seconds) and refresh flag of one request: variables read, the ttl checked against `maxTtl`. */
export function resolveCached(spec: CachedSpec, variables: Record<string, unknown>, maxTtl: number): { ttl: number; refresh: boolean } {
  const ttl = typeof spec.ttl === 'number' ? spec.ttl : variables[spec.ttl.variable] ?? DEFAULT_CACHE_TTL;
  const refresh = typeof spec.refresh === 'boolean' ? spec.refresh : variables[spec.refresh.variable] ?? false;
  if (typeof ttl !== 'number' || !Number.isInteger(ttl) || ttl < 1) throw vf('the ttl of @cached must be a positive number of seconds', '$.directives.cached.args.ttl');
  if (ttl > maxTtl) throw vf(`the ttl of @cached is ${ttl} seconds, more than the maximum of ${maxTtl} (--cache-max-entry-ttl)`, '$.directives.cached.args.ttl');
  if (typeof refresh !== 'boolean') throw vf('expected a Boolean for refresh', '$.directives.cached.args.refresh');
  return { ttl, refresh };
}
