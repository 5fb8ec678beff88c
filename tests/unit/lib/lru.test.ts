import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Lru } from '../../../src/lib/index.js';

test('evicts the least recently used entry past capacity; get refreshes', () => {
  const lru = new Lru<string, number>(2);
  lru.set('a', 1).set('b', 2);
  assert.equal(lru.get('a'), 1); // a is now the most recent
  lru.set('c', 3);
  assert.equal(lru.has('b'), false);
  assert.equal(lru.get('a'), 1);
  assert.equal(lru.get('c'), 3);
  assert.equal(lru.size, 2);
});

test('re-setting a key replaces its value without growing', () => {
  const lru = new Lru<string, number>(2);
  lru.set('a', 1).set('a', 5);
  assert.equal(lru.size, 1);
  assert.equal(lru.get('a'), 5);
  lru.set('b', 2).set('a', 6); // a is in the older generation now
  assert.equal(lru.size, 2);
  assert.equal(lru.get('a'), 6);
});

test('never holds more than capacity; an entry used within the last capacity/2 insertions survives', () => {
  const lru = new Lru<number, number>(100);
  lru.set(-1, -1);
  for (let i = 0; i < 10_000; i++) {
    lru.set(i, i);
    assert.ok(lru.size <= 100);
    if (i % 40 === 0) assert.equal(lru.get(-1), -1, `hot key lost at ${i}`);
  }
  assert.equal(lru.get(9_999), 9_999);
  assert.equal(lru.get(9_950), 9_950);
  assert.equal(lru.has(0), false);
});

test('undefined and falsy values are cached; delete and clear remove entries', () => {
  const lru = new Lru<string, number | undefined>(4);
  lru.set('u', undefined).set('z', 0);
  assert.equal(lru.has('u'), true);
  assert.equal(lru.get('z'), 0);
  lru.set('x', 1).set('y', 2); // u, z move to the older generation
  assert.equal(lru.delete('u'), true);
  assert.equal(lru.delete('u'), false);
  assert.equal(lru.has('u'), false);
  assert.equal(lru.size, 3);
  lru.clear();
  assert.equal(lru.size, 0);
  assert.equal(lru.get('x'), undefined);
});

test('capacity must be positive', () => {
  assert.throws(() => new Lru(0), RangeError);
});
