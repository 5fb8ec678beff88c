#!/usr/bin/env node
/**
 * `node scripts/withPostgres.mjs node scripts/benchActions.mjs` (after `npm run build`)
 *
 * Overhead of a synchronous action over calling its handler directly (docs/benchmarks.md). Three
 * processes: the handler (node:http, keep-alive, answers `{id, name}`), the engine (dist/bin/svc-graphql-engine.js
 * on a fresh database of SVC_TEST_DATABASE_URL's server) and this load generator: a closed loop of
 * CONNS keep-alive connections for DURATION s per target after WARMUP s, targets interleaved
 * ROUNDS times. Targets: the handler directly (the engine's exact request body), the action without
 * a relationship (output shaped in Node, no SQL), and the action whose output has an object
 * relationship to a table (one SQL statement per request — counted from pg_stat_database's
 * xact_commit of the engine's database: every autocommit statement is one transaction), plus a
 * one-statement table query as the engine's own reference on the machine at that moment.
 *
 * Env: CONNS=16 DURATION=10 WARMUP=2 ROUNDS=3 PORT=18733 HANDLER_PORT=18734, HANDLER_WORK_MS=0 (CPU the
 * handler spends per request before answering, to see the overhead against a handler that does
 * something; 0 is a no-op handler), BENCH_NODE_FLAGS (engine node
 * flags, e.g. --cpu-prof), BENCH_PAUSE=<s> (keep engine and handler up that long for manual probes)
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONNS = Number(process.env.CONNS ?? 16);
const DURATION = Number(process.env.DURATION ?? 10);
const WARMUP = Number(process.env.WARMUP ?? 2);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PORT = Number(process.env.PORT ?? 18733);
const HPORT = Number(process.env.HANDLER_PORT ?? 18734);
const ADMIN = 'bench-actions-secret';
const WORK_MS = Number(process.env.HANDLER_WORK_MS ?? 0);
const maint = process.env.SVC_TEST_DATABASE_URL;
if (!maint) throw new Error('run through scripts/withPostgres.mjs (SVC_TEST_DATABASE_URL)');

const HANDLER_SRC = `
const http = require('node:http');
http.createServer((req, res) => {
  const c = []; req.on('data', (d) => c.push(d)); req.on('end', () => {
    const b = JSON.parse(Buffer.concat(c).toString());
    const until = performance.now() + ${WORK_MS};
    while (performance.now() < until);
    const out = JSON.stringify({ id: b.input.id, name: 'n' + b.input.id });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(out) }); res.end(out);
  });
}).listen(${HPORT}, '127.0.0.1', () => console.log('ready'));`;

const children = [];
const stopAll = () => children.forEach((c) => c.kill('SIGTERM'));
process.on('exit', stopAll);

function start(cmd, args, env, readyText) {
  const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  return new Promise((res, rej) => {
    let out = '';
    // Once ready, the child's output is drained and dropped (kept, the engine's per-request log lines
    // would cost this load generator CPU).
    const on = (d) => {
      out += d;
      if (!out.includes(readyText)) return;
      child.stdout.off('data', on);
      child.stderr.off('data', on);
      child.stdout.resume();
      child.stderr.resume();
      res(child);
    };
    child.stdout.on('data', on);
    child.stderr.on('data', on);
    child.once('exit', (code) => rej(new Error(`${cmd} exited ${code}: ${out.slice(-2000)}`)));
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONNS });
function post(port, path, body, headers = {}) {
  return new Promise((res, rej) => {
    const r = http.request({ host: '127.0.0.1', port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (resp) => {
      const c = [];
      resp.on('data', (d) => c.push(d));
      resp.on('end', () => res({ status: resp.statusCode, body: Buffer.concat(c).toString() }));
    });
    r.on('error', rej);
    r.end(body);
  });
}

/** Closed loop: CONNS workers for `seconds`; latencies in ms. */
async function load(target, seconds) {
  const lat = [];
  const end = performance.now() + seconds * 1000;
  await Promise.all(Array.from({ length: CONNS }, async () => {
    while (performance.now() < end) {
      const t = performance.now();
      const r = await target();
      if (r.status !== 200 || r.body.includes('"errors"')) throw new Error(`bad answer: ${r.status} ${r.body}`);
      lat.push(performance.now() - t);
    }
  }));
  lat.sort((a, b) => a - b);
  const q = (p) => lat[Math.min(lat.length - 1, Math.floor(p * lat.length))];
  return { rps: lat.length / seconds, p50: q(0.5), p99: q(0.99) };
}

