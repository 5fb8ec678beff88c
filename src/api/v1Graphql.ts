/**
 * POST and GET /v1/graphql (and /v1alpha1/graphql): session from the headers, the request from
 * the JSON body (one request, or a batch: array → array of results, run in order) or, for GET,
 * from the URL (GraphQL over HTTP: `query`, `operationName`, `variables`; never a mutation: 405),
 * each through `executeGraphql`. Errors are GraphQL `errors` bodies with HTTP 200 on /v1/graphql;
 * /v1alpha1/graphql keeps the error's own status (DECISIONS 9). A client that accepts
 * `application/graphql-response+json` gets that media type and, for a request that fails before
 * execution (parse, validation, auth), the error's 4xx/5xx status, as that media type requires.
 */
import { ApiError, inHasuraMode, type Session } from '../core/index.js';
import { acceptedEncodings, parseJsonExact } from '../lib/index.js';
import { checkNonAdminBody, graphqlAuthFailureHttp, resolveSession } from '../auth/index.js';
import { checkBatchSize, limitsForRole, type GraphqlRequest } from '../graphql/index.js';
import { ENGINE_PARTS, hasReadReplicas, RELAY_PARTS, type ApiParts } from '../appState.js';
import type { Handler, HttpResponse } from './handlerTypes.js';
import { errorResult, executeGraphql, type GraphqlResult, type RequestExtras } from './executeGraphql.js';
import { GRAPHQL_RESPONSE_JSON, negotiateMediaType, requestFromUrl } from './graphqlOverHttp.js';
import { readAfterOf, type ReadAfter } from '../execution/index.js';

