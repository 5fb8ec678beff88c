/**
 * POST /v1/graphql (and /v1alpha1/graphql): session from the headers, the JSON body as one
 * request or a batch (array → array of results, run in order), each through `executeGraphql`.
 * Errors are GraphQL `errors` bodies with HTTP 200 on /v1/graphql; /v1alpha1/graphql keeps the
 * error's own status (DECISIONS 9).
 */
import { ApiError, type Session } from '../core/index.js';
import { graphqlAuthFailureHttp, resolveSession } from '../auth/index.js';
import type { GraphqlRequest } from '../graphql/index.js';
import type { Handler, HttpResponse } from '../server/types.js';
import { errorResult, executeGraphql, type GraphqlResult } from './executeGraphql.js';

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };
const OPEN_BRACKET = Buffer.from('[');
const COMMA = Buffer.from(',');
const CLOSE_BRACKET = Buffer.from(']');
const EMPTY_BATCH = Buffer.from('[]');

export const v1Graphql: Handler = async (req, ctx) => {
  const realStatus = req.path.startsWith('/v1alpha1/');
  // The hot path (a successful query, no extra headers) allocates no header or log copies.
  const respond = (r: GraphqlResult, log: NonNullable<HttpResponse['log']>, headers?: Record<string, string>, status?: number): HttpResponse => {
    if (r.error) log.error = r.error.message;
    return { status: status ?? (realStatus ? r.status : 200), headers: headers ? { ...JSON_HEADERS, ...headers } : JSON_HEADERS, body: r.body, log };
  };

  let session: Session;
  try {
    session = await resolveSession(req.headers, ctx.config, req.body);
  } catch (e) {
    const r = errorResult(ctx, e);
    const http = r.error ? graphqlAuthFailureHttp(r.error) : { status: 200, headers: {} };
    return respond(r, {}, http.headers, realStatus ? r.status : http.status);
  }
  const log: NonNullable<HttpResponse['log']> = { role: session.role };

  let parsed: unknown;
  try {
    parsed = JSON.parse(req.body.toString('utf8'));
  } catch {
    return respond(errorResult(ctx, new ApiError('invalid-json', 'invalid json')), log);
  }

  if (Array.isArray(parsed)) {
    let requests: GraphqlRequest[];
    try {
      requests = parsed.map((p, i) => decodeRequest(p, `$[${i}]`));
    } catch (e) {
      return respond(errorResult(ctx, e), log);
    }
    const parts: Buffer[] = [];
    for (const r of requests) {
      parts.push(parts.length === 0 ? OPEN_BRACKET : COMMA);
      const { body } = await executeGraphql(ctx, session, { ...r, clientHeaders: req.headers });
      parts.push(typeof body === 'string' ? Buffer.from(body) : body);
    }
    parts.push(parts.length === 0 ? EMPTY_BATCH : CLOSE_BRACKET);
    return { status: 200, headers: JSON_HEADERS, body: Buffer.concat(parts), log };
  }
  let request: GraphqlRequest;
  try {
    request = decodeRequest(parsed, '$');
  } catch (e) {
    return respond(errorResult(ctx, e), log);
  }
  const result = await executeGraphql(ctx, session, { ...request, clientHeaders: req.headers });
  if (request.operationName !== null) log.operationName = request.operationName;
  return respond(result, log, result.headers);
};

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
