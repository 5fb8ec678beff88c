/**
 * The in-memory response store: least recently used entries dropped first once the bodies held
 * pass `maxBytes` (a Map's insertion order is the recency order: a hit moves its entry to the end).
 * An expired entry is dropped when it is next read.
 */
import type { CacheStore, StoredResponse } from './cacheStore.js';

interface Entry {
  body: Buffer;
  expiresAt: number;
}

/** Bytes counted per entry beyond its body and key (Map slot, object, Buffer header). */
const OVERHEAD = 96;

export class MemoryStore implements CacheStore {
  readonly kind = 'memory';
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly maxBytes: number, private readonly now: () => number = Date.now) {}

  /** Bytes currently held (bodies, keys and the per-entry overhead). */
  get size(): number {
    return this.bytes;
  }

  async get(key: string): Promise<StoredResponse | undefined> {
    const e = this.entries.get(key);
    if (!e) return undefined;
    const ttlMs = e.expiresAt - this.now();
    this.entries.delete(key);
    if (ttlMs <= 0) {
      this.bytes -= cost(key, e.body);
      return undefined;
    }
    this.entries.set(key, e);
    return { body: e.body, ttlMs };
  }

  async set(key: string, body: Buffer, ttlMs: number): Promise<void> {
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.bytes -= cost(key, old.body);
    }
    const size = cost(key, body);
    if (size > this.maxBytes) return;
    this.entries.set(key, { body, expiresAt: this.now() + ttlMs });
    this.bytes += size;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= cost(k, e.body);
    }
  }

  async close(): Promise<void> {
    this.entries.clear();
    this.bytes = 0;
  }
}

const cost = (key: string, body: Buffer): number => key.length + body.length + OVERHEAD;
