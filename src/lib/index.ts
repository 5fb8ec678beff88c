export * from './lru.js';
export * from './freePort.js';
export * from './packageInfo.js';
export { JsonBigNumber, parseJsonExact } from './exactJson.js';
export { acquireBuffer, releaseBuffer, pooledFreeBytes } from './bufferPool.js';
export { jsonShape, type JsonShape } from './jsonShape.js';
export { duplicateValues } from './duplicateValues.js';
export { offThreadRunner, serveOffThread, OFF_THREAD_MIN_BYTES, type OffThreadRunner } from './offThread.js';
export { restingPoll, type RestingPoll } from './restingPoll.js';
