/**
 * Reusable response buffers, by power-of-two size class (4 kB to 8 MB).
 *
 * Why: a /v1/graphql answer is one Buffer holding the bytes Postgres sent (execution/dataRowBytes).
 * Allocating a fresh one per request is external memory to V8, and external memory growing at
 * ~70 MB/s (e_large_1000: 107 kB × 650 req/s) made V8 run a full mark-compact about ten times a
 * second. Reusing the buffers once the socket has taken their bytes keeps that allocation flat.
 *
 * `acquireBuffer(size)` answers a Buffer of exactly `size` bytes (uninitialised, like
 * `Buffer.allocUnsafe`); `releaseBuffer(buf)` gives it back — call it only once nothing reads the
 * buffer any more (the HTTP server does, when the response has been flushed to the socket).
 * Releasing a buffer that did not come from here, or releasing twice, is a no-op. At most
 * `MAX_FREE_BYTES` wait in the free lists; the rest is left to the garbage collector.
 */
import { disposable, disposeBuffers } from './disposeBuffers.js';

const MIN_POOLED = 4096;
const MAX_POOLED = 8 * 1024 * 1024;
const MAX_FREE_BYTES = 16 * 1024 * 1024;

const freeLists = new Map<number, ArrayBuffer[]>();
/** Every ArrayBuffer this pool made. */
const ours = new WeakSet<ArrayBuffer>();
/** The ones sitting in a free list (guards against a double release handing one buffer to two users). */
const idle = new WeakSet<ArrayBuffer>();
let freeBytes = 0;

const sizeClass = (size: number): number => 2 ** Math.ceil(Math.log2(size));

/** A Buffer of `size` bytes, reused from the pool when one of its size class is free. */
export function acquireBuffer(size: number): Buffer {
  if (size < MIN_POOLED || size > MAX_POOLED) return Buffer.allocUnsafe(size);
  const cls = sizeClass(size);
  const ab = freeLists.get(cls)?.pop();
  if (ab !== undefined) {
    idle.delete(ab);
    freeBytes -= cls;
    return Buffer.from(ab, 0, size);
  }
  const fresh = new ArrayBuffer(cls);
  ours.add(fresh);
  return Buffer.from(fresh, 0, size);
}

/**
 * Large Buffers to free once the responses writing them are done (`holdBuffer` per response body,
 * `releaseBuffer` when the socket has taken it) and their owner has let them go (`disposeWhenReleased`).
 */
const held = new WeakMap<ArrayBuffer, { uses: number; dispose: boolean }>();

/** `buf` is about to be a response body: `releaseBuffer(buf)` once the socket has taken it. */
export function holdBuffer(buf: Buffer): void {
  if (!disposable(buf)) return;
  const h = held.get(buf.buffer as ArrayBuffer);
  if (h) h.uses++;
  else held.set(buf.buffer as ArrayBuffer, { uses: 1, dispose: false });
}

/** Frees `buf`'s bytes now (`disposeBuffers`) or, while responses hold it, once the last is released. */
export function disposeWhenReleased(buf: Buffer): void {
  if (!disposable(buf)) return;
  const h = held.get(buf.buffer as ArrayBuffer);
  if (h && h.uses > 0) h.dispose = true;
  else disposeBuffers([buf]);
}

/** Gives `buf` back to the pool (a no-op for buffers the pool did not make, or already released). */
export function releaseBuffer(buf: Buffer): void {
  const ab = buf.buffer as ArrayBuffer;
  const h = held.get(ab);
  if (h !== undefined && h.uses > 0 && --h.uses === 0 && h.dispose) {
    held.delete(ab);
    disposeBuffers([buf]);
    return;
  }
  if (buf.byteOffset !== 0 || !ours.has(ab) || idle.has(ab)) return;
  if (freeBytes + ab.byteLength > MAX_FREE_BYTES) return;
  let list = freeLists.get(ab.byteLength);
  if (list === undefined) freeLists.set(ab.byteLength, (list = []));
  list.push(ab);
  idle.add(ab);
  freeBytes += ab.byteLength;
}

/** Bytes waiting in the free lists (tests, diagnostics). */
export const pooledFreeBytes = (): number => freeBytes;
