#!/usr/bin/env node
/**
 * `npm run bench:replica -- [--shapes a_by_pk,c_nested_3] [--pairs 3] [--warmup 3] [--duration 8] [--conns 32] [--pool 8] [--writes 300]`
 *
 * Read replicas measured on the bench dataset (bench/dataset.sql) in a primary + hot
 * standby pair of its own (scripts/replica.mjs start: PostgreSQL 15, pg_basebackup -R; removed at the
 * end), so that nothing else runs on those servers; engine A reads from the primary only, engine B
 * has the standby as its read replica.
 *   1. Read-only load (wrk, interleaved A/B pairs per shape): req/s of each, and for B the share
 *      of the shape's statements that the primary still ran, counted by the servers themselves
 *      (pg_stat_statements on both: calls of statements reading "track", reset before each run).
 *   2. Read your writes: `--writes` sequential mutations (m_insert_one) on A and on B (B's answer
 *      carries X-Svc-Commit-Lsn: one more round trip after the commit); on B, right after a
 *      mutation, the query of its row by primary key without the token (a plain read) and, after
 *      another mutation, with it (a read-your-writes read): median and p99 latency of each read,
 *      and how many of those reads the standby served (with the token, the others went to the
 *      primary: not replayed within --read-replica-wait-for-lsn).
 * Output: Markdown on stdout; the engines' logs in .tmp/bench/replica-engine-<port>.log. Needs wrk and psql.
 *
 * wrk and psql run as child processes awaited asynchronously, never with a synchronous call: a
 * synchronous one blocks this process's event loop for the whole load run, so it cannot see an
 * engine close an idle keep-alive connection (after 30 s); fetch then wrote its next request on that
 * dead socket and failed with EPIPE or ECONNRESET (runs of more than 30 s between two requests).
 */
