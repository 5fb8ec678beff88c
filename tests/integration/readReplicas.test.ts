/**
 * Read replicas against a real hot standby (pg_basebackup -R of a primary, Debian's PostgreSQL
 * packages: tests/support/standbyPostgres.ts). Routing is checked by what each server executed
 * (pg_stat_statements on each), lag by pausing the standby's replay, failure by stopping it.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Writable } from 'node:stream';
import pino from 'pino';
import { eventually } from '../support/eventReceiver.js';
import { findSystemPostgres } from '../support/systemPostgres.js';
import { sqlOn, startReplicatedPostgres, type ReplicatedPostgres } from '../support/standbyPostgres.js';
import { startTestEngine, type TestEngine, type TestEngineOptions } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';

let pair: ReplicatedPostgres;
const DB = 'app';

before(async () => {
  assert.ok(findSystemPostgres(), 'a PostgreSQL server package under /usr/lib/postgresql (apt-get install -y postgresql-15)');
  pair = await startReplicatedPostgres();
  await sqlOn(pair.primaryUrl(), `CREATE DATABASE ${DB}`);
  await sqlOn(pair.primaryUrl(DB), 'CREATE EXTENSION pg_stat_statements');
  await sqlOn(pair.primaryUrl(DB), `CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL); INSERT INTO note (body) VALUES ('first')`);
  // The standby has the database (and the table) once it replayed them.
  await eventually(() => sqlOn(pair.standby.url(DB), 'SELECT count(*)::int AS n FROM note').catch(() => [{ n: -1 }]), (r) => r[0].n === 1, 20_000, 'standby has the table');
});
after(() => pair?.stop());

/** Calls of statements that read `note` on one server since its last reset. */
async function noteReads(url: string): Promise<number> {
  const rows = await sqlOn(url, `SELECT coalesce(sum(calls), 0)::int AS n FROM pg_stat_statements WHERE query ~* 'from\\s+"public"\\."note"' AND query !~* '^\\s*(insert|update|delete|explain)'`);
  return rows[0].n;
}
async function resetStats(): Promise<void> {
  await sqlOn(pair.primaryUrl(DB), 'SELECT pg_stat_statements_reset()');
  await sqlOn(pair.standby.url(DB), 'SELECT pg_stat_statements_reset()');
}

/** An engine on the primary with the standby as its replica; its log lines are kept. */
async function engine(opts: TestEngineOptions = {}): Promise<TestEngine & { logs: string[] }> {
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write(chunk, _e, cb) { logs.push(String(chunk)); cb(); } }));
  const e = await startTestEngine({
    databaseUrl: pair.primaryUrl(DB),
    readReplicaUrls: [pair.standby.url(DB)],
    readReplicaMaxLagMs: 1000,
    readReplicaCheckIntervalMs: 100,
    startOptions: { logger },
    ...opts,
  });
  const tracked = await e.query({ type: 'track_table', args: { table: 'note' } });
  assert.ok(tracked.status === 200 || tracked.body?.code === 'already-tracked', tracked.text);
  return Object.assign(e, { logs });
}

