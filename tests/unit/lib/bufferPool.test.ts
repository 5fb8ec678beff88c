import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acquireBuffer, pooledFreeBytes, releaseBuffer } from '../../../src/lib/index.js';

test('a released buffer is handed out again for a size of the same class, at the asked length', () => {
  const a = acquireBuffer(100_000);
  assert.equal(a.length, 100_000);
  a.fill(7);
  const before = pooledFreeBytes();
  releaseBuffer(a);
  assert.equal(pooledFreeBytes(), before + 131_072);
  const b = acquireBuffer(70_000);
  assert.equal(b.length, 70_000);
  assert.equal(b.buffer, a.buffer, 'same backing memory reused');
  assert.equal(pooledFreeBytes(), before);
});

test('a double release does not put one buffer in the free list twice', () => {
  const a = acquireBuffer(20_000);
  const before = pooledFreeBytes();
  releaseBuffer(a);
  releaseBuffer(a);
  assert.equal(pooledFreeBytes(), before + 32_768);
  const b = acquireBuffer(20_000);
  const c = acquireBuffer(20_000);
  assert.notEqual(b.buffer, c.buffer, 'two live buffers never share memory');
});

test('small, huge and foreign buffers are not pooled', () => {
  const before = pooledFreeBytes();
  releaseBuffer(acquireBuffer(100));
  releaseBuffer(Buffer.alloc(50_000));
  releaseBuffer(acquireBuffer(20_000).subarray(10));
  assert.equal(pooledFreeBytes(), before);
  assert.equal(acquireBuffer(16 * 1024 * 1024).length, 16 * 1024 * 1024);
});

test('the free lists are bounded (16 MB)', () => {
  const held = Array.from({ length: 40 }, () => acquireBuffer(1_000_000));
  for (const b of held) releaseBuffer(b);
  assert.ok(pooledFreeBytes() <= 16 * 1024 * 1024);
});
