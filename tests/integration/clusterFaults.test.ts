/**
 * Faults under several engines, each recovering without a restart, nothing committed lost, and a
 * log line naming what happened:
 * - Postgres restarted (`pg_ctl restart -m fast` of a server of our own) under two engines that reach
 *   it through PgBouncer in transaction mode and LISTEN on a direct connection, and one engine
 *   connected to it directly;
 * - an engine SIGKILLed in the middle of a metadata change: the change never happened, the other
 *   engine changes metadata at once afterwards, and logs the silent engine once its heartbeat is stale.
 * (PgBouncer restarted under two engines: pgbouncer.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { spawnEngine } from '../support/engineProcess.js';
import { eventually } from '../support/eventReceiver.js';
import { startPgbouncer, type Pgbouncer } from '../support/pgbouncer.js';
import { startSystemPostgres, type SystemPostgres } from '../support/systemPostgres.js';
import { createTestDatabase, startTestEngine, type TestEngine, type TestEngineOptions } from './harness.js';

interface LogLine {
  level: number;
  type?: string;
  msg: string;
}

/** An engine whose log lines (info and above) are kept. */
async function loggedEngine(opts: TestEngineOptions): Promise<TestEngine & { lines: LogLine[] }> {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) });
  const e = await startTestEngine({ ...opts, startOptions: { ...opts.startOptions, logger } });
  return Object.assign(e, { lines });
}
const WARN = 40;
const problems = (lines: LogLine[]) => lines.filter((l) => l.level >= WARN).map((l) => `${l.type}: ${l.msg}`);
const hasData = (r: { body: any }) => r.body?.data !== undefined && r.body.errors === undefined;

let server: SystemPostgres;
let bouncer: Pgbouncer;
before(async () => {
  server = await startSystemPostgres();
  bouncer = await startPgbouncer({ serverUrl: server.url, poolMode: 'transaction', poolSize: 20 });
});
after(async () => {
  await bouncer?.stop();
  server?.stop();
});

test('Postgres restarted under three engines (two through PgBouncer, one direct): all answer again, nothing committed lost, one line each', { timeout: 90_000 }, async (t) => {
  const opts = { databaseUrl: bouncer.url('postgres'), listenDatabaseUrl: server.url, usePreparedStatements: false, schemaSyncIntervalMs: 200, instanceHeartbeatTimeoutSeconds: 2 };
  const a = await loggedEngine(opts);
  const b = await loggedEngine(opts);
  // And one straight on Postgres: its pooled connections die with the restart.
  const c = await loggedEngine({ databaseUrl: server.url, schemaSyncIntervalMs: 200, instanceHeartbeatTimeoutSeconds: 2 });
  t.after(async () => {
    for (const e of [a, b, c]) await e.stop();
  });
  await a.runSql(`CREATE TABLE fault_note (id serial PRIMARY KEY, body text NOT NULL)`);
  assert.equal((await a.query({ type: 'track_table', args: { table: 'fault_note' } })).status, 200);
  for (const e of [b, c]) await eventually(() => e.graphql('{ fault_note { id } }'), hasData, 10_000, 'fault_note on B and C');
  const ins = await b.graphql('mutation { insert_fault_note(objects: [{body: "x"}, {body: "y"}]) { affected_rows } }');
  assert.deepEqual(ins.body, { data: { insert_fault_note: { affected_rows: 2 } } });
  assert.deepEqual([problems(a.lines), problems(b.lines), problems(c.lines)], [[], [], []]);

  server.restart();
  for (const e of [a, b, c]) {
    const r = await eventually(() => e.graphql('{ fault_note(order_by: {id: asc}) { body } }').catch(() => ({ body: undefined })), hasData, 20_000, 'answers again');
    assert.deepEqual(r.body, { data: { fault_note: [{ body: 'x' }, { body: 'y' }] } });
  }
  // Metadata changes flow both ways again (the listener reconnected; the poll works).
  assert.equal((await a.query({ type: 'create_select_permission', args: { table: 'fault_note', role: 'user', permission: { columns: ['body'], filter: {} } } })).status, 200);
  for (const e of [b, c]) await eventually(() => e.graphql('{ fault_note { body } }', undefined, { 'x-svc-role': 'user' }), hasData, 10_000, 'the permission on B and C');
  const more = await c.graphql('mutation { insert_fault_note(objects: [{body: "z"}]) { affected_rows } }');
  assert.deepEqual(more.body, { data: { insert_fault_note: { affected_rows: 1 } } });

  for (const e of [a, b, c]) {
    const lines = problems(e.lines);
    t.diagnostic(JSON.stringify(lines));
    // One warning naming the lost LISTEN connection (the workers' listeners on the same URL stay quiet),
    // and no warning repeated while Postgres was away.
    assert.equal(lines.filter((l) => l.startsWith('schema-sync: LISTEN connection to Postgres lost')).length, 1, JSON.stringify(lines));
    assert.equal(new Set(lines.map((l) => l.replace(/\d+ ms/, 'N ms'))).size, lines.length, JSON.stringify(lines));
    await eventually(() => e.lines.some((l) => l.msg === 'LISTEN connection to Postgres restored'), (v) => v, 10_000, 'the restored line');
  }
});

