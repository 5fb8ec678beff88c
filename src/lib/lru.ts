/**
 * A bounded cache that keeps recently used entries: two generations of Map (`hot` and `cold`).
 * A hit in `hot` changes nothing (no Map mutation on the hot path: a delete + re-insert per hit
 * left tombstones that made V8 rebuild the hash table every few thousand requests); a hit in
 * `cold` moves the entry to `hot`. When `hot` reaches half the capacity it becomes `cold` and the
 * old `cold` is dropped. So at most `capacity` entries are kept, and an entry used within the last
 * `capacity / 2` insertions is never evicted. Every operation is O(1).
 */
export class Lru<K, V> {
  private hot = new Map<K, V>();
  private cold = new Map<K, V>();
  private readonly half: number;

  constructor(readonly capacity: number) {
    if (!(capacity > 0)) throw new RangeError('Lru: capacity must be positive');
    this.half = Math.max(1, Math.floor(capacity / 2));
  }

  get size(): number {
    return this.hot.size + this.cold.size;
  }

  get(key: K): V | undefined {
    const value = this.hot.get(key);
    if (value !== undefined || this.hot.has(key)) return value;
    if (!this.cold.has(key)) return undefined;
    const promoted = this.cold.get(key) as V;
    this.cold.delete(key);
    this.insert(key, promoted);
    return promoted;
  }

  has(key: K): boolean {
    return this.hot.has(key) || this.cold.has(key);
  }

  set(key: K, value: V): this {
    if (this.hot.has(key)) {
      this.hot.set(key, value);
      return this;
    }
    this.cold.delete(key);
    this.insert(key, value);
    return this;
  }

  delete(key: K): boolean {
    const inHot = this.hot.delete(key);
    return this.cold.delete(key) || inHot;
  }

  clear(): void {
    this.hot.clear();
    this.cold.clear();
  }

  private insert(key: K, value: V): void {
    if (this.hot.size >= this.half) {
      this.cold = this.hot;
      this.hot = new Map();
    }
    this.hot.set(key, value);
  }
}
