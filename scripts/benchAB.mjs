#!/usr/bin/env node
/**
 * `npm run bench:ab -- --b SVC_GRAPHQL_HTTP_FAST_PATH=false [--shapes a_by_pk,e_large_1000] [--pairs 3]
 *   [--warmup 3] [--duration 8] [--conns 32] [--pool 8]`, or `--cached <ttl>` (engine B's requests
 *   carry `@cached(ttl: <ttl>)`: a cached query against the same query uncached, both engines on defaults),
 *   or `--a-engine <checkout>` (engine A is that checkout's build: this code against an older one; with
 *   `--cached` too, both engines' requests carry `@cached`: the cache of this code against the older one's);
 *   `--pg-port <port>` runs the bench Postgres on that port (data under /tmp/bench-pg-<port>) instead of 55432,
 *   `--engine-port <port>` puts engine A on that port and B on the next (default 18631)
 *
 * A/B of one engine setting on the shared bench dataset: engine A (defaults) and engine B (defaults
 * plus the `--b` variables, several allowed) run side by side on the bench Postgres
 * (bench/pg-up.sh, 127.0.0.1:55432); for each shape, `--pairs` interleaved pairs of wrk runs
 * (A then B, B then A on even pairs), each after a warm-up. Reports per shape the req/s of A and B, the
 * ratio B/A of each pair and their median, each engine's CPU per request (user + system time of
 * its process over the measured seconds), the CPU per request of the Postgres backends serving that
 * engine's connections (found by their client ports) and the 1-minute load average of the runs. It measures what a hand-written part buys: run it with the
 * part switched off (docs/benchmarks.md lists the switches and the latest figures).
 * Needs wrk (`apt-get install -y wrk`), psql and the harness in bench/. Output: a Markdown
 * table on stdout, raw runs as JSON lines in .tmp/bench/ab-<UTC>.jsonl.
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bench = resolve(root, 'bench');
const { values: args } = parseArgs({
  options: {
    b: { type: 'string', multiple: true, default: [] },
    shapes: { type: 'string', default: 'a_by_pk,e_large_1000,m_insert_one' },
    pairs: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    duration: { type: 'string', default: '8' },
    conns: { type: 'string', default: '32' },
    pool: { type: 'string', default: '8' },
    cached: { type: 'string' },
    'a-engine': { type: 'string' },
    'pg-port': { type: 'string', default: '55432' },
    'engine-port': { type: 'string', default: '18631' },
  },
});
// Engine A from another checkout (its dist/, built first): a change against the code before it.
const aRoot = args['a-engine'] === undefined ? root : resolve(args['a-engine']);
const PORT_A = Number(args['engine-port']);
const PORT_B = PORT_A + 1;
const SECRET = 'bench-admin-secret';
const PG_PORT = Number(args['pg-port']);
const DB_URL = `postgres://postgres@127.0.0.1:${PG_PORT}/bench`;
// Another port: a cluster of its own, so runs on a shared machine do not meet in one Postgres.
const pgEnv = PG_PORT === 55432 ? process.env : { ...process.env, PGPORT: String(PG_PORT), PGBASE: `/tmp/bench-pg-${PG_PORT}` };
const bVars = Object.fromEntries(args.b.map((kv) => { const i = kv.indexOf('='); return [kv.slice(0, i), kv.slice(i + 1)]; }));
if (Object.keys(bVars).length === 0 && args.cached === undefined && args['a-engine'] === undefined) throw new Error('--b NAME=VALUE (the setting engine B runs with), --cached <ttl> or --a-engine <checkout> is required');
for (const tool of ['wrk', 'psql']) {
  try { execFileSync('which', [tool], { stdio: 'ignore' }); } catch { console.error(`benchAB: ${tool} is not installed`); process.exit(2); }
}

execFileSync(join(bench, 'pg-up.sh'), { stdio: 'ignore', env: pgEnv });
const tracks = execFileSync('psql', [DB_URL, '-Atqc', "select count(*) from pg_tables where tablename='track'"]).toString().trim();
if (tracks !== '1') execFileSync('psql', [DB_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-f', join(bench, 'dataset.sql')], { stdio: 'ignore' });
execFileSync('node', ['scripts/buildServer.mjs'], { cwd: root, stdio: 'ignore' });
if (aRoot !== root) execFileSync('node', ['scripts/buildServer.mjs'], { cwd: aRoot, stdio: 'ignore' });

async function startEngine(port, extra, dir = root) {
  const child = spawn(process.execPath, ['--max-semi-space-size=4', 'dist/bin/svc-graphql-engine.js', 'serve'], {
    cwd: dir, stdio: 'ignore',
    env: {
      ...process.env, NODE_ENV: 'production', SVC_GRAPHQL_DATABASE_URL: DB_URL, SVC_GRAPHQL_SERVER_PORT: String(port),
      SVC_GRAPHQL_SERVER_HOST: '127.0.0.1', SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_PG_CONNECTIONS: args.pool, ...extra,
    },
  });
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child; } catch { /* not yet */ }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`engine on ${port} did not become healthy`);
}

