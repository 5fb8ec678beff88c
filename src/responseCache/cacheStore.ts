/** What a response store offers the cache: get with the time left, set with a ttl. */
export interface StoredResponse {
  body: Buffer;
  /** Milliseconds the entry has left. */
  ttlMs: number;
}

export interface CacheStore {
  readonly kind: 'memory' | 'redis';
  /** The stored response, or undefined (absent, expired, or the store unreachable). */
  get(key: string): Promise<StoredResponse | undefined>;
  set(key: string, body: Buffer, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}