async function metric(e: TestEngine, name: string): Promise<number> {
  const text = (await e.request('GET', '/v1/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

test('queries and subscriptions run on the standby; mutations, run_sql and metadata on the primary', { timeout: 60_000 }, async (t) => {
  // Subscriptions read from replicas when they poll at the interval (change tracking off); with it on
  // they read where the change counters are read, the primary (the next test).
  const e = await engine({ liveQueries: { batchSize: 100, refetchIntervalMs: 1000, changePollIntervalMs: 0 } });
  t.after(() => e.stop());
  await resetStats();
  for (let i = 0; i < 20; i++) {
    const r = await e.graphql('{ note(order_by: {id: asc}) { id body } }');
    assert.deepEqual(r.body.data.note[0], { id: 1, body: 'first' });
  }
  // Two root fields (one combined statement) and a query by primary key go there too.
  const two = await e.graphql('{ a: note_by_pk(id: 1) { body } b: note_aggregate { aggregate { count } } }');
  assert.equal(two.body.data.a.body, 'first');
  assert.equal(await noteReads(pair.standby.url(DB)), 21);
  assert.equal(await noteReads(pair.primaryUrl(DB)), 0, 'the primary ran no read');

  const ws = await TestSocket.open(e.url, 'graphql-transport-ws');
  t.after(() => ws.ws.close());
  ws.send({ type: 'connection_init', payload: {} });
  assert.equal((await ws.next()).type, 'connection_ack');
  ws.send({ id: 's1', type: 'subscribe', payload: { query: 'subscription { note(order_by: {id: asc}) { body } }' } });
  const first = await ws.next();
  assert.deepEqual(first.payload.data.note[0], { body: 'first' });
  await eventually(() => noteReads(pair.standby.url(DB)), (n) => n >= 23, 10_000, 'subscription polls on the standby');
  assert.equal(await noteReads(pair.primaryUrl(DB)), 0);

  const ins = await e.graphql('mutation { insert_note_one(object: {body: "second"}) { id } }');
  assert.equal(ins.status, 200, ins.text);
  assert.match(ins.headers.get('x-svc-commit-lsn') ?? '', /^[0-9A-F]+\/[0-9A-F]+$/);
  const primaryInserts = await sqlOn(pair.primaryUrl(DB), `SELECT coalesce(sum(calls), 0)::int AS n FROM pg_stat_statements WHERE query ~* '^\\s*(with|insert).*"note"'`);
  assert.ok(primaryInserts[0].n >= 1, 'the insert ran on the primary');
  const sql = await e.runSql('SELECT count(*) FROM note');
  assert.deepEqual(sql.result, [['count'], ['2']]);
  assert.equal((await sqlOn(pair.standby.url(DB), `SELECT count(*)::int AS n FROM pg_stat_statements WHERE query ~* 'count\\(\\*\\) FROM note'`))[0].n, 0, 'run_sql ran on the primary');
  ws.send({ id: 's1', type: 'complete' });
  await e.runSql('DELETE FROM note WHERE id > 1');
});

/** Calls of the live query's multiplexed statement (over `unnest` of its cohorts) on one server. */
async function liveReads(url: string): Promise<number> {
  const rows = await sqlOn(url, `SELECT coalesce(sum(calls), 0)::int AS n FROM pg_stat_statements WHERE query ~* '^\\s*select' AND query ~ 'unnest' AND query ~* 'from\\s+"public"\\."note"'`);
  return rows[0].n;
}

test('change-driven live queries read from the standby once it has what the change-counter read saw, else from the primary', { timeout: 60_000 }, async (t) => {
  const e = await engine({ liveQueries: { batchSize: 100, refetchIntervalMs: 1000, changePollIntervalMs: 50 } });
  t.after(() => e.stop());
  await resetStats();
  const ws = await TestSocket.open(e.url, 'graphql-transport-ws');
  t.after(() => ws.ws.close());
  ws.send({ type: 'connection_init', payload: {} });
  assert.equal((await ws.next()).type, 'connection_ack');
  ws.send({ id: 's1', type: 'subscribe', payload: { query: 'subscription { note(order_by: {id: asc}) { body } }' } });
  assert.deepEqual((await ws.next()).payload.data.note, [{ body: 'first' }]);
  assert.ok(await liveReads(pair.standby.url(DB)) >= 1, 'the first result came from the standby');
  assert.equal(await liveReads(pair.primaryUrl(DB)), 0, 'the primary ran none of it');
  // Replay paused: the standby cannot see the insert; the rerun goes to the primary, the update arrives.
  await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_pause()');
  t.after(() => sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_resume()'));
  await e.runSql("INSERT INTO note (body) VALUES ('third')");
  assert.deepEqual((await ws.next(10_000)).payload.data.note, [{ body: 'first' }, { body: 'third' }]);
  assert.ok(await liveReads(pair.primaryUrl(DB)) >= 1, 'the rerun the standby could not answer ran on the primary');
  // Replay resumed: the next rerun is the standby's again.
  await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_resume()');
  await eventually(() => e.engine.ctx.replicas!.statuses()[0]!, (r) => r.usable && r.lagMs === 0, 10_000, 'the standby caught up');
  const [onStandby, onPrimary] = [await liveReads(pair.standby.url(DB)), await liveReads(pair.primaryUrl(DB))];
  await e.runSql("INSERT INTO note (body) VALUES ('fourth')");
  assert.deepEqual((await ws.next(10_000)).payload.data.note, [{ body: 'first' }, { body: 'third' }, { body: 'fourth' }]);
  assert.ok(await liveReads(pair.standby.url(DB)) > onStandby, 'the rerun ran on the standby');
  assert.equal(await liveReads(pair.primaryUrl(DB)), onPrimary, 'and not on the primary');
  ws.send({ id: 's1', type: 'complete' });
  await e.runSql('DELETE FROM note WHERE id > 1');
});

test('read your writes: the commit LSN sent back reads from a server that has it; replay paused → the primary', { timeout: 60_000 }, async (t) => {
  const e = await engine({ readReplicaMaxLagMs: 30_000 });
  t.after(async () => {
    await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_resume()').catch(() => undefined);
    await e.runSql('DELETE FROM note WHERE id > 1');
    await e.stop();
  });
  await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_pause()');
  const ins = await e.graphql('mutation { insert_note_one(object: {body: "mine"}) { id } }');
  const lsn = ins.headers.get('x-svc-commit-lsn')!;
  assert.ok(lsn, ins.text);
  await resetStats();
  const query = '{ note(where: {body: {_eq: "mine"}}) { body } }';
  // Without the token: the (lagging, still usable) standby answers, without the new row.
  assert.deepEqual((await e.graphql(query)).body, { data: { note: [] } });
  // With it: the primary, which has it.
  assert.deepEqual((await e.graphql(query, undefined, { 'x-svc-commit-lsn': lsn })).body, { data: { note: [{ body: 'mine' }] } });
  assert.equal(await noteReads(pair.primaryUrl(DB)), 1);
  assert.equal(await noteReads(pair.standby.url(DB)), 1);
  // Forced to the primary.
  assert.deepEqual((await e.graphql(query, undefined, { 'x-svc-read-primary': 'true' })).body, { data: { note: [{ body: 'mine' }] } });
  assert.equal(await noteReads(pair.primaryUrl(DB)), 2);
  // A batch that mutates: its queries after the mutation read from the primary.
  const batch = await e.request('POST', '/v1/graphql', [{ query: 'mutation { insert_note_one(object: {body: "mine"}) { id } }' }, { query }]);
  assert.equal(batch.body[1].data.note.length, 2, batch.text);
  assert.equal(await noteReads(pair.primaryUrl(DB)), 3);
  // A malformed token is the client's error.
  const bad = await e.graphql(query, undefined, { 'x-svc-commit-lsn': 'yesterday' });
  assert.equal(bad.body.errors[0].extensions.code, 'bad-request');
  // Replay resumes: once the standby has the commit, the token is served there.
  await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_resume()');
  await eventually(async () => {
    const before = await noteReads(pair.standby.url(DB));
    const r = await e.graphql(query, undefined, { 'x-svc-commit-lsn': lsn });
    return { rows: r.body.data.note.length, onStandby: (await noteReads(pair.standby.url(DB))) === before + 1 };
  }, (x) => x.onStandby && x.rows === 2, 15_000, 'the token served by the standby after replay');
});

test('a replica lagging past --read-replica-max-lag gets no reads until it catches up (log line, metric, explain)', { timeout: 60_000 }, async (t) => {
  const e = await engine({ readReplicaMaxLagMs: 500 });
  t.after(async () => {
    await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_resume()').catch(() => undefined);
    await e.stop();
  });
  const explain = async () => (await e.request('POST', '/v1/graphql/explain', { query: { query: '{ note { id } }' } })).body[0].server;
  assert.equal(await explain(), `127.0.0.1:${pair.standby.port}/${DB}`);
  // The first good check is not a recovery: no "again" at start.
  await eventually(() => e.logs.join(''), (l) => /read replica \S+ is usable: reads go to it/.test(l), 10_000, 'the first check logged');
  assert.ok(!e.logs.some((l) => l.includes('usable again')), e.logs.join(''));
  await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_pause()');
  await sqlOn(pair.primaryUrl(DB), `UPDATE note SET body = 'first' WHERE id = 1`);
  await eventually(() => metric(e, 'svc_read_replica_usable{'), (v) => v === 0, 10_000, 'replica marked unusable');
  assert.equal(await explain(), 'primary');
  assert.ok(e.logs.some((l) => l.includes('no read replica is usable: reads go to the primary')), 'fallback logged');
  await resetStats();
  assert.equal((await e.graphql('{ note { id } }')).status, 200);
  assert.equal(await noteReads(pair.primaryUrl(DB)), 1);
  assert.equal(await noteReads(pair.standby.url(DB)), 0);
  assert.ok((await metric(e, 'svc_read_replica_primary_reads_total{reason="no_usable_replica"}')) >= 1);
  await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_resume()');
  await eventually(() => metric(e, 'svc_read_replica_usable{'), (v) => v === 1, 10_000, 'replica usable again');
  assert.ok(e.logs.some((l) => l.includes('reads go to the read replicas again')));
  assert.ok(e.logs.some((l) => /read replica \S+ is usable again/.test(l)), 'the recovery says "again"');
  assert.equal(await explain(), `127.0.0.1:${pair.standby.port}/${DB}`);
});

test('a standby stopped under a read: the read is answered by the primary, not an error; it is used again once back', { timeout: 90_000 }, async (t) => {
  // Checks far apart: the replica still counts as usable when the request reaches it.
  const e = await engine({ readReplicaCheckIntervalMs: 600_000 });
  t.after(() => e.stop());
  assert.equal((await e.graphql('{ note { id } }')).status, 200); // a pooled connection to the standby
  pair.standby.stop();
  try {
    for (let i = 0; i < 3; i++) {
      const r = await e.graphql('{ note(order_by: {id: asc}) { body } }');
      assert.deepEqual(r.body, { data: { note: [{ body: 'first' }] } }, r.text);
    }
    assert.ok((await metric(e, 'svc_read_replica_retries_total')) >= 1);
    assert.equal(await metric(e, 'svc_read_replica_usable{'), 0);
  } finally {
    pair.standby.start();
  }
  const quick = await engine();
  t.after(() => quick.stop());
  await eventually(() => metric(quick, 'svc_read_replica_usable{'), (v) => v === 1, 20_000, 'the restarted standby usable');
});

test('bad replica URLs refuse the start with one line naming them', { timeout: 60_000 }, async () => {
  const start = (urls: string[]) => startTestEngine({ databaseUrl: pair.primaryUrl(DB), readReplicaUrls: urls }).then(async (e) => {
    await e.stop();
    return 'started';
  }, (err: Error) => err.message);
  const primary = await start([pair.primaryUrl(DB)]);
  assert.match(primary, new RegExp(`^read replica 127\\.0\\.0\\.1:\\d+/${DB} is not a standby`));
  // Another cluster: the test suite's own Postgres.
  const other = new URL(process.env.SVC_TEST_DATABASE_URL!);
  const elsewhere = await start([other.toString()]);
  assert.match(elsewhere, /is another database cluster \(system identifier/);
  assert.match(await start([pair.standby.url('postgres')]), /is database "postgres", the primary's is "app"/);
  const down = await start(['postgres://postgres@127.0.0.1:1/app']);
  assert.match(down, /^read replica 127\.0\.0\.1:1\/app: connection refused/);
  for (const m of [primary, elsewhere, down]) assert.ok(!m.includes('\n'), m);
});

test('read_replicas of the default source: export → replace → export keeps them, and an engine started on that metadata reads from them', { timeout: 60_000 }, async (t) => {
  // A replica's variable must be set where the metadata names it (the change applies at once).
  process.env.SVC_TEST_REPLICA_URL = pair.standby.url(DB);
  t.after(() => delete process.env.SVC_TEST_REPLICA_URL);
  const plain = await startTestEngine({ databaseUrl: pair.primaryUrl(DB) });
  t.after(() => plain.stop());
  const exported = (await plain.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body;
  const replicas = [{ database_url: { from_env: 'SVC_TEST_REPLICA_URL' }, pool_settings: { max_connections: 5, idle_timeout: 180 } }];
  exported.sources[0].configuration.read_replicas = replicas;
  const replaced = await plain.request('POST', '/v1/metadata', { type: 'replace_metadata', args: exported });
  assert.equal(replaced.status, 200, replaced.text);
  const again = (await plain.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body;
  assert.deepEqual(again, exported);
  const badUrl = await plain.request('POST', '/v1/metadata', { type: 'replace_metadata', args: { ...exported, sources: [{ ...exported.sources[0], configuration: { ...exported.sources[0].configuration, read_replicas: [{ database_url: 'mysql://x' }] } }] } });
  assert.equal(badUrl.status, 400);
  assert.equal(badUrl.body.code, 'parse-failed');
  assert.match(badUrl.body.path, /read_replicas\[0\]\.database_url$/);
  await plain.stop();

  const e = await startTestEngine({ databaseUrl: pair.primaryUrl(DB) });
  t.after(async () => {
    await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: { ...exported, sources: [{ ...exported.sources[0], configuration: { connection_info: exported.sources[0].configuration.connection_info } }] } });
    await e.stop();
  });
  const plan = await e.request('POST', '/v1/graphql/explain', { query: { query: '{ note { id } }' } });
  assert.equal(plan.body[0].server, `127.0.0.1:${pair.standby.port}/${DB}`);
});

/** Connections an engine holds on the standby's database. */
async function engineConnectionsOnStandby(): Promise<number> {
  const rows = await sqlOn(pair.standby.url('postgres'), `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'svc-graphql-engine' AND datname = '${DB}'`);
  return rows[0].n;
}

test('read_replicas changed through /v1/metadata apply at once on every engine: added, a bad one refused, removed ones drained then closed', { timeout: 120_000 }, async (t) => {
  await sqlOn(pair.primaryUrl(DB), `CREATE OR REPLACE FUNCTION slow_note(ms int) RETURNS SETOF note LANGUAGE sql STABLE AS $$ SELECT n.* FROM note n, pg_sleep(ms / 1000.0) $$`);
  // Two engines of one cluster, started without replicas; the second follows through the schema sync.
  const a = await startTestEngine({ databaseUrl: pair.primaryUrl(DB), readReplicaCheckIntervalMs: 100, liveQueries: { batchSize: 100, refetchIntervalMs: 1000, changePollIntervalMs: 0 } });
  const b = await startTestEngine({ databaseUrl: pair.primaryUrl(DB), readReplicaCheckIntervalMs: 100, schemaSyncIntervalMs: 200 });
  t.after(async () => {
    await a.request('POST', '/v1/metadata', { type: 'pg_update_source', args: { name: 'default', configuration: { read_replicas: [] } } });
    await a.stop();
    await b.stop();
  });
  for (const q of [{ type: 'track_table', args: { table: 'note' } }, { type: 'track_function', args: { function: 'slow_note' } }]) {
    const r = await a.query(q);
    assert.ok(r.status === 200 || /^already-/.test(r.body?.code), r.text);
  }
  const server = async (e: TestEngine) => (await e.request('POST', '/v1/graphql/explain', { query: { query: '{ note { id } }' } })).body[0].server;
  const standby = `127.0.0.1:${pair.standby.port}/${DB}`;
  await eventually(() => b.graphql('{ note { id } }'), (r) => r.body.data?.note?.length === 1, 10_000, 'b has the tracked table');
  assert.equal(await server(a), undefined, 'no replica: explain names no server');

  // Added by replace_metadata: in use when the answer comes, no restart.
  const exported = (await a.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body;
  const withReplica = structuredClone(exported);
  withReplica.sources[0].configuration.read_replicas = [{ database_url: pair.standby.url(DB), pool_settings: { max_connections: 4 } }];
  const added = await a.request('POST', '/v1/metadata', { type: 'replace_metadata', args: withReplica });
  assert.equal(added.status, 200, added.text);
  assert.equal(await server(a), standby);
  await resetStats();
  assert.deepEqual((await a.graphql('{ note(order_by: {id: asc}) { body } }')).body, { data: { note: [{ body: 'first' }] } });
  assert.equal(await noteReads(pair.standby.url(DB)), 1);
  assert.equal(await noteReads(pair.primaryUrl(DB)), 0);
  // The other engine of the cluster picks it up with the schema sync.
  await eventually(() => server(b), (s) => s === standby, 10_000, 'engine b reads from the added replica');

  // A bad one (the primary itself, not a standby) is refused in Hasura's shape; nothing changes.
  const bad = await a.request('POST', '/v1/metadata', { type: 'pg_update_source', args: { name: 'default', configuration: { connection_info: exported.sources[0].configuration.connection_info, read_replicas: [{ database_url: pair.standby.url(DB) }, { database_url: pair.primaryUrl(DB) }] } } });
  assert.equal(bad.status, 400, bad.text);
  assert.equal(bad.body.code, 'invalid-configuration');
  assert.equal(bad.body.path, '$.args');
  assert.match(bad.body.error, new RegExp(`^Inconsistent object: read replica 127\\.0\\.0\\.1:${new URL(pair.primaryUrl()).port}/${DB} is not a standby`));
  const unset = await a.request('POST', '/v1/metadata', { type: 'pg_update_source', args: { name: 'default', configuration: { read_replicas: [{ database_url: { from_env: 'SVC_TEST_UNSET_REPLICA' } }] } } });
  assert.equal(unset.body.code, 'invalid-configuration', unset.text);
  assert.match(unset.body.error, /environment variable SVC_TEST_UNSET_REPLICA is not set/);
  assert.deepEqual((await a.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body, withReplica);
  assert.equal(await server(a), standby);

  // Removed while a read runs on it: that read finishes (its answer, from the standby), then the pool closes.
  assert.ok((await engineConnectionsOnStandby()) >= 1);
  await resetStats();
  const slow = a.graphql('{ slow_note(args: {ms: 1500}) { body } }');
  await eventually(() => sqlOn(pair.standby.url('postgres'), `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%slow_note%' AND state = 'active' AND pid <> pg_backend_pid()`), (r) => r[0].n === 1, 10_000, 'the slow read runs on the standby');
  const removed = await a.request('POST', '/v1/metadata', { type: 'pg_add_source', args: { name: 'default', replace_configuration: true, configuration: { connection_info: exported.sources[0].configuration.connection_info } } });
  assert.equal(removed.status, 200, removed.text);
  assert.equal(await server(a), undefined, 'no replica left: the single-server path');
  const done = await slow;
  assert.deepEqual(done.body, { data: { slow_note: [{ body: 'first' }] } }, done.text);
  assert.equal((await a.graphql('{ note { id } }')).status, 200);
  assert.equal(await noteReads(pair.primaryUrl(DB)), 1, 'a new read goes to the primary');
  await eventually(() => server(b), (s) => s === undefined, 10_000, 'engine b dropped the replica too');
  await eventually(() => engineConnectionsOnStandby(), (n) => n === 0, 10_000, 'both engines closed their standby pools');
  assert.deepEqual((await a.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body, exported);
});

test('read your writes asks the replica on demand: replayed → read there (and the row is seen); replay paused → the primary', { timeout: 60_000 }, async (t) => {
  // Background checks far apart: a commit is never covered by the last measurement, only by asking.
  const e = await engine({ readReplicaCheckIntervalMs: 600_000, readReplicaMaxLagMs: 600_000, readReplicaWaitForLsnMs: 200 });
  t.after(async () => {
    await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_resume()').catch(() => undefined);
    await e.runSql('DELETE FROM note WHERE id > 1');
    await e.stop();
  });
  const query = (body: string) => `{ note(where: {body: {_eq: "${body}"}}) { body } }`;
  await resetStats();
  for (let i = 0; i < 5; i++) {
    const ins = await e.graphql(`mutation { insert_note_one(object: {body: "ryw${i}"}) { id } }`);
    const r = await e.graphql(query(`ryw${i}`), undefined, { 'x-svc-commit-lsn': ins.headers.get('x-svc-commit-lsn')! });
    assert.deepEqual(r.body, { data: { note: [{ body: `ryw${i}` }] } }, r.text);
  }
  assert.equal(await noteReads(pair.standby.url(DB)), 5, 'every read with the token on the standby');
  assert.equal(await noteReads(pair.primaryUrl(DB)), 0);
  assert.ok((await metric(e, 'svc_read_replica_replay_questions_total')) >= 1);

  await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_pause()');
  const ins = await e.graphql('mutation { insert_note_one(object: {body: "paused"}) { id } }');
  await resetStats();
  const t0 = performance.now();
  const r = await e.graphql(query('paused'), undefined, { 'x-svc-commit-lsn': ins.headers.get('x-svc-commit-lsn')! });
  const ms = performance.now() - t0;
  assert.deepEqual(r.body, { data: { note: [{ body: 'paused' }] } });
  assert.equal(await noteReads(pair.primaryUrl(DB)), 1, 'the primary, once the wait bound passed');
  assert.equal(await noteReads(pair.standby.url(DB)), 0);
  assert.ok(ms >= 200, `waited the bound first (${ms.toFixed(0)} ms)`);
  // A read without the token still goes to the (lagging) standby.
  assert.deepEqual((await e.graphql(query('paused'))).body, { data: { note: [] } });
});

test('a subscription started with the commit LSN (connection_init or upgrade headers) reads its first result where that commit is', { timeout: 60_000 }, async (t) => {
  const e = await engine({ readReplicaMaxLagMs: 600_000, readReplicaWaitForLsnMs: 50, liveQueries: { batchSize: 100, refetchIntervalMs: 60_000, changePollIntervalMs: 0 } });
  t.after(async () => {
    await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_resume()').catch(() => undefined);
    await e.runSql('DELETE FROM note WHERE id > 1');
    await e.stop();
  });
  const subscribe = async (headers: Record<string, string>, upgrade?: Record<string, string>) => {
    const ws = await TestSocket.open(e.url, 'graphql-transport-ws', undefined, upgrade);
    t.after(() => ws.ws.close());
    ws.send({ type: 'connection_init', payload: { headers } });
    assert.equal((await ws.next()).type, 'connection_ack');
    ws.send({ id: 's', type: 'subscribe', payload: { query: 'subscription { note(order_by: {id: asc}) { body } }' } });
    return (await ws.next(5000)).payload.data.note.map((n: { body: string }) => n.body);
  };
  await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_pause()');
  const ins = await e.graphql('mutation { insert_note_one(object: {body: "sub"}) { id } }');
  const lsn = ins.headers.get('x-svc-commit-lsn')!;
  await resetStats();
  assert.deepEqual(await subscribe({}), ['first'], 'without the token: the lagging standby');
  assert.equal(await noteReads(pair.standby.url(DB)), 1);
  assert.deepEqual(await subscribe({ 'X-Svc-Commit-Lsn': lsn }), ['first', 'sub'], 'with it: the primary');
  assert.equal(await noteReads(pair.primaryUrl(DB)), 1);
  assert.deepEqual(await subscribe({}, { 'X-Svc-Commit-Lsn': lsn }), ['first', 'sub'], 'on the upgrade request: the primary too');
  assert.equal(await noteReads(pair.primaryUrl(DB)), 2);
  await sqlOn(pair.standby.url(DB), 'SELECT pg_wal_replay_resume()');
  assert.deepEqual(await subscribe({ 'X-Svc-Commit-Lsn': lsn }), ['first', 'sub'], 'replayed: the standby');
  assert.equal(await noteReads(pair.standby.url(DB)), 2);
  assert.equal(await noteReads(pair.primaryUrl(DB)), 2);
  // A malformed token fails the connection's init.
  const ws = await TestSocket.open(e.url, 'graphql-transport-ws');
  ws.send({ type: 'connection_init', payload: { headers: { 'X-Svc-Commit-Lsn': 'soon' } } });
  assert.equal((await ws.closed).code, 4403);
});
