/**
 * The `@cached` response cache: a store (in memory, or Redis), the key of a request, and the
 * hit / miss counts the metrics read. A store that fails (Redis down) makes a request a miss,
 * never an error: the request runs uncached. Failures are reported through `onError`.
 */
import { createHash } from 'node:crypto';
import type { CacheStore, StoredResponse } from './cacheStore.js';

/** What a request's cache key is made of (Hasura v2's: the query, its operation name and variables, the role and the session variables its permissions use). */
export interface CacheKeyParts {
  role: string;
  /** The session variables the operation's SQL reads (all of them when a root field goes elsewhere: actions, remote schemas). */
  sessionVars: ReadonlyArray<readonly [string, string | undefined]>;
  operationName: string | null;
  query: string;
  variables: Record<string, unknown>;
}

export interface CacheCounts {
  hits: number;
  misses: number;
}

export class ResponseCache {
  private readonly counts: CacheCounts = { hits: 0, misses: 0 };

  constructor(
    readonly store: CacheStore,
    /** Largest ttl (seconds) a query may ask for. */
    readonly maxTtl: number,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** The key (SHA-256, hex) of a request. */
  static key(p: CacheKeyParts): string {
    return createHash('sha256').update(JSON.stringify([p.role, p.sessionVars, p.operationName, p.query, p.variables])).digest('hex');
  }

  /** The stored answer of `key` (a hit), or undefined (a miss, counted; `refresh` skips the look-up). */
  async lookup(key: string, refresh: boolean): Promise<StoredResponse | undefined> {
    let found: StoredResponse | undefined;
    if (!refresh) {
      try {
        found = await this.store.get(key);
      } catch (e) {
        this.onError(e);
      }
    }
    if (found) this.counts.hits++;
    else this.counts.misses++;
    return found;
  }

  /** Stores `body` under `key` for `ttlSeconds`; a failing store is reported, not thrown. */
  async save(key: string, body: Buffer, ttlSeconds: number): Promise<void> {
    try {
      await this.store.set(key, body, ttlSeconds * 1000);
    } catch (e) {
      this.onError(e);
    }
  }

  /** Hits and misses since the engine started. */
  stats(): Readonly<CacheCounts> {
    return this.counts;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
