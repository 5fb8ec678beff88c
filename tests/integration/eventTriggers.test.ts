/**
 * Event triggers end to end, with a real webhook server on 127.0.0.1 and a real Postgres: capture
 * from every kind of writer (GraphQL mutation, v1 DML, run_sql, another client), nothing from a
 * rolled-back write, the delivered request, retries / Retry-After / invocation logs / redeliver,
 * the metadata life cycle (export, replace, cascade, untrack, inconsistent env), and at-least-once
 * across instances: two engines deliver each event once, a SIGKILLed engine's claims are delivered
 * by another engine after the lease.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { createTestDatabase, startTestEngine, type TestEngine } from './harness.js';
import { spawnEngine } from '../support/engineProcess.js';
import { eventually, startEventReceiver, type EventReceiver } from '../support/eventReceiver.js';

const TABLE = `CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL, n int NOT NULL DEFAULT 0 CHECK (n >= 0))`;

async function setupItem(e: TestEngine, trigger: Record<string, unknown>): Promise<void> {
  await e.runSql(TABLE);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'item' } },
      { type: 'create_event_trigger', args: { name: 'item_all', table: { schema: 'public', name: 'item' }, insert: { columns: '*' }, update: { columns: '*' }, delete: { columns: '*' }, ...trigger } },
    ],
  });
  assert.equal(r.status, 200, r.text);
}

async function sqlRows(e: TestEngine, text: string): Promise<string[][]> {
  const r = await e.query({ type: 'run_sql', args: { sql: text } });
  assert.equal(r.status, 200, r.text);
  return r.body.result.slice(1);
}

const ops = (rx: EventReceiver) => rx.deliveries.map((d) => d.body.event.op as string);

test('every committed write is captured and delivered, rolled-back writes are not; the request is Hasura\'s', { timeout: 60_000 }, async (t) => {
  const rx = await startEventReceiver();
  // A poll interval of a minute: deliveries below must come from the post-commit wake-up.
  const e = await startTestEngine({ eventsFetchIntervalMs: 60_000 });
  t.after(async () => {
    await e.stop();
    await rx.stop();
  });
  await setupItem(e, { webhook: rx.url + '/hook', headers: [{ name: 'X-From-Value', value: 'v1' }] });

  const t0 = Date.now();
  const ins = await e.graphql('mutation { insert_item(objects: [{name: "a", n: 1}]) { affected_rows } }', {}, { 'x-svc-role': 'admin', 'x-svc-user-id': '42' });
  assert.equal(ins.body.data?.insert_item?.affected_rows, 1, ins.text);
  await eventually(() => rx.deliveries.length, (n) => n >= 1, 5000, 'INSERT delivery');
  assert.ok(Date.now() - t0 < 5000, 'delivered without waiting for the poll');
  const d = rx.deliveries[0]!;
  assert.equal(d.path, '/hook');
  assert.match(String(d.headers['content-type']), /^application\/json/);
  assert.match(String(d.headers['user-agent']), /^svc-graphql-engine\//);
  assert.equal(d.headers['x-from-value'], 'v1');
  assert.deepEqual(Object.keys(d.body).sort(), ['created_at', 'delivery_info', 'event', 'id', 'table', 'trigger']);
  assert.match(d.body.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  assert.match(d.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
  assert.deepEqual(d.body.table, { schema: 'public', name: 'item' });
  assert.deepEqual(d.body.trigger, { name: 'item_all' });
  assert.deepEqual(d.body.delivery_info, { current_retry: 0, max_retries: 0 });
  assert.deepEqual(d.body.event, { op: 'INSERT', data: { old: null, new: { id: 1, name: 'a', n: 1 } }, session_variables: { 'x-svc-role': 'admin', 'x-svc-user-id': '42' } });

  // A mutation that fails half-way (second row violates the CHECK) commits nothing, so no event.
  const bad = await e.graphql('mutation { insert_item(objects: [{name: "b", n: 1}, {name: "c", n: -1}]) { affected_rows } }');
  assert.ok(bad.body.errors, bad.text);
  // v1 DML update and run_sql delete are captured too; an update that changes nothing is not.
  assert.equal((await e.query({ type: 'update', args: { table: 'item', where: { id: 1 }, $set: { name: 'a' } } })).status, 200);
  assert.equal((await e.query({ type: 'update', args: { table: 'item', where: { id: 1 }, $set: { n: 2 } } })).status, 200);
  await e.runSql('DELETE FROM item WHERE id = 1');
  await eventually(() => rx.deliveries.length, (n) => n >= 3, 5000, 'UPDATE and DELETE deliveries');
  assert.deepEqual(ops(rx), ['INSERT', 'UPDATE', 'DELETE']);
  assert.deepEqual(rx.deliveries[1]!.body.event.data, { old: { id: 1, name: 'a', n: 1 }, new: { id: 1, name: 'a', n: 2 } });
  assert.deepEqual(rx.deliveries[2]!.body.event.data, { old: { id: 1, name: 'a', n: 2 }, new: null });
  assert.deepEqual(await sqlRows(e, 'SELECT count(*), count(*) FILTER (WHERE delivered AND tries = 1) FROM hdb_catalog.event_log'), [['3', '3']]);
});

test('writes of other database clients are captured (session variables null) and found by the poll', { timeout: 60_000 }, async (t) => {
  const rx = await startEventReceiver();
  const e = await startTestEngine({ eventsFetchIntervalMs: 200 });
  t.after(async () => {
    await e.stop();
    await rx.stop();
  });
  await setupItem(e, { webhook: rx.url });
  const c = new pg.Client({ connectionString: e.databaseUrl });
  await c.connect();
  try {
    await c.query("INSERT INTO item (name) VALUES ('x')");
    await c.query('BEGIN');
    await c.query("INSERT INTO item (name) VALUES ('rolled back')");
    await c.query('ROLLBACK');
  } finally {
    await c.end();
  }
  await eventually(() => rx.deliveries.length, (n) => n >= 1, 8000, 'delivery of an outside write');
  assert.deepEqual(rx.deliveries[0]!.body.event, { op: 'INSERT', data: { old: null, new: { id: 1, name: 'x', n: 0 } }, session_variables: null });
  await new Promise((r) => setTimeout(r, 600)); // three more polls: the rolled-back row must not show up
  assert.equal(rx.deliveries.length, 1);
});

test('a NOTIFY on svc_events (another instance\'s wake-up) makes the worker claim at once', { timeout: 60_000 }, async (t) => {
  const rx = await startEventReceiver();
  const e = await startTestEngine({ eventsFetchIntervalMs: 60_000 });
  t.after(async () => {
    await e.stop();
    await rx.stop();
  });
  await setupItem(e, { webhook: rx.url });
  const c = new pg.Client({ connectionString: e.databaseUrl });
  await c.connect();
  try {
    await c.query("INSERT INTO item (name) VALUES ('outside')");
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rx.deliveries.length, 0, 'an outside write waits for the (60 s) poll');
    await c.query("SELECT pg_notify('svc_events', 'another-instance')");
  } finally {
    await c.end();
  }
  await eventually(() => rx.deliveries.length, (n) => n === 1, 5000, 'delivery after NOTIFY');
});

test('retries, Retry-After, capped invocation logs, env headers kept secret, redeliver_event', { timeout: 60_000 }, async (t) => {
  process.env.SVC_TEST_EVENT_SECRET = 's3cr3t';
  const big = 'x'.repeat(200_000);
  let calls = 0;
  const rx = await startEventReceiver(() => (++calls === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 500, body: big }));
  const e = await startTestEngine({ eventsFetchIntervalMs: 100 });
  t.after(async () => {
    delete process.env.SVC_TEST_EVENT_SECRET;
    await e.stop();
    await rx.stop();
  });
  await setupItem(e, {
    webhook: rx.url,
    retry_conf: { num_retries: 2, interval_sec: 1, timeout_sec: 5 },
    headers: [{ name: 'X-Secret', value_from_env: 'SVC_TEST_EVENT_SECRET' }],
  });
  await e.runSql("INSERT INTO item (name) VALUES ('r')");
  // try 1: 503 + Retry-After 1 s → try 2: 500 → (interval 1 s) try 3: 500, 2 retries used → error.
  await eventually(() => sqlRows(e, 'SELECT delivered, error, tries FROM hdb_catalog.event_log'), (r) => r[0]?.[1] === 't', 15_000, 'event marked error');
  assert.deepEqual(await sqlRows(e, 'SELECT delivered, error, tries FROM hdb_catalog.event_log'), [['f', 't', '3']]);
  assert.deepEqual(rx.deliveries.map((d) => d.body.delivery_info.current_retry), [0, 1, 2]);
  assert.ok(rx.deliveries.every((d) => d.headers['x-secret'] === 's3cr3t'));
  assert.ok(rx.deliveries[1]!.at - rx.deliveries[0]!.at >= 900, 'Retry-After waited for');
  const logs = await sqlRows(e, "SELECT status, length(response->'data'->>'body'), request::text FROM hdb_catalog.event_invocation_logs ORDER BY created_at");
  assert.deepEqual(logs.map((l) => l[0]), ['503', '500', '500']);
  assert.ok(Number(logs[1]![1]) <= 64 * 1024 && Number(logs[1]![1]) > 0, `body capped: ${logs[1]![1]}`);
  assert.ok(logs.every((l) => !l[2]!.includes('s3cr3t')), 'env header value not in the invocation log');
  const exported = await e.query({ type: 'export_metadata', args: {} });
  assert.ok(!exported.text.includes('s3cr3t'));
  assert.deepEqual(exported.body.tables[0].event_triggers[0].headers, [{ name: 'X-Secret', value_from_env: 'SVC_TEST_EVENT_SECRET' }]);

  rx.setReply(() => ({ status: 200 }));
  const id = rx.deliveries[0]!.body.id;
  const redeliver = await e.query({ type: 'redeliver_event', args: { event_id: id } });
  assert.deepEqual(redeliver.body, { message: 'success' });
  await eventually(() => rx.deliveries.length, (n) => n === 4, 5000, 'redelivery');
  assert.equal(rx.deliveries[3]!.body.delivery_info.current_retry, 0);
  await eventually(() => sqlRows(e, 'SELECT delivered, error, tries FROM hdb_catalog.event_log'), (r) => r[0]?.[0] === 't', 5000, 'delivered after redeliver');
  const missing = await e.query({ type: 'redeliver_event', args: { event_id: 'nope' } });
  assert.equal(missing.status, 400);
  assert.deepEqual([missing.body.code, missing.body.error], ['not-exists', 'event not found']);
  // An event a delivery holds (locked within 30 minutes) is refused, as Hasura's checkEvent.
  await e.runSql(`UPDATE hdb_catalog.event_log SET locked_at = now(), locked_by = 'elsewhere' WHERE id = '${id}'`);
  const busy = await e.query({ type: 'redeliver_event', args: { event_id: id } });
  assert.deepEqual([busy.status, busy.body.code, busy.body.error], [400, 'busy', 'event is already being processed']);
  assert.deepEqual(await sqlRows(e, `SELECT locked_by FROM hdb_catalog.event_log WHERE id = '${id}'`), [['elsewhere']], 'the lease is untouched');
});

test('invoke_event_trigger creates a MANUAL event only when enable_manual', { timeout: 60_000 }, async (t) => {
  const rx = await startEventReceiver();
  const e = await startTestEngine();
  t.after(async () => {
    await e.stop();
    await rx.stop();
  });
  await setupItem(e, { webhook: rx.url, enable_manual: true });
  const r = await e.query({ type: 'invoke_event_trigger', args: { name: 'item_all', payload: { k: 'v' } } });
  assert.equal(r.status, 200, r.text);
  await eventually(() => rx.deliveries.length, (n) => n === 1, 5000, 'manual delivery');
  assert.equal(rx.deliveries[0]!.body.id, r.body.event_id);
  // Hasura v1.3 stores the payload as the event's data, as given.
  assert.deepEqual(rx.deliveries[0]!.body.event, { op: 'MANUAL', data: { k: 'v' }, session_variables: { 'x-svc-role': 'admin' } });
  const off = await e.query({ type: 'create_event_trigger', args: { name: 'item_all', table: 'item', insert: { columns: '*' }, webhook: rx.url, replace: true } });
  assert.equal(off.status, 200, off.text);
  const refused = await e.query({ type: 'invoke_event_trigger', args: { name: 'item_all', payload: {} } });
  assert.deepEqual([refused.status, refused.body.code], [400, 'not-supported']);
});

test('metadata: export, replace, bad arguments, column dependencies, inconsistent env, untrack', { timeout: 90_000 }, async (t) => {
  process.env.SVC_TEST_EVENT_HOOK = 'http://127.0.0.1:9/h';
  const rx = await startEventReceiver();
  const e = await startTestEngine();
  t.after(async () => {
    delete process.env.SVC_TEST_EVENT_HOOK;
    await e.stop();
    await rx.stop();
  });
  await setupItem(e, { webhook: rx.url, update: { columns: ['n'], payload: ['id', 'n'] } });
  const exported = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.deepEqual(exported.tables[0].event_triggers, [
    {
      name: 'item_all',
      definition: { enable_manual: false, insert: { columns: '*' }, update: { columns: ['n'], payload: ['id', 'n'] }, delete: { columns: '*' } },
      retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
      webhook: rx.url,
    },
  ]);
  const before = (await e.query({ type: 'export_metadata', args: {} })).text;
  const bad: Array<[Record<string, unknown>, string]> = [
    [{ name: 'x y', table: 'item', insert: { columns: '*' }, webhook: rx.url }, 'parse-failed'],
    [{ name: 'x', table: 'item', insert: { columns: '*' }, webhook: rx.url, webhook_from_env: 'A' }, 'parse-failed'],
    [{ name: 'x', table: 'item', insert: { columns: '*' }, webhook: rx.url, headers: [{ name: 'h', value_from_env: 'SVC_GRAPHQL_ADMIN_SECRET' }] }, 'parse-failed'],
    [{ name: 'x', table: 'item', update: { columns: ['nope'] }, webhook: rx.url }, 'constraint-violation'],
    [{ name: 'x', table: 'nope', insert: { columns: '*' }, webhook: rx.url }, 'not-exists'],
    [{ name: 'item_all', table: 'item', insert: { columns: '*' }, webhook: rx.url }, 'already-exists'],
    [{ name: 'x', table: 'item', insert: { columns: '*' }, webhook_from_env: 'SVC_TEST_UNSET_VAR' }, 'constraint-violation'],
  ];
  for (const [args, code] of bad) {
    const r = await e.query({ type: 'create_event_trigger', args });
    assert.equal(r.status, 400, JSON.stringify(args));
    assert.equal(r.body.code, code, r.text);
    assert.equal(typeof r.body.path, 'string');
  }
  assert.equal((await e.query({ type: 'export_metadata', args: {} })).text, before, 'failed ops changed nothing');

  // Event triggers are for tables only.
  await e.runSql('CREATE VIEW item_view AS SELECT * FROM item');
  assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'item_view' } })).status, 200);
  const onView = await e.query({ type: 'create_event_trigger', args: { name: 'v', table: 'item_view', insert: { columns: '*' }, webhook: rx.url } });
  assert.deepEqual([onView.status, onView.body.code], [400, 'not-supported'], onView.text);
  assert.equal((await e.query({ type: 'untrack_table', args: { table: 'item_view' } })).status, 200);
  await e.runSql('DROP VIEW item_view');

  // A renamed column is followed: the trigger listens on the new name.
  await e.runSql('ALTER TABLE item RENAME COLUMN n TO m');
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body.tables[0].event_triggers[0].definition.update, { columns: ['m'], payload: ['id', 'm'] });
  await e.runSql("INSERT INTO item (name) VALUES ('renamed'); UPDATE item SET m = 5");
  await eventually(() => rx.deliveries.length, (n) => n === 2, 5000, 'deliveries after the column rename');
  assert.deepEqual(rx.deliveries[1]!.body.event.data, { old: { id: 1, m: 0 }, new: { id: 1, m: 5 } });
  await e.runSql('ALTER TABLE item RENAME COLUMN m TO n; TRUNCATE item RESTART IDENTITY');
  rx.deliveries.length = 0;

  // A listened column cannot be dropped; another can. With cascade the trigger goes.
  const dep = await e.query({ type: 'run_sql', args: { sql: 'ALTER TABLE item DROP COLUMN n' } });
  assert.deepEqual([dep.status, dep.body.code], [400, 'dependency-error'], dep.text);
  assert.match(dep.body.error, /event-trigger item\.item_all/);
  const casc = await e.query({ type: 'run_sql', args: { sql: 'ALTER TABLE item DROP COLUMN n', cascade: true } });
  assert.equal(casc.status, 200, casc.text);
  assert.equal((await e.query({ type: 'export_metadata', args: {} })).body.tables[0].event_triggers, undefined);
  assert.deepEqual(await sqlRows(e, "SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'notify_svc_%'"), [['0']]);

  // replace_metadata restores triggers (capture included).
  await e.runSql('ALTER TABLE item ADD COLUMN n int NOT NULL DEFAULT 0');
  assert.equal((await e.query({ type: 'replace_metadata', args: exported })).status, 200);
  await e.runSql("INSERT INTO item (name) VALUES ('after replace')");
  await eventually(() => rx.deliveries.length, (n) => n === 1, 5000, 'delivery after replace_metadata');

  // A trigger whose env variable disappears is reported inconsistent; capture goes on.
  const env = await e.query({ type: 'create_event_trigger', args: { name: 'envy', table: 'item', insert: { columns: '*' }, webhook_from_env: 'SVC_TEST_EVENT_HOOK' } });
  assert.equal(env.status, 200, env.text);
  delete process.env.SVC_TEST_EVENT_HOOK;
  assert.equal((await e.query({ type: 'reload_metadata', args: {} })).status, 200);
  const inc = (await e.query({ type: 'get_inconsistent_metadata', args: {} })).body;
  assert.equal(inc.is_consistent, false);
  assert.deepEqual(inc.inconsistent_objects.map((o: any) => o.type), ['event_trigger']);
  await e.runSql("INSERT INTO item (name) VALUES ('captured anyway')");
  assert.deepEqual(await sqlRows(e, "SELECT count(*) FROM hdb_catalog.event_log WHERE trigger_name = 'envy'"), [['1']]);

  // untrack_table removes the table's triggers and, with the last one, the event tables.
  assert.equal((await e.query({ type: 'untrack_table', args: { table: 'item' } })).status, 200);
  assert.deepEqual(await sqlRows(e, "SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'notify_svc_%'"), [['0']]);
  assert.deepEqual(await sqlRows(e, "SELECT to_regclass('hdb_catalog.event_log') IS NULL"), [['t']]);
});

test('two engines on one database deliver every event exactly once', { timeout: 90_000 }, async (t) => {
  const rx = await startEventReceiver();
  const db = await createTestDatabase('events2');
  const a = await startTestEngine({ databaseUrl: db.url, eventsFetchIntervalMs: 100 });
  const b = await startTestEngine({ databaseUrl: db.url, eventsFetchIntervalMs: 100 });
  t.after(async () => {
    await a.stop();
    await b.stop();
    await rx.stop();
    await db.drop();
  });
  await setupItem(a, { webhook: rx.url });
  await eventually(async () => (await b.graphql('{ item { id } }')).body.data, (d) => d !== undefined, 8000, 'engine B sees the table');
  const N = 400;
  await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      (i % 2 ? a : b).query({ type: 'insert', args: { table: 'item', objects: Array.from({ length: N / 8 }, (_, j) => ({ name: `r${i}-${j}` })) } }),
    ),
  );
  await eventually(() => new Set(rx.deliveries.map((d) => d.body.id)).size, (n) => n === N, 30_000, 'all events delivered');
  await new Promise((r) => setTimeout(r, 500)); // a few more polls of both engines
  const ids = rx.deliveries.map((d) => d.body.id);
  assert.equal(ids.length, N, `duplicates: ${ids.length - new Set(ids).size}`);
  assert.deepEqual(await sqlRows(a, 'SELECT count(*) FILTER (WHERE delivered AND tries = 1) FROM hdb_catalog.event_log'), [[String(N)]]);
});

test('events claimed by a SIGKILLed engine are delivered by another engine once its heartbeat is stale', { timeout: 120_000 }, async (t) => {
  const rx = await startEventReceiver(() => ({ status: 200, hold: true }));
  const db = await createTestDatabase('eventskill');
  const engineA = await spawnEngine(db.url, ['--instance-heartbeat-timeout', '2', '--events-fetch-interval', '100']);
  const child = engineA.child;
  let b: TestEngine | undefined;
  t.after(async () => {
    engineA.stop();
    await b?.stop();
    await rx.stop();
    await db.drop();
  });
  const q = (body: unknown) => engineA.query(body).then((r) => r.json() as Promise<any>);
  await q({ type: 'run_sql', args: { sql: TABLE } });
  await q({ type: 'track_table', args: { schema: 'public', name: 'item' } });
  await q({ type: 'create_event_trigger', args: { name: 'item_all', table: 'item', insert: { columns: '*' }, webhook: rx.url, retry_conf: { timeout_sec: 3 } } });
  await q({ type: 'insert', args: { table: 'item', objects: Array.from({ length: 20 }, (_, i) => ({ name: `k${i}` })) } });
  await eventually(() => rx.deliveries.length, (n) => n === 20, 20_000, 'the first engine has all 20 in flight');
  child.kill('SIGKILL');
  const killedAt = Date.now();
  const held = new Set(rx.deliveries.map((d) => d.body.id));
  rx.setReply(() => ({ status: 200 }));
  b = await startTestEngine({ databaseUrl: db.url, eventsFetchIntervalMs: 100, instanceHeartbeatTimeoutSeconds: 2 });
  await eventually(() => rx.deliveries.length, (n) => n >= 40, 30_000, 'redelivery after the heartbeat timeout');
  const again = rx.deliveries.slice(20);
  assert.deepEqual(new Set(again.map((d) => d.body.id)), held);
  // Timeout 2 s, beats every 500 ms: nothing was taken over while the last heartbeat was fresh.
  assert.ok(again[0]!.at - killedAt >= 1000, `taken over ${again[0]!.at - killedAt} ms after the kill`);
  assert.deepEqual(await sqlRows(b, 'SELECT count(*) FILTER (WHERE delivered) FROM hdb_catalog.event_log'), [['20']]);
});
