/**
 * parseJsonSliced (lib/parseJsonSliced.ts) against JSON.parse: random documents large enough to be walked
 * in pieces (whitespace, escapes, `__proto__` and duplicate keys, deep nesting), and the same texts broken
 * one character at a time: the same value, or a SyntaxError where JSON.parse throws one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonSliced, TurnBudget } from '../../../src/lib/index.js';
import { prng } from '../../support/prng.js';

const rand = prng(42);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)];
const STRINGS = ['', 'a', 'with "quotes"', 'back\\slash\\', '\\"', 'üñí©ødé ✓', '\u0000\u001f', '}]{[,:', '__proto__', 'x'.repeat(40_000)];
const ws = (): string => (rand() < 0.7 ? '' : pick([' ', '\n', '\t', '\r\n  ']));

function value(depth: number): string {
  const r = rand();
  if (depth > 4 || r < 0.3) return pick(['0', '-1.5e3', '12345678901234567890', 'true', 'false', 'null', ...STRINGS.slice(0, 9).map((s) => JSON.stringify(s))]);
  if (r < 0.35) return JSON.stringify(pick(STRINGS));
  const n = Math.floor(rand() * (depth === 0 ? 400 : depth === 1 ? 8 : 4));
  if (r < 0.65) return `[${ws()}${Array.from({ length: n }, () => ws() + value(depth + 1) + ws()).join(',')}]`;
  const keys = Array.from({ length: n }, (_, i) => (rand() < 0.1 ? pick(['__proto__', 'k1', '2', 'dup']) : `k${i}`));
  return `{${ws()}${keys.map((k) => `${ws()}${JSON.stringify(k)}${ws()}:${ws()}${value(depth + 1)}`).join(',')}}`;
}

async function same(text: string): Promise<void> {
  let expected: unknown, error: unknown;
  try { expected = JSON.parse(text); } catch (e) { error = e; }
  if (error) {
    await assert.rejects(parseJsonSliced(text, new TurnBudget(0.5)), SyntaxError);
    return;
  }
  const got = await parseJsonSliced(text, new TurnBudget(0.5));
  assert.deepStrictEqual(got, expected);
  assert.equal(JSON.stringify(got), JSON.stringify(expected));
}

test('large random documents: the value JSON.parse gives', async () => {
  let large = 0;
  for (let i = 0; i < 40; i++) {
    const text = ws() + value(0) + ws();
    if (text.length > 100_000) large++;
    await same(text);
  }
  assert.ok(large >= 10, `documents over 100 kB: ${large}`);
});

test('broken documents: refused as JSON.parse refuses them', async () => {
  const base = `{"tables": [${Array.from({ length: 3000 }, (_, i) => `{"table": {"schema": "public", "name": "t${i}"}, "n": [${i}, "${i}\\"", true]}`).join(', ')}], "z": null}`;
  await same(base);
  for (let i = 0; i < 300; i++) {
    const at = Math.floor(rand() * base.length);
    const op = rand();
    const text = op < 0.4 ? base.slice(0, at) + base.slice(at + 1) : op < 0.8 ? base.slice(0, at) + pick([',', ']', '}', '"', ':', 'x', ' ', '\\']) + base.slice(at) : base.slice(0, at);
    await same(text);
  }
  for (const text of [`${base} x`, `${base},`, `[${base},]`, `[${base} ${base}]`, `{"a" ${base}}`, `{"a": ${base},}`, `{${base}}`, `[${'['.repeat(100)}${base}${']'.repeat(100)}]`, `${'['.repeat(5000)}${']'.repeat(4999)}`]) await same(text);
});

test('a pathological nesting is parsed at once past a depth', async () => {
  const deep = `${'['.repeat(3000)}${'1,'.repeat(20_000)}1${']'.repeat(3000)}`;
  await same(deep);
});

test('__proto__ stays an own key, the prototype untouched', async () => {
  const text = `{"__proto__": {"polluted": true}, "pad": "${'x'.repeat(70_000)}", "__proto__": [1]}`;
  const got = (await parseJsonSliced(text)) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(got), Object.prototype);
  assert.deepEqual(Object.getOwnPropertyDescriptor(got, '__proto__')?.value, [1]);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('other work runs between slices', async () => {
  const text = JSON.stringify({ tables: Array.from({ length: 20_000 }, (_, i) => ({ table: { schema: 'public', name: `t${i}` }, select_permissions: [{ role: 'r', permission: { columns: ['a', 'b'], filter: {} } }] })) });
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  const got = await parseJsonSliced(text, new TurnBudget(1));
  clearInterval(timer);
  assert.deepStrictEqual(got, JSON.parse(text));
  assert.ok(ticks > 0, 'timers ran while the text was parsed');
});
