/**
 * Change-driven live queries, end to end (real Postgres, real WebSocket clients): a live query
 * reruns only after a table it reads changed — its root table, a relationship's table, a table its
 * role's permission filter reads, the tables under a tracked view — whoever wrote it (run_sql, a
 * plain Postgres client, a transaction that started before the cohort's last run); nothing runs
 * while nothing changes; triggers exist only on tables live queries read and leave with untrack;
 * a function whose body Postgres does not record keeps the refetch interval.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestEngine, type TestEngine } from './harness.js';
import { eventually, openTransportWs, type TestSocket } from './subscriptionsClient.js';
import { liveQueryStats } from '../../src/subscriptions/index.js';
import { nowSeconds, signJwt, svcClaims } from '../support/jwt.js';

const KEY = 'live-changes-test-secret-0123456789abcdef';
const ADMIN = { 'x-svc-admin-secret': 'adm' };
const userToken = (userId: string) =>
  `Bearer ${signJwt({ ...svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': userId } }), exp: nowSeconds() + 3600 }, { alg: 'HS256', key: KEY })}`;

async function seed(e: TestEngine): Promise<void> {
  await e.runSql(`CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL, active boolean NOT NULL DEFAULT true);
    CREATE TABLE post (id int PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id));
    CREATE TABLE untouched (id int PRIMARY KEY, v int NOT NULL);
    CREATE VIEW active_post AS SELECT p.id, p.title FROM post p JOIN author a ON a.id = p.author_id WHERE a.active;
    CREATE FUNCTION posts_titled(t text) RETURNS SETOF post LANGUAGE plpgsql STABLE AS $$ BEGIN RETURN QUERY SELECT * FROM post WHERE title = t; END $$;
    INSERT INTO author VALUES (1, 'ann', true), (2, 'bob', true);
    INSERT INTO post VALUES (1, 'p1', 1), (2, 'p2', 2), (3, 'p3', 2);
    INSERT INTO untouched VALUES (1, 1);`);
  const r = await e.query({
    type: 'bulk',
    args: [
      ...['author', 'post', 'untouched', 'active_post'].map((name) => ({ type: 'track_table', args: { schema: 'public', name } })),
      { type: 'track_function', args: { schema: 'public', name: 'posts_titled' } },
      { type: 'create_object_relationship', args: { table: 'post', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      {
        type: 'create_select_permission',
        args: { table: 'post', role: 'user', permission: { columns: ['id', 'title'], filter: { _and: [{ author_id: { _eq: 'X-Svc-User-Id' } }, { author: { active: { _eq: true } } }] } } },
      },
    ],
  });
  assert.equal(r.status, 200, r.text);
}

const subscribe = (s: TestSocket, id: string, query: string, variables?: Record<string, unknown>) =>
  s.send({ id, type: 'subscribe', payload: { query, variables } });

async function triggeredTables(e: TestEngine): Promise<string[]> {
  const r = await e.runSql(`SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE t.tgname = 'svc_live_change' ORDER BY 1`);
  return r.result.slice(1).map((row: string[]) => row[0]);
}

test('change-driven live queries', async (t) => {
  const e = await startTestEngine({
    adminSecret: 'adm', jwtSecret: { type: 'HS256', key: KEY },
    liveQueries: { batchSize: 100, refetchIntervalMs: 200, changePollIntervalMs: 50 },
  });
  t.after(() => e.stop());
  await seed(e);
  const stats = () => liveQueryStats(e.engine.ctx);
  /** Waits until the change counters were read `n` more times. */
  const reads = async (n: number) => {
    const r0 = stats().changeReads;
    await eventually(() => stats().changeReads - r0 >= n, 30_000, `${n} reads of the change counters`);
  };

  await t.test('nothing runs while nothing changes; a write by any client reruns the query', async () => {
    const s = await openTransportWs(e.url, ADMIN);
    subscribe(s, '1', 'subscription { post(order_by: {id: asc}) { id title author { name } } }');
    assert.deepEqual((await s.next()).payload.data.post[0], { id: 1, title: 'p1', author: { name: 'ann' } });
    assert.equal(stats().changeDriven, 1);
    assert.deepEqual(await triggeredTables(e), ['author', 'post'], 'triggers on the tables the query reads, none elsewhere');
    await reads(3);
    const polls = stats().polls;
    await reads(6);
    assert.equal(stats().polls, polls, 'no multiplexed statement while nothing changed');
    await s.none(50);

    // a plain Postgres client, not the engine
    const c = new pg.Client({ connectionString: e.databaseUrl });
    await c.connect();
    await c.query(`UPDATE post SET title = 'p1 by pg' WHERE id = 1`);
    assert.equal((await s.next()).payload.data.post[0].title, 'p1 by pg');
    // a relationship's table
    await e.runSql(`UPDATE author SET name = 'anne' WHERE id = 1`);
    assert.deepEqual((await s.next()).payload.data.post[0].author, { name: 'anne' });
    // a table the query does not read: nothing
    const p2 = stats().polls;
    await e.runSql(`UPDATE untouched SET v = v + 1`);
    await reads(4);
    assert.equal(stats().polls, p2);
    await s.none(50);
    // a transaction that started before the cohort's last run, committed after it
    await c.query('BEGIN');
    await c.query(`UPDATE post SET title = 'p2 late' WHERE id = 2`);
    await e.runSql(`UPDATE post SET title = 'p1 again' WHERE id = 1`);
    assert.equal((await s.next()).payload.data.post[0].title, 'p1 again');
    await reads(2);
    await c.query('COMMIT');
    assert.equal((await s.next()).payload.data.post[1].title, 'p2 late');
    // a burst: the last state arrives, and every message carries a change
    for (let i = 1; i <= 30; i++) await c.query(`UPDATE post SET title = $1 WHERE id = 3`, [`burst ${i}`]);
    let last = '';
    const seen: string[] = [];
    while (last !== 'burst 30') {
      last = (await s.next()).payload.data.post[2].title;
      seen.push(last);
    }
    assert.equal(new Set(seen).size, seen.length, `no message repeats a result: ${seen.join(', ')}`);
    await s.none(200);
    await c.end();
    s.close();
    await s.closed;
  });

  await t.test('a table read by the role’s permission filter reruns the query', async () => {
    const s = await openTransportWs(e.url, { authorization: userToken('2') });
    subscribe(s, '1', 'subscription { post(order_by: {id: asc}) { id } }');
    assert.deepEqual((await s.next()).payload.data.post, [{ id: 2 }, { id: 3 }]);
    await e.runSql(`UPDATE author SET active = false WHERE id = 2`);
    assert.deepEqual((await s.next()).payload.data.post, []);
    await e.runSql(`UPDATE author SET active = true WHERE id = 2`);
    assert.deepEqual((await s.next()).payload.data.post, [{ id: 2 }, { id: 3 }]);
    s.close();
    await s.closed;
  });

  await t.test('a tracked view is watched through the tables under it; TRUNCATE and DELETE count', async () => {
    const s = await openTransportWs(e.url, ADMIN);
    subscribe(s, 'v', 'subscription { active_post_aggregate { aggregate { count } } }');
    assert.deepEqual((await s.next()).payload.data, { active_post_aggregate: { aggregate: { count: 3 } } });
    await eventually(() => stats().changeDriven === 1, 10_000, 'the view query to be change-driven');
    await e.runSql(`UPDATE author SET active = false WHERE id = 1`);
    assert.deepEqual((await s.next()).payload.data, { active_post_aggregate: { aggregate: { count: 2 } } });
    await e.runSql(`DELETE FROM post WHERE id = 3`);
    assert.deepEqual((await s.next()).payload.data, { active_post_aggregate: { aggregate: { count: 1 } } });
    await e.runSql(`TRUNCATE post`);
    assert.deepEqual((await s.next()).payload.data, { active_post_aggregate: { aggregate: { count: 0 } } });
    s.close();
    await s.closed;
  });

  await t.test('a plpgsql function keeps the refetch interval', async () => {
    await e.runSql(`INSERT INTO post VALUES (9, 'x', 2)`);
    const s = await openTransportWs(e.url, ADMIN);
    subscribe(s, 'f', 'subscription { posts_titled(args: {t: "x"}) { id } }');
    assert.deepEqual((await s.next()).payload.data, { posts_titled: [{ id: 9 }] });
    assert.equal(stats().changeDriven, 0);
    const p = stats().polls;
    await eventually(() => stats().polls - p >= 2, 10_000, 'interval polls');
    await e.runSql(`UPDATE post SET title = 'y' WHERE id = 9`);
    assert.deepEqual((await s.next()).payload.data, { posts_titled: [] });
    s.close();
    await s.closed;
  });

  await t.test('a subscription made invalid by a metadata change gets an error and ends; the others continue', async () => {
    const u = await openTransportWs(e.url, { authorization: userToken('2') });
    subscribe(u, 'live', 'subscription { post(order_by: {id: asc}) { id } }');
    subscribe(u, 'stream', 'subscription { post_stream(batch_size: 10, cursor: {initial_value: {id: 0}}) { id } }');
    const firsts = new Map<string, any>();
    for (let i = 0; i < 2; i++) {
      const m = await u.next();
      firsts.set(m.id, m);
    }
    assert.equal(firsts.get('live').type, 'next');
    assert.equal(firsts.get('stream').type, 'next');
    const a = await openTransportWs(e.url, ADMIN);
    subscribe(a, 'authors', 'subscription { author(order_by: {id: asc}) { name } }');
    await a.next();
    const dropped = await e.query({ type: 'drop_select_permission', args: { table: 'post', role: 'user' } });
    assert.equal(dropped.status, 200, dropped.text);
    const errs = [await u.next(), await u.next()];
    for (const m of errs) {
      assert.equal(m.type, 'error', JSON.stringify(m));
      assert.equal(m.payload[0].extensions.code, 'validation-failed');
    }
    assert.deepEqual(errs.map((m) => m.id).sort(), ['live', 'stream']);
    await eventually(() => stats().streams === 0 && stats().subscribers === 1, 10_000, () => `only the admin's subscription left: ${JSON.stringify(stats())}`);
    await e.runSql(`UPDATE author SET name = 'still here' WHERE id = 2`);
    assert.equal((await a.next()).payload.data.author[1].name, 'still here');
    u.close();
    a.close();
    await Promise.all([u.closed, a.closed]);
  });

  await t.test('untracking a table drops its change trigger; idle engine keeps no timer', async () => {
    await eventually(() => stats().connections === 0 && stats().timers === 0, 10_000, () => `idle: ${JSON.stringify(stats())}`);
    const r = await e.query({ type: 'untrack_table', args: { table: 'author', cascade: true } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await triggeredTables(e), ['post']);
  });
});
