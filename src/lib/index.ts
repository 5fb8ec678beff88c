export * from './lru.js';
export * from './freePort.js';
export * from './packageInfo.js';
export { acquireBuffer, releaseBuffer, pooledFreeBytes } from './bufferPool.js';
