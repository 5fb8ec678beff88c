#!/usr/bin/env node
/**
 * `npm run bench:events`: event-trigger delivery figures (docs/benchmarks.md).
 *
 *   build → Postgres (SVC_GRAPHQL_DATABASE_URL as a maintenance URL, else a throwaway embedded one) →
 *   engine(s) `node --max-semi-space-size=4 dist/bin/svc-graphql-engine.js` on a fresh database → table `bench_item`
 *   with an insert trigger → webhook on 127.0.0.1 answering 200 (in this process), then four phases:
 *
 *   1. throughput: 20,000 rows inserted by 8 concurrent clients (GraphQL mutations, 25 rows each),
 *      deliveries/s from the first insert to the last delivery, and the drain rate after the inserts;
 *   2. latency: a steady 500 inserts/s (one row per mutation, open loop) for LATENCY_SECONDS; p50/p99
 *      from sending the mutation to the webhook receiving the event;
 *   3. two engines on the database, phase 1 again (inserts spread over both);
 *   4. one engine, 20,000 rows by 8 plain Postgres clients (not through the engine, so inserts go on
 *      while it is down); SIGKILL the engine when a third is delivered, restart it; count never-delivered
 *      (must be 0) and delivered-twice (the ones in flight at the kill: at-least-once).
 *
 * Each phase reports delivered once / twice / never. Env: ROWS (20000), CLIENTS (8), RATE (500),
 * LATENCY_SECONDS (20), BENCH_EVENTS_PORT (18741, +1 for the second engine), PHASES (1,2,3,4),
 * BENCH_NODE_FLAGS (extra node flags for the engines, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 */
import pg from 'pg';
import { build, now, pct, round, startWebhookBench } from './lib/webhookBench.mjs';

const ROWS = Number(process.env.ROWS ?? 20000);
const CLIENTS = Number(process.env.CLIENTS ?? 8);
const RATE = Number(process.env.RATE ?? 500);
const LATENCY_SECONDS = Number(process.env.LATENCY_SECONDS ?? 20);
const PORT = Number(process.env.BENCH_EVENTS_PORT ?? 18741);
const PHASES = (process.env.PHASES ?? '1,2,3,4').split(',').map(Number);
const ADMIN = 'bench-events-secret';

build();

// Webhook: records the arrival time of each delivery by the row id it carries.
/** id → arrival times */
let arrivals = new Map();
const bench = await startWebhookBench({
  prefix: 'bench_events',
  admin: ADMIN,
  engineEnv: { SVC_GRAPHQL_INSTANCE_HEARTBEAT_TIMEOUT: '5' },
  onBody: (body, at) => {
    const id = body.event.data.new.id;
    const list = arrivals.get(id);
    if (list) list.push(at);
    else arrivals.set(id, [at]);
  },
});
const { dbUrl, hookUrl, startEngine, stopEngine, post } = bench;

async function waitDelivered(ids, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end && ids.some((id) => !arrivals.has(id))) await new Promise((r) => setTimeout(r, 20));
}
function counts(ids) {
  let once = 0, twice = 0, never = 0;
  for (const id of ids) {
    const n = arrivals.get(id)?.length ?? 0;
    if (n === 0) never++;
    else if (n === 1) once++;
    else twice++;
  }
  return { once, twice_or_more: twice, never };
}
async function reset(url) {
  await post(url, '/v1/query', { type: 'run_sql', args: { sql: 'TRUNCATE bench_item RESTART IDENTITY; TRUNCATE hdb_catalog.event_log CASCADE' } });
  arrivals = new Map();
}

/**
 * ROWS rows by CLIENTS concurrent clients, `per` rows per statement: GraphQL mutations round-robin
 * over `urls`, or (`urls` empty) plain INSERTs from CLIENTS Postgres connections (another client of
 * the database: its events are found by the poll).
 */
async function insertAll(urls, per = 25) {
  const ids = [];
  let next = 0;
  const batches = Math.ceil(ROWS / per);
  const conns = urls.length === 0 ? await Promise.all(Array.from({ length: CLIENTS }, async () => {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    return c;
  })) : [];
  const t0 = now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (;;) {
        const b = next++;
        if (b >= batches) return;
        const objects = Array.from({ length: Math.min(per, ROWS - b * per) }, (_, i) => ({ payload: `row ${b * per + i}`, k: i }));
        if (urls.length === 0) {
          const r = await conns[c].query('INSERT INTO bench_item (payload, k) SELECT * FROM unnest($1::text[], $2::int[]) RETURNING id', [objects.map((o) => o.payload), objects.map((o) => o.k)]);
          for (const row of r.rows) ids.push(Number(row.id));
          continue;
        }
        const j = await post(urls[(b + c) % urls.length], '/v1/graphql', { query: 'mutation($o: [bench_item_insert_input!]!) { insert_bench_item(objects: $o) { returning { id } } }', variables: { o: objects } });
        for (const r of j.data.insert_bench_item.returning) ids.push(Number(r.id));
      }
    }),
  );
  const tInserted = now();
  await Promise.all(conns.map((c) => c.end()));
  return { ids, t0, tInserted };
}

