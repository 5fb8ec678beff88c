/**
 * Frees the memory of large Buffers at once, without waiting for a major garbage collection: a
 * Buffer's bytes live outside the JS heap and go only when V8 collects the object that holds them,
 * which for an object in the old generation can be minutes away on an idle engine (a 107 MB
 * introspection answer, once kept compressed, stayed in the process's memory until then). Their
 * ArrayBuffers are transferred into a message that is never received (`MessageChannel`, both ports
 * closed), which releases the bytes on the next turn; the Buffers become empty (length 0).
 *
 * Only a Buffer that owns its whole ArrayBuffer of at least `MIN_DISPOSED_BYTES` is disposed (never a
 * slice of Node's shared 8 KB pool); call it only when nothing reads the Buffer any more (a socket
 * still writing it included: see `holdBuffer` / `disposeWhenReleased` in bufferPool.ts).
 */
import { MessageChannel } from 'node:worker_threads';

export const MIN_DISPOSED_BYTES = 1024 * 1024;

/** Whether `buf` owns its whole (transferable) ArrayBuffer of at least `MIN_DISPOSED_BYTES`. */
export const disposable = (buf: Buffer): boolean =>
  buf.byteOffset === 0 && buf.byteLength >= MIN_DISPOSED_BYTES && buf.buffer instanceof ArrayBuffer && buf.byteLength === buf.buffer.byteLength;

/** Frees the bytes of each disposable Buffer of `bufs` (the others are left to the garbage collector). */
export function disposeBuffers(bufs: readonly Buffer[]): void {
  const transfer = bufs.filter(disposable).map((b) => b.buffer as ArrayBuffer);
  if (transfer.length === 0) return;
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(null, transfer);
  } catch {
    // An ArrayBuffer that cannot be detached: left to the garbage collector.
  }
  port1.close();
  port2.close();
}
