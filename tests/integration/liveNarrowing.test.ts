/**
 * Narrowed reruns, end to end (real Postgres, real WebSocket clients): when a keyed live query's
 * root table changes (`where: {id: {_eq: $id}}`, or a permission filter on a session variable),
 * only the cohorts whose rows the change touched run again, counted by the engine's `cohortRuns`;
 * a row moving out of one subscriber's filter and into another's reaches both; a transaction open
 * across runs and a burst are delivered; a bulk statement and a change to a relationship's table
 * fall back to rerunning every cohort, and still deliver.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestEngine } from './harness.js';
import { eventually, openTransportWs, type TestSocket } from './subscriptionsClient.js';
import { liveQueryStats } from '../../src/subscriptions/index.js';
import { nowSeconds, signJwt, svcClaims } from '../support/jwt.js';

const KEY = 'live-narrowing-test-secret-0123456789abcdef';
const ADMIN = { 'x-svc-admin-secret': 'adm' };
const userToken = (userId: string) =>
  `Bearer ${signJwt({ ...svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': userId } }), exp: nowSeconds() + 3600 }, { alg: 'HS256', key: KEY })}`;

const subscribe = (s: TestSocket, id: string, query: string, variables?: Record<string, unknown>) =>
  s.send({ id, type: 'subscribe', payload: { query, variables } });

const BY_ID = 'subscription ($id: Int!) { item(where: {id: {_eq: $id}}) { id v owner } }';

test('live queries rerun only the cohorts a change touches', async (t) => {
  const e = await startTestEngine({
    adminSecret: 'adm', jwtSecret: { type: 'HS256', key: KEY },
    liveQueries: { batchSize: 100, refetchIntervalMs: 200, changePollIntervalMs: 50 },
  });
  await e.runSql(`CREATE TABLE item (id int PRIMARY KEY, owner text NOT NULL, v int NOT NULL);
    CREATE TABLE tag (id int PRIMARY KEY, item_id int NOT NULL REFERENCES item(id), name text NOT NULL);
    INSERT INTO item SELECT g, 'u' || (g % 5), 0 FROM generate_series(1, 200) g;
    INSERT INTO tag VALUES (1, 3, 'red');`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'item' } },
      { type: 'track_table', args: { schema: 'public', name: 'tag' } },
      { type: 'create_array_relationship', args: { table: 'item', name: 'tags', using: { foreign_key_constraint_on: { table: 'tag', column: 'item_id' } } } },
      { type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: ['id', 'v'], allow_aggregations: true, filter: { owner: { _eq: 'X-Svc-User-Id' } } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  const stats = () => liveQueryStats(e.engine.ctx);
  const reads = async (n: number) => {
    const r0 = stats().changeReads;
    await eventually(() => stats().changeReads - r0 >= n, 30_000, `${n} reads of the change counters`);
  };
  const pgc = new pg.Client({ connectionString: e.databaseUrl });
  await pgc.connect();
  t.after(async () => {
    await pgc.end();
    await e.stop();
  });

  /** 50 subscribers of BY_ID on one socket (ids 1..50), their first results read. */
  async function fifty(): Promise<TestSocket> {
    const s = await openTransportWs(e.url, ADMIN);
    for (let i = 1; i <= 50; i++) subscribe(s, String(i), BY_ID, { id: i });
    for (let i = 1; i <= 50; i++) assert.equal((await s.next()).type, 'next');
    await eventually(() => stats().cohorts === 50 && stats().changeDriven === 1, 10_000, 'fifty cohorts, change-driven');
    await reads(2);
    return s;
  }

  await t.test('an update reruns only the cohort of the changed row; the others get nothing', async () => {
    const s = await fifty();
    const runs = stats().cohortRuns;
    await pgc.query('UPDATE item SET v = 1 WHERE id = 7');
    const m = await s.next();
    assert.equal(m.id, '7');
    assert.deepEqual(m.payload.data.item, [{ id: 7, v: 1, owner: 'u2' }]);
    await reads(3);
    await s.none(100);
    assert.equal(stats().cohortRuns - runs, 1, 'one cohort ran');
    // a change to rows no subscriber watches runs nothing
    await pgc.query('UPDATE item SET v = 1 WHERE id IN (120, 121)');
    await pgc.query('INSERT INTO item VALUES (300, $1, 0)', ['u1']);
    await reads(3);
    assert.equal(stats().cohortRuns - runs, 1, 'still one cohort ran');
    await s.none(50);
    // a row whose key changes concerns its old and its new value
    await pgc.query('UPDATE item SET id = 400 WHERE id = 9');
    const gone = await s.next();
    assert.equal(gone.id, '9');
    assert.deepEqual(gone.payload.data.item, []);
    await pgc.query('UPDATE item SET id = 9 WHERE id = 400');
    assert.deepEqual((await s.next()).payload.data.item, [{ id: 9, v: 0, owner: 'u4' }]);
    await reads(3);
    assert.equal(stats().cohortRuns - runs, 3);
    await s.none(50);

    // a transaction open across runs: its row arrives when it commits
    await pgc.query('BEGIN');
    await pgc.query('UPDATE item SET v = 2 WHERE id = 11');
    await e.runSql('UPDATE item SET v = 2 WHERE id = 12');
    assert.equal((await s.next()).id, '12');
    await reads(2);
    await pgc.query('COMMIT');
    const late = await s.next();
    assert.equal(late.id, '11');
    assert.equal(late.payload.data.item[0].v, 2);
    // a burst on one row: its last state arrives, no message repeats a result
    for (let i = 1; i <= 30; i++) await pgc.query('UPDATE item SET v = $1 WHERE id = 13', [100 + i]);
    const seen: number[] = [];
    while (seen[seen.length - 1] !== 130) {
      const b = await s.next();
      assert.equal(b.id, '13');
      seen.push(b.payload.data.item[0].v);
    }
    assert.equal(new Set(seen).size, seen.length, `no repeats: ${seen.join(', ')}`);
    await reads(3);
    await s.none(50);
    s.close();
    await s.closed;
  });

  await t.test('a statement changing more rows than the log keeps falls back to every cohort, and delivers', async () => {
    await eventually(() => stats().cohorts === 0, 10_000, 'previous cohorts gone');
    const s = await fifty();
    const runs = stats().cohortRuns;
    // 200 rows changed: more than the log keeps, so every cohort reruns
    await pgc.query('UPDATE item SET v = v + 1000');
    const got = new Set<string>();
    while (got.size < 50) got.add((await s.next()).id);
    await reads(3);
    assert.equal(stats().cohortRuns - runs, 50, 'every cohort ran');
    await s.none(50);
    s.close();
    await s.closed;
  });

  await t.test("a change to a relationship's table reruns every cohort of the query", async () => {
    await eventually(() => stats().cohorts === 0, 10_000, 'previous cohorts gone');
    const s = await openTransportWs(e.url, ADMIN);
    for (const id of [3, 4]) subscribe(s, String(id), 'subscription ($id: Int!) { item(where: {id: {_eq: $id}}) { id tags { name } } }', { id });
    await s.next();
    await s.next();
    await eventually(() => stats().changeDriven === 1, 10_000, 'change-driven');
    await reads(2);
    const runs = stats().cohortRuns;
    await pgc.query(`UPDATE tag SET name = 'blue' WHERE id = 1`);
    const m = await s.next();
    assert.equal(m.id, '3');
    assert.deepEqual(m.payload.data.item[0].tags, [{ name: 'blue' }]);
    await reads(3);
    assert.equal(stats().cohortRuns - runs, 2, 'both cohorts ran');
    // the root table still narrows
    await pgc.query('UPDATE item SET v = 5 WHERE id = 4');
    await reads(3);
    assert.equal(stats().cohortRuns - runs, 3);
    await s.none(50);
    s.close();
    await s.closed;
  });

  await t.test("the role's permission filter on a session variable is a key too", async () => {
    await eventually(() => stats().cohorts === 0, 10_000, 'previous cohorts gone');
    const sockets = new Map<string, TestSocket>();
    const count = new Map<string, number>();
    for (const u of ['u1', 'u2', 'u3']) {
      const s = await openTransportWs(e.url, { authorization: userToken(u) });
      subscribe(s, 'mine', 'subscription { item_aggregate { aggregate { count sum { v } } } }');
      count.set(u, (await s.next()).payload.data.item_aggregate.aggregate.count);
      sockets.set(u, s);
    }
    await eventually(() => stats().cohorts === 3 && stats().changeDriven === 1, 10_000, 'three cohorts');
    await reads(2);
    const runs = stats().cohortRuns;
    // a row moving from u1 to u2 changes both; u3 sees nothing
    await pgc.query(`UPDATE item SET owner = 'u2' WHERE id = 1`);
    const [a, b] = await Promise.all([sockets.get('u1')!.next(), sockets.get('u2')!.next()]);
    assert.equal(a.payload.data.item_aggregate.aggregate.count, count.get('u1')! - 1);
    assert.equal(b.payload.data.item_aggregate.aggregate.count, count.get('u2')! + 1);
    await reads(3);
    assert.equal(stats().cohortRuns - runs, 2);
    await sockets.get('u3')!.none(50);
    // a delete and an insert are changes too
    await pgc.query(`DELETE FROM item WHERE id = 8`);
    assert.equal((await sockets.get('u3')!.next()).payload.data.item_aggregate.aggregate.count, count.get('u3')! - 1);
    await pgc.query(`INSERT INTO item VALUES (500, 'u3', 7)`);
    assert.equal((await sockets.get('u3')!.next()).payload.data.item_aggregate.aggregate.count, count.get('u3'));
    await reads(3);
    assert.equal(stats().cohortRuns - runs, 4);
    for (const s of sockets.values()) {
      await s.none(20);
      s.close();
      await s.closed;
    }
  });

  await t.test('a table counted by the counter alone gets the capture triggers when next watched, and narrows', async () => {
    await eventually(() => stats().cohorts === 0 && stats().pollers === 0, 10_000, 'previous pollers gone');
    await e.runSql(`CREATE TABLE legacy (id int PRIMARY KEY, v int NOT NULL); INSERT INTO legacy SELECT g, 0 FROM generate_series(1, 3) g;
      CREATE TRIGGER svc_live_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON legacy FOR EACH STATEMENT EXECUTE FUNCTION hdb_catalog.svc_live_change();`);
    assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'legacy' } })).status, 200);
    const s = await openTransportWs(e.url, ADMIN);
    for (const id of [1, 2, 3]) subscribe(s, String(id), 'subscription ($id: Int!) { legacy_by_pk(id: $id) { id v } }', { id });
    for (let i = 0; i < 3; i++) await s.next();
    const triggers = await e.runSql(`SELECT t.tgname, t.tgtype::int & 60 FROM pg_trigger t WHERE t.tgrelid = 'legacy'::regclass ORDER BY 1`);
    // tgtype bits: 4 insert, 8 delete, 16 update, 32 truncate
    assert.deepEqual(triggers.result.slice(1), [['svc_live_change', '32'], ['svc_live_rows_delete', '8'], ['svc_live_rows_insert', '4'], ['svc_live_rows_update', '16']]);
    await eventually(() => stats().changeDriven === 1, 10_000, 'change-driven');
    await reads(2);
    const runs = stats().cohortRuns;
    await pgc.query('UPDATE legacy SET v = 1 WHERE id = 2');
    const m = await s.next();
    assert.equal(m.id, '2');
    assert.deepEqual(m.payload.data.legacy_by_pk, { id: 2, v: 1 });
    await reads(3);
    assert.equal(stats().cohortRuns - runs, 1);
    // TRUNCATE is still a change (every cohort reruns)
    await pgc.query('TRUNCATE legacy');
    const got = new Set<string>();
    while (got.size < 3) got.add((await s.next()).id);
    await s.none(50);
    s.close();
    await s.closed;
  });

  await t.test('a text key under a case-insensitive collation is not narrowed (its equality is not the texts\' equality)', async () => {
    await eventually(() => stats().cohorts === 0 && stats().pollers === 0, 10_000, 'previous pollers gone');
    await e.runSql(`CREATE COLLATION ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
      CREATE TABLE person (name text COLLATE ci PRIMARY KEY, v int NOT NULL); INSERT INTO person VALUES ('Ann', 0), ('bob', 0);`);
    assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'person' } })).status, 200);
    const s = await openTransportWs(e.url, ADMIN);
    subscribe(s, 'ann', 'subscription ($n: String!) { person(where: {name: {_eq: $n}}) { v } }', { n: 'ann' });
    subscribe(s, 'bob', 'subscription ($n: String!) { person(where: {name: {_eq: $n}}) { v } }', { n: 'bob' });
    assert.deepEqual((await s.next()).payload.data.person, [{ v: 0 }]);
    await s.next();
    await eventually(() => stats().changeDriven === 1, 10_000, 'change-driven');
    await reads(2);
    const runs = stats().cohortRuns;
    // 'Ann' equals 'ann' under the collation: the subscriber of 'ann' must see it
    await pgc.query(`UPDATE person SET v = 1 WHERE name = 'Ann'`);
    const m = await s.next();
    assert.equal(m.id, 'ann');
    assert.deepEqual(m.payload.data.person, [{ v: 1 }]);
    await reads(3);
    assert.equal(stats().cohortRuns - runs, 2, 'both cohorts ran: no narrowing');
    s.close();
    await s.closed;
  });
});
