import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, sql } from '../../../src/sql/index.js';

test('identifiers are always quoted, with embedded quotes doubled', () => {
  const q = compile(sql`SELECT ${sql.ident('we"ird')} FROM ${sql.table({ schema: 'public', name: 'Author' })}`);
  assert.equal(q.text, 'SELECT "we""ird" FROM "public"."Author"');
  assert.deepEqual(q.params, []);
});

test('values never enter the text: each becomes $n with its cast', () => {
  const q = compile(sql`SELECT * FROM t WHERE a = ${sql.value("x'; DROP TABLE t; --", 'text')} AND b = ${sql.value(2)}`);
  assert.equal(q.text, 'SELECT * FROM t WHERE a = $1::"text" AND b = $2');
  assert.deepEqual(
    q.params.map((p) => p.source),
    [{ kind: 'value', value: "x'; DROP TABLE t; --" }, { kind: 'value', value: 2 }],
  );
});

test('identical variable and session sources share one parameter; values do not', () => {
  const v = sql.param(sql.variable('id'), 'int4');
  const s = sql.param(sql.session('X-Svc-User-Id'), 'int4');
  const q = compile(sql`${v} ${s} ${v} ${s} ${sql.value(1)} ${sql.value(1)} ${sql.param(sql.variable('id'), 'text')}`);
  assert.equal(q.text, '$1::"int4" $2::"int4" $1::"int4" $2::"int4" $3 $4 $5::"text"');
  assert.deepEqual(q.params[1]!.source, { kind: 'session', name: 'x-svc-user-id' });
  assert.equal(q.params.length, 5);
});

test('one value parameter written twice (a repeated fragment) is one $n: DISTINCT ON must match ORDER BY exactly', () => {
  const cond = sql`(CASE WHEN "x" > ${sql.value(3, 'int4')} THEN "email" END)`;
  const q = compile(sql`SELECT DISTINCT ON (${cond}) * FROM t ORDER BY ${cond}, ${sql.value(3, 'int4')}`);
  assert.equal(q.text, 'SELECT DISTINCT ON ((CASE WHEN "x" > $1::"int4" THEN "email" END)) * FROM t ORDER BY (CASE WHEN "x" > $1::"int4" THEN "email" END), $2::"int4"');
  assert.equal(q.params.length, 2);
});

test('array and schema-qualified casts', () => {
  assert.equal(compile(sql`${sql.value([1], '_int4[]')}`).text, '$1::"_int4"[]');
  assert.equal(compile(sql`${sql.value('x', 'public.complex')}`).text, '$1::"public"."complex"');
});

test('literals, integers, joins and raw text', () => {
  const q = compile(sql`SELECT ${sql.join([sql.literal("it's"), sql.int(10), sql.unsafeRaw('now()')])}${sql.empty}`);
  assert.equal(q.text, "SELECT 'it''s', 10, now()");
  assert.throws(() => sql.int(1.5), TypeError);
  assert.throws(() => sql.type('int4; DROP'), TypeError);
});

test('interpolating something that is not a fragment is refused', () => {
  assert.throws(() => sql`SELECT ${'1' as never}`, /not a fragment/);
});
