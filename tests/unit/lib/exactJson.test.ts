import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonBigNumber, parseJsonExact } from '../../../src/lib/index.js';
import { hasLongDigitRun } from '../../../src/lib/exactJson.js';

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

test('the long-number check reads every 16th character and finds what /\\d{16}/ finds', () => {
  // Deterministic pseudo-random texts of digits and other characters, runs of every length around 16 at every offset.
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  for (let k = 0; k < 3000; k++) {
    let text = '';
    const len = Math.floor(next() * 80);
    while (text.length < len) text += next() < 0.7 ? String(Math.floor(next() * 10)) : next() < 0.5 ? '"' : 'a,';
    assert.equal(hasLongDigitRun(text), /\d{16}/.test(text), JSON.stringify(text));
  }
  for (let run = 14; run <= 18; run++) {
    for (let at = 0; at < 20; at++) {
      const text = `${'x'.repeat(at)}${'7'.repeat(run)}${'y'.repeat(at % 3)}`;
      assert.equal(hasLongDigitRun(text), run >= 16, `${run} digits at ${at}`);
    }
  }
  assert.equal(hasLongDigitRun('{"id": 9007199254740993}'), true);
  assert.deepEqual(parseJsonExact('{"id": 9007199254740993, "n": 123456789012345}'), { id: new JsonBigNumber('9007199254740993'), n: 123456789012345 });
});
