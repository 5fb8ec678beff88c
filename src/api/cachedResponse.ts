/**
 * A `@cached` query over HTTP: look the request up in the response cache, else run it and keep a
 * successful answer for its ttl. The key is the engine's scope (database, source, answer-shaping
 * options: responseCache/), the metadata's resource version the answer is computed with, the API,
 * the role, the backend-only flag, the session variables the operation's SQL reads, the query text,
 * its operation name and its variables (Hasura v2's key and what else changes the answer); every answer
 * from the cache or stored in it carries `Cache-Control: max-age=<seconds left>`. An operation
 * with root fields answered elsewhere (actions, remote schemas: they see every session variable
 * and may forward client headers) runs uncached.
 */
import type { ApiError, Session } from '../core/index.js';
import type { EngineContext } from '../appState.js';
import { resolveCached, type CachedSpec, type GraphqlRequest } from '../graphql/index.js';
import type { CompiledOperation } from '../planner/index.js';
import type { ResponseCache } from '../responseCache/index.js';
import type { Param } from '../sql/index.js';

/** Per compiled operation: the session variables its statements read (null: all of them). */
const sessionReads = new WeakMap<CompiledOperation, readonly string[] | null>();

function sessionVarsRead(compiled: CompiledOperation): readonly string[] | null {
  let names = sessionReads.get(compiled);
  if (names === undefined) {
    const params: Param[] = compiled.combined ? [...compiled.combined.params] : compiled.fields.flatMap((f) => (f.kind === 'sql' ? f.params : []));
    const set = new Set<string>();
    let all = false;
    for (const p of params) {
      if (p.source.kind === 'session') set.add(p.source.name);
      else if (p.source.kind === 'sessionJson') all = true;
    }
    names = all ? null : [...set].sort();
    sessionReads.set(compiled, names);
  }
  return names;
}

/** The parts of a GraphQL result the cache reads and writes (executeGraphql's `GraphqlResult`). */
interface Answer {
  body: string | Buffer;
  status: number;
  headers?: Record<string, string>;
  error?: ApiError;
  kind?: 'query' | 'mutation' | 'subscription';
}

const ERRORS_MARK = ',"errors":[';

/** Whether `compiled` can be answered from the cache (every root field SQL, a typename or introspection). */
export const cacheable = (compiled: CompiledOperation): boolean => !compiled.fields.some((f) => f.kind.startsWith('ext:'));

/** The answer of a `@cached` request: from the cache, or from `run` (then stored when it succeeded). */
export async function cachedAnswer<R extends Answer>(
  ctx: EngineContext & { responseCache: ResponseCache }, session: Session, request: GraphqlRequest, api: string, resourceVersion: number,
  spec: CachedSpec, compiled: CompiledOperation, variables: Record<string, unknown>, run: () => Promise<R>,
): Promise<R | Answer & { status: 200 }> {
  const cache = ctx.responseCache;
  const { ttl, refresh } = resolveCached(spec, variables, cache.maxTtl);
  const names = sessionVarsRead(compiled);
  const sessionVars = (names ?? Object.keys(session.vars).sort()).map((n) => [n, session.vars[n]] as const);
  const key = cache.key({
    resourceVersion, api, role: session.role, backendOnly: session.backendOnly === true, sessionVars, operationName: request.operationName ?? null, query: request.query, variables,
  });
  const hit = await cache.lookup(key, refresh);
  if (hit) return { body: hit.body, status: 200, kind: 'query', headers: { 'cache-control': `max-age=${Math.max(1, Math.ceil(hit.ttlMs / 1000))}` } };
  const result = await run();
  if (result.error || result.status !== 200) return result;
  if (typeof result.body === 'string' && result.body.includes(ERRORS_MARK)) return result;
  // A Buffer body may be a pooled buffer the response writer reuses: keep a copy.
  await cache.save(key, Buffer.from(result.body), ttl);
  return { ...result, headers: { ...result.headers, 'cache-control': `max-age=${ttl}` } };
}
