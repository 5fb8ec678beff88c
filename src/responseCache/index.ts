/**
 * responseCache/: the `@cached` query response cache (Hasura v2's response caching): an
 * in-memory store bounded in bytes, or Redis (`--redis-url`), and the request key.
 */
export { ResponseCache, type CacheKeyParts, type CacheScope, type CacheCounts } from './responseCache.js';
export type { CacheStore, StoredResponse } from './cacheStore.js';
export { MemoryStore } from './memoryStore.js';
export { RedisStore } from './redisStore.js';
