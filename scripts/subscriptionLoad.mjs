#!/usr/bin/env node
/**
 * Subscription load: holds N live queries with distinct variables against a running engine, first
 * measures an idle window (no writes: engine CPU and Postgres statements, which change-driven live
 * queries keep at the change-counter reads only), then commits updates to rows that subscribers
 * watch and measures, over a fixed window:
 *   - the time from each committed UPDATE to the matching subscriber's message (p50/p90/p99/max),
 *   - the engine's CPU (% of one core, from /proc/<pid>/stat) and RSS (/proc/<pid>/status), the
 *     engine's worker processes (its children) included,
 *   - Postgres statements per second (pg_stat_statements: all, and the multiplexed polls only),
 *   - messages that carried no change (must be 0).
 *
 *   node scripts/subscriptionLoad.mjs --url http://127.0.0.1:18611 --engine-pid <pid> \
 *     --pg postgres://postgres:postgres@127.0.0.1:55611/bench --subs 10000 [--per-conn 1] \
 *     [--kind live|stream] [--protocol graphql-ws] [--idle 30] [--duration 30] [--updates-per-sec 20] \
 *     [--admin-secret s] [--table track] [--second-table two_live_row]
 *
 * `--kind live` (default): each subscription is `<table>_by_pk(id: $id) { id name }` with its own id
 * (1..N), so N subscriptions are N cohorts. `--kind stream`: each is `<table>_stream(batch_size: 10,
 * cursor: {initial_value: {id: $id}})` from its own cursor past the last row (all in one multiplexed
 * statement; nothing to deliver while nothing is inserted); streams are measured idle only
 * (`--duration 0`). `--duration 0` skips the update window: the idle figures alone. A connection may
 * carry hundreds of subscriptions (`--per-conn`), sent at once as a reconnecting client sends them.
 * `--second-table f` (live, idle only): every even id subscribes `<f>_by_pk` instead (a table of
 * another source, its root fields prefixed: `two_live_row`), so the live queries are spread over
 * two databases; `--pg` must then reach the cluster holding both (pg_stat_statements counts all).
 * Needs the bench dataset (bench/dataset.sql, tracked with bench/track.json), or any tracked
 * table with `id int` and `name text` holding rows 1..N (`npm run bench:live` sets all of it up), and
 * pg_stat_statements. Prints one JSON line with the figures and the load average.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import WebSocket from 'ws';

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8080' },
    'engine-pid': { type: 'string' },
    pg: { type: 'string' },
    subs: { type: 'string', default: '1000' },
    'per-conn': { type: 'string', default: '1' },
    protocol: { type: 'string', default: 'graphql-ws' },
    duration: { type: 'string', default: '30' },
    idle: { type: 'string', default: '30' },
    'updates-per-sec': { type: 'string', default: '20' },
    'admin-secret': { type: 'string' },
    'open-concurrency': { type: 'string', default: '200' },
    table: { type: 'string', default: 'track' },
    kind: { type: 'string', default: 'live' },
    'second-table': { type: 'string' },
  },
});
const N = Number(opt.subs);
const PER_CONN = Number(opt['per-conn']);
const DURATION_S = Number(opt.duration);
const IDLE_S = Number(opt.idle);
const UPS = Number(opt['updates-per-sec']);
const PROTOCOL = opt.protocol;
const START = PROTOCOL === 'graphql-ws' ? 'start' : 'subscribe';
const DATA = PROTOCOL === 'graphql-ws' ? 'data' : 'next';
const TABLE = opt.table;
if (!/^[a-z_][a-z0-9_]*$/.test(TABLE)) throw new Error(`--table: not a plain table name: ${TABLE}`);
const KIND = opt.kind;
if (KIND !== 'live' && KIND !== 'stream') throw new Error('--kind is live or stream');
if (KIND === 'stream' && DURATION_S > 0) throw new Error('--kind stream measures idle streams only: give --duration 0');
/** Stream cursors start past every row (ids of the bench dataset are below this). */
const STREAM_FROM = 1_000_000_000;
const FIELD = KIND === 'live' ? `${TABLE}_by_pk` : `${TABLE}_stream`;
const QUERY = KIND === 'live'
  ? `subscription ($id: Int!) { ${FIELD}(id: $id) { id name } }`
  : `subscription ($id: Int!) { ${FIELD}(batch_size: 10, cursor: {initial_value: {id: $id}}) { id name } }`;