import { spawn, execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';

const loadAtStart = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bench = resolve(root, 'bench');
const { values: args } = parseArgs({
  options: {
    shapes: { type: 'string', default: 'a_by_pk,c_nested_3' },
    pairs: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    duration: { type: 'string', default: '8' },
    conns: { type: 'string', default: '32' },
    pool: { type: 'string', default: '8' },
    writes: { type: 'string', default: '300' },
  },
});
const SECRET = 'bench-admin-secret';
const replicaDir = join(tmpdir(), 'svc-bench-replica');
const replicaEnv = { ...process.env, SVC_REPLICA_DIR: replicaDir };
const run = promisify(execFile);
const psql = async (url, sql) => (await run('psql', [url, '-Atqc', sql])).stdout.trim();

execFileSync('node', ['scripts/buildServer.mjs'], { cwd: root, stdio: 'ignore' });
execFileSync('node', ['scripts/replica.mjs', 'stop'], { cwd: root, env: replicaEnv, stdio: 'ignore' });
const started = execFileSync('node', ['scripts/replica.mjs', 'start'], { cwd: root, env: replicaEnv }).toString();
const DB_URL = started.match(/primary\s+(\S+)/)[1].replace(/\/postgres$/, '/bench');
const STANDBY_URL = started.match(/standby\s+(\S+)/)[1].replace(/\/postgres$/, '/bench');
await psql(DB_URL.replace(/\/bench$/, '/postgres'), 'create database bench');
await psql(DB_URL, 'create extension pg_stat_statements');
execFileSync('psql', [DB_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-f', join(bench, 'dataset.sql')], { stdio: 'ignore' });
execFileSync('psql', [DB_URL, '-q', '-f', join(bench, 'mutations.sql')], { stdio: 'ignore' });
for (let i = 0; (await psql(STANDBY_URL, "select count(*) from pg_tables where tablename = 'bench_note'")) !== '1'; i++) {
  if (i > 600) throw new Error('the standby did not replay the dataset');
  await sleep(100);
}

async function startEngine(port, extra) {
  const log = openSync(join(root, '.tmp/bench', `replica-engine-${port}.log`), 'w');
  const child = spawn(process.execPath, ['--max-semi-space-size=4', 'dist/bin/svc-graphql-engine.js', 'serve'], {
    cwd: root, stdio: ['ignore', log, log],
    env: { ...process.env, NODE_ENV: 'production', SVC_GRAPHQL_DATABASE_URL: DB_URL, SVC_GRAPHQL_SERVER_PORT: String(port), SVC_GRAPHQL_SERVER_HOST: '127.0.0.1', SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_PG_CONNECTIONS: args.pool, ...extra },
  });
  for (let i = 0; i < 200; i++) {
    try { if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return child; } catch { /* not yet */ }
    await sleep(100);
  }
  child.kill('SIGKILL');
  throw new Error(`engine on ${port} did not become healthy`);
}

async function wrk(port, shape, seconds) {
  const body = join(root, '.tmp/bench', `replica-${shape}.json`);
  const out = join(root, '.tmp/bench', 'replica-run.json');
  writeFileSync(body, JSON.stringify({ query: readFileSync(join(bench, 'queries', `${shape}.hasura.graphql`), 'utf8'), variables: JSON.parse(readFileSync(join(bench, 'queries', `${shape}.variables.json`), 'utf8')) }));
  await run('wrk', ['-t1', `-c${args.conns}`, `-d${seconds}s`, '--timeout', '10s', '-s', join(bench, 'load/post.lua'), `http://127.0.0.1:${port}/v1/graphql`], { env: { ...process.env, BENCH_BODY_FILE: body, BENCH_WRK_JSON: out, BENCH_ADMIN_SECRET: SECRET } });
  const r = JSON.parse(readFileSync(out, 'utf8'));
  const errors = r.err_connect + r.err_read + r.err_write + r.err_status + r.err_timeout;
  if (errors > 0) throw new Error(`${shape} on ${port}: ${errors} errors`);
  return { requests: r.requests, rps: r.requests / (r.duration_us / 1e6) };
}

/** Calls of statements reading `table` on a server since its last reset (the engine's statements name it "public"."<table>"). */
const reads = async (url, table) => Number(await psql(url, `select coalesce(sum(calls), 0) from pg_stat_statements where query like '%"public"."${table}"%' and query not ilike 'insert%' and query not ilike 'with%'`));
const reset = () => Promise.all([DB_URL, STANDBY_URL].map((u) => psql(u, 'select pg_stat_statements_reset()')));
const post = async (port, body, headers = {}) => {
  const t0 = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET, ...headers }, body: JSON.stringify(body) });
  const json = await res.json();
  if (json.errors) throw new Error(JSON.stringify(json.errors));
  return { ms: performance.now() - t0, lsn: res.headers.get('x-svc-commit-lsn'), json };
};
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { p50: s[Math.floor(s.length / 2)], p99: s[Math.min(s.length - 1, Math.floor(s.length * 0.99))] };
};
const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

