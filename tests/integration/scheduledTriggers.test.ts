/**
 * Scheduled triggers end to end, with a real webhook server on 127.0.0.1 and a real Postgres:
 * validation (nothing changed on a bad request, in bulk too), cron triggers' 100 occurrences,
 * replace / delete / export / replace_metadata / clear_metadata, one-off delivery on time with the
 * poll disabled (the due-time timer), the body, headers and User-Agent, retries with Retry-After and
 * invocation logs, `dead` past tolerance, and once-only delivery with two engines and after a
 * SIGKILL mid-delivery. Cron deliveries use occurrences due in a second (a row put in
 * hdb_cron_events), not minute-long waits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase, startTestEngine, type TestEngine } from './harness.js';
import { spawnEngine } from '../support/engineProcess.js';
import { eventually, startEventReceiver } from '../support/eventReceiver.js';

async function rows(e: TestEngine, text: string): Promise<string[][]> {
  const r = await e.query({ type: 'run_sql', args: { sql: text } });
  assert.equal(r.status, 200, r.text);
  return r.body.result.slice(1);
}

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString();
const cron = (name: string, extra: Record<string, unknown> = {}) => ({
  type: 'create_cron_trigger',
  args: { name, webhook: 'http://127.0.0.1:9/hook', schedule: '0 0 1 1 *', payload: { k: name }, include_in_metadata: true, ...extra },
});

test('bad scheduled-trigger requests get 400 with a clear message and change nothing', { timeout: 60_000 }, async (t) => {
  const e = await startTestEngine({ env: {} });
  t.after(() => e.stop());
  assert.equal((await e.query(cron('keep'))).status, 200);
  const before = await rows(e, 'SELECT (SELECT count(*) FROM hdb_catalog.hdb_cron_triggers), (SELECT count(*) FROM hdb_catalog.hdb_cron_events), (SELECT count(*) FROM hdb_catalog.hdb_scheduled_events)');
  const cases: Array<[unknown, string, RegExp]> = [
    [cron('c1', { schedule: 'every minute' }), 'parse-failed', /invalid cron expression/],
    [cron('c1', { schedule: '* * * * * *' }), 'parse-failed', /expected 5 fields/],
    [cron('c1', { webhook: '{{SVC_TEST_UNSET_VAR}}/x' }), 'not-found', /environment variable 'SVC_TEST_UNSET_VAR' not set/],
    [cron('c1', { headers: [{ name: 'h', value_from_env: 'SVC_TEST_UNSET_VAR' }] }), 'not-found', /SVC_TEST_UNSET_VAR/],
    [cron('c1', { colour: 'red' }), 'parse-failed', /unexpected keys.*colour/],
    [cron('c1', { retry_conf: { num_retries: -1 } }), 'parse-failed', /non-negative/],
    [cron('keep'), 'already-exists', /cron trigger with name: keep already exists/],
    [{ type: 'delete_cron_trigger', args: { name: 'nope' } }, 'not-exists', /does not exist/],
    // replace: true only updates (Hasura v1.3's updateCronTrigger checks that the trigger exists).
    [cron('nope', { replace: true }), 'not-exists', /^cron trigger with name: nope does not exist$/],
    [{ type: 'create_scheduled_event', args: { webhook: 'http://127.0.0.1:9/', schedule_at: 'tomorrow' } }, 'parse-failed', /could not parse timestamp/],
    [{ type: 'create_scheduled_event', args: { webhook: 'http://127.0.0.1:9/', schedule_at: '2030-13-45T00:00:00Z' } }, 'parse-failed', /timestamp/],
    [{ type: 'create_scheduled_event', args: { webhook: 'http://127.0.0.1:9/' } }, 'parse-failed', /schedule_at/],
    [{ type: 'create_scheduled_event', args: { webhook: 'http://127.0.0.1:9/', schedule_at: inSeconds(60), retry: 1 } }, 'parse-failed', /unexpected keys/],
    // A bulk whose last item fails leaves the earlier items undone.
    [{ type: 'bulk', args: [cron('c2'), { type: 'create_scheduled_event', args: { webhook: 'http://127.0.0.1:9/', schedule_at: inSeconds(60) } }, cron('c3', { schedule: 'x' })] }, 'parse-failed', /cron/],
    [{ type: 'bulk', args: [cron('c2'), { type: 'create_scheduled_event', args: { webhook: 'http://127.0.0.1:9/', schedule_at: inSeconds(60) } }, cron('keep')] }, 'already-exists', /keep/],
    [{ type: 'replace_metadata', args: { version: 2, tables: [], cron_triggers: [{ name: 'r1', webhook: 'http://x', schedule: 'bad', include_in_metadata: true }] } }, 'parse-failed', /cron/],
  ];
  for (const [body, code, message] of cases) {
    const r = await e.query(body);
    assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
    assert.equal(r.body.code, code, r.text);
    assert.match(r.body.error, message);
    assert.equal(typeof r.body.path, 'string');
  }
  assert.deepEqual(
    await rows(e, 'SELECT (SELECT count(*) FROM hdb_catalog.hdb_cron_triggers), (SELECT count(*) FROM hdb_catalog.hdb_cron_events), (SELECT count(*) FROM hdb_catalog.hdb_scheduled_events)'),
    before,
  );
  assert.deepEqual(before, [['1', '100', '0']]);
});

test('cron triggers: 100 occurrences, replace regenerates, export / replace_metadata / clear_metadata, delete cascades', { timeout: 60_000 }, async (t) => {
  const e = await startTestEngine();
  t.after(() => e.stop());
  assert.equal((await e.query(cron('yearly'))).status, 200);
  assert.equal((await e.query(cron('hidden', { include_in_metadata: false, schedule: '*/5 * * * *' }))).status, 200);
  assert.deepEqual(
    await rows(e, `SELECT count(*), count(DISTINCT scheduled_time), bool_and(to_char(scheduled_time AT TIME ZONE 'UTC', 'MM-DD HH24:MI') = '01-01 00:00'), bool_and(status = 'scheduled')
                   FROM hdb_catalog.hdb_cron_events WHERE trigger_name = 'yearly'`),
    [['100', '100', 't', 't']],
  );
  // Every fifth minute, UTC, all in the future.
  assert.deepEqual(
    await rows(e, `SELECT count(*), bool_and(extract(minute FROM scheduled_time)::int % 5 = 0 AND scheduled_time > now()) FROM hdb_catalog.hdb_cron_events WHERE trigger_name = 'hidden'`),
    [['100', 't']],
  );
  // Replace with another schedule: the old occurrences go, 100 new ones come.
  assert.equal((await e.query(cron('yearly', { schedule: '30 12 * * 1', replace: true, comment: 'mondays' }))).status, 200);
  assert.deepEqual(
    await rows(e, `SELECT count(*), bool_and(extract(isodow FROM scheduled_time AT TIME ZONE 'UTC') = 1 AND to_char(scheduled_time AT TIME ZONE 'UTC', 'HH24:MI') = '12:30') FROM hdb_catalog.hdb_cron_events WHERE trigger_name = 'yearly'`),
    [['100', 't']],
  );
  // Export: only include_in_metadata triggers, in Hasura's shape.
  const exp = await e.query({ type: 'export_metadata', args: {} });
  assert.equal(exp.status, 200, exp.text);
  assert.deepEqual(exp.body.cron_triggers, [
    { name: 'yearly', webhook: 'http://127.0.0.1:9/hook', schedule: '30 12 * * 1', payload: { k: 'yearly' }, include_in_metadata: true, comment: 'mondays' },
  ]);
  // replace_metadata without it removes it (and its events); the hidden one stays.
  const md = { ...exp.body, cron_triggers: [{ name: 'other', webhook: 'http://127.0.0.1:9/o', schedule: '0 * * * *', include_in_metadata: true, retry_conf: { num_retries: 2 } }] };
  assert.equal((await e.query({ type: 'replace_metadata', args: md })).status, 200);
  assert.deepEqual(await rows(e, 'SELECT trigger_name, count(*) FROM hdb_catalog.hdb_cron_events GROUP BY 1 ORDER BY 1'), [['hidden', '100'], ['other', '100']]);
  const exp2 = await e.query({ type: 'export_metadata', args: {} });
  assert.deepEqual(exp2.body.cron_triggers, [
    { name: 'other', webhook: 'http://127.0.0.1:9/o', schedule: '0 * * * *', retry_conf: { num_retries: 2, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 }, include_in_metadata: true },
  ]);
  // clear_metadata removes the metadata's cron triggers, not the others.
  assert.equal((await e.query({ type: 'clear_metadata', args: {} })).status, 200);
  assert.deepEqual(await rows(e, 'SELECT name FROM hdb_catalog.hdb_cron_triggers'), [['hidden']]);
  assert.equal((await e.query({ type: 'export_metadata', args: {} })).body.cron_triggers, undefined);
  // delete_cron_trigger takes its events along.
  assert.deepEqual((await e.query({ type: 'delete_cron_trigger', args: { name: 'hidden' } })).body, { message: 'success' });
  assert.deepEqual(await rows(e, 'SELECT (SELECT count(*) FROM hdb_catalog.hdb_cron_triggers), (SELECT count(*) FROM hdb_catalog.hdb_cron_events)'), [['0', '0']]);
});

