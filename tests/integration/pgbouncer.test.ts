/**
 * Engines behind PgBouncer (Debian's 1.18, apt-get install -y pgbouncer) in transaction mode,
 * prepared statements off: a metadata change through one engine reaches the other by polling the
 * version row (a LISTEN through a transaction pooler hears nothing), both keep working across a
 * PgBouncer restart, and delivery claims follow the engines' heartbeats: a live engine keeps a
 * claim while a slow webhook is in flight (called once), however short the heartbeat timeout; a
 * live query on one engine is rerun by a write through the other (change counters read through the
 * pooler).
 */
import assert from 'node:assert/strict';
import { after, before, test, type TestContext } from 'node:test';
import { eventually, startEventReceiver } from '../support/eventReceiver.js';
import { startPgbouncer, type Pgbouncer } from '../support/pgbouncer.js';
import { createTestDatabase, startTestEngine, type TestEngine, type TestEngineOptions } from './harness.js';
import { openTransportWs } from './subscriptionsClient.js';
import { liveQueryStats } from '../../src/subscriptions/index.js';

let bouncer: Pgbouncer;
before(async () => {
  bouncer = await startPgbouncer({ serverUrl: process.env.SVC_TEST_DATABASE_URL!, poolMode: 'transaction', poolSize: 20 });
});
after(() => bouncer?.stop());

/** A fresh database and `n` engines on it, all through PgBouncer. */
async function engines(t: TestContext, n: number, opts: TestEngineOptions = {}): Promise<TestEngine[]> {
  const db = await createTestDatabase('pgb');
  const url = bouncer.url(new URL(db.url).pathname.slice(1));
  const list: TestEngine[] = [];
  t.after(async () => {
    for (const e of list) await e.stop();
    await db.drop();
  });
  for (let i = 0; i < n; i++) list.push(await startTestEngine({ databaseUrl: url, usePreparedStatements: false, schemaSyncIntervalMs: 200, ...opts }));
  return list;
}

const hasData = (r: { body: any }) => r.body?.data !== undefined && r.body.errors === undefined;

test('through PgBouncer: a table tracked on A appears on B by polling, and both recover after PgBouncer restarts', { timeout: 60_000 }, async (t) => {
  const [a, b] = await engines(t, 2);
  await a.runSql(`CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL)`);
  assert.equal((await a.query({ type: 'track_table', args: { table: 'note' } })).status, 200);
  await eventually(() => b.graphql('{ note { id } }'), hasData, 10_000, 'note tracked on B');
  const ins = await b.graphql('mutation { insert_note(objects: [{body: "x"}, {body: "y"}]) { affected_rows } }');
  assert.deepEqual(ins.body, { data: { insert_note: { affected_rows: 2 } } });

  await bouncer.restart();
  const r = await eventually(() => a.graphql('{ note(order_by: {id: asc}) { body } }').catch(() => ({ body: undefined })), hasData, 15_000, 'A answers again');
  assert.deepEqual(r.body, { data: { note: [{ body: 'x' }, { body: 'y' }] } });
  await a.runSql(`ALTER TABLE note ADD COLUMN stars int NOT NULL DEFAULT 3`);
  const s = await eventually(() => b.graphql('{ note(limit: 1) { stars } }').catch(() => ({ body: undefined })), hasData, 15_000, 'the new column on B');
  assert.deepEqual(s.body, { data: { note: [{ stars: 3 }] } });
});

test('through PgBouncer: a webhook slower than the heartbeat timeout is called once per event across two engines', { timeout: 60_000 }, async (t) => {
  const rx = await startEventReceiver(() => ({ status: 200, delayMs: 3500 }));
  t.after(() => rx.stop());
  const [a, b] = await engines(t, 2, { instanceHeartbeatTimeoutSeconds: 1, eventsFetchIntervalMs: 100 });
  await a.runSql(`CREATE TABLE job (id serial PRIMARY KEY, name text NOT NULL)`);
  await a.query({ type: 'track_table', args: { table: 'job' } });
  const created = await a.query({ type: 'create_event_trigger', args: { name: 'job_ins', table: 'job', insert: { columns: '*' }, webhook: rx.url, retry_conf: { timeout_sec: 10 } } });
  assert.equal(created.status, 200, created.text);
  await eventually(() => b.graphql('{ job { id } }'), hasData, 10_000, 'job tracked on B');
  await b.runSql(`INSERT INTO job (name) SELECT 'j' || g FROM generate_series(1, 6) g`);
  const delivered = async () => (await a.runSql(`SELECT count(*) FILTER (WHERE delivered) FROM hdb_catalog.event_log`)).result[1][0];
  await eventually(delivered, (n) => n === '6', 30_000, 'all 6 delivered');
  const ids = rx.deliveries.map((d) => d.body.id);
  assert.equal(ids.length, 6, `calls: ${ids.length}, distinct events: ${new Set(ids).size}`);
  assert.equal(new Set(ids).size, 6);
  const tries = (await a.runSql(`SELECT DISTINCT tries FROM hdb_catalog.event_log`)).result.slice(1);
  assert.deepEqual(tries, [['1']]);
});

