/**
 * The hot path's shared connections (execution/sharedConnections.ts) against a real Postgres: when
 * more queries and mutations are in flight than the pool has connections, units are written behind
 * each other on one connection (seen through a proxy: a second Sync before the first
 * ReadyForQuery), and each still gets its own answer, its own error, its own session variables and
 * its own transaction; a transaction waiting for a connection is served while the load goes on.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { roleSession } from '../../src/core/index.js';
import { ApiError } from '../../src/core/index.js';
import { createDb, type Db } from '../../src/execution/index.js';
import { createTestDatabase } from './harness.js';
import { pipelinedSomewhere, startPgMessageProxy, type PgMessageProxy } from '../support/pgMessageProxy.js';

let testDb: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: PgMessageProxy;
let db: Db;

before(async () => {
  testDb = await createTestDatabase('shared');
  proxy = await startPgMessageProxy(testDb.url);
  db = createDb(proxy.url, 2);
  await db.queryRaw(`
    CREATE TABLE counter (id int PRIMARY KEY, hits int NOT NULL DEFAULT 0);
    INSERT INTO counter SELECT g, 0 FROM generate_series(1, 50) g;
    CREATE TABLE seen (id serial PRIMARY KEY, who text);
    CREATE FUNCTION note_session() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO seen (who) VALUES (current_setting('svc.user', true)::json->>'x-svc-user-id'); RETURN NEW; END $$;
    CREATE TRIGGER counter_seen AFTER UPDATE ON counter FOR EACH ROW EXECUTE FUNCTION note_session();
  `);
});

after(async () => {
  await db?.close();
  await proxy?.close();
  await testDb?.drop();
});

const Q = `SELECT json_build_object('id', $1::int, 'square', $1::int * $1::int)::text`;

test('40 queries on a pool of 2: written behind each other, each answered with its own result', async () => {
  proxy.flow.length = 0;
  const ids = Array.from({ length: 40 }, (_, i) => i + 1);
  const out = await Promise.all(ids.map((i) => db.queryJsonText(Q, [i], { prepare: true })));
  assert.deepEqual(out.map((t) => JSON.parse(t!)), ids.map((i) => ({ id: i, square: i * i })));
  assert.ok(pipelinedSomewhere(proxy), 'some unit was written before the previous one on its connection was answered');
  assert.ok(db.poolStats().total <= 2);
});

test('a failing unit among pipelined ones fails alone, with its own error', async () => {
  const q = `SELECT json_build_object('v', 100 / $1::int)::text`;
  const divisors = [1, 2, 0, 4, 5, 0, 10, 20, 25, 50, 0, 100];
  const settled = await Promise.allSettled(divisors.map((d) => db.queryJsonText(q, [d], { prepare: true })));
  settled.forEach((r, i) => {
    if (divisors[i] === 0) {
      assert.equal(r.status, 'rejected');
      assert.ok((r as PromiseRejectedResult).reason instanceof ApiError);
      assert.match(String((r as PromiseRejectedResult).reason.message), /division by zero/);
    } else {
      assert.equal(r.status, 'fulfilled');
      assert.deepEqual(JSON.parse((r as PromiseFulfilledResult<string>).value), { v: 100 / divisors[i]! });
    }
  });
  // the connections are fine afterwards
  assert.equal(await db.queryJsonText(q, [4], { prepare: true }), '{"v" : 25}');
});

test('pipelined mutations: each its own transaction and session variables, statements parsed on first use', async () => {
  await db.query('UPDATE counter SET hits = 0');
  await db.query('DELETE FROM seen');
  proxy.flow.length = 0;
  // A statement text no connection has prepared yet, issued 30 times at once with queries around it.
  const bump = `UPDATE counter SET hits = hits + 1 WHERE id = $1::int RETURNING json_build_object('id', id, 'hits', hits)::text`;
  const fail = `UPDATE counter SET hits = hits + 1 WHERE id = $1::int RETURNING json_build_object('x', 1 / 0)::text`;
  const work: Array<Promise<unknown>> = [];
  for (let i = 1; i <= 30; i++) {
    const session = roleSession('user', { 'x-svc-user-id': String(i) });
    // every third one also runs a failing statement after the update: nothing of it may be kept
    const statements = i % 3 === 0 ? [{ text: bump, values: [i] }, { text: fail, values: [i] }] : [{ text: bump, values: [i] }];
    work.push(db.pipeline(statements, { session }));
    work.push(db.queryJsonText(Q, [i], { prepare: true }));
  }
  const results = await Promise.all(work);
  for (let i = 1; i <= 30; i++) {
    const r = results[(i - 1) * 2] as Awaited<ReturnType<Db['pipeline']>>;
    if (i % 3 === 0) {
      assert.equal(r.ok, false);
      if (!r.ok) assert.equal(r.index, 1);
    } else {
      assert.equal(r.ok, true);
      if (r.ok) assert.deepEqual(JSON.parse(r.results[0]!), { id: i, hits: 1 });
    }
    assert.deepEqual(JSON.parse(results[(i - 1) * 2 + 1] as string), { id: i, square: i * i });
  }
  const hits = await db.query('SELECT id, hits FROM counter WHERE id <= 30 ORDER BY id');
  assert.deepEqual(hits.rows.map((row) => row.hits), Array.from({ length: 30 }, (_, k) => ((k + 1) % 3 === 0 ? 0 : 1)));
  const seen = await db.query('SELECT who FROM seen ORDER BY who::int');
  const expected = Array.from({ length: 30 }, (_, k) => k + 1).filter((i) => i % 3 !== 0).map(String);
  assert.deepEqual(seen.rows.map((row) => row.who), expected, 'each trigger saw its own session, none of the rolled-back ones');
  assert.ok(pipelinedSomewhere(proxy));
});

test('a transaction waiting for a connection is served while the hot path stays busy', async () => {
  let stop = false;
  let served = 0;
  const load = Array.from({ length: 8 }, async () => {
    while (!stop) {
      await db.queryJsonText(Q, [served % 50], { prepare: true });
      served++;
    }
  });
  // let the load occupy both connections first
  while (served < 50) await new Promise((r) => setImmediate(r));
  // Without fairness the transaction would wait for the load to end: end it after 10 s at the latest.
  const guard = setTimeout(() => (stop = true), 10_000);
  const t0 = performance.now();
  const inTx = await db.transaction({ readOnly: true }, (c) => c.queryJsonText(`SELECT json_build_object('tx', true)::text`, []));
  const waited = performance.now() - t0;
  const servedDuring = served;
  const loadStillOn = !stop;
  stop = true;
  clearTimeout(guard);
  await Promise.all(load);
  assert.equal(inTx, '{"tx" : true}');
  assert.ok(servedDuring > 50, 'the load went on');
  assert.ok(loadStillOn, `the transaction got a connection while the load went on (waited ${Math.round(waited)} ms)`);
});