mkdirSync(join(root, '.tmp/bench'), { recursive: true });
const A = 18641;
const B = 18642;
const a = await startEngine(A, {});
const b = await startEngine(B, { SVC_GRAPHQL_READ_REPLICA_URLS: STANDBY_URL });
try {
  await fetch(`http://127.0.0.1:${A}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: '{"type":"clear_metadata","args":{}}' });
  await run(join(bench, 'track.sh'), [`http://127.0.0.1:${A}`], { env: { ...process.env, BENCH_ADMIN_SECRET: SECRET } });
  await fetch(`http://127.0.0.1:${B}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: '{"type":"reload_metadata","args":{}}' });
  await sleep(1000);
  const rows = [];
  for (const shape of args.shapes.split(',')) {
    const runs = { A: [], B: [] };
    for (let pair = 1; pair <= Number(args.pairs); pair++) {
      for (const side of pair % 2 === 1 ? ['A', 'B'] : ['B', 'A']) {
        const port = side === 'A' ? A : B;
        await wrk(port, shape, Number(args.warmup));
        await reset();
        const r = await wrk(port, shape, Number(args.duration));
        runs[side].push({ ...r, primary: await reads(DB_URL, 'track'), standby: await reads(STANDBY_URL, 'track') });
      }
    }
    const share = runs.B.map((r) => r.primary / r.requests);
    rows.push(`| ${shape} | ${med(runs.A.map((r) => r.rps)).toFixed(0)} | ${med(runs.B.map((r) => r.rps)).toFixed(0)} | ${med(runs.B.map((r, i) => r.rps / runs.A[i].rps)).toFixed(2)} | ${(100 * med(share)).toFixed(3)} % (${med(runs.B.map((r) => r.primary))} of ${med(runs.B.map((r) => r.requests))}) | ${med(runs.B.map((r) => r.standby))} |`);
    if (runs.A.some((r) => r.standby !== 0)) throw new Error('engine A read from the standby');
  }
  const mutation = { query: readFileSync(join(bench, 'queries', 'm_insert_one.hasura.graphql'), 'utf8'), variables: JSON.parse(readFileSync(join(bench, 'queries', 'm_insert_one.variables.json'), 'utf8')) };
  const readBack = (id) => ({ query: 'query($id: Int!) { bench_note_by_pk(id: $id) { id } }', variables: { id } });
  const lat = { A: [], B: [], plain: [], ryw: [] };
  let onStandby = 0;
  let plainOnStandby = 0;
  let plainMissed = 0;
  const load0 = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  for (let i = 0; i < Number(args.writes); i++) {
    lat.A.push((await post(A, mutation)).ms);
    // Counted before the write (the mutation's statements are not counted): the read comes right after it.
    const p0 = await reads(STANDBY_URL, 'bench_note');
    const p = await post(B, mutation);
    lat.B.push(p.ms);
    // The read right after the write, without the token: a plain read (it may miss the row).
    const pr = await post(B, readBack(p.json.data.insert_bench_note_one.id));
    lat.plain.push(pr.ms);
    if (pr.json.data.bench_note_by_pk === null) plainMissed++;
    if ((await reads(STANDBY_URL, 'bench_note')) > p0) plainOnStandby++;
    const s0 = await reads(STANDBY_URL, 'bench_note');
    const w = await post(B, mutation);
    const r = await post(B, readBack(w.json.data.insert_bench_note_one.id), { 'x-svc-commit-lsn': w.lsn });
    lat.ryw.push(r.ms);
    if (r.json.data.bench_note_by_pk === null) throw new Error('read your writes: the row was not there');
    if ((await reads(STANDBY_URL, 'bench_note')) > s0) onStandby++;
  }
  const load1 = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  const f = (s) => `${s.p50.toFixed(2)} / ${s.p99.toFixed(2)}`;
  console.log(`load average at start: ${loadAtStart}, at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ${args.pairs} interleaved pairs, ${args.warmup} s warm-up + ${args.duration} s, wrk -c${args.conns}, pool ${args.pool}\n`);
  console.log('| shape | A (primary only) req/s | B (one replica) req/s | B / A | B: share of the reads the primary ran | B: reads the standby ran |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(r);
  console.log(`\n| ${args.writes} sequential requests | p50 / p99 ms |\n|---|---:|`);
  console.log(`| mutation, A (primary only) | ${f(stats(lat.A))} |`);
  console.log(`| mutation, B (+ X-Svc-Commit-Lsn) | ${f(stats(lat.B))} |`);
  console.log(`| B: query right after a mutation, without the token (plain read) | ${f(stats(lat.plain))} |`);
  console.log(`| B: query right after a mutation, with the token (read your writes) | ${f(stats(lat.ryw))} |`);
  console.log(`\nplain reads: ${plainOnStandby} of ${args.writes} on the standby, ${plainMissed} did not see the row just written`);
  console.log(`reads with the token: ${onStandby} of ${args.writes} on the standby (the others by the primary: not replayed within the wait), every one saw its row`);
  console.log(`load average during the sequential part: ${load0} → ${load1}`);
} finally {
  a.kill('SIGTERM');
  b.kill('SIGTERM');
  await sleep(500);
  execFileSync('node', ['scripts/replica.mjs', 'stop'], { cwd: root, env: replicaEnv, stdio: 'ignore' });
}
