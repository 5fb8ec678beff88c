/**
 * The GraphQL-over-HTTP specification's parts that /v1/graphql follows next to Hasura's own
 * behaviour: a request in the URL of a GET (`query`, `operationName`, `variables` as JSON text),
 * and the response media type chosen from the client's `Accept` header, either
 * `application/json` (Hasura's, the default: HTTP 200 with `{"errors": ...}`) or
 * `application/graphql-response+json` (the spec's: a request that fails before execution gets a
 * 4xx/5xx status).
 */
import { ApiError } from '../core/index.js';
import { parseJsonExact } from '../lib/index.js';
import type { GraphqlRequest } from '../graphql/index.js';

export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
export type GraphqlMediaType = 'application/json' | typeof GRAPHQL_RESPONSE_JSON;

/**
 * The media type to answer with: the one the client weighs highest (`q`), ties broken by order;
 * `application/json` when the header is absent or names neither (no 406: Hasura's clients send
 * all sorts of Accept headers and always got JSON).
 */
export function negotiateMediaType(accept: string | undefined): GraphqlMediaType {
  if (!accept || !accept.includes(GRAPHQL_RESPONSE_JSON)) return 'application/json';
  let best: { type: GraphqlMediaType; q: number } | undefined;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!(q > 0)) continue;
    const type: GraphqlMediaType | undefined = range === GRAPHQL_RESPONSE_JSON ? GRAPHQL_RESPONSE_JSON
      : range === 'application/json' || range === 'application/*' || range === '*/*' ? 'application/json' : undefined;
    if (type && (!best || q > best.q)) best = { type, q };
  }
  return best?.type ?? 'application/json';
}

const parseFailed = (message: string, path: string) => new ApiError('parse-failed', message, { path });

/** A GET request's parameters as a GraphQL request (errors like the POST body's decode errors). */
export function requestFromUrl(params: URLSearchParams): GraphqlRequest {
  const query = params.get('query');
  if (query === null) throw parseFailed('key "query" not found', '$');
  const operationName = params.get('operationName');
  const raw = params.get('variables');
  let variables: Record<string, unknown> | null = null;
  if (raw !== null && raw !== '') {
    let v: unknown;
    try {
      v = parseJsonExact(raw);
    } catch {
      throw parseFailed('variables must be a JSON object (URL-encoded JSON text)', '$.variables');
    }
    if (v !== null && (typeof v !== 'object' || Array.isArray(v))) throw parseFailed('expected Object for variables', '$.variables');
    variables = v as Record<string, unknown> | null;
  }
  return { query, operationName: operationName === '' ? null : operationName, variables };
}

/** The error for a mutation sent by GET (the spec: 405, the operation is not run). */
export const mutationByGet = (): ApiError =>
  new ApiError('method-not-allowed', 'mutations cannot be sent with GET; use POST', { status: 405 });
