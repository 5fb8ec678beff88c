/**
 * Faults under several engines, each recovering without a restart, nothing committed lost, and a
 * log line naming what happened:
 * - Postgres stopped and started again (`pg_ctl stop -m fast` / `start`, a server of our own), then
 *   PgBouncer (transaction mode), under three engines: one through PgBouncer with a direct LISTEN
 *   URL, one through PgBouncer only, one connected directly. Each engine the fault reaches logs
 *   exactly one line when the database goes away and one when it is back; afterwards a metadata
 *   change reaches every engine, an event is delivered once, a scheduled event fires once;
 * - an engine SIGKILLed in the middle of a metadata change: the change never happened, the other
 *   engine changes metadata at once afterwards, and logs the silent engine once its heartbeat is stale.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pg from 'pg';
import pino from 'pino';
import { spawnEngine } from '../support/engineProcess.js';
import { eventually, startEventReceiver, type EventReceiver } from '../support/eventReceiver.js';
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

/** The fault lines of one outage: the watch's two, and any warning or recovery line of a part. */
const faultLines = (lines: LogLine[]) =>
  lines.filter((l) => l.type === 'database' || l.level >= WARN || /restored|works again/.test(l.msg)).map((l) => `${l.level >= WARN ? 'warn' : 'info'} ${l.type}: ${l.msg}`);
const DOWN = /^warn database: database unreachable at 127\.0\.0\.1:\d+ \(the (database|LISTEN) URL\): .+; the engine keeps retrying/;
const UP = /^info database: database reachable again after \d+\.\d s: 127\.0\.0\.1:\d+ \(the (database|LISTEN) URL\)/;

type Logged = TestEngine & { lines: LogLine[] };

/**
 * Takes the database away (`halt`) until every engine of `hit` logged that, brings it back, waits
 * for every one's line saying so; returns a function giving each engine's log lines since the halt.
 */
async function outage(all: Logged[], hit: Logged[], halt: () => unknown, start: () => unknown): Promise<() => LogLine[][]> {
  const marks = all.map((e) => e.lines.length);
  const since = () => all.map((e, i) => e.lines.slice(marks[i]));
  await halt();
  for (const e of hit) await eventually(() => since()[all.indexOf(e)]!, (ls) => ls.some((l) => /^database unreachable/.test(l.msg)), 20_000, 'the down line');
  await start();
  for (const e of hit) await eventually(() => since()[all.indexOf(e)]!, (ls) => ls.some((l) => /^database reachable again/.test(l.msg)), 30_000, 'the back line');
  return since;
}

/** What a user checks after a fault: a metadata change seen everywhere, an event delivered once, a scheduled event fired once. */
async function worksAgain(all: Logged[], rx: EventReceiver, tag: string): Promise<void> {
  const [a, b, c] = all as [Logged, Logged, Logged];
  const perm = await a.query({ type: 'create_select_permission', args: { table: 'fault_note', role: `after_${tag}`, permission: { columns: ['body'], filter: {} } } });
  assert.equal(perm.status, 200, perm.text);
  for (const e of all) await eventually(() => e.graphql('{ fault_note { body } }', undefined, { 'x-svc-role': `after_${tag}` }), hasData, 15_000, `the permission on every engine`);
  const ins = await c.graphql(`mutation { insert_fault_note(objects: [{body: "${tag}"}]) { affected_rows } }`);
  assert.deepEqual(ins.body, { data: { insert_fault_note: { affected_rows: 1 } } });
  const sched = await b.query({ type: 'create_scheduled_event', args: { webhook: `${rx.url}/at-${tag}`, schedule_at: new Date(Date.now() + 1000).toISOString() } });
  assert.equal(sched.status, 200, sched.text);
  const eventDone = async () => (await a.runSql(`SELECT count(*) FILTER (WHERE delivered), max(tries) FROM hdb_catalog.event_log WHERE payload->'data'->'new'->>'body' = '${tag}'`)).result[1];
  assert.deepEqual(await eventually(eventDone, (r) => r[0] === '1', 20_000, 'the event delivered'), ['1', '1']);
  assert.equal(rx.deliveries.filter((d) => d.path === '/note' && d.body.event.data.new.body === tag).length, 1);
  const schedDone = async () => (await a.runSql(`SELECT status, tries FROM hdb_catalog.hdb_scheduled_events WHERE webhook_conf::text LIKE '%at-${tag}%'`)).result.slice(1);
  assert.deepEqual(await eventually(schedDone, (r) => r[0]?.[0] === 'delivered', 20_000, 'the scheduled event delivered'), [['delivered', '1']]);
  assert.equal(rx.deliveries.filter((d) => d.path === `/at-${tag}`).length, 1);
}

