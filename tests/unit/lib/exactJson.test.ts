import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonBigNumber, parseJsonExact } from '../../../src/lib/index.js';

test('short numbers parse as JSON.parse does; long ones keep their exact text', () => {
  const text = '{"a": 1, "b": 9007199254740993, "c": [-12345678901234567890.5, 0.1, 1e400, 1234567890123456e2], "d": "9007199254740993 in a string \\" 12345678901234567"}';
  const v = parseJsonExact(text) as any;
  assert.equal(v.a, 1);
  assert.ok(v.b instanceof JsonBigNumber);
  assert.equal(v.b.text, '9007199254740993');
  assert.equal(v.c[0].text, '-12345678901234567890.5');
  assert.equal(v.c[1], 0.1);
  assert.equal(v.c[2], Infinity);
  assert.equal(v.c[3].text, '1234567890123456e2'); // 16 significant digits: kept exact
});

test('strings with long digit runs stay strings; invalid JSON still throws; JSON.stringify gives the rounded number', () => {
  assert.deepEqual(parseJsonExact('["12345678901234567890", "a\\"12345678901234567890"]'), ['12345678901234567890', 'a"12345678901234567890']);
  assert.throws(() => parseJsonExact('{"a": 12345678901234567890'), SyntaxError);
  assert.equal(JSON.stringify(parseJsonExact('[12345678901234567890]')), '[12345678901234567000]');
  assert.equal(new JsonBigNumber('12345678901234567890').toPostgres(), '12345678901234567890');
});
