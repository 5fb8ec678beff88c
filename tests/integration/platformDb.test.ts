/**
 * The Db over a real Postgres: JSON passed through as text, session variables inside the
 * transaction, prepared statements, run_sql's raw multi-statement results, error mapping,
 * and the per-connection settings.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, roleSession } from '../../src/core/index.js';
import { createDb, statementName, type Db } from '../../src/execution/index.js';
import { createTestDatabase } from './harness.js';

let db: Db;
let testDb: Awaited<ReturnType<typeof createTestDatabase>>;

before(async () => {
  testDb = await createTestDatabase('db');
  db = createDb(testDb.url, 4);
  await db.query('CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE NOT NULL, score numeric)');
});

after(async () => {
  await db?.close();
  await testDb?.drop();
});

test('queryJsonText returns the json column exactly as Postgres wrote it', async () => {
  const text = await db.queryJsonText(`SELECT json_build_object('n', 1.50, 'big', 12345678901234567890::numeric, 's', $1::text)`, ['a"b']);
  assert.equal(text, '{"n" : 1.50, "big" : 12345678901234567890, "s" : "a\\"b"}');
  assert.equal(await db.queryJsonText('SELECT NULL::json', []), null);
  assert.equal(await db.queryJsonText('SELECT 1 WHERE false', []), null);
});

test('prepared statements are named after their text and reused with new values', async () => {
  const q = `SELECT json_build_object('v', $1::int)`;
  await db.withClient(async (c) => {
    for (let i = 0; i < 3; i++) assert.equal(await c.queryJsonText(q, [i], { prepare: true }), `{"v" : ${i}}`);
    const r = await c.query(`SELECT name FROM pg_prepared_statements WHERE statement = $1`, [q]);
    assert.deepEqual(
      r.rows.map((row) => row.name),
      [statementName(q)],
    );
  });
});

test('connections use UTC and name themselves', async () => {
  const r = await db.query(`SELECT current_setting('TimeZone') AS tz, current_setting('application_name') AS app`);
  assert.deepEqual(r.rows[0], { tz: 'UTC', app: 'svc-graphql-engine' });
});

test('transaction sets the session variables for its statements only', async () => {
  const session = roleSession('user', { 'x-svc-user-id': "4'2\\" });
  const inside = await db.transaction({ readOnly: true, session }, (c) => c.queryJsonText(`SELECT current_setting('svc.user')::json`, []));
  assert.deepEqual(JSON.parse(inside!), { 'x-svc-user-id': "4'2\\", 'x-svc-role': 'user' });
  const outside = await db.query(`SELECT current_setting('svc.user', true) AS v`);
  assert.ok(outside.rows[0]!.v === null || outside.rows[0]!.v === '');
});

test('read-only transactions refuse writes; failed transactions roll back', async () => {
  await assert.rejects(
    db.transaction({ readOnly: true }, (c) => c.query(`INSERT INTO author (name) VALUES ('x')`)),
    (e: unknown) => e instanceof ApiError && e.status === 500,
  );
  await assert.rejects(
    db.transaction({}, async (c) => {
      await c.query(`INSERT INTO author (name) VALUES ('rolled back')`);
      await c.query(`INSERT INTO author (name) VALUES ('rolled back')`);
    }),
    (e: unknown) => e instanceof ApiError && e.code === 'constraint-violation' && e.message.startsWith('Uniqueness violation. duplicate key value violates unique constraint "author_name_key"'),
  );
  const r = await db.query(`SELECT count(*)::int AS n FROM author WHERE name = 'rolled back'`);
  assert.equal(r.rows[0]!.n, 0);
  const committed = await db.transaction({ isolation: 'serializable' }, (c) => c.query(`INSERT INTO author (name) VALUES ('kept') RETURNING id`));
  assert.equal(committed.rowCount, 1);
});

test('errors thrown by the callback pass through unchanged', async () => {
  const mine = new ApiError('validation-failed', 'nope');
  await assert.rejects(db.transaction({}, async () => Promise.reject(mine)), (e) => e === mine);
});

test('Postgres errors map to Hasura-style ApiErrors with details in internal', async () => {
  await assert.rejects(db.query(`INSERT INTO author (name) VALUES (NULL)`), (e: unknown) => {
    assert.ok(e instanceof ApiError);
    assert.equal(e.code, 'constraint-violation');
    assert.match(e.message, /^Not-NULL violation\. null value in column "name"/);
    assert.equal((e.internal as { error: { status_code: string } }).error.status_code, '23502');
    return true;
  });
  await assert.rejects(db.query(`SELECT $1::int`, ['abc']), (e: unknown) => e instanceof ApiError && e.code === 'data-exception');
  await assert.rejects(db.query(`SELECT 'abc' LIKE '%\\'`), (e: unknown) => e instanceof ApiError && e.code === 'bad-request');
});

test('queryRaw runs several statements and returns every value as text', async () => {
  const res = await db.queryRaw(`CREATE TEMP TABLE r (a int, b text, c numeric, d timestamptz); INSERT INTO r VALUES (1, NULL, 1.50, '2020-01-01T00:00:00Z'); SELECT * FROM r; SELECT 1 WHERE false`);
  assert.deepEqual(res, [
    { command: 'CREATE', fields: [], rows: [] },
    { command: 'INSERT', fields: [], rows: [] },
    { command: 'SELECT', fields: ['a', 'b', 'c', 'd'], rows: [['1', null, '1.50', '2020-01-01 00:00:00+00']] },
    { command: 'SELECT', fields: ['?column?'], rows: [] },
  ]);
  await assert.rejects(db.queryRaw('SELEC 1'), (e: unknown) => e instanceof ApiError && e.code === 'database-error' && e.status === 400 && e.message === 'query execution failed');
});

test('session changes made by raw SQL do not leak into pooled connections', async () => {
  await db.withClient(async (c) => {
    await c.queryRaw(`SET TIME ZONE 'Asia/Kolkata'`);
  });
  for (let i = 0; i < 6; i++) {
    const r = await db.query(`SELECT current_setting('TimeZone') AS tz`);
    assert.equal(r.rows[0]!.tz, 'UTC');
  }
});

test('ping answers true while the server is up', async () => {
  assert.equal(await db.ping(), true);
});

test('ping answers false when the server is unreachable', async () => {
  const dead = createDb('postgres://postgres:postgres@127.0.0.1:1/postgres', 1, { connectionTimeoutMs: 2000 });
  assert.equal(await dead.ping(), false);
  await dead.close();
});
