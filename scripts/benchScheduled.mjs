#!/usr/bin/env node
/**
 * `npm run bench:scheduled`: scheduled-trigger delivery figures (docs/benchmarks.md).
 *
 *   build → Postgres (SVC_GRAPHQL_DATABASE_URL as a maintenance URL, else a throwaway embedded one) →
 *   engine(s) `dist/bin/svc-graphql-engine.js` on a fresh database → webhook on 127.0.0.1 answering 200 (in this
 *   process), then, with one engine and again with two engines on the same database:
 *
 *   A. BURST one-off events (5,000) all scheduled for the same second (created ahead by bulk requests):
 *      every one delivered once? how many seconds after its time did the last arrive? p50 / p99;
 *   B. SPREAD one-off events (100) at random times over a minute: lateness p50 / p99 / max.
 *
 * Lateness = arrival at the webhook − the event's `scheduled_time` (same machine clock). Env: BURST
 * (5000), SPREAD (100), SPREAD_SECONDS (60), BENCH_SCHEDULED_PORT (18841, +1 for the second engine),
 * ENGINES (1,2), LEAD_SECONDS (40: the burst's time is this far ahead, so creating it ends before).
 */
import { build, pct, round, startWebhookBench } from './lib/webhookBench.mjs';

const BURST = Number(process.env.BURST ?? 5000);
const SPREAD = Number(process.env.SPREAD ?? 100);
const SPREAD_SECONDS = Number(process.env.SPREAD_SECONDS ?? 60);
const PORT = Number(process.env.BENCH_SCHEDULED_PORT ?? 18841);
const ENGINES = (process.env.ENGINES ?? '1,2').split(',').map(Number);
const LEAD_SECONDS = Number(process.env.LEAD_SECONDS ?? 40);
const ADMIN = 'bench-scheduled-secret';

build();

// Webhook: records the arrival times of each delivery by event id, and its lateness.
/** id → arrival times */
let arrivals = new Map();
/** id → lateness (ms) of the first arrival */
let lateness = new Map();
const bench = await startWebhookBench({
  prefix: 'bench_sched',
  admin: ADMIN,
  engineEnv: { SVC_GRAPHQL_INSTANCE_HEARTBEAT_TIMEOUT: '5' },
  onBody: (body, at) => {
    const list = arrivals.get(body.id);
    if (list) list.push(at);
    else {
      arrivals.set(body.id, [at]);
      lateness.set(body.id, at - Date.parse(body.scheduled_time));
    }
  },
});
const { hookUrl, startEngine, stopAll, post } = bench;

async function waitDelivered(ids, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end && ids.some((id) => !arrivals.has(id))) await new Promise((r) => setTimeout(r, 20));
}

/** Creates one-off events at the given times through the engines (bulk requests of 500, round robin). */
async function schedule(urls, times) {
  const ids = [];
  const chunks = [];
  for (let i = 0; i < times.length; i += 500) chunks.push(times.slice(i, i + 500));
  const out = await Promise.all(
    chunks.map((c, i) => post(urls[i % urls.length], '/v1/query', { type: 'bulk', args: c.map((t) => ({ type: 'create_scheduled_event', args: { webhook: hookUrl, schedule_at: new Date(t).toISOString(), payload: { t } } })) })),
  );
  for (const r of out) for (const x of r) ids.push(x.event_id);
  return ids;
}

function report(label, ids) {
  const once = ids.filter((id) => arrivals.get(id)?.length === 1).length;
  const twice = ids.filter((id) => (arrivals.get(id)?.length ?? 0) > 1).length;
  const never = ids.filter((id) => !arrivals.has(id)).length;
  const late = ids.filter((id) => lateness.has(id)).map((id) => lateness.get(id)).sort((a, b) => a - b);
  return {
    phase: label,
    events: ids.length,
    delivered_once: once,
    delivered_twice_or_more: twice,
    never_delivered: never,
    lateness_ms: { min: round(late[0] ?? NaN), p50: round(pct(late, 50)), p99: round(pct(late, 99)), max: round(late.at(-1) ?? NaN) },
  };
}

const results = [];
try {
  for (const n of ENGINES) {
    const urls = [];
    for (let i = 0; i < n; i++) urls.push(await startEngine(PORT + i));
    // A. the burst: all at one whole second, far enough ahead for the bulk requests to finish.
    arrivals = new Map();
    lateness = new Map();
    const at = Math.ceil((Date.now() + LEAD_SECONDS * 1000) / 1000) * 1000;
    const burstIds = await schedule(urls, Array.from({ length: BURST }, () => at));
    const createdBy = Date.now();
    const createdAhead_s = round((at - createdBy) / 1000, 1);
    if (createdBy > at) console.warn(`warning: creating the burst took until ${createdBy - at} ms after its time`);
    await waitDelivered(burstIds, 120_000 + Math.max(0, at - Date.now()));
    await new Promise((r) => setTimeout(r, 2000)); // would-be duplicates have time to arrive
    results.push({ ...report(`${n} engine(s): ${BURST} one-off events due in the same second`, burstIds), created_s_before_due: createdAhead_s, all_delivered_within_s: round((Math.max(...burstIds.map((id) => arrivals.get(id)?.[0] ?? Infinity)) - at) / 1000, 2) });
    console.log(results.at(-1));
    // B. spread over a minute.
    arrivals = new Map();
    lateness = new Map();
    const start = Date.now() + 3000;
    const spreadIds = await schedule(urls, Array.from({ length: SPREAD }, () => start + Math.random() * SPREAD_SECONDS * 1000));
    await waitDelivered(spreadIds, SPREAD_SECONDS * 1000 + 60_000);
    await new Promise((r) => setTimeout(r, 2000));
    results.push(report(`${n} engine(s): ${SPREAD} one-off events spread over ${SPREAD_SECONDS} s`, spreadIds));
    console.log(results.at(-1));
    await stopAll();
  }
} finally {
  await bench.close();
}
console.log('\nbench:scheduled summary (JSON)');
console.log(JSON.stringify({ date: new Date().toISOString(), burst: BURST, spread: SPREAD, results }, null, 2));
