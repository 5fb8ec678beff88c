/**
 * The HTTP status of an authentication failure on `/v1/graphql` (and `/v1beta1/relay`).
 * Hasura answers every error there with 200 and an `errors` body (DECISIONS 9, 10), and so do
 * we — except an expired JWT when the operator opted in with `SVC_GRAPHQL_JWT_EXPIRED_STATUS=401`
 * (hasura#8659): then 401 with a `WWW-Authenticate` header (RFC 6750), body unchanged.
 */
import type { ApiError } from '../core/index.js';

export interface AuthFailureHttp {
  status: number;
  headers: Record<string, string>;
}

export function graphqlAuthFailureHttp(err: ApiError): AuthFailureHttp {
  if (err.code === 'invalid-jwt' && err.status === 401) {
    return { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="JWT expired"' } };
  }
  // A body too large to be read before authentication (POST-mode webhook): 413, as everywhere.
  if (err.status === 413) return { status: 413, headers: {} };
  return { status: 200, headers: {} };
}
