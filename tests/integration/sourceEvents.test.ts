/**
 * Event triggers on a source beside `default`, against a PG 15 cluster started here: the capture
 * triggers, `hdb_catalog.event_log` and `event_invocation_logs` live in that source's database (none
 * in the engine's own), inserts / updates / deletes by any client are delivered to a real webhook
 * receiver, retries and invocation logs, pg_redeliver_event / pg_invoke_event_trigger with `source`,
 * the version-3 export / replace round trip and the CLI's project folder, pg_delete_event_trigger and pg_drop_source leaving the
 * database clean; two engines deliver each event once; a SIGKILLed engine's claims are delivered by
 * another; the source's cluster stopped stops only its queue, and it resumes without a restart.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSystemPostgres, type SystemPostgres } from '../support/systemPostgres.js';
import { sqlOn } from '../support/standbyPostgres.js';
import { spawnEngine } from '../support/engineProcess.js';
import { eventually, startEventReceiver, type EventReceiver } from '../support/eventReceiver.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliAgainst, dirContents } from '../support/cliInProcess.js';
import { createTestDatabase, startTestEngine, type TestEngine } from './harness.js';

let cluster: SystemPostgres;
let n = 0;

before(async () => {
  cluster = await startSystemPostgres();
});

after(() => {
  cluster?.stop();
});

/** A fresh database on the second cluster with an `item` table. */
async function sourceDatabase(): Promise<string> {
  const name = `src_events_${++n}`;
  await sqlOn(cluster.url, `CREATE DATABASE ${name}`);
  const url = cluster.url.replace(/\/postgres$/, `/${name}`);
  await sqlOn(url, 'CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL, n int NOT NULL DEFAULT 0)');
  return url;
}

const metadataOn = (e: { request: TestEngine['request'] }) => (body: unknown) => e.request('POST', '/v1/metadata', body);

/** `store` added as a source with `item` tracked, and trigger `item_all` on it (all operations, manual too). */
async function setupSource(post: (body: unknown) => Promise<{ status: number; text: string; body: any }>, url: string, webhook: string, extra: Record<string, unknown> = {}): Promise<void> {
  const add = await post({ type: 'pg_add_source', args: { name: 'store', configuration: { connection_info: { database_url: url, pool_settings: { max_connections: 5 } } } } });
  assert.equal(add.status, 200, add.text);
  const exported = (await post({ type: 'export_metadata', version: 2, args: {} })).body;
  exported.sources[1].tables = [{ table: { schema: 'public', name: 'item' } }];
  const replaced = await post({ type: 'replace_metadata', version: 2, args: { metadata: exported } });
  assert.equal(replaced.status, 200, replaced.text);
  const created = await post({
    type: 'pg_create_event_trigger',
    args: {
      source: 'store', name: 'item_all', table: { schema: 'public', name: 'item' }, webhook,
      insert: { columns: '*' }, update: { columns: '*' }, delete: { columns: '*' }, enable_manual: true, ...extra,
    },
  });
  assert.equal(created.status, 200, created.text);
}

const regclass = async (url: string, name: string) => (await sqlOn(url, `SELECT to_regclass('${name}') IS NOT NULL AS present`))[0].present as boolean;