test('one-off and cron events are delivered within a second of their time with the poll disabled; body, headers, statuses, logs', { timeout: 60_000 }, async (t) => {
  const busySeen = new Set<string>();
  const rx = await startEventReceiver((d) => {
    if (d.path === '/fail') return { status: 500 };
    if (d.path === '/hang') return { status: 200, hold: true };
    // 503 with Retry-After: 1 the first time, then 200.
    if (d.path === '/busy' && !busySeen.has(d.body.id)) {
      busySeen.add(d.body.id);
      return { status: 503, headers: { 'retry-after': '1' } };
    }
    return { status: 200 };
  });
  // A poll interval of a minute: on-time delivery must come from the due-time timer.
  const e = await startTestEngine({ eventsFetchIntervalMs: 60_000, env: { SVC_TEST_HOOK: rx.url } });
  process.env.SVC_TEST_HOOK = rx.url;
  process.env.SVC_TEST_SECRET_HEADER = 's3cret';
  t.after(async () => {
    delete process.env.SVC_TEST_HOOK;
    delete process.env.SVC_TEST_SECRET_HEADER;
    await e.stop();
    await rx.stop();
  });
  const at = new Date(Math.ceil((Date.now() + 2500) / 1000) * 1000);
  const r = await e.query({
    type: 'create_scheduled_event',
    args: {
      webhook: '{{SVC_TEST_HOOK}}/one',
      schedule_at: at.toISOString(),
      payload: { a: [1, 2] },
      headers: [{ name: 'X-Plain', value: 'v' }, { name: 'X-Secret', value_from_env: 'SVC_TEST_SECRET_HEADER' }],
      comment: 'c1',
    },
  });
  assert.equal(r.status, 200, r.text);
  assert.match(r.body.event_id, /^[0-9a-f-]{36}$/);
  const [d] = await eventually(() => rx.deliveries.filter((x) => x.path === '/one'), (l) => l.length === 1, 10_000, 'one-off delivery');
  const late = d!.at - at.getTime();
  assert.ok(late >= 0 && late < 1000, `delivered ${late} ms after its time`);
  assert.equal(d!.headers['x-plain'], 'v');
  assert.equal(d!.headers['x-secret'], 's3cret');
  assert.match(String(d!.headers['user-agent']), /^svc-graphql-engine\//);
  assert.match(String(d!.headers['content-type']), /^application\/json/);
  assert.deepEqual(Object.keys(d!.body).sort(), ['comment', 'created_at', 'id', 'payload', 'scheduled_time']);
  assert.equal(d!.body.id, r.body.event_id);
  assert.deepEqual(d!.body.payload, { a: [1, 2] });
  assert.equal(d!.body.comment, 'c1');
  assert.equal(new Date(d!.body.scheduled_time).getTime(), at.getTime());
  assert.match(d!.body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
  await eventually(() => rows(e, `SELECT status, tries FROM hdb_catalog.hdb_scheduled_events WHERE id = '${r.body.event_id}'`), (x) => x[0]?.[0] === 'delivered', 5000, 'delivered status');
  const log = await rows(e, `SELECT status, request::text, response::text FROM hdb_catalog.hdb_scheduled_event_invocation_logs WHERE event_id = '${r.body.event_id}'`);
  assert.equal(log.length, 1);
  assert.equal(log[0]![0], '200');
  assert.ok(!log[0]![1]!.includes('s3cret'), 'env header value redacted in the log');

  // Cron: an occurrence due in a second (the scheduler's clock is the database's) goes out on time, with name and no created_at.
  assert.equal((await e.query(cron('soon', { webhook: rx.url + '/cron', comment: 'cc', headers: [{ name: 'X-C', value: '1' }] }))).status, 200);
  const cronAt = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000);
  await e.runSql(`INSERT INTO hdb_catalog.hdb_cron_events (trigger_name, scheduled_time) VALUES ('soon', '${cronAt.toISOString()}')`);
  // A row written by another client is found by the next tick; with a one-minute poll, wake the timer through a cheap op.
  await e.query({ type: 'create_scheduled_event', args: { webhook: rx.url + '/later', schedule_at: inSeconds(3600) } });
  const [c] = await eventually(() => rx.deliveries.filter((x) => x.path === '/cron'), (l) => l.length === 1, 10_000, 'cron delivery');
  assert.ok(c!.at - cronAt.getTime() < 1000 && c!.at >= cronAt.getTime(), `cron delivered ${c!.at - cronAt.getTime()} ms after its time`);
  assert.deepEqual(Object.keys(c!.body).sort(), ['comment', 'id', 'name', 'payload', 'scheduled_time']);
  assert.equal(c!.body.name, 'soon');
  assert.equal(c!.body.comment, 'cc');
  assert.deepEqual(c!.body.payload, { k: 'soon' });
  assert.equal(c!.headers['x-c'], '1');
  await eventually(() => rows(e, `SELECT e.status, e.tries, (SELECT count(*) FROM hdb_catalog.hdb_cron_event_invocation_logs l WHERE l.event_id = e.id) FROM hdb_catalog.hdb_cron_events e WHERE trigger_name = 'soon' AND status <> 'scheduled'`), (x) => x.length === 1 && x[0]![0] === 'delivered', 5000, 'cron status');
  assert.deepEqual(await rows(e, `SELECT status, tries FROM hdb_catalog.hdb_cron_events WHERE trigger_name = 'soon' AND status <> 'scheduled'`), [['delivered', '1']]);

  // Failures: 1 + num_retries tries, one log row each, then error; Retry-After replaces the interval; past tolerance → dead, never called.
  const q = await e.query({
    type: 'bulk',
    args: [
      { type: 'create_scheduled_event', args: { webhook: rx.url + '/fail', schedule_at: inSeconds(0.5), retry_conf: { num_retries: 2, retry_interval_seconds: 1 }, comment: 'fail' } },
      { type: 'create_scheduled_event', args: { webhook: rx.url + '/busy', schedule_at: inSeconds(0.5), retry_conf: { num_retries: 0, retry_interval_seconds: 3600 }, comment: 'busy' } },
      { type: 'create_scheduled_event', args: { webhook: rx.url + '/old', schedule_at: inSeconds(-120), retry_conf: { tolerance_seconds: 60 }, comment: 'old' } },
      { type: 'create_scheduled_event', args: { webhook: rx.url + '/hang', schedule_at: inSeconds(0.5), retry_conf: { timeout_seconds: 1 }, comment: 'hang' } },
    ],
  });
  assert.equal(q.status, 200, q.text);
  await eventually(
    () => rows(e, `SELECT comment, status, tries, (SELECT count(*) FROM hdb_catalog.hdb_scheduled_event_invocation_logs l WHERE l.event_id = s.id) FROM hdb_catalog.hdb_scheduled_events s WHERE comment IN ('fail', 'busy', 'old', 'hang') ORDER BY comment`),
    (x) => JSON.stringify(x) === JSON.stringify([['busy', 'delivered', '2', '2'], ['fail', 'error', '3', '3'], ['hang', 'error', '1', '1'], ['old', 'dead', '0', '0']]),
    20_000,
    'failure statuses',
  );
  const busy = rx.deliveries.filter((x) => x.path === '/busy');
  assert.equal(busy.length, 2);
  // Retry-After (1 s) replaced the 3600 s interval and gave one more try although num_retries is 0.
  assert.ok(busy[1]!.at - busy[0]!.at >= 900 && busy[1]!.at - busy[0]!.at < 5000, `retried after ${busy[1]!.at - busy[0]!.at} ms`);
  assert.equal(rx.deliveries.filter((x) => x.path === '/fail').length, 3);
  assert.equal(rx.deliveries.filter((x) => x.path === '/old').length, 0);
  // The timed-out attempt is logged as status 1000 (network error / timeout).
  assert.deepEqual(await rows(e, `SELECT l.status FROM hdb_catalog.hdb_scheduled_event_invocation_logs l JOIN hdb_catalog.hdb_scheduled_events s ON s.id = l.event_id WHERE s.comment = 'hang'`), [['1000']]);
});

test('two engines deliver every scheduled event exactly once', { timeout: 90_000 }, async (t) => {
  const rx = await startEventReceiver();
  const db = await createTestDatabase('sched2');
  const a = await startTestEngine({ databaseUrl: db.url, eventsFetchIntervalMs: 200 });
  const b = await startTestEngine({ databaseUrl: db.url, eventsFetchIntervalMs: 200 });
  t.after(async () => {
    await a.stop();
    await b.stop();
    await rx.stop();
    await db.drop();
  });
  const N = 300;
  const at = inSeconds(2);
  await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      (i % 2 ? a : b).query({ type: 'bulk', args: Array.from({ length: N / 6 }, () => ({ type: 'create_scheduled_event', args: { webhook: rx.url, schedule_at: at } })) }),
    ),
  );
  // Both engines generate cron occurrences too: still one row per time.
  await Promise.all([a.query(cron('both', { schedule: '* * * * *' })), b.query({ type: 'run_sql', args: { sql: 'SELECT 1' } })]);
  await eventually(() => new Set(rx.deliveries.map((d) => d.body.id)).size, (n) => n === N, 30_000, 'all delivered');
  await eventually(() => rows(a, `SELECT count(*) FROM hdb_catalog.hdb_scheduled_events WHERE status = 'delivered' AND tries = 1`), (x) => x[0]![0] === String(N), 5000, 'statuses');
  const ids = rx.deliveries.map((d) => d.body.id);
  assert.equal(ids.length, N, `duplicates: ${ids.length - new Set(ids).size}`);
  // One row per time: no duplicates. 100 ahead from each engine's "now", so a minute boundary between
  // the two generations may leave 101 distinct times (the earliest already due), never a duplicate.
  const [[count, distinct]] = (await rows(a, `SELECT count(*), count(DISTINCT scheduled_time) FROM hdb_catalog.hdb_cron_events WHERE trigger_name = 'both'`)) as [[string, string]];
  assert.equal(count, distinct, 'one row per scheduled time');
  assert.ok(Number(count) === 100 || Number(count) === 101, `${count} occurrences`);
});