test('through PgBouncer: pipelined units on shared connections (2 connections, 400 concurrent requests, some failing) each get their own answer', { timeout: 60_000 }, async (t) => {
  const [a] = await engines(t, 1, { pgConnections: 2, pgPipelineDepth: 4 });
  await a.runSql(`CREATE TABLE num (id int PRIMARY KEY, sq int NOT NULL); INSERT INTO num SELECT g, g * g FROM generate_series(1, 400) g`);
  await a.query({ type: 'track_table', args: { table: 'num' } });
  const results = await Promise.all(Array.from({ length: 400 }, async (_, i) => {
    const id = i + 1;
    if (id % 7 === 0) {
      // A unit Postgres fails (duplicate key) between the others.
      const r = await a.graphql('mutation($id: Int!) { insert_num(objects: [{id: $id, sq: 0}]) { affected_rows } }', { id });
      return r.body.errors?.[0]?.extensions?.code === 'constraint-violation' ? 'error' : JSON.stringify(r.body);
    }
    if (id % 5 === 0) {
      const r = await a.graphql('mutation($id: Int!) { update_num(where: {id: {_eq: $id}}, _inc: {sq: 1}) { returning { id sq } } }', { id });
      return JSON.stringify(r.body) === JSON.stringify({ data: { update_num: { returning: [{ id, sq: id * id + 1 }] } } }) ? 'ok' : JSON.stringify(r.body);
    }
    const r = await a.graphql('query($id: Int!) { num(where: {id: {_eq: $id}}) { id sq } }', { id });
    return JSON.stringify(r.body) === JSON.stringify({ data: { num: [{ id, sq: id * id }] } }) ? 'ok' : JSON.stringify(r.body);
  }));
  const wrong = results.filter((r, i) => r !== ((i + 1) % 7 === 0 ? 'error' : 'ok'));
  assert.deepEqual(wrong, []);
});

test('through PgBouncer: a live query on A reruns on a mutation through B, and only then', { timeout: 60_000 }, async (t) => {
  const [a, b] = await engines(t, 2);
  await a.runSql(`CREATE TABLE score (id int PRIMARY KEY, points int NOT NULL); INSERT INTO score VALUES (1, 0)`);
  assert.equal((await a.query({ type: 'track_table', args: { table: 'score' } })).status, 200);
  await eventually(() => b.graphql('{ score { id } }'), hasData, 10_000, 'score tracked on B');
  const s = await openTransportWs(a.url, {});
  t.after(() => s.close());
  s.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { score_by_pk(id: 1) { points } }' } });
  assert.deepEqual((await s.next()).payload, { data: { score_by_pk: { points: 0 } } });
  const stats = () => liveQueryStats(a.engine.ctx);
  assert.equal(stats().changeDriven, 1);
  for (let i = 1; i <= 5; i++) {
    const r = await b.graphql('mutation ($p: Int!) { update_score_by_pk(pk_columns: {id: 1}, _set: {points: $p}) { id } }', { p: i });
    assert.deepEqual(r.body, { data: { update_score_by_pk: { id: 1 } } });
    assert.deepEqual((await s.next(10_000)).payload, { data: { score_by_pk: { points: i } } });
  }
  const polls = stats().polls;
  const reads = stats().changeReads;
  await eventually(() => stats().changeReads - reads, (n) => n >= 5, 10_000, 'reads of the change counters');
  assert.equal(stats().polls, polls);
});
