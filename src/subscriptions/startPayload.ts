/**
 * The payload of `start` (graphql-ws) / `subscribe` (graphql-transport-ws): a GraphQL request
 * `{query, variables?, operationName?}`, decoded with the messages /v1/graphql uses.
 */
import { ApiError } from '../core/index.js';
import type { GraphqlRequest } from '../graphql/index.js';

export function decodeStartPayload(v: unknown): GraphqlRequest {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ApiError('parse-failed', 'expected Object for payload', { path: '$.payload' });
  const o = v as Record<string, unknown>;
  if (!('query' in o)) throw new ApiError('parse-failed', 'key "query" not found', { path: '$.payload' });
  if (typeof o.query !== 'string') throw new ApiError('parse-failed', 'expected Text for query', { path: '$.payload.query' });
  if (o.operationName != null && typeof o.operationName !== 'string') {
    throw new ApiError('parse-failed', 'expected Text for operationName', { path: '$.payload.operationName' });
  }
  if (o.variables != null && (typeof o.variables !== 'object' || Array.isArray(o.variables))) {
    throw new ApiError('parse-failed', 'expected Object for variables', { path: '$.payload.variables' });
  }
  return {
    query: o.query,
    operationName: (o.operationName as string | null | undefined) ?? null,
    variables: (o.variables as Record<string, unknown> | null | undefined) ?? null,
  };
}