test('Postgres stopped and started with pg_ctl, then PgBouncer: each engine (through PgBouncer with a direct LISTEN URL, through PgBouncer only, direct) logs one line down and one back, and everything works after', { timeout: 180_000 }, async (t) => {
  const rx = await startEventReceiver();
  t.after(() => rx.stop());
  const quick = { usePreparedStatements: false, schemaSyncIntervalMs: 200, instanceHeartbeatTimeoutSeconds: 4, eventsFetchIntervalMs: 200 };
  const a = await loggedEngine({ ...quick, databaseUrl: bouncer.url('postgres'), listenDatabaseUrl: server.url });
  const b = await loggedEngine({ ...quick, databaseUrl: bouncer.url('postgres') });
  const c = await loggedEngine({ ...quick, databaseUrl: server.url, usePreparedStatements: true });
  const all = [a, b, c];
  t.after(async () => {
    for (const e of all) await e.stop();
  });
  await a.runSql(`CREATE TABLE fault_note (id serial PRIMARY KEY, body text NOT NULL)`);
  assert.equal((await a.query({ type: 'track_table', args: { table: 'fault_note' } })).status, 200);
  const trigger = await a.query({ type: 'create_event_trigger', args: { name: 'note_ins', table: 'fault_note', insert: { columns: '*' }, webhook: `${rx.url}/note` } });
  assert.equal(trigger.status, 200, trigger.text);
  for (const e of [b, c]) await eventually(() => e.graphql('{ fault_note { id } }'), hasData, 10_000, 'fault_note on B and C');
  const ins = await b.graphql('mutation { insert_fault_note(objects: [{body: "x"}, {body: "y"}]) { affected_rows } }');
  assert.deepEqual(ins.body, { data: { insert_fault_note: { affected_rows: 2 } } });
  assert.deepEqual(all.map((e) => faultLines(e.lines)), [[], [], []]);

  // Postgres away: every engine notices (a and c through their connections, b through its stalled heartbeat).
  const pgLines = await outage(all, all, () => server.halt(), () => server.start());
  for (const e of all) {
    const r = await eventually(() => e.graphql('{ fault_note(order_by: {id: asc}) { body } }').catch(() => ({ body: undefined })), hasData, 20_000, 'answers again');
    assert.deepEqual(r.body, { data: { fault_note: [{ body: 'x' }, { body: 'y' }] } });
  }
  await worksAgain(all, rx, 'pg');
  for (const [i, lines] of pgLines().entries()) {
    const seen = faultLines(lines);
    t.diagnostic(`${'abc'[i]}: ${JSON.stringify(seen)}`);
    assert.equal(seen.length, 2, JSON.stringify(seen));
    assert.match(seen[0]!, DOWN);
    assert.match(seen[1]!, UP);
  }

  // PgBouncer away: a and b notice; c (direct) sees nothing.
  const bouncerLines = await outage(all, [a, b], () => bouncer.halt(), () => bouncer.start());
  await worksAgain(all, rx, 'bouncer');
  const [la, lb, lc] = bouncerLines().map(faultLines);
  t.diagnostic(JSON.stringify([la, lb, lc]));
  for (const seen of [la!, lb!]) {
    assert.equal(seen.length, 2, JSON.stringify(seen));
    assert.match(seen[0]!, DOWN);
    assert.match(seen[0]!, new RegExp(`:${bouncer.port} \\(the database URL\\)`));
    assert.match(seen[1]!, UP);
  }
  assert.deepEqual(lc, []);
  // Nothing committed was lost: every row is there, each event delivered once.
  assert.deepEqual((await c.graphql('{ fault_note(order_by: {id: asc}) { body } }')).body, { data: { fault_note: ['x', 'y', 'pg', 'bouncer'].map((body) => ({ body })) } });
  assert.deepEqual(rx.deliveries.filter((d) => d.path === '/note').map((d) => d.body.event.data.new.body).sort(), ['bouncer', 'pg', 'x', 'y']);
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
