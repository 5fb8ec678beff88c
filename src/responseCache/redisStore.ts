/**
 * The Redis response store (`--redis-url`): `SET key body PX ttl`, and `GET` + `PTTL` sent
 * together (node-redis pipelines commands issued in the same tick). Commands fail at once while
 * the connection is down (no offline queue): a request then runs uncached instead of waiting;
 * the client reconnects by itself. The `redis` package is loaded only when a Redis URL is set.
 */
import type { CacheStore, StoredResponse } from './cacheStore.js';

const KEY_PREFIX = 'svc:cache:';

type Client = {
  get(key: string): Promise<string | null>;
  pTTL(key: string): Promise<number>;
  set(key: string, value: string, opts: { PX: number }): Promise<unknown>;
  connect(): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  on(event: 'error', listener: (err: Error) => void): unknown;
};

export class RedisStore implements CacheStore {
  readonly kind = 'redis';
  private constructor(private readonly client: Client) {}

  /** Connects to `url`; a server that cannot be reached fails here, with its cause. */
  static async connect(url: string, onError: (err: Error) => void): Promise<RedisStore> {
    const { createClient } = await import('redis');
    let connected = false;
    // The first connection fails at once (the engine does not start); later drops reconnect with backoff.
    const reconnectStrategy = (n: number, cause: Error) => (connected ? Math.min(100 * 2 ** n, 5000) : cause);
    const client = createClient({ url, disableOfflineQueue: true, socket: { connectTimeout: 5000, reconnectStrategy } }) as unknown as Client;
    client.on('error', (err) => {
      if (connected) onError(err);
    });
    await client.connect();
    connected = true;
    return new RedisStore(client);
  }

  async get(key: string): Promise<StoredResponse | undefined> {
    const [body, ttlMs] = await Promise.all([this.client.get(KEY_PREFIX + key), this.client.pTTL(KEY_PREFIX + key)]);
    if (body === null || ttlMs <= 0) return undefined;
    return { body: Buffer.from(body), ttlMs };
  }

  async set(key: string, body: Buffer, ttlMs: number): Promise<void> {
    await this.client.set(KEY_PREFIX + key, body.toString('utf8'), { PX: ttlMs });
  }

  async close(): Promise<void> {
    await (this.client.close ?? this.client.quit)?.call(this.client);
  }
}
