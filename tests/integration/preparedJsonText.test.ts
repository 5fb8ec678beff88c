/**
 * The prepared hot path of `queryJsonText` (execution/jsonTextQuery.ts) over a real Postgres:
 * parsed once per connection, then Bind/Execute/Sync only; values serialized as node-postgres
 * does; errors mapped and the connection still usable afterwards; shares pg's statement bookkeeping.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/core/index.js';
import { createDb, statementName, type Db } from '../../src/execution/index.js';
import { createTestDatabase } from './harness.js';

let db: Db;
let testDb: Awaited<ReturnType<typeof createTestDatabase>>;

before(async () => {
  testDb = await createTestDatabase('pjt');
  db = createDb(testDb.url, 2);
  await db.query('CREATE TABLE item (id int PRIMARY KEY, label text NOT NULL)');
  await db.query("INSERT INTO item SELECT g, 'item ' || g FROM generate_series(1, 100) g");
});

after(async () => {
  await db?.close();
  await testDb?.drop();
});

const prepare = { prepare: true };

test('the first column of the first row, as text; null without rows or for SQL NULL', async () => {
  const q = `SELECT coalesce(json_agg(json_build_object('id', id, 'label', label) ORDER BY id), '[]') FROM item WHERE id <= $1::int`;
  assert.equal(await db.queryJsonText(q, [2], prepare), '[{"id" : 1, "label" : "item 1"}, {"id" : 2, "label" : "item 2"}]');
  assert.equal(await db.queryJsonText(q, [0], prepare), '[]');
  assert.equal(await db.queryJsonText('SELECT label FROM item WHERE id = $1::int', [1000], prepare), null);
  assert.equal(await db.queryJsonText('SELECT NULL::json WHERE $1::int = 1', [1], prepare), null);
  assert.equal(await db.queryJsonText('SELECT label FROM item WHERE id > $1::int ORDER BY id', [98], prepare), 'item 99');
});

test('parameters are serialized as node-postgres does (null, numbers, booleans, dates, arrays, objects)', async () => {
  const q = `SELECT json_build_object('n', $1::int, 'b', $2::boolean, 'd', $3::timestamptz, 'a', $4::int[], 'o', $5::jsonb, 'z', $6::text)`;
  const text = await db.queryJsonText(q, [7, true, new Date('2020-01-02T03:04:05Z'), [1, 2], { k: 'v' }, null], prepare);
  const v = JSON.parse(text!);
  assert.equal(v.n, 7);
  assert.equal(v.b, true);
  assert.equal(new Date(v.d).toISOString(), '2020-01-02T03:04:05.000Z');
  assert.deepEqual(v.a, [1, 2]);
  assert.deepEqual(v.o, { k: 'v' });
  assert.equal(v.z, null);
});

test('a statement is parsed once per connection and then reused', async () => {
  const q = `SELECT json_build_object('v', $1::int, 'once', true)`;
  await db.withClient(async (c) => {
    for (let i = 0; i < 5; i++) assert.equal(await c.queryJsonText(q, [i], prepare), `{"v" : ${i}, "once" : true}`);
    const r = await c.query('SELECT name FROM pg_prepared_statements WHERE statement = $1', [q]);
    assert.deepEqual(r.rows.map((row) => row.name), [statementName(q)]);
  });
});

test('errors become ApiErrors and the connection keeps working (runtime, parse and bind errors)', async () => {
  await db.withClient(async (c) => {
    const div = 'SELECT (10 / $1::int)::text';
    assert.equal(await c.queryJsonText(div, [2], prepare), '5');
    await assert.rejects(c.queryJsonText(div, [0], prepare), (e: unknown) => e instanceof ApiError && /division by zero/.test(e.message));
    assert.equal(await c.queryJsonText(div, [5], prepare), '2');

    const bad = 'SELECT no_such_column FROM item WHERE id = $1::int';
    const first = await c.queryJsonText(bad, [1], prepare).then(() => undefined, (e: unknown) => e);
    assert.ok(first instanceof ApiError);
    assert.match(JSON.stringify(first.internal), /no_such_column/);
    // a failed Parse leaves no half-registered statement behind: the same text fails the same way
    const second = await c.queryJsonText(bad, [1], prepare).then(() => undefined, (e: unknown) => e);
    assert.ok(second instanceof ApiError);
    assert.equal(second.code, first.code);
    assert.equal(second.message, first.message);

    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await assert.rejects(c.queryJsonText('SELECT $1::jsonb::text', [cyclic], prepare));
    assert.equal(await c.queryJsonText('SELECT $1::jsonb::text', [{ ok: 1 }], prepare), '{"ok": 1}');
    assert.equal(await c.queryJsonText('SELECT label FROM item WHERE id = $1::int', [3], prepare), 'item 3');
  });
});

test('many concurrent requests over a small pool all get their own answers', async () => {
  const q = `SELECT json_build_object('id', id, 'label', label)::text FROM item WHERE id = $1::int`;
  const ids = Array.from({ length: 200 }, (_, i) => (i % 100) + 1);
  const out = await Promise.all(ids.map((id) => db.queryJsonText(q, [id], prepare)));
  out.forEach((text, i) => assert.deepEqual(JSON.parse(text!), { id: ids[i], label: `item ${ids[i]}` }));
});

test('the prepared fast path and unprepared queries interleave on one connection', async () => {
  await db.withClient(async (c) => {
    const q = 'SELECT label FROM item WHERE id = $1::int';
    assert.equal(await c.queryJsonText(q, [4], prepare), 'item 4');
    assert.equal(await c.queryJsonText(q, [5]), 'item 5');
    const r = await c.query('SELECT count(*)::int AS n FROM item WHERE id <= $1', [10]);
    assert.equal(r.rows[0].n, 10);
    assert.equal(await c.queryJsonText(q, [6], prepare), 'item 6');
  });
});

test('query with prepare runs a named prepared statement (rows parsed as usual), parsed once per connection', async () => {
  const q = `SELECT id, label FROM item WHERE id = ANY($1::int[]) ORDER BY id`;
  await db.withClient(async (c) => {
    for (let i = 0; i < 3; i++) {
      const r = await c.query(q, [[1, 2 + i]], prepare);
      assert.deepEqual(r.rows, [{ id: 1, label: 'item 1' }, { id: 2 + i, label: `item ${2 + i}` }]);
    }
    const named = await c.query('SELECT name FROM pg_prepared_statements WHERE statement = $1', [q]);
    assert.deepEqual(named.rows.map((row) => row.name), [statementName(q)]);
    const plain = 'SELECT label AS unprepared FROM item WHERE id = $1::int';
    await c.query(plain, [5]);
    const none = await c.query('SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1', [plain]);
    assert.equal(none.rows[0]!.n, 0);
  });
});
