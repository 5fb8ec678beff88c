/**
 * `/api/rest/<url>` (Hasura v2's RESTified endpoints): the endpoint whose URL template and method
 * match, its stored query run through the GraphQL pipeline with the caller's session (same auth,
 * permissions, allow-list, limits and `@cached`), variables from the URL, the query string and a
 * JSON object body (restVariables.ts). The caller is authenticated before the URL is matched, so a
 * refused one gets the same auth error on every path and method. The answer is the GraphQL `data`
 * object itself; a request error is Hasura's `{path, error, code}` with its status (404 no endpoint,
 * 405 with `Allow`).
 */
import { ApiError, type Session } from '../core/index.js';
import { parseJsonExact } from '../lib/index.js';
import { checkNonAdminBody, resolveSession } from '../auth/index.js';
import type { Handler, HttpResponse } from './handlerTypes.js';
import { executeGraphql, type GraphqlResult, type RequestExtras } from './executeGraphql.js';
import { matchRest } from './restRouter.js';
import { flatHeaders } from './v1Graphql.js';
import { restVariables, type RestArgs } from './restVariables.js';

const PREFIX = '/api/rest/';
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const DATA_PREFIX = Buffer.from('{"data":');

const failure = (e: unknown, devMode: boolean, headers?: Record<string, string>): HttpResponse => {
  const err = e instanceof ApiError ? e : new ApiError('unexpected', 'unexpected error', { status: 500, internal: String(e) });
  return { status: err.status >= 400 ? err.status : 400, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(err.toQueryBody(devMode)), log: { error: err.message } };
};

/** The URL-decoded segments after /api/rest/. */
function pathSegments(path: string): string[] {
  try {
    return path.slice(PREFIX.length).split('/').map((s) => decodeURIComponent(s));
  } catch {
    throw new ApiError('bad-request', 'malformed URL encoding in the request path');
  }
}

/** The members of a JSON object body (none for an empty body). */
function bodyArgs(body: Buffer): RestArgs {
  const text = body.toString('utf8');
  if (text.trim() === '') return [];
  let v: unknown;
  try {
    v = parseJsonExact(text);
  } catch {
    throw new ApiError('invalid-json', 'invalid json');
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ApiError('bad-request', 'the request body must be a JSON object of variables');
  return Object.entries(v).map(([k, x]): RestArgs[number] => [k, { json: x }]);
}

/** `{"data":X}` → X (a Buffer from Postgres is sliced, not copied). */
function dataOnly(body: string | Buffer): string | Buffer {
  if (typeof body === 'string') return body.startsWith('{"data":') && !body.includes(',"errors":[') ? body.slice(8, -1) : body;
  return body.subarray(0, DATA_PREFIX.length).equals(DATA_PREFIX) ? body.subarray(DATA_PREFIX.length, body.length - 1) : body;
}

export const restEndpoint: Handler = async (req, ctx) => {
  const devMode = ctx.config.devMode;
  let session: Session;
  let match: ReturnType<typeof matchRest>;
  let args: RestArgs;
  try {
    // Authenticated first, as Hasura: a caller that is refused learns nothing of the endpoints (the same answer on every path and method).
    session = await resolveSession(req.headers, ctx.config, req.body);
    if (!session.isAdmin && req.body.length > 0) checkNonAdminBody(ctx.config, req.body);
    match = matchRest(ctx.state.current, req.method, pathSegments(req.path));
    if (match.kind === 'none') throw new ApiError('not-found', 'Endpoint not found', { status: 404 });
    if (match.kind === 'method') {
      const allowed = [...new Set(match.allowed)];
      return failure(new ApiError('method-not-allowed', `Allowed methods: ${allowed.join(', ')}`, { status: 405 }), devMode, { allow: allowed.join(', ') });
    }
    args = [...[...req.query].map(([k, v]): RestArgs[number] => [k, { text: v }]), ...bodyArgs(req.body), ...match.captured.map(([k, v]): RestArgs[number] => [k, { text: v }])];
  } catch (e) {
    return failure(e, devMode);
  }
  const { route } = match;
  const log: NonNullable<HttpResponse['log']> = { role: session.role, operationName: route.endpoint.name };
  let variables: Record<string, unknown>;
  try {
    variables = restVariables(route.operation, args);
  } catch (e) {
    return { ...failure(e, devMode), log };
  }
  const extras: RequestExtras = { clientHeaders: flatHeaders(req.headers), setCookie: [] };
  const result: GraphqlResult = await executeGraphql(ctx, session, { query: route.query, operationName: null, variables, clientHeaders: req.headers }, 'http', { extras });
  if (result.kind === 'mutation') log.kind = 'mutation';
  if (result.error) return { ...failure(result.error, devMode), log };
  const headers: Record<string, string | string[]> = { ...JSON_HEADERS, ...result.headers };
  if (extras.setCookie.length > 0) headers['set-cookie'] = extras.setCookie;
  return { status: 200, headers, body: dataOnly(result.body), log };
};
