#!/usr/bin/env node
/**
 * `node scripts/benchRecovery.mjs`: crash recovery and slow webhooks across engines, with a real
 * webhook server in this process and the engine's defaults (heartbeat timeout 20 s unless
 * SVC_GRAPHQL_INSTANCE_HEARTBEAT_TIMEOUT is set).
 *
 *   build → Postgres (SVC_GRAPHQL_DATABASE_URL as a maintenance URL, else a throwaway embedded one) →
 *   phases (PHASES, default `events,scheduled,slow`):
 *   - events: engine A (`--events-http-pool-size` 250) gets IN_FLIGHT (200) event deliveries that the
 *     webhook holds unanswered; engine B is running too (it claims nothing: A's heartbeat is fresh);
 *     A is SIGKILLed; the webhook answers at once from then on. Reports the time from the kill until
 *     every event was delivered after it, and the events delivered twice (in flight at the kill:
 *     at-least-once) or never.
 *   - scheduled: the same with IN_FLIGHT one-off scheduled events.
 *   - slow: two engines; SLOW_EVENTS (3) events whose webhook answers after SLOW_MS (90 000) with
 *     `timeout_sec` 120; reports how many times each was called (must be 1).
 * Env: IN_FLIGHT, SLOW_MS, SLOW_EVENTS, PHASES, BENCH_RECOVERY_PORT (18881, +1).
 */
import { createServer } from 'node:http';
import { build, now, round, startWebhookBench } from './lib/webhookBench.mjs';

const IN_FLIGHT = Number(process.env.IN_FLIGHT ?? 200);
const SLOW_MS = Number(process.env.SLOW_MS ?? 90_000);
const SLOW_EVENTS = Number(process.env.SLOW_EVENTS ?? 3);
const PHASES = (process.env.PHASES ?? 'events,scheduled,slow').split(',');
const PORT = Number(process.env.BENCH_RECOVERY_PORT ?? 18881);
const ADMIN = 'bench-recovery-secret';

build();