const SECOND = opt['second-table'];
if (SECOND !== undefined && !/^[a-z_][a-z0-9_]*$/.test(SECOND)) throw new Error(`--second-table: not a plain name: ${SECOND}`);
if (SECOND !== undefined && (KIND !== 'live' || DURATION_S > 0)) throw new Error('--second-table measures idle live queries only: give --duration 0');
/** The field and query of subscription `id`: every even one on the second table when given. */
const fieldOf = (id) => (SECOND !== undefined && id % 2 === 0 ? `${SECOND}_by_pk` : FIELD);
const queryOf = (id) => (SECOND !== undefined && id % 2 === 0 ? `subscription ($id: Int!) { ${SECOND}_by_pk(id: $id) { id name } }` : QUERY);
const headers = opt['admin-secret'] ? { 'x-svc-admin-secret': opt['admin-secret'] } : {};
const wsUrl = opt.url.replace(/^http/, 'ws') + '/v1/graphql';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => performance.now();

/** id → { name last seen, initial received } */
const subs = new Map();
/** name written by an update → commit time */
const pending = new Map();
const latencies = [];
let unchangedMessages = 0;
let errors = 0;
let initialReceived = 0;
let closedEarly = 0;
/** Messages after the initial results (idle: must stay 0). */
let laterMessages = 0;

function onData(id, payload) {
  const s = subs.get(id);
  if (payload.errors) {
    errors++;
    return;
  }
  const name = KIND === 'live' ? payload.data?.[fieldOf(id)]?.name : JSON.stringify(payload.data?.[FIELD]);
  if (s.initial) laterMessages++;
  if (!s.initial) {
    s.initial = true;
    s.name = name;
    initialReceived++;
    return;
  }
  if (name === s.name) unchangedMessages++;
  s.name = name;
  const t = pending.get(name);
  if (t !== undefined) {
    latencies.push(now() - t);
    pending.delete(name);
  }
}

function openConnection(firstId, count) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(wsUrl, PROTOCOL);
    ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: { headers } })));
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString());
      if (m.type === 'connection_ack') {
        for (let id = firstId; id < firstId + count; id++) {
          subs.set(id, { initial: false, name: undefined });
          ws.send(JSON.stringify({ id: String(id), type: START, payload: { query: queryOf(id), variables: { id: KIND === 'live' ? id : STREAM_FROM + id } } }));
        }
        resolve(ws);
      } else if (m.type === DATA) onData(Number(m.id), m.payload);
      else if (m.type === 'error' || m.type === 'connection_error') {
        errors++;
        reject(new Error(JSON.stringify(m)));
      }
    });
    ws.on('error', reject);
    ws.on('close', () => closedEarly++);
  });
}

/** The engine's process and its children (the workers of `--workers`). */
function engineProcesses(pid) {
  const out = [String(pid)];
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8');
      if (f.slice(f.lastIndexOf(')') + 2).split(' ')[1] === String(pid)) out.push(p);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}
function cpuTicks(pid) {
  let t = 0;
  for (const p of engineProcesses(pid)) {
    const f = readFileSync(`/proc/${p}/stat`, 'utf8');
    const parts = f.slice(f.lastIndexOf(')') + 2).split(' ');
    t += Number(parts[11]) + Number(parts[12]); // utime + stime (fields 14, 15)
  }
  return t;
}
const rssMb = (pid) => engineProcesses(pid).reduce((sum, p) => sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))[1]) / 1024, 0);
const CLK_TCK = 100;

async function statementCounts(db) {
  const r = await db.query(`SELECT coalesce(sum(calls), 0)::bigint AS all,
    coalesce(sum(calls) FILTER (WHERE query LIKE '%FROM unnest($1::"_uuid", $2::"_json")%' AND query NOT LIKE 'EXPLAIN%'), 0)::bigint AS polls,
    coalesce(sum(calls) FILTER (WHERE query LIKE '%FROM pg_locks%'), 0)::bigint AS marks
    FROM pg_stat_statements`);
  return { all: Number(r.rows[0].all), polls: Number(r.rows[0].polls), marks: Number(r.rows[0].marks) };
}

const pct = (sorted, p) => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]);