function throughputReport(name, ids, t0, tInserted) {
  const times = ids.map((id) => arrivals.get(id)?.[0]).filter((x) => x !== undefined).sort((a, b) => a - b);
  const last = times[times.length - 1];
  const afterInserts = times.filter((t) => t > tInserted).length;
  return {
    phase: name,
    rows: ids.length,
    insert_s: round((tInserted - t0) / 1000, 2),
    inserts_per_s: Math.round(ids.length / ((tInserted - t0) / 1000)),
    first_insert_to_last_delivery_s: round((last - t0) / 1000, 2),
    deliveries_per_s: Math.round(times.length / ((last - t0) / 1000)),
    drain_after_inserts_per_s: afterInserts > 0 ? Math.round(afterInserts / ((last - tInserted) / 1000)) : null,
    ...counts(ids),
  };
}

const results = [];
try {
  const url = await startEngine(PORT);
  await post(url, '/v1/query', {
    type: 'bulk',
    args: [
      { type: 'run_sql', args: { sql: 'CREATE TABLE bench_item (id bigserial PRIMARY KEY, payload text NOT NULL, k int NOT NULL, created_at timestamptz NOT NULL DEFAULT now())' } },
      { type: 'track_table', args: { schema: 'public', name: 'bench_item' } },
      { type: 'create_event_trigger', args: { name: 'bench_insert', table: 'bench_item', insert: { columns: '*' }, webhook: hookUrl, retry_conf: { num_retries: 5, interval_sec: 1, timeout_sec: 5 } } },
    ],
  });

  if (PHASES.includes(1)) {
    const { ids, t0, tInserted } = await insertAll([url]);
    await waitDelivered(ids, 120_000);
    results.push(throughputReport('1 engine: 20k rows, 8 clients', ids, t0, tInserted));
    console.log(results.at(-1));
    await reset(url);
  }

  if (PHASES.includes(2)) {
    // Open loop: mutation i is sent at t0 + i / RATE whatever the earlier ones are doing (at most
    // 64 in flight), so the rate holds even when a mutation takes longer than 1/RATE.
    const total = RATE * LATENCY_SECONDS;
    const sent = new Map();
    const answered = new Map();
    const inFlight = new Set();
    const t0 = now() + 100;
    const gap = 1000 / RATE;
    for (let i = 0; i < total; i++) {
      const wait = t0 + i * gap - now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      while (inFlight.size >= 64) await Promise.race(inFlight);
      const at = now();
      const p = post(url, '/v1/graphql', { query: 'mutation($p: String!) { insert_bench_item_one(object: {payload: $p, k: 0}) { id } }', variables: { p: `steady ${i}` } })
        .then((j) => {
          const id = Number(j.data.insert_bench_item_one.id);
          sent.set(id, at);
          answered.set(id, now());
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
    }
    await Promise.all(inFlight);
    const achieved = total / ((now() - t0) / 1000);
    const ids = [...sent.keys()];
    await waitDelivered(ids, 60_000);
    const lat = ids.map((id) => (arrivals.get(id)?.[0] ?? Infinity) - sent.get(id)).sort((a, b) => a - b);
    const mut = ids.map((id) => answered.get(id) - sent.get(id)).sort((a, b) => a - b);
    const after = ids.map((id) => Math.max(0, (arrivals.get(id)?.[0] ?? Infinity) - answered.get(id))).sort((a, b) => a - b);
    results.push({
      phase: `latency at ${RATE} inserts/s (1 row per mutation, open loop)`,
      rows: ids.length,
      achieved_inserts_per_s: Math.round(achieved),
      p50_ms: round(pct(lat, 50)),
      p90_ms: round(pct(lat, 90)),
      p99_ms: round(pct(lat, 99)),
      max_ms: round(lat[lat.length - 1]),
      mutation_answer_p50_ms: round(pct(mut, 50)),
      mutation_answer_p99_ms: round(pct(mut, 99)),
      answer_to_delivery_p50_ms: round(pct(after, 50)),
      answer_to_delivery_p99_ms: round(pct(after, 99)),
      ...counts(ids),
    });
    console.log(results.at(-1));
    await reset(url);
  }

  if (PHASES.includes(3)) {
    const url2 = await startEngine(PORT + 1);
    const { ids, t0, tInserted } = await insertAll([url, url2]);
    await waitDelivered(ids, 120_000);
    await new Promise((r) => setTimeout(r, 2000)); // would-be duplicates have time to arrive
    results.push(throughputReport('2 engines: 20k rows, 8 clients', ids, t0, tInserted));
    console.log(results.at(-1));
    await stopEngine(PORT + 1);
    await reset(url);
  }

  if (PHASES.includes(4)) {
    let killedAt;
    let restartedAt;
    const watcher = (async () => {
      while (arrivals.size < ROWS / 3) await new Promise((r) => setTimeout(r, 5));
      killedAt = now();
      await stopEngine(PORT, 'SIGKILL');
      await startEngine(PORT);
      restartedAt = now();
    })();
    // Rows come from plain Postgres clients here, so the inserts go on while the engine is down.
    const { ids, t0, tInserted } = await insertAll([]);
    await watcher;
    await waitDelivered(ids, 180_000);
    await new Promise((r) => setTimeout(r, 2000));
    results.push({ ...throughputReport('1 engine SIGKILLed at 1/3 delivered, restarted (rows from 8 pg clients)', ids, t0, tInserted), killed_at_s: round((killedAt - t0) / 1000, 2), restarted_after_s: round((restartedAt - killedAt) / 1000, 2) });
    console.log(results.at(-1));
  }
} finally {
  await bench.close();
}
console.log('\nbench:events summary (JSON)');
console.log(JSON.stringify({ date: new Date().toISOString(), rows: ROWS, clients: CLIENTS, rate: RATE, results }, null, 2));
