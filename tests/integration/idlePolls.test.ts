/**
 * An idle engine costs (almost) nothing: the backstop polls (metadata version, scheduled-trigger
 * tick, scheduled-event and async-action claims) rest while nothing happens and the engine's LISTEN
 * connections verifiably hear notifications, and still deliver on time: a one-off event scheduled
 * while resting fires at its time (the due-time timer), one created through another engine too (its
 * NOTIFY re-arms this engine's timer). Behind PgBouncer in transaction mode, where LISTEN hears
 * nothing, the polls never rest. Round trips are counted by a protocol proxy in front of the server
 * (every Sync and simple Query is one).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase, startTestEngine, type TestEngine } from './harness.js';
import { startPgMessageProxy, type PgMessageProxy } from '../support/pgMessageProxy.js';
import { startPgbouncer } from '../support/pgbouncer.js';
import { eventually, startEventReceiver } from '../support/eventReceiver.js';

/** Fast base intervals so that "never rests" and "rests" differ by an order of magnitude in a few seconds. */
const FAST = { eventsFetchIntervalMs: 50, asyncActionsFetchIntervalMs: 50, schemaSyncIntervalMs: 50 };

const roundTrips = (p: PgMessageProxy) => p.messages.filter((m) => m.type === 'S' || m.type === 'Q').length;

/** Round trips the engine sends through `p` during `ms`. */
async function windowCount(p: PgMessageProxy, ms: number): Promise<number> {
  const before = roundTrips(p);
  await new Promise((r) => setTimeout(r, ms));
  return roundTrips(p) - before;
}

async function scheduleAt(e: TestEngine, webhook: string, at: Date): Promise<void> {
  const r = await e.query({ type: 'create_scheduled_event', args: { webhook, schedule_at: at.toISOString(), payload: { at: at.toISOString() } } });
  assert.equal(r.status, 200, r.text);
}

test('idle with a verified LISTEN connection: the backstop polls rest; behind a transaction pooler they do not', { timeout: 120_000 }, async (t) => {
  const db = await createTestDatabase('idlepoll');
  t.after(() => db.drop());
  const direct = await startPgMessageProxy(db.url);
  t.after(() => direct.close());
  const e = await startTestEngine({ ...FAST, idlePollMaxIntervalMs: 1000, databaseUrl: direct.url });
  t.after(() => e.stop());
  // Without resting, eight statements every 50 ms: about 480 round trips in 3 s. Resting at 1 s: a few dozen.
  const resting = await eventually(() => windowCount(direct, 3000), (n) => n < 60, 30_000, 'the polls to rest');
  assert.ok(resting < 60, `${resting} round trips in 3 s while resting`);

  const bouncer = await startPgbouncer({ serverUrl: process.env.SVC_TEST_DATABASE_URL!, poolMode: 'transaction', poolSize: 10 });
  t.after(() => bouncer.stop());
  const pooled = await startPgMessageProxy(bouncer.url(new URL(db.url).pathname.slice(1)));
  t.after(() => pooled.close());
  // Another engine on the same database through the pooler: LISTEN there is accepted but hears nothing.
  const p = await startTestEngine({ ...FAST, idlePollMaxIntervalMs: 1000, databaseUrl: pooled.url, usePreparedStatements: false });
  t.after(() => p.stop());
  // Give it longer than the probe's timeout (5 s) and the whole back-off: it must still poll every 50 ms.
  await new Promise((r) => setTimeout(r, 7000));
  const busy = await windowCount(pooled, 3000);
  assert.ok(busy > 200, `behind PgBouncer (transaction mode) the polls must not rest: ${busy} round trips in 3 s`);
});

test('while resting, one-off events still fire at their time, whichever engine scheduled them', { timeout: 120_000 }, async (t) => {
  const receiver = await startEventReceiver();
  t.after(() => receiver.stop());
  const db = await createTestDatabase('idlefire');
  t.after(() => db.drop());
  const proxy = await startPgMessageProxy(db.url);
  t.after(() => proxy.close());
  // Rests up to a minute: anything delivered within seconds came through the due-time timer or a notification.
  const a = await startTestEngine({ ...FAST, idlePollMaxIntervalMs: 60_000, databaseUrl: proxy.url });
  t.after(() => a.stop());
  await eventually(() => windowCount(proxy, 2000), (n) => n < 20, 30_000, 'engine A to rest');

  // Scheduled through A itself, 1.5 s ahead: A's timer fires it.
  const first = new Date(Date.now() + 1500);
  await scheduleAt(a, receiver.url + '/own', first);
  const own = await eventually(() => receiver.deliveries.find((d) => d.path === '/own'), (d) => d !== undefined, 15_000, 'the own event');
  assert.ok(own!.at - first.getTime() < 1000, `fired ${own!.at - first.getTime()} ms after its time`);
  assert.ok(own!.at >= first.getTime() - 50, 'not before its time');

  // Scheduled through engine B, which then stops before the time: only A can deliver it, and A only
  // knows of it through B's NOTIFY (A is resting, its next poll up to a minute away).
  await eventually(() => windowCount(proxy, 2000), (n) => n < 20, 30_000, 'engine A to rest again');
  const b = await startTestEngine({ databaseUrl: db.url });
  const second = new Date(Date.now() + 2500);
  await scheduleAt(b, receiver.url + '/other', second);
  await b.stop();
  const other = await eventually(() => receiver.deliveries.find((d) => d.path === '/other'), (d) => d !== undefined, 20_000, 'the event scheduled through B');
  assert.ok(other!.at - second.getTime() < 1000, `fired ${other!.at - second.getTime()} ms after its time`);

  // Due at once, through A while resting: the local wake-up delivers it, not the next poll.
  await eventually(() => windowCount(proxy, 2000), (n) => n < 20, 30_000, 'engine A to rest again');
  const t0 = Date.now();
  await scheduleAt(a, receiver.url + '/now', new Date());
  const now = await eventually(() => receiver.deliveries.find((d) => d.path === '/now'), (d) => d !== undefined, 15_000, 'the due event');
  assert.ok(now!.at - t0 < 1000, `delivered ${now!.at - t0} ms after it was created`);
  assert.equal(receiver.deliveries.length, 3, 'each event delivered once');
});