const db = `bench_actions_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: maint });
await admin.connect();
await admin.query(`CREATE DATABASE ${db}`);
const url = new URL(maint);
url.pathname = `/${db}`;
try {
  await start(process.execPath, ['-e', HANDLER_SRC], {}, 'ready');
  await start(process.execPath, ['--max-semi-space-size=4', ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), 'dist/bin/svc-graphql-engine.js', 'serve'], {
    SVC_GRAPHQL_DATABASE_URL: url.toString(), SVC_GRAPHQL_SERVER_PORT: String(PORT), SVC_GRAPHQL_ADMIN_SECRET: ADMIN,
    BENCH_HANDLER: `http://127.0.0.1:${HPORT}`,
  }, 'listening');
  const q = (body) => post(PORT, '/v1/query', JSON.stringify(body), { 'x-svc-admin-secret': ADMIN });
  const setup = await q({ type: 'bulk', args: [
    { type: 'run_sql', args: { sql: "CREATE TABLE bench_user (id int PRIMARY KEY, name text); INSERT INTO bench_user SELECT g, 'user ' || g FROM generate_series(1, 1000) g;" } },
    { type: 'track_table', args: { schema: 'public', name: 'bench_user' } },
    { type: 'set_custom_types', args: { objects: [{ name: 'BenchOut', fields: [{ name: 'id', type: 'Int!' }, { name: 'name', type: 'String' }], relationships: [{ name: 'user', type: 'object', remote_table: 'bench_user', field_mapping: { id: 'id' } }] }] } },
    { type: 'create_action', args: { name: 'bench_echo', definition: { arguments: [{ name: 'id', type: 'Int!' }], output_type: 'BenchOut', handler: '{{BENCH_HANDLER}}/echo' } } },
  ] });
  if (setup.status !== 200) throw new Error(setup.body);

  const gql = (query) => JSON.stringify({ query });
  const directBody = JSON.stringify({ action: { name: 'bench_echo' }, input: { id: 5 }, session_variables: { 'x-svc-role': 'admin' } });
  const plainQ = gql('mutation { bench_echo(id: 5) { id name } }');
  const relQ = gql('mutation { bench_echo(id: 5) { id name user { id name } } }');
  const tableQ = gql('{ bench_user_by_pk(id: 5) { id name } }');
  const H = { 'x-svc-admin-secret': ADMIN };
  const targets = {
    direct: () => post(HPORT, '/echo', directBody),
    action: () => post(PORT, '/v1/graphql', plainQ, H),
    action_rel: () => post(PORT, '/v1/graphql', relQ, H),
    // Reference: the engine's own floor for a one-statement query on this machine at this moment.
    table_query: () => post(PORT, '/v1/graphql', tableQ, H),
  };
  console.log(JSON.parse((await targets.action_rel()).body));
  if (process.env.BENCH_PAUSE) { console.log('paused', PORT, HPORT); await new Promise((r) => setTimeout(r, Number(process.env.BENCH_PAUSE) * 1000)); }

  // Statements per request: xact_commit of the engine's database over N sequential requests.
  const xacts = async () => {
    await new Promise((r) => setTimeout(r, 4000)); // backends flush their counters at most once a second (later under load)
    return Number((await admin.query('SELECT xact_commit FROM pg_stat_database WHERE datname = $1', [db])).rows[0].xact_commit);
  };
  for (const [name, t] of [['action', targets.action], ['action_rel', targets.action_rel]]) {
    const before = await xacts();
    for (let i = 0; i < 200; i++) await t();
    console.log(`${name}: ${((await xacts()) - before) / 200} statements (transactions) per request`);
  }

  const results = Object.fromEntries(Object.keys(targets).map((k) => [k, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, t] of Object.entries(targets)) {
      await load(t, WARMUP);
      const r = await load(t, DURATION);
      results[name].push(r);
      console.log(`round ${round + 1} ${name}: ${r.rps.toFixed(0)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`);
    }
  }
  const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const m = Object.fromEntries(Object.entries(results).map(([k, rs]) => [k, { rps: med(rs.map((r) => r.rps)), p50: med(rs.map((r) => r.p50)), p99: med(rs.map((r) => r.p99)) }]));
  console.log(`\nmedian of ${ROUNDS} rounds, ${CONNS} connections, ${DURATION} s each`);
  console.log('| target | req/s | p50 ms | p99 ms | added p50 ms | added p99 ms | req/s ratio |');
  console.log('|---|---|---|---|---|---|---|');
  for (const [k, v] of ROUNDS > 0 ? Object.entries(m) : []) {
    const d = m.direct;
    console.log(`| ${k} | ${v.rps.toFixed(0)} | ${v.p50.toFixed(2)} | ${v.p99.toFixed(2)} | ${(v.p50 - d.p50).toFixed(2)} | ${(v.p99 - d.p99).toFixed(2)} | ${(v.rps / d.rps).toFixed(2)} |`);
  }
} finally {
  stopAll();
  await new Promise((r) => setTimeout(r, 500));
  await admin.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
}
process.exit(0);