const cpuSeconds = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks (100 Hz)
};

/** The Postgres backends serving `enginePid`'s connections (their client ports, matched in pg_stat_activity). */
function backendsOf(enginePid) {
  const ss = execFileSync('ss', ['-tnpH', `dport = :${PG_PORT}`]).toString();
  const ports = ss.split('\n').filter((l) => l.includes(`pid=${enginePid},`)).map((l) => l.trim().split(/\s+/)[3]?.split(':').at(-1)).filter(Boolean);
  if (ports.length === 0) return [];
  const out = execFileSync('psql', [DB_URL, '-Atqc', `select pid from pg_stat_activity where client_port in (${ports.join(',')})`]).toString();
  return out.split('\n').filter(Boolean).map(Number);
}
const cpuOf = (pids) => pids.reduce((sum, pid) => { try { return sum + cpuSeconds(pid); } catch { return sum; } }, 0);

function wrk(port, shape, seconds, out) {
  let query = readFileSync(join(bench, 'queries', `${shape}.hasura.graphql`), 'utf8');
  // --cached: engine B's requests; with --a-engine, both engines' (the cache itself, older code against this one).
  if (args.cached !== undefined && (port === PORT_B || aRoot !== root)) query = query.replace('{', `@cached(ttl: ${Number(args.cached)}) {`);
  const variables = JSON.parse(readFileSync(join(bench, 'queries', `${shape}.variables.json`), 'utf8'));
  // A shape with queries/<shape>.vary.json (e.g. {"id": [1, 10000]}): wrk cycles that variable per
  // request (bench/load/post.lua), as run.sh does, so concurrent requests never write the same row.
  const varyFile = join(bench, 'queries', `${shape}.vary.json`);
  const vary = existsSync(varyFile) ? Object.entries(JSON.parse(readFileSync(varyFile, 'utf8')))[0] : undefined;
  if (vary) variables[vary[0]] = '__BENCH_VARY__';
  const body = join(root, '.tmp/bench', `ab-${shape}-${port}.json`);
  writeFileSync(body, JSON.stringify({ query, variables }));
  execFileSync('wrk', ['-t1', `-c${args.conns}`, `-d${seconds}s`, '--timeout', '10s', '-s', join(bench, 'load/post.lua'), `http://127.0.0.1:${port}/v1/graphql`], {
    env: { ...process.env, ...(vary ? { BENCH_VARY_TOKEN: '"__BENCH_VARY__"', BENCH_VARY_MIN: String(vary[1][0]), BENCH_VARY_MAX: String(vary[1][1]) } : {}), BENCH_BODY_FILE: body, BENCH_WRK_JSON: out, BENCH_ADMIN_SECRET: SECRET, BENCH_GQL_ERRORS: shape.startsWith('m_') ? '1' : '' },
    stdio: 'ignore',
  });
  return JSON.parse(readFileSync(out, 'utf8'));
}

