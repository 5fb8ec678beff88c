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
});