async function main() {
  const db = new pg.Client({ connectionString: opt.pg });
  await db.connect();
  await db.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const pid = opt['engine-pid'];

  const t0 = now();
  const sockets = [];
  const conns = Math.ceil(N / PER_CONN);
  const concurrency = Number(opt['open-concurrency']);
  for (let c = 0; c < conns; c += concurrency) {
    const batch = [];
    for (let k = c; k < Math.min(conns, c + concurrency); k++) {
      const first = 1 + k * PER_CONN;
      batch.push(openConnection(first, Math.min(PER_CONN, N - k * PER_CONN)));
    }
    sockets.push(...(await Promise.all(batch)));
  }
  while (initialReceived < N) {
    if (now() - t0 > 1_800_000) throw new Error(`only ${initialReceived}/${N} initial results after 1800 s`);
    await sleep(100);
  }
  const rampSeconds = (now() - t0) / 1000;
  await sleep(3000); // settle: pollers in their steady rhythm

  // Idle window: nothing is written; whatever the engine and Postgres do now is the cost of holding.
  let idle = null;
  if (IDLE_S > 0) {
    const icpu0 = pid ? cpuTicks(pid) : 0;
    const ist0 = await statementCounts(db);
    const i0 = now();
    const before = laterMessages;
    await sleep(IDLE_S * 1000);
    const idleS = (now() - i0) / 1000;
    const icpu1 = pid ? cpuTicks(pid) : 0;
    const ist1 = await statementCounts(db);
    idle = {
      window_s: Math.round(idleS * 10) / 10,
      engine_cpu_pct_of_one_core: pid ? Math.round(((icpu1 - icpu0) / CLK_TCK / idleS) * 1000) / 10 : null,
      // minus the two statementCounts queries themselves
      pg_statements_per_s: Math.round(((ist1.all - ist0.all - 1) / idleS) * 10) / 10,
      pg_poll_statements_per_s: Math.round(((ist1.polls - ist0.polls) / idleS) * 10) / 10,
      pg_stream_bound_statements_per_s: Math.round(((ist1.marks - ist0.marks) / idleS) * 10) / 10,
      engine_rss_mb: pid ? Math.round(rssMb(pid)) : null,
      messages: laterMessages - before,
      load_average: loadavg().map((x) => Math.round(x * 100) / 100),
    };
  }
  if (DURATION_S <= 0) {
    console.log(JSON.stringify({ kind: KIND, subscriptions: N, connections: conns, protocol: PROTOCOL, ramp_s: Math.round(rampSeconds * 10) / 10, idle, errors, closed_early: closedEarly }));
    for (const ws of sockets) ws.terminate();
    await db.end();
    process.exit(0);
  }

  const cpu0 = pid ? cpuTicks(pid) : 0;
  const st0 = await statementCounts(db);
  const w0 = now();
  let counter = 0;
  let updates = 0;
  const order = Array.from({ length: N }, (_, i) => i + 1);
  for (let i = N - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  const rss = [];
  const rssTimer = pid ? setInterval(() => rss.push(rssMb(pid)), 1000) : undefined;
  while (now() - w0 < DURATION_S * 1000) {
    // ids in a shuffled order: no row is updated twice in a window, so no update is superseded
    const id = order[updates % N];
    const name = `load-${process.pid}-${++counter}`;
    // Timed from the commit's acknowledgement; a message that beats the acknowledgement (a loaded
    // client) is timed from when the UPDATE was sent.
    pending.set(name, now());
    await db.query(`UPDATE ${TABLE} SET name = $1 WHERE id = $2`, [name, id]);
    if (pending.has(name)) pending.set(name, now());
    updates++;
    await sleep(1000 / UPS);
  }
  const w1 = now();
  const cpu1 = pid ? cpuTicks(pid) : 0;
  const st1 = await statementCounts(db);
  await sleep(3000); // let the last updates arrive
  if (rssTimer) clearInterval(rssTimer);
  const windowS = (w1 - w0) / 1000;
  const sorted = [...latencies].sort((a, b) => a - b);
  const round = (x) => (x === null ? null : Math.round(x));
  const out = {
    kind: KIND,
    subscriptions: N,
    connections: conns,
    protocol: PROTOCOL,
    ramp_s: Math.round(rampSeconds * 10) / 10,
    idle,
    window_s: Math.round(windowS * 10) / 10,
    updates,
    delivered: latencies.length,
    missed: pending.size,
    latency_ms: { p50: round(pct(sorted, 50)), p90: round(pct(sorted, 90)), p99: round(pct(sorted, 99)), max: round(sorted.at(-1) ?? null) },
    engine_cpu_pct_of_one_core: pid ? Math.round(((cpu1 - cpu0) / CLK_TCK / windowS) * 1000) / 10 : null,
    engine_rss_mb: pid ? { max: Math.round(Math.max(...rss)), end: Math.round(rss.at(-1)) } : null,
    pg_statements_per_s: Math.round(((st1.all - st0.all) / windowS) * 10) / 10,
    pg_poll_statements_per_s: Math.round(((st1.polls - st0.polls) / windowS) * 10) / 10,
    unchanged_messages: unchangedMessages,
    engine_processes: pid ? engineProcesses(pid).length : null,
    load_average: loadavg().map((x) => Math.round(x * 100) / 100),
    errors,
    closed_early: closedEarly,
  };
  console.log(JSON.stringify(out));
  for (const ws of sockets) ws.terminate();
  await db.end();
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