mkdirSync(join(root, '.tmp/bench'), { recursive: true });
const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+/, '');
const raw = join(root, '.tmp/bench', `ab-${stamp}.jsonl`);
const a = await startEngine(PORT_A, {}, aRoot);
const b = await startEngine(PORT_B, bVars);
try {
  await fetch(`http://127.0.0.1:${PORT_A}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: '{"type":"clear_metadata","args":{}}' });
  execFileSync(join(bench, 'track.sh'), [`http://127.0.0.1:${PORT_A}`], { env: { ...process.env, BENCH_ADMIN_SECRET: SECRET }, stdio: 'ignore' });
  await fetch(`http://127.0.0.1:${PORT_B}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: '{"type":"reload_metadata","args":{}}' });
  const rows = [];
  for (const shape of args.shapes.split(',')) {
    const runs = { A: [], B: [] };
    for (let pair = 1; pair <= Number(args.pairs); pair++) {
      const order = pair % 2 === 1 ? ['A', 'B'] : ['B', 'A'];
      for (const side of order) {
        const [port, child] = side === 'A' ? [PORT_A, a] : [PORT_B, b];
        if (shape.startsWith('m_')) execFileSync('psql', [DB_URL, '-q', '-f', join(bench, 'mutations.sql')], { stdio: 'ignore' });
        wrk(port, shape, Number(args.warmup), join(root, '.tmp/bench/ab-warm.json'));
        const backends = backendsOf(child.pid);
        const cpu0 = cpuSeconds(child.pid);
        const pg0 = cpuOf(backends);
        const r = wrk(port, shape, Number(args.duration), join(root, '.tmp/bench/ab-run.json'));
        const cpu = cpuSeconds(child.pid) - cpu0;
        const pgCpu = cpuOf(backends) - pg0;
        const reqs = r.requests;
        const rps = reqs / (r.duration_us / 1e6);
        const errors = r.err_connect + r.err_read + r.err_write + r.err_status + r.err_timeout + (r.gql_errors ?? 0);
        if (errors > 0) throw new Error(`${shape} on ${side}: ${errors} errors (${JSON.stringify(r)})`);
        const run = { shape, pair, side, rps, p50_ms: r.lat_p50_us / 1000, p99_ms: r.lat_p99_us / 1000, cpu_ms_per_req: (cpu * 1000) / reqs, pg_cpu_ms_per_req: (pgCpu * 1000) / reqs, load: readFileSync('/proc/loadavg', 'utf8').split(' ')[0] };
        runs[side].push(run);
        appendFileSync(raw, JSON.stringify({ ...run, b: bVars }) + '\n');
      }
    }
    const ratios = runs.A.map((ra, i) => runs.B[i].rps / ra.rps).sort((x, y) => x - y);
    const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    rows.push(`| ${shape} | ${med(runs.A.map((r) => r.rps)).toFixed(0)} | ${med(runs.B.map((r) => r.rps)).toFixed(0)} | **${med(ratios).toFixed(2)}** [${ratios[0].toFixed(2)}–${ratios.at(-1).toFixed(2)}] | ${med(runs.A.map((r) => r.cpu_ms_per_req)).toFixed(3)} / ${med(runs.B.map((r) => r.cpu_ms_per_req)).toFixed(3)} | ${med(runs.A.map((r) => r.pg_cpu_ms_per_req)).toFixed(3)} / ${med(runs.B.map((r) => r.pg_cpu_ms_per_req)).toFixed(3)} | ${runs.A.concat(runs.B).map((r) => Number(r.load)).sort((x, y) => x - y).filter((_, i, xs) => i === 0 || i === xs.length - 1).join('–')} |`);
  }
  console.log(`B = defaults + ${args.cached !== undefined ? `@cached(ttl: ${args.cached}) on every request` : args.b.join(' ')}; ${args.pairs} interleaved pairs, ${args.warmup} s warm-up + ${args.duration} s, wrk -c${args.conns}, pool ${args.pool}; raw: ${raw}\n`);
  console.log('| shape | A req/s | B req/s | B / A (median [range]) | engine CPU ms/req A / B | Postgres CPU ms/req A / B | load average |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(r);
} finally {
  a.kill('SIGTERM');
  b.kill('SIGTERM');
}