test('an engine SIGKILLed during a metadata change: the change never happened, the other engine goes on and logs it once', { timeout: 120_000 }, async (t) => {
  const db = await createTestDatabase('faultkill');
  const b = await loggedEngine({ databaseUrl: db.url, instanceHeartbeatTimeoutSeconds: 2 });
  const engineA = await spawnEngine(db.url, ['--instance-heartbeat-timeout', '2']);
  const child = engineA.child;
  t.after(async () => {
    engineA.stop();
    await b.stop();
    await db.drop();
  });
  const q = engineA.query;
  // Committed before the kill: a tracked table with rows.
  assert.equal((await q({ type: 'bulk', args: [
    { type: 'run_sql', args: { sql: `CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept VALUES (1), (2)` } },
    { type: 'track_table', args: { table: 'kept' } },
  ] })).status, 200);

  // The change in flight: a table created, then a long statement, then its tracking — one transaction.
  const inFlight = q({ type: 'bulk', args: [
    { type: 'run_sql', args: { sql: `CREATE TABLE half (id int PRIMARY KEY); SELECT pg_sleep(3)` } },
    { type: 'track_table', args: { table: 'half' } },
  ] }).then(() => 'answered', () => 'cut');
  // Watched on a plain connection (a run_sql through B would wait for the metadata lock A holds).
  const watcher = new pg.Client({ connectionString: db.url });
  await watcher.connect();
  const sleeping = () => watcher.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE '%pg_sleep(3)%' AND pid <> pg_backend_pid()`).then((r) => r.rows[0].n as number);
  await eventually(sleeping, (n) => n === 1, 10_000, 'the change running in Postgres');
  await watcher.end();
  child.kill('SIGKILL');
  assert.equal(await inFlight, 'cut');
  const killedAt = Date.now();

  // The other engine changes metadata as soon as the dead connection's transaction is gone.
  const perm = await b.query({ type: 'create_select_permission', args: { table: 'kept', role: 'user', permission: { columns: ['id'], filter: {} } } });
  assert.equal(perm.status, 200, perm.text);
  assert.deepEqual((await b.graphql('{ kept(order_by: {id: asc}) { id } }', undefined, { 'x-svc-role': 'user' })).body, { data: { kept: [{ id: 1 }, { id: 2 }] } });
  const tables = await b.runSql(`SELECT to_regclass('public.half') IS NULL, (SELECT count(*) FROM hdb_catalog.hdb_metadata WHERE metadata::text LIKE '%"half"%')`);
  assert.deepEqual(tables.result[1], ['t', '0']);
  // Once the killed engine's heartbeat is stale, one line names it.
  const silent = await eventually(() => b.lines.filter((l) => l.type === 'heartbeat' && l.level === WARN), (ls) => ls.length >= 1, 15_000, 'the silent-engine line');
  await new Promise((r) => setTimeout(r, 1500)); // a few more heartbeats: still one line
  const lines = b.lines.filter((l) => l.type === 'heartbeat' && l.level === WARN);
  assert.equal(lines.length, 1, JSON.stringify(lines));
  assert.match(silent[0]!.msg, new RegExp(`pid ${child.pid}\\) has sent no heartbeat for \\d+ s: its deliveries are claimable by the other engines$`));
  t.diagnostic(`${silent[0]!.msg} (${Date.now() - killedAt} ms after the kill)`);
});
