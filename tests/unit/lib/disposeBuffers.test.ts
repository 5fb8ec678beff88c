import { test } from 'node:test';
import assert from 'node:assert/strict';
import { disposeBuffers, disposeWhenReleased, holdBuffer, releaseBuffer } from '../../../src/lib/index.js';

const MB = 1024 * 1024;
/** The process's ArrayBuffer bytes, once a turn has passed (the closed ports' messages go then). */
const arrayBuffersSoon = async (): Promise<number> => {
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  return process.memoryUsage().arrayBuffers;
};

test('disposeBuffers frees a large Buffer\'s bytes without a garbage collection; small and shared ones are left alone', async () => {
  const big = Buffer.alloc(64 * MB, 1);
  const small = Buffer.from('a small one');
  const slice = Buffer.alloc(4 * MB, 2).subarray(1);
  const before = await arrayBuffersSoon();
  disposeBuffers([big, small, slice]);
  assert.equal(big.length, 0);
  assert.equal(small.toString(), 'a small one');
  assert.equal(slice.length, 4 * MB - 1);
  assert.equal(slice[0], 2);
  assert.ok(before - (await arrayBuffersSoon()) >= 60 * MB, 'the 64 MB went');
});

test('disposeWhenReleased waits for every hold to be released', async () => {
  const body = Buffer.alloc(8 * MB, 3);
  holdBuffer(body);
  holdBuffer(body);
  disposeWhenReleased(body);
  releaseBuffer(body);
  await arrayBuffersSoon();
  assert.equal(body.length, 8 * MB, 'one response still writes it');
  assert.equal(body[8 * MB - 1], 3);
  releaseBuffer(body);
  await arrayBuffersSoon();
  assert.equal(body.length, 0, 'freed with the last release');
  // Not held: freed at once.
  const other = Buffer.alloc(2 * MB);
  disposeWhenReleased(other);
  assert.equal(other.length, 0);
});
