/**
 * The `@cached` response cache: a store (in memory, or Redis), the key of a request, and the
 * hit / miss counts the metrics read. A store that fails (Redis down) makes a request a miss,
 * never an error: the request runs uncached. Failures are reported through `onError`.
 */
import { createHash } from 'node:crypto';
import type { CacheStore, StoredResponse } from './cacheStore.js';

/**
 * What the answers of one engine depend on whatever the request: the database they are read from
 * (its cluster's system identifier and name, and the source), and the engine's options that shape an
 * answer. Engines with the same scope share entries (in one Redis); any difference keeps them apart.
 */
export interface CacheScope {
  /** `system_identifier` of `pg_control_system()`. */
  systemIdentifier: string;
  /** The database name (`current_database()`). */
  database: string;
  /** The metadata source (`default`). */
  source: string;
  /** Engine options that change an answer's bytes: version, naming convention, numeric types as strings, Hasura session names. */
  options: Readonly<Record<string, string | number | boolean | null>>;
}

/**
 * What one request's key is made of, beyond the scope: Hasura v2's key (the query, its operation
 * name and variables, the role and the session variables its permissions use) and what else changes
 * the answer: the metadata's resource version (any metadata change makes earlier entries
 * unreachable), the API (GraphQL or Relay) and the backend-only flag (it changes the role's schema).
 */
export interface CacheKeyParts {
  /** `resource_version` of the metadata the answer is computed with (read with the schema cache, in the same tick). */
  resourceVersion: number;
  api: string;
  role: string;
  backendOnly: boolean;
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
  /** The scope as JSON: the first part of every key this engine makes. */
  private readonly scopeText: string;

  constructor(
    readonly store: CacheStore,
    /** Largest ttl (seconds) a query may ask for. */
    readonly maxTtl: number,
    readonly scope: CacheScope,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {
    this.scopeText = JSON.stringify([scope.systemIdentifier, scope.database, scope.source, Object.entries(scope.options).sort(([a], [b]) => (a < b ? -1 : 1))]);
  }

  /** The key (SHA-256, hex) of a request: this engine's scope and the request's parts. */
  key(p: CacheKeyParts): string {
    return createHash('sha256')
      .update(this.scopeText)
      .update(JSON.stringify([p.resourceVersion, p.api, p.role, p.backendOnly, p.sessionVars, p.operationName, p.query, p.variables]))
      .digest('hex');
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