/** The request's headers as single strings (for actions that forward client headers). */
export function flatHeaders(h: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const GRAPHQL_RESPONSE_HEADERS = { 'content-type': `${GRAPHQL_RESPONSE_JSON}; charset=utf-8` };
const OPEN_BRACKET = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_BRACKET = Buffer.from(']');
const EMPTY_BATCH = Buffer.from('[]');
const DATA_PREFIX = '{"data"';

/** Whether an error body still carries `data` (an execution error, not a request error). */
const hasData = (body: string | Buffer): boolean =>
  typeof body === 'string' ? body.startsWith(DATA_PREFIX) : body.subarray(0, DATA_PREFIX.length).toString() === DATA_PREFIX;

/** The handler of a GraphQL endpoint over `parts`: /v1/graphql (the GraphQL API) or /v1beta1/relay (the Relay API). */
const graphqlEndpoint = (api: ApiParts): Handler => async (req, ctx) => {
  const realStatus = req.path.startsWith('/v1alpha1/');
  const isGet = req.method === 'GET';
  const spec = negotiateMediaType(typeof req.headers.accept === 'string' ? req.headers.accept : undefined) === GRAPHQL_RESPONSE_JSON;
  const baseHeaders = spec ? GRAPHQL_RESPONSE_HEADERS : JSON_HEADERS;
  // The hot path (a successful query, no extra headers) allocates no header or log copies.
  const respond = (r: GraphqlResult, log: NonNullable<HttpResponse['log']>, headers?: Record<string, string>, status?: number): HttpResponse => {
    if (r.error) log.error = r.error.message;
    if (r.kind === 'mutation') log.kind = 'mutation';
    let code = status ?? (realStatus ? r.status : 200);
    if (r.error && r.error.status === 405) {
      code = 405;
      headers = { ...headers, allow: 'POST' };
    } else if (spec && r.error && status === undefined && !hasData(r.body)) code = r.status >= 400 ? r.status : 400;
    return { status: code, headers: headers ? { ...baseHeaders, ...headers } : baseHeaders, body: r.body, log };
  };

  // GET: the request is in the URL; a POST-mode auth webhook still gets it as a JSON body.
  let fromUrl: GraphqlRequest | ApiError | undefined;
  if (isGet) {
    try {
      fromUrl = requestFromUrl(req.query);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      fromUrl = e;
    }
  }
  const authBody = fromUrl === undefined ? req.body
    : fromUrl instanceof ApiError ? Buffer.alloc(0) : Buffer.from(JSON.stringify(fromUrl));

  let session: Session;
  try {
    session = inHasuraMode(await resolveSession(req.headers, ctx.config, authBody), ctx.hasuraSession);
  } catch (e) {
    const r = errorResult(ctx, e);
    const http = r.error ? graphqlAuthFailureHttp(r.error) : { status: 200, headers: {} };
    const status = realStatus ? r.status : http.status !== 200 ? http.status : spec ? r.status : 200;
    return respond(r, {}, http.headers, status);
  }
  const log: NonNullable<HttpResponse['log']> = { role: session.role };
  // With read replicas: where this request may read (read-your-writes headers, execution/readRouting.ts).
  let readAfter: ReadAfter;
  if (hasReadReplicas(ctx)) {
    try {
      readAfter = readAfterOf(req.headers);
    } catch (e) {
      return respond(errorResult(ctx, e), log);
    }
  }
  if (fromUrl !== undefined) {
    if (fromUrl instanceof ApiError) return respond(errorResult(ctx, fromUrl), log);
    return runOne(fromUrl, session, log);
  }
  // Parsing JSON blocks the event loop: a non-admin body is bounded by its size and by the values
  // it holds, counted before it is parsed (auth/bodyLimits.ts); a batch's length is checked then too.
  if (!session.isAdmin) {
    try {
      const shape = checkNonAdminBody(ctx.config, req.body);
      if (shape.topLength >= 0) checkBatchSize(shape.topLength, limitsForRole(ctx.state.current.metadata.api_limits, ctx.limitDefaults ?? ctx.config, session.role));
    } catch (e) {
      const r = errorResult(ctx, e);
      return respond(r, log, undefined, r.status === 413 ? 413 : undefined);
    }
  }

  let parsed: unknown;
  try {
    parsed = parseJsonExact(req.body.toString('utf8'));
  } catch {
    return respond(errorResult(ctx, new ApiError('invalid-json', 'invalid json')), log);
  }

  if (Array.isArray(parsed)) {
    let requests: GraphqlRequest[];
    try {
      checkBatchSize(parsed.length, limitsForRole(ctx.state.current.metadata.api_limits, ctx.limitDefaults ?? ctx.config, session.role));
      requests = parsed.map((p, i) => decodeRequest(p, `$[${i}]`));
    } catch (e) {
      return respond(errorResult(ctx, e), log);
    }
    const parts: Buffer[] = [];
    for (const r of requests) {
      // Each member may be refused synchronously: yield between members so a batch of costly
      // documents never holds the event loop for the whole batch.
      if (parts.length > 0) await yieldToEventLoop();
      parts.push(parts.length === 0 ? OPEN_BRACKET : COMMA);
      const { body, kind } = await executeGraphql(ctx, session, { ...r, clientHeaders: req.headers }, 'http', { parts: api, readAfter });
      // The queries after a mutation of the same batch read from the primary: they see its writes.
      if (kind === 'mutation') readAfter = 'primary';
      parts.push(typeof body === 'string' ? Buffer.from(body) : body);
    }
    parts.push(parts.length === 0 ? EMPTY_BATCH : CLOSE_BRACKET);
    return { status: 200, headers: baseHeaders, body: Buffer.concat(parts), log };
  }
  let request: GraphqlRequest;
  try {
    request = decodeRequest(parsed, '$');
  } catch (e) {
    return respond(errorResult(ctx, e), log);
  }
  return runOne(request, session, log);

  /** One request (not a batch); a GET one may not be a mutation. Set-Cookie of actions is passed back. */
  async function runOne(request: GraphqlRequest, session: Session, log: NonNullable<HttpResponse['log']>): Promise<HttpResponse> {
    // Client headers are flattened only when an action forwards them (not on every request).
    let flat: Record<string, string> | undefined;
    const extras: RequestExtras = {
      get clientHeaders() {
        return (flat ??= flatHeaders(req.headers));
      },
      setCookie: [],
    };
    const gzip = acceptedEncodings(req.headers['accept-encoding']).gzip;
    const result = await executeGraphql(ctx, session, { ...request, clientHeaders: req.headers }, 'http', { forbidMutations: isGet, extras, parts: api, readAfter, gzip });
    if (request.operationName !== null) log.operationName = request.operationName;
    if (extras.setCookie.length === 0) return respond(result, log, result.headers);
    // Set-Cookie of actions and of remote schemas, together.
    const fromRemote = result.headers?.['set-cookie'];
    const cookies = [...(fromRemote === undefined ? [] : Array.isArray(fromRemote) ? fromRemote : [fromRemote]), ...extras.setCookie];
    const res = respond(result, log, result.headers);
    return { ...res, headers: { ...res.headers, 'set-cookie': cookies } };
  }
};

export const v1Graphql: Handler = graphqlEndpoint(ENGINE_PARTS);
/** POST /v1beta1/relay: the Relay API (beta in Hasura v1.3), the same pipeline over the Relay schemas. */
export const v1beta1Relay: Handler = graphqlEndpoint(RELAY_PARTS);

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** `{query, operationName?, variables?}` with Hasura's decode errors. */
export function decodeRequest(v: unknown, path: string): GraphqlRequest {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) {
    throw new ApiError('parse-failed', `expected Object, encountered ${Array.isArray(v) ? 'Array' : v === null ? 'Null' : typeof v === 'string' ? 'String' : typeof v === 'number' ? 'Number' : 'Boolean'}`, { path });
  }
  const o = v as Record<string, unknown>;
  if (!('query' in o)) throw new ApiError('parse-failed', 'key "query" not found', { path });
  if (typeof o.query !== 'string') throw new ApiError('parse-failed', 'expected Text, encountered ' + (o.query === null ? 'Null' : typeof o.query), { path: `${path}.query` });
  if (o.operationName !== undefined && o.operationName !== null && typeof o.operationName !== 'string') {
    throw new ApiError('parse-failed', 'expected Text for operationName', { path: `${path}.operationName` });
  }
  if (o.variables !== undefined && o.variables !== null && (typeof o.variables !== 'object' || Array.isArray(o.variables))) {
    throw new ApiError('parse-failed', 'expected Object for variables', { path: `${path}.variables` });
  }
  return {
    query: o.query,
    operationName: (o.operationName as string | null | undefined) ?? null,
    variables: (o.variables as Record<string, unknown> | null | undefined) ?? null,
  };
}
