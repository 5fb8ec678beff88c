/**
 * Multi-row inserts as one array parameter per column: the statement's text (the same for any
 * number of rows), which rows keep the VALUES form, presets as one scalar parameter, array-typed
 * columns through `text[]`, and the array literal each column's parameter is sent as (element by
 * element what the VALUES form sends for that value alone). Behaviour against Postgres:
 * integration/multiRowInsert.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { InsertIR, IrValue, MutationOutputIR, ValueSource } from '../../../src/ir/index.js';
import { mutationSqlText, resolveParams } from '../../../src/sql/index.js';
import { adminSession, roleSession } from '../../../src/core/index.js';
import { JsonBigNumber } from '../../../src/lib/index.js';

const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue: (v: unknown) => unknown };

const note = { schema: 'public', name: 'note' };
const output: MutationOutputIR = { kind: 'response', fields: [{ alias: 'affected_rows', kind: 'affected_rows' }] };
const variable = (i: number, field: string, pgType: string): IrValue => ({ source: { kind: 'variable', name: 'objects', path: [i, field] }, pgType });
const preset: IrValue = { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'int4' };
const row = (cols: Record<string, IrValue>) => ({
  columns: Object.entries(cols).map(([column, value]) => ({ column, value })), objectRelationships: [], arrayRelationships: [],
});
const insert = (rows: ReturnType<typeof row>[]): InsertIR => ({ kind: 'insert', table: note, check: { kind: 'true' }, output, rows });
/** n rows from `$objects`, each giving author, body, score and tags, plus the owner preset. */
const fromVariables = (n: number) => insert(Array.from({ length: n }, (_, i) => row({
  author: variable(i, 'author', 'text'), body: variable(i, 'body', 'text'), score: variable(i, 'score', 'int4'), tags: variable(i, 'tags', '_text'), owner: preset,
})));

test('rows that give the same columns: one array parameter per column, the same text for any number of rows', () => {
  const two = mutationSqlText(fromVariables(2));
  const hundred = mutationSqlText(fromVariables(100));
  assert.equal(two.text, hundred.text);
  assert.match(two.text, /INSERT INTO "public"."note" AS "_svc_t" \("author", "body", "score", "tags", "owner"\) SELECT unnest\(\$1::"text"\[\]\), unnest\(\$2::"text"\[\]\), unnest\(\$3::"int4"\[\]\), unnest\(\$4::"text"\[\]\)::"_text", \$5::"int4" RETURNING/);
  assert.ok(!/VALUES/.test(hundred.text));
  assert.equal(hundred.params.length, 5);
  assert.deepEqual(hundred.params[4]!.source, preset.source);
  const objects = Array.from({ length: 100 }, (_, i) => ({ author: `a${i}`, body: i % 2 ? null : `say "hi", {${i}}`, score: i, tags: i === 1 ? ['x,y', null] : null }));
  const values = resolveParams(hundred.params, { objects }, roleSession('user', { 'x-svc-user-id': '7' }));
  assert.equal(values.length, 5);
  assert.equal(values[0], `{${objects.map((o) => `"${o.author}"`).join(',')}}`);
  assert.ok((values[1] as string).startsWith('{"say \\"hi\\", {0}",NULL,"say \\"hi\\", {2}",NULL,'));
  assert.equal(values[2], `{${objects.map((o) => o.score).join(',')}}`);
  assert.ok((values[3] as string).startsWith('{NULL,"{\\"x,y\\",NULL}",NULL,'));
  assert.equal(values[4], '7');
});

test('kept as VALUES: one row, rows giving different columns, all columns alike, differing session values', () => {
  assert.match(mutationSqlText(fromVariables(1)).text, /VALUES \(\$1::"text", \$2::"text", \$3::"int4", \$4::"_text", \$5::"int4"\)/);
  const mixed = insert([row({ author: variable(0, 'author', 'text') }), row({ author: variable(1, 'author', 'text'), score: variable(1, 'score', 'int4') })]);
  assert.match(mutationSqlText(mixed).text, /VALUES \(\$1::"text", DEFAULT\), \(\$2::"text", \$3::"int4"\)/);
  const same = insert([row({ owner: preset }), row({ owner: preset })]);
  assert.match(mutationSqlText(same).text, /VALUES \(\$1::"int4"\), \(\$1::"int4"\)/);
  const sessions = insert([
    row({ author: variable(0, 'author', 'text'), owner: preset }),
    row({ author: variable(1, 'author', 'text'), owner: { source: { kind: 'session', name: 'x-svc-other' }, pgType: 'int4' } }),
  ]);
  assert.match(mutationSqlText(sessions).text, /VALUES/);
});

test('a column with one literal repeated is one parameter; literals that differ are one array', () => {
  const lit = (value: unknown, pgType: string): IrValue => ({ source: { kind: 'value', value }, pgType });
  const { text, params } = mutationSqlText(insert([
    row({ author: lit('same', 'text'), score: lit(1, 'int4'), big: lit(new JsonBigNumber('12345678901234567'), 'int8') }),
    row({ author: lit('same', 'text'), score: lit(2, 'int4'), big: lit(new JsonBigNumber('12345678901234568'), 'int8') }),
  ]));
  assert.match(text, /SELECT \$1::"text", unnest\(\$2::"int4"\[\]\), unnest\(\$3::"int8"\[\]\) RETURNING/);
  assert.deepEqual(resolveParams(params, undefined, adminSession()), ['same', '{1,2}', '{"12345678901234567","12345678901234568"}']);
});

