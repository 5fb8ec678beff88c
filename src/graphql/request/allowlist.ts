/**
 * The allow-list check of Hasura v1.3 (`checkQueryInAllowlist`): with `--enable-allowlist`, a
 * non-admin request whose document (normalised: parsed, `__typename` fields stripped, printed) is
 * not one of the allow-listed collections' queries fails with `validation-failed` "query is not
 * allowed" before anything else is validated. Results are memoised per schema cache and query text.
 */
import { ApiError, type Session } from '../../core/index.js';
import type { ServerConfig } from '../../config/index.js';
import { Lru } from '../../lib/index.js';
import { buildAllowlist, normalizeAllowlistDocument, type SchemaCache } from '../../metadata/index.js';
import { parseQuery } from './validate.js';

const MEMO_SIZE = 1000;
const memo = new WeakMap<SchemaCache, { allowed: ReadonlySet<string>; seen: Lru<string, boolean> }>();

function memoFor(cache: SchemaCache) {
  let m = memo.get(cache);
  if (!m) {
    m = { allowed: cache.allowlist ?? buildAllowlist(cache.metadata), seen: new Lru(MEMO_SIZE) };
    memo.set(cache, m);
  }
  return m;
}

/** Whether `query` is on the allow-list of `cache` (parse errors throw Hasura's parse error). */
export function isQueryAllowed(cache: SchemaCache, query: string): boolean {
  const m = memoFor(cache);
  const hit = m.seen.get(query);
  if (hit !== undefined) return hit;
  const ok = m.allowed.has(normalizeAllowlistDocument(parseQuery(query)));
  m.seen.set(query, ok);
  return ok;
}

/** Throws `validation-failed` "query is not allowed" when the allow-list is on and refuses the query. */
export function assertQueryAllowed(cache: SchemaCache, config: ServerConfig, session: Session, query: string): void {
  if (!config.enableAllowlist || session.isAdmin) return;
  if (!isQueryAllowed(cache, query)) {
    throw new ApiError('validation-failed', 'query is not allowed', {
      path: '$', internal: { message: 'query is not in any of the allowlists' },
    });
  }
}