test('an event trigger on another source: captured in its database, delivered, retried, redelivered, exported, removed', { timeout: 90_000 }, async (t) => {
  const url = await sourceDatabase();
  let failFirst = true;
  const rx = await startEventReceiver((d) => {
    if (d.body?.event?.data?.new?.name === 'flaky' && failFirst) {
      failFirst = false;
      return { status: 500, body: 'try again' };
    }
    return { status: 200, body: '{"ok":true}' };
  });
  // Polls every 500 ms (retries come due between wake-ups).
  const e = await startTestEngine({ eventsFetchIntervalMs: 500 });
  t.after(async () => {
    await e.stop();
    await rx.stop();
  });
  const post = metadataOn(e);
  await setupSource(post, url, rx.url + '/hook', { retry_conf: { num_retries: 2, interval_sec: 1, timeout_sec: 10 } });

  // The event tables and capture functions are in the source's database, not in the engine's.
  assert.equal(await regclass(url, 'hdb_catalog.event_log'), true);
  assert.equal(await regclass(url, 'hdb_catalog.event_invocation_logs'), true);
  assert.equal(await regclass(url, 'hdb_catalog.event_triggers'), false, 'no trigger table in a source (as Hasura v2)');
  assert.deepEqual(await sqlOn(url, "SELECT tgname FROM pg_trigger WHERE tgname LIKE 'notify_svc_%' ORDER BY 1"), [
    { tgname: 'notify_svc_item_all_DELETE' }, { tgname: 'notify_svc_item_all_INSERT' }, { tgname: 'notify_svc_item_all_UPDATE' },
  ]);
  assert.deepEqual((await e.query({ type: 'run_sql', args: { sql: "SELECT to_regclass('hdb_catalog.event_log') IS NULL" } })).body.result[1], ['t']);

  // A GraphQL mutation on the source: delivered after its commit.
  const ins = await e.graphql('mutation { insert_item_one(object: {name: "a", n: 1}) { id } }', {}, { 'x-svc-role': 'admin', 'x-svc-user-id': '7' });
  assert.equal(ins.body.data?.insert_item_one?.id, 1, ins.text);
  await eventually(() => rx.deliveries.length, (k) => k >= 1, 10_000, 'INSERT delivery');
  const d = rx.deliveries[0]!;
  assert.equal(d.path, '/hook');
  assert.deepEqual(d.body.table, { schema: 'public', name: 'item' });
  assert.deepEqual(d.body.trigger, { name: 'item_all' });
  assert.equal(d.body.event.op, 'INSERT');
  assert.deepEqual(d.body.event.data, { old: null, new: { id: 1, name: 'a', n: 1 } });
  assert.equal(d.body.event.session_variables['x-svc-user-id'], '7');

  // Another client's update and delete on the source's database (captured there, found by the poll), and a manual event.
  await sqlOn(url, "UPDATE item SET n = 2 WHERE id = 1; DELETE FROM item WHERE id = 1; INSERT INTO item (name) VALUES ('flaky')");
  const inv = await post({ type: 'pg_invoke_event_trigger', args: { source: 'store', name: 'item_all', payload: { hello: 'manual' } } });
  assert.equal(inv.status, 200, inv.text);
  assert.match(inv.body.event_id, /^[0-9a-f-]{36}$/);
  await eventually(() => rx.deliveries.filter((x) => x.body.event.op !== 'INSERT' || x.body.event.data.new?.name !== 'flaky').length, (k) => k >= 4, 15_000, 'UPDATE, DELETE, MANUAL');
  const byOp = (op: string) => rx.deliveries.filter((x) => x.body.event.op === op);
  assert.deepEqual(byOp('UPDATE')[0]!.body.event.data, { old: { id: 1, name: 'a', n: 1 }, new: { id: 1, name: 'a', n: 2 } });
  assert.deepEqual(byOp('DELETE')[0]!.body.event.data, { old: { id: 1, name: 'a', n: 2 }, new: null });
  assert.deepEqual(byOp('MANUAL')[0]!.body.event.data, { hello: 'manual' });

  // The flaky one: 500 first, then delivered on its retry (interval 1 s), two invocation logs.
  const flakyId = await eventually(async () => (await sqlOn(url, "SELECT id, tries, delivered FROM hdb_catalog.event_log WHERE payload->'data'->'new'->>'name' = 'flaky'"))[0],
    (r) => r?.delivered === true, 20_000, 'flaky delivered on retry');
  assert.equal(flakyId.tries, 2);
  assert.deepEqual(await sqlOn(url, 'SELECT status FROM hdb_catalog.event_invocation_logs WHERE event_id = $1 ORDER BY created_at', [flakyId.id]), [{ status: 500 }, { status: 200 }]);

  // pg_redeliver_event with source: delivered again as a first try.
  const before = rx.deliveries.length;
  const red = await post({ type: 'pg_redeliver_event', args: { source: 'store', event_id: flakyId.id } });
  assert.equal(red.status, 200, red.text);
  await eventually(() => rx.deliveries.length, (k) => k > before, 10_000, 'redelivery');
  assert.equal(rx.deliveries.at(-1)!.body.id, flakyId.id);
  assert.equal(rx.deliveries.at(-1)!.body.delivery_info.current_retry, 0);
  const missing = await post({ type: 'pg_redeliver_event', args: { source: 'store', event_id: 'nope' } });
  assert.deepEqual(missing.body, { code: 'not-exists', error: 'event not found', path: '$.args' });
  const noSource = await post({ type: 'pg_invoke_event_trigger', args: { source: 'nowhere', name: 'item_all', payload: {} } });
  assert.equal(noSource.status, 400);
  assert.equal(noSource.body.code, 'not-exists');
  const dup = await post({ type: 'pg_create_event_trigger', args: { source: 'store', name: 'item_all', table: 'item', webhook: rx.url, insert: { columns: '*' } } });
  assert.deepEqual(dup.body, { code: 'already-exists', error: 'event trigger with name "item_all" already exists', path: '$.args' });

  // The queue metrics name the source's queue.
  const metrics = await e.request('GET', '/v1/metrics');
  assert.equal(metrics.status, 200, metrics.text);
  assert.match(metrics.text, /svc_delivery_queue_depth\{queue="event:store",state="pending"\} \d+/);
  assert.match(metrics.text, /svc_delivery_attempts_total\{queue="event:store",outcome="delivered"\} [1-9]/);

  // The version-3 document carries it under its source; replace_metadata of the export changes nothing.
  const doc = (await post({ type: 'export_metadata', version: 2, args: {} })).body;
  assert.deepEqual(doc.sources[1].tables[0].event_triggers.map((x: any) => x.name), ['item_all']);
  assert.equal(doc.sources[0].tables.length, 0);
  const again = await post({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
  assert.equal(again.status, 200, again.text);
  assert.deepEqual((await post({ type: 'export_metadata', version: 2, args: {} })).body, doc);

  // The CLI's project folder (config v3) holds it in the source's table file, and applies it back unchanged.
  const dir = await mkdtemp(join(tmpdir(), 'src-events-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'version.yaml'), 'version: 3\n');
  const exportedDir = await cliAgainst(e.url, 'metadata', ['export', '--dir', dir]);
  assert.equal(exportedDir.code, 0, exportedDir.err);
  const files = await dirContents(dir);
  const itemFile = Object.entries(files).find(([f]) => f.startsWith('databases/store/tables/') && f.includes('item'));
  assert.ok(itemFile, Object.keys(files).join(', '));
  assert.match(itemFile[1], /event_triggers:[\s\S]*name: item_all/);
  const applied = await cliAgainst(e.url, 'metadata', ['apply', '--dir', dir]);
  assert.equal(applied.code, 0, applied.err);
  assert.deepEqual((await post({ type: 'export_metadata', version: 2, args: {} })).body, doc);

  // Removed through replace_metadata: the captures go, and with the last trigger the event tables and hdb_catalog.
  const without = structuredClone(doc);
  delete without.sources[1].tables[0].event_triggers;
  assert.equal((await post({ type: 'replace_metadata', version: 2, args: { metadata: without } })).status, 200);
  assert.deepEqual(await sqlOn(url, "SELECT count(*)::int AS n FROM pg_trigger WHERE tgname LIKE 'notify_svc_%'"), [{ n: 0 }]);
  assert.equal(await regclass(url, 'hdb_catalog.event_log'), false);
  assert.deepEqual(await sqlOn(url, "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'hdb_catalog'"), [{ n: 0 }]);

  // Created again, then deleted with pg_delete_event_trigger; and a source dropped with its trigger leaves nothing.
  assert.equal((await post({ type: 'pg_create_event_trigger', args: { source: 'store', name: 'again', table: 'item', webhook: rx.url, insert: { columns: '*' } } })).status, 200);
  assert.equal(await regclass(url, 'hdb_catalog.event_log'), true);
  const del = await post({ type: 'pg_delete_event_trigger', args: { source: 'store', name: 'again' } });
  assert.equal(del.status, 200, del.text);
  assert.equal(await regclass(url, 'hdb_catalog.event_log'), false);
  assert.equal((await post({ type: 'pg_create_event_trigger', args: { source: 'store', name: 'last', table: 'item', webhook: rx.url, insert: { columns: '*' } } })).status, 200);
  // rename_source keeps the database's captures (the same database under a new name).
  const renamed = await post({ type: 'rename_source', args: { name: 'store', new_name: 'shop' } });
  assert.equal(renamed.status, 200, renamed.text);
  assert.deepEqual(await sqlOn(url, "SELECT tgname FROM pg_trigger WHERE tgname LIKE 'notify_svc_%'"), [{ tgname: 'notify_svc_last_INSERT' }]);
  assert.equal(await regclass(url, 'hdb_catalog.event_log'), true);
  const drop = await post({ type: 'pg_drop_source', args: { name: 'shop', cascade: true } });
  assert.equal(drop.status, 200, drop.text);
  assert.deepEqual(await sqlOn(url, "SELECT count(*)::int AS n FROM pg_trigger WHERE tgname LIKE 'notify_svc_%'"), [{ n: 0 }]);
  assert.equal(await regclass(url, 'hdb_catalog.event_log'), false);
});

test('two engines deliver every event of another source exactly once', { timeout: 90_000 }, async (t) => {
  const url = await sourceDatabase();
  const rx = await startEventReceiver();
  const db = await createTestDatabase('srcevents2');
  const a = await startTestEngine({ databaseUrl: db.url, eventsFetchIntervalMs: 100 });
  const b = await startTestEngine({ databaseUrl: db.url, eventsFetchIntervalMs: 100 });
  t.after(async () => {
    await a.stop();
    await b.stop();
    await rx.stop();
    await db.drop();
  });
  await setupSource(metadataOn(a), url, rx.url);
  await eventually(async () => (await b.graphql('{ item { id } }')).body.data, (x) => x !== undefined, 10_000, 'engine B serves the source');
  const N = 200;
  await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).graphql(
    `mutation { insert_item(objects: [${Array.from({ length: N / 8 }, (_, j) => `{name: "r${i}-${j}"}`).join(', ')}]) { affected_rows } }`,
  )));
  await eventually(() => new Set(rx.deliveries.map((d) => d.body.id)).size, (k) => k === N, 30_000, 'all events delivered');
  // Both engines claim every 100 ms: a few more rounds, and still one delivery per event.
  const settled = Date.now();
  await eventually(async () => (await sqlOn(url, 'SELECT count(*)::int AS n FROM hdb_catalog.event_log WHERE NOT delivered'))[0].n, (k) => k === 0 && Date.now() - settled > 500, 10_000, 'all rows marked delivered');
  const ids = rx.deliveries.map((d) => d.body.id);
  assert.equal(ids.length, N, `duplicates: ${ids.length - new Set(ids).size}`);
  assert.deepEqual(await sqlOn(url, 'SELECT count(*)::int AS n FROM hdb_catalog.event_log WHERE delivered AND tries = 1'), [{ n: N }]);
});

test('events of another source claimed by a SIGKILLed engine are delivered by another engine once its heartbeat is stale', { timeout: 120_000 }, async (t) => {
  const url = await sourceDatabase();
  const rx = await startEventReceiver(() => ({ status: 200, hold: true }));
  const db = await createTestDatabase('srceventskill');
  const engineA = await spawnEngine(db.url, ['--instance-heartbeat-timeout', '2', '--events-fetch-interval', '100']);
  let b: TestEngine | undefined;
  t.after(async () => {
    engineA.stop();
    await b?.stop();
    await rx.stop();
    await db.drop();
  });
  const post = async (body: unknown) => {
    const r = await fetch(engineA.url + '/v1/metadata', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const text = await r.text();
    return { status: r.status, text, body: JSON.parse(text) };
  };
  await setupSource(post, url, rx.url, { retry_conf: { timeout_sec: 3 } });
  await sqlOn(url, "INSERT INTO item (name) SELECT 'k' || g FROM generate_series(1, 20) g");
  await eventually(() => rx.deliveries.length, (k) => k === 20, 20_000, 'the first engine has all 20 in flight');
  engineA.child.kill('SIGKILL');
  const killedAt = Date.now();
  const held = new Set(rx.deliveries.map((d) => d.body.id));
  rx.setReply(() => ({ status: 200 }));
  b = await startTestEngine({ databaseUrl: db.url, eventsFetchIntervalMs: 100, instanceHeartbeatTimeoutSeconds: 2 });
  await eventually(() => rx.deliveries.length, (k) => k >= 40, 30_000, 'redelivery after the heartbeat timeout');
  const again = rx.deliveries.slice(20);
  assert.deepEqual(new Set(again.map((d) => d.body.id)), held);
  assert.ok(again[0]!.at - killedAt >= 1000, `taken over ${again[0]!.at - killedAt} ms after the kill`);
  assert.deepEqual(await sqlOn(url, 'SELECT count(*)::int AS n FROM hdb_catalog.event_log WHERE delivered'), [{ n: 20 }]);
});

test('a source that is down stops only its own queue; it resumes without a restart', { timeout: 120_000 }, async (t) => {
  const url = await sourceDatabase();
  const rx: EventReceiver = await startEventReceiver();
  const e = await startTestEngine({ eventsFetchIntervalMs: 200 });
  t.after(async () => {
    await e.stop();
    await rx.stop();
  });
  await e.runSql('CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL)');
  const track = await e.query({ type: 'bulk', args: [
    { type: 'track_table', args: { schema: 'public', name: 'note' } },
    { type: 'create_event_trigger', args: { name: 'note_ins', table: 'note', webhook: rx.url, insert: { columns: '*' } } },
  ] });
  assert.equal(track.status, 200, track.text);
  await setupSource(metadataOn(e), url, rx.url);
  await sqlOn(url, "INSERT INTO item (name) VALUES ('before')");
  await eventually(() => rx.deliveries.filter((d) => d.body.trigger.name === 'item_all').length, (k) => k === 1, 10_000, 'the source delivers');

  cluster.halt();
  try {
    // default's queue goes on while the source's claims fail.
    const ins = await e.graphql('mutation { insert_note_one(object: {body: "while down"}) { id } }');
    assert.equal(ins.body.data?.insert_note_one?.id, 1, ins.text);
    await eventually(() => rx.deliveries.filter((d) => d.body.trigger.name === 'note_ins').length, (k) => k === 1, 10_000, 'default delivers while the source is down');
  } finally {
    cluster.start();
  }
  // Back: a write by another client there is delivered by the same engine (no restart, no reload).
  await eventually(async () => sqlOn(url, "INSERT INTO item (name) VALUES ('after') RETURNING id").then(() => true, () => false), (ok) => ok, 20_000, 'the cluster accepts writes again');
  await eventually(() => rx.deliveries.filter((d) => d.body.trigger.name === 'item_all').length, (k) => k === 2, 20_000, 'the source delivers again');
  assert.equal(rx.deliveries.filter((d) => d.body.trigger.name === 'item_all').at(-1)!.body.event.data.new.name, 'after');
});
