import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonShape } from '../../../src/lib/index.js';

const shape = (text: string, maxValues = 1000, maxDepth = 100) => jsonShape(Buffer.from(text), maxValues, maxDepth);

test('counts structural characters outside strings, the depth, and a top-level array\'s members', () => {
  assert.deepEqual(shape('{"a":1,"b":[1,2]}'), { values: 6, depth: 2, topLength: -1 });
  assert.deepEqual(shape('[{},{},{}]'), { values: 6, depth: 2, topLength: 3 });
  assert.deepEqual(shape('[]'), { values: 1, depth: 1, topLength: 0 });
  assert.deepEqual(shape(' [ 1 ] '), { values: 1, depth: 1, topLength: 1 });
  assert.deepEqual(shape('["a,b",{"c":[1,2]}]'), { values: 6, depth: 3, topLength: 2 });
  assert.deepEqual(shape('"x"'), { values: 0, depth: 0, topLength: -1 });
});

test('brackets, commas and escaped quotes inside strings are not counted', () => {
  assert.deepEqual(shape('{"q":"[[[{{{,,,:::\\"]]]"}'), { values: 2, depth: 1, topLength: -1 });
  assert.deepEqual(shape('["\\\\",1]'), { values: 2, depth: 1, topLength: 2 });
});

test('stops at the first bound passed', () => {
  assert.equal(shape(`[${'{},'.repeat(5000)}{}]`, 1000).over, 'values');
  assert.equal(shape(`${'['.repeat(200)}${']'.repeat(200)}`, 1000, 100).over, 'depth');
  assert.equal(shape(`${'['.repeat(100)}${']'.repeat(100)}`, 1000, 100).over, undefined);
});