// The webhook: `mode` decides how it answers; every call is recorded by the key `keyOf` gives.
let mode = { hold: true, delayMs: 0 };
let calls = new Map();
let keyOf = (body) => body?.event?.data?.new?.id ?? body?.id;
const held = [];
const hook = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString());
    } catch {
      body = undefined;
    }
    const key = keyOf(body);
    const list = calls.get(key) ?? [];
    list.push(now());
    calls.set(key, list);
    if (mode.hold) held.push(res);
    else setTimeout(() => res.writeHead(200).end('{}'), mode.delayMs);
  });
});
hook.keepAliveTimeout = 200_000;
hook.requestTimeout = 0;
await new Promise((r) => hook.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${hook.address().port}/`;

const engineEnv = { SVC_GRAPHQL_EVENTS_HTTP_POOL_SIZE: '250', SVC_GRAPHQL_EVENTS_FETCH_INTERVAL: '1000' };
const bench = await startWebhookBench({ prefix: 'bench_recovery', admin: ADMIN, engineEnv, onBody: () => undefined });
const wait = async (cond, ms, what) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`${what}: not reached after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

async function crashPhase(name, create) {
  calls = new Map();
  mode = { hold: true, delayMs: 0 };
  const a = await bench.startEngine(PORT);
  const keys = await create(a);
  await wait(() => keys.every((k) => calls.has(k)), 60_000, `${name}: all ${keys.length} in flight on A`);
  const b = await bench.startEngine(PORT + 1);
  await new Promise((r) => setTimeout(r, 2000)); // B polls a few times: it must not take A's live claims
  const takenEarly = keys.filter((k) => calls.get(k).length > 1).length;
  await bench.stopEngine(PORT, 'SIGKILL');
  const killedAt = now();
  mode = { hold: false, delayMs: 0 };
  for (const r of held.splice(0)) r.destroy();
  await wait(() => keys.every((k) => calls.get(k).some((t) => t > killedAt)), 120_000, `${name}: redelivered`);
  const lastAt = Math.max(...keys.map((k) => Math.min(...calls.get(k).filter((t) => t > killedAt))));
  const firstAt = Math.min(...keys.map((k) => Math.min(...calls.get(k).filter((t) => t > killedAt))));
  await new Promise((r) => setTimeout(r, 3000)); // any third call would show here
  const twice = keys.filter((k) => calls.get(k).length === 2).length;
  const more = keys.filter((k) => calls.get(k).length > 2).length;
  console.log(`${name}: ${keys.length} in flight on the killed engine; B took none while A lived (${takenEarly} early); ` +
    `first redelivery ${round((firstAt - killedAt) / 1000)} s, all delivered ${round((lastAt - killedAt) / 1000)} s after the kill; ` +
    `called twice ${twice} (in flight at the kill), more than twice ${more}, never 0`);
  await bench.stopEngine(PORT + 1);
  void b;
}

try {
  if (PHASES.includes('events')) {
    await bench.post(await bench.startEngine(PORT), '/v1/query', { type: 'bulk', args: [
      { type: 'run_sql', args: { sql: 'CREATE TABLE rec_item (id serial PRIMARY KEY, name text NOT NULL)' } },
      { type: 'track_table', args: { table: 'rec_item' } },
      { type: 'create_event_trigger', args: { name: 'rec_ins', table: 'rec_item', insert: { columns: '*' }, webhook: hookUrl, retry_conf: { timeout_sec: 120 } } },
    ] });
    await bench.stopEngine(PORT);
    await crashPhase('events', async (a) => {
      const r = await bench.post(a, '/v1/query', { type: 'run_sql', args: { sql: `INSERT INTO rec_item (name) SELECT 'n' || g FROM generate_series(1, ${IN_FLIGHT}) g RETURNING id` } });
      return r.result.slice(1).map((row) => Number(row[0]));
    });
  }
  if (PHASES.includes('scheduled')) {
    await crashPhase('scheduled events', async (a) => {
      const at = new Date(Date.now() + 1000).toISOString();
      const r = await bench.post(a, '/v1/query', { type: 'bulk', args: Array.from({ length: IN_FLIGHT }, () => ({
        type: 'create_scheduled_event', args: { webhook: hookUrl, schedule_at: at, retry_conf: { num_retries: 0, timeout_seconds: 120 } } })) });
      return r.map((x) => x.event_id);
    });
  }
  if (PHASES.includes('slow')) {
    calls = new Map();
    mode = { hold: false, delayMs: SLOW_MS };
    const a = await bench.startEngine(PORT);
    await bench.startEngine(PORT + 1);
    const t0 = now();
    const r = await bench.post(a, '/v1/query', { type: 'run_sql', args: { sql: `INSERT INTO rec_item (name) SELECT 'slow' || g FROM generate_series(1, ${SLOW_EVENTS}) g RETURNING id` } });
    const keys = r.result.slice(1).map((row) => Number(row[0]));
    const done = async () => (await bench.post(a, '/v1/query', { type: 'run_sql', args: { sql: `SELECT count(*) FROM hdb_catalog.event_log WHERE delivered AND (payload->'data'->'new'->>'id')::int = ANY('{${keys.join(',')}}')` } })).result[1][0];
    for (;;) {
      if (Number(await done()) === keys.length) break;
      if (now() - t0 > SLOW_MS + 60_000) throw new Error('slow events not delivered');
      await new Promise((r2) => setTimeout(r2, 500));
    }
    const counts = keys.map((k) => calls.get(k)?.length ?? 0);
    console.log(`slow webhook (answers after ${SLOW_MS / 1000} s, timeout 120 s, heartbeat timeout ${process.env.SVC_GRAPHQL_INSTANCE_HEARTBEAT_TIMEOUT ?? 20} s, 2 engines): ` +
      `${keys.length} events, calls per event ${JSON.stringify(counts)}, delivered ${round((now() - t0) / 1000)} s after the insert`);
  }
} finally {
  for (const r of held.splice(0)) r.destroy();
  hook.closeAllConnections();
  hook.close();
  await bench.close();
}
