/**
 * Read your writes across read replicas, with no state on the engine: a mutation's response
 * carries `X-Svc-Commit-Lsn` (the primary's WAL position after the commit); a later request that
 * sends that header back reads from a replica that has replayed that position, or from the
 * primary. `X-Svc-Read-Primary: true` sends a request's reads to the primary. Both are read only
 * when read replicas are configured (HTTP requests; a WebSocket's upgrade request and
 * connection_init headers, for the first read of its subscriptions).
 *
 * Each source is its own server, so its positions are its own: the header is a comma list whose
 * bare entry is `default`'s position and `name=position` another source's (the name
 * percent-encoded), e.g. `0/16B3748, archive=0/3000060`. A source's replicas look up only their
 * own entry: a source the header does not name reads from any usable replica.
 */
import { ApiError } from '../core/index.js';
import { parseLsn } from './walPosition.js';
import type { ReadAfter } from './readReplicas.js';

export const COMMIT_LSN_HEADER = 'x-svc-commit-lsn';
export const READ_PRIMARY_HEADER = 'x-svc-read-primary';

const malformed = () => new ApiError('bad-request', `${COMMIT_LSN_HEADER}: expected a WAL position such as 0/16B3748, as sent by a mutation's response`);

/** Where a request's reads may go, from its headers; a malformed LSN is a 400 naming the header. */
export function readAfterOf(headers: Record<string, string | string[] | undefined>): ReadAfter {
  const primary = headers[READ_PRIMARY_HEADER];
  if (typeof primary === 'string' && primary.trim().toLowerCase() === 'true') return 'primary';
  const token = headers[COMMIT_LSN_HEADER];
  if (token === undefined) return undefined;
  const text = Array.isArray(token) ? token.join(',') : token;
  if (!text.includes(',') && !text.includes('=')) {
    const lsn = parseLsn(text);
    if (lsn === undefined) throw malformed();
    return lsn;
  }
  const points = new Map<string, bigint>();
  for (const entry of text.split(',')) {
    const eq = entry.indexOf('=');
    let source = 'default';
    if (eq >= 0) {
      try {
        source = decodeURIComponent(entry.slice(0, eq).trim());
      } catch {
        throw malformed();
      }
    }
    const lsn = parseLsn(entry.slice(eq + 1));
    if (lsn === undefined || source === '') throw malformed();
    // The same source twice (a header sent once per response): the later position.
    const have = points.get(source);
    points.set(source, have === undefined || lsn > have ? lsn : have);
  }
  return points;
}

/** The header's value for commits on these sources (`default` bare, others `name=position`). */
export function commitPointsHeader(points: ReadonlyArray<readonly [source: string, lsn: string]>): string {
  return points.map(([source, lsn]) => (source === 'default' ? lsn : `${encodeURIComponent(source)}=${lsn}`)).join(', ');
}
