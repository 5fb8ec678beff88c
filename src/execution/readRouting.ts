/**
 * Read your writes across read replicas, with no state on the engine: a mutation's response
 * carries `X-Svc-Commit-Lsn` (the primary's WAL position after the commit); a later request that
 * sends that header back reads from a replica that has replayed that position, or from the
 * primary. `X-Svc-Read-Primary: true` sends a request's reads to the primary. Both are read only
 * when read replicas are configured (HTTP requests; a WebSocket's upgrade request and
 * connection_init headers, for the first read of its subscriptions).
 */
import { ApiError } from '../core/index.js';
import { parseLsn } from './walPosition.js';
import type { ReadAfter } from './readReplicas.js';

export const COMMIT_LSN_HEADER = 'x-svc-commit-lsn';
export const READ_PRIMARY_HEADER = 'x-svc-read-primary';

/** Where a request's reads may go, from its headers; a malformed LSN is a 400 naming the header. */
export function readAfterOf(headers: Record<string, string | string[] | undefined>): ReadAfter {
  const primary = headers[READ_PRIMARY_HEADER];
  if (typeof primary === 'string' && primary.trim().toLowerCase() === 'true') return 'primary';
  const token = headers[COMMIT_LSN_HEADER];
  if (token === undefined) return undefined;
  const lsn = parseLsn(Array.isArray(token) ? token.at(-1) : token);
  if (lsn === undefined) throw new ApiError('bad-request', `${COMMIT_LSN_HEADER}: expected a WAL position such as 0/16B3748, as sent by a mutation's response`);
  return lsn;
}