test('each element is what the VALUES form sends for the value alone; json values are JSON text', () => {
  const one = (value: unknown, pgType: string): string => {
    const items: ValueSource[] = [{ kind: 'value', value }, { kind: 'value', value: null }];
    const [text] = resolveParams([{ source: { kind: 'array', items, element: pgType }, pgType: `${pgType}[]` }], undefined, adminSession());
    return text as string;
  };
  const quote = (s: string) => `"${s.replace(/[\\"]/g, '\\$&')}"`;
  for (const [value, pgType] of [
    ['plain', 'text'], ['q"u\\o,t{e}', 'text'], ['', 'text'], ['NULL', 'text'], [true, 'bool'], [1.5, 'float8'], [-3, 'int4'],
    [[1, null, [2, 3]], '_int4'], [['a"b', 'c\\d', null, ''], '_text'], [Buffer.from([1, 255]), 'bytea'], [new JsonBigNumber('123456789012345678901'), 'numeric'],
  ] as Array<[unknown, string]>) {
    // What the VALUES form sends for this value: resolved as a scalar parameter, then pg's prepareValue.
    const alone = prepareValue(resolveParams([{ source: { kind: 'value', value }, pgType }], undefined, adminSession())[0]);
    const text = one(value, pgType);
    const element = quote(Buffer.isBuffer(alone) ? `\\x${alone.toString('hex')}` : String(alone));
    assert.equal(text, `{${element},NULL}`, `${JSON.stringify(value)} as ${pgType}`);
  }
  assert.equal(one({ a: 'x"y' }, 'jsonb'), '{"{\\"a\\":\\"x\\\\\\"y\\"}",NULL}');
  assert.equal(one('str', 'json'), '{"\\"str\\"",NULL}');
});

test('a column of a list variable is read in one walk over the list: the values of one path walk per item', () => {
  const { params } = mutationSqlText(fromVariables(4));
  const columns = params.map((p) => (p.source as { column?: unknown }).column);
  assert.deepEqual(columns.slice(0, 4), ['author', 'body', 'score', 'tags'].map((f) => ({ name: 'objects', prefix: [], suffix: [f] })));
  assert.equal(columns[4], undefined);
  const itemByItem = params.map((p) => (p.source.kind === 'array' ? { ...p, source: { kind: p.source.kind, items: p.source.items, element: p.source.element } } : p));
  const session = roleSession('user', { 'x-svc-user-id': '7' });
  for (const objects of [
    [{ author: 'a', body: 'q"\\', score: 1, tags: ['x', null] }, { author: null, body: 'b', score: new JsonBigNumber('12345678901234567'), tags: null }, {}, { author: 'd', score: 2.5, tags: [] }],
    [{ author: 'a' }, null, { author: 'c' }], // fewer objects than rows, a null object: NULLs
    null, 'not a list', [1, 2, 3, 4],
  ]) {
    assert.deepEqual(resolveParams(params, { objects }, session), resolveParams(itemByItem, { objects }, session), JSON.stringify(objects));
  }
  assert.deepEqual(resolveParams(params, undefined, session), resolveParams(itemByItem, undefined, session));
  // json columns: every element JSON text, as one by one.
  const json = insert([0, 1, 2].map((i) => row({ doc: variable(i, 'doc', 'jsonb'), n: variable(i, 'n', 'int4') })));
  const j = mutationSqlText(json).params;
  const jItems = j.map((p) => (p.source.kind === 'array' ? { ...p, source: { kind: p.source.kind, items: p.source.items, element: p.source.element } } : p));
  const docs = { objects: [{ doc: 'str', n: 1 }, { doc: { a: [1, 'x"'] }, n: null }, { doc: null, n: 3 }] };
  assert.deepEqual(resolveParams(j, docs, session), resolveParams(jItems, docs, session));
  assert.equal(resolveParams(j, docs, session)[0], '{"\\"str\\"","{\\"a\\":[1,\\"x\\\\\\"\\"]}",NULL}');
  // Items that are not one column of one list (a row from elsewhere, a gap) keep the walk per item.
  const nested = (i: number, f: string): IrValue => ({ source: { kind: 'variable', name: 'data', path: ['list', i, 'x', f] }, pgType: 'text' });
  const deep = mutationSqlText(insert([0, 1].map((i) => row({ a: nested(i, 'a'), b: variable(i === 0 ? 0 : 5, 'b', 'text') })))).params;
  assert.deepEqual((deep[0]!.source as { column?: unknown }).column, { name: 'data', prefix: ['list'], suffix: ['x', 'a'] });
  assert.equal((deep[1]!.source as { column?: unknown }).column, undefined);
  const data = { list: [{ x: { a: 'p' } }, { x: null }] };
  assert.deepEqual(resolveParams(deep, { data, objects: [{ b: 'u' }, 1, 2, 3, 4, { b: 'v' }] }, session), ['{"p",NULL}', '{"u","v"}']);
});
