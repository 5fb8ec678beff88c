import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeJsonPath, parseJsonPath, readJsonPath } from '../../../src/auth/jsonPath.js';

test('parses dotted, bracketed and indexed steps', () => {
  assert.deepEqual(parseJsonPath('$'), []);
  assert.deepEqual(parseJsonPath('$.svc.claims'), ['svc', 'claims']);
  assert.deepEqual(parseJsonPath("$['https://svc.io/jwt/claims'].roles[1]"), ['https://svc.io/jwt/claims', 'roles', 1]);
  assert.deepEqual(parseJsonPath('$["a.b"]'), ['a.b']);
  assert.deepEqual(parseJsonPath('svc.claims'), ['svc', 'claims']);
});

test('rejects broken paths with the position', () => {
  assert.throws(() => parseJsonPath('$.'), /expected a key after "." at position 2/);
  assert.throws(() => parseJsonPath("$['a"), /unterminated quoted key/);
  assert.throws(() => parseJsonPath('$[x]'), /expected an array index or a quoted key/);
});

test('reads values and reports missing steps as undefined', () => {
  const doc = { a: { b: [10, { c: 'x' }] }, n: null };
  assert.equal(readJsonPath(doc, ['a', 'b', 1, 'c']), 'x');
  assert.equal(readJsonPath(doc, ['a', 'b', 5]), undefined);
  assert.equal(readJsonPath(doc, ['a', 'zz']), undefined);
  assert.equal(readJsonPath(doc, ['n']), null);
  assert.deepEqual(readJsonPath(doc, []), doc);
});

test('encodes paths canonically', () => {
  assert.equal(encodeJsonPath(['svc', 'claims']), '$.svc.claims');
  assert.equal(encodeJsonPath(['https://svc.io/jwt/claims', 0]), "$['https://svc.io/jwt/claims'][0]");
});