test('scheduled events claimed by a SIGKILLed engine are delivered by another engine once its heartbeat is stale, once', { timeout: 120_000 }, async (t) => {
  const rx = await startEventReceiver(() => ({ status: 200, hold: true }));
  const db = await createTestDatabase('schedkill');
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
  const created = await q({ type: 'bulk', args: Array.from({ length: 10 }, () => ({ type: 'create_scheduled_event', args: { webhook: rx.url, schedule_at: inSeconds(0.5), retry_conf: { num_retries: 0 } } })) });
  assert.equal(created.length, 10, JSON.stringify(created));
  await eventually(() => rx.deliveries.length, (n) => n === 10, 20_000, 'the first engine has all 10 in flight');
  child.kill('SIGKILL');
  const killedAt = Date.now();
  const held = new Set(rx.deliveries.map((d) => d.body.id));
  rx.setReply(() => ({ status: 200 }));
  b = await startTestEngine({ databaseUrl: db.url, eventsFetchIntervalMs: 100, instanceHeartbeatTimeoutSeconds: 2 });
  await eventually(() => rx.deliveries.length, (n) => n >= 20, 30_000, 'redelivery after the heartbeat timeout');
  assert.deepEqual(new Set(rx.deliveries.slice(10).map((d) => d.body.id)), held);
  assert.ok(rx.deliveries[10]!.at - killedAt >= 1000, `taken over ${rx.deliveries[10]!.at - killedAt} ms after the kill`);
  await eventually(() => rows(b!, `SELECT status, count(*) FROM hdb_catalog.hdb_scheduled_events GROUP BY 1`), (x) => JSON.stringify(x) === JSON.stringify([['delivered', '10']]), 10_000, 'all delivered');
  await new Promise((r) => setTimeout(r, 500));
  assert.equal(rx.deliveries.length, 20, 'no third delivery');
});
