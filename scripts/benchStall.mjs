#!/usr/bin/env node
/**
 * `npm run bench:stall [-- --engine <checkout>] [--rounds 3]`
 *
 * The longest stall of the engine per hostile input: the engine runs alone in a child process
 * (the checkout's dist/, built first; `--engine` points at another checkout to compare), a second
 * connection (from a worker thread, so the sender's own work is not counted) times `GET /healthz` back to back while one hostile request or WebSocket message is
 * sent, and the slowest /healthz answer in that window is the stall (best of `--rounds`, so the
 * figure is the engine's, not the shared machine's). Inputs: bodies before authentication (POST-mode
 * auth webhook, /v1/query, /v1/metadata, a WebSocket message before connection_init), non-admin
 * bodies costly to parse (tests/support/hostileBodies.ts), and two admin replace_metadata: a 2.8 MB query
 * collection and 300 tables with permissions for 3 roles.
 * Needs the bench Postgres (bench/pg-up.sh, 127.0.0.1:55432); uses its own database
 * `stall_bench`. Output: a Markdown table (input, status, stall ms) on stdout.
 */
import { spawn, execFileSync } from 'node:child_process';
import { createServer, request } from 'node:http';
import { Worker } from 'node:worker_threads';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import * as bodies from '../tests/support/hostileBodies.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values: args } = parseArgs({ options: { engine: { type: 'string', default: root }, rounds: { type: 'string', default: '3' } } });
const engineDir = resolve(args.engine);
const SECRET = 'stall-bench-secret';
const DB = 'postgres://postgres@127.0.0.1:55432/stall_bench';

execFileSync(resolve(root, 'bench/pg-up.sh'), { stdio: 'ignore' });
try { execFileSync('psql', ['postgres://postgres@127.0.0.1:55432/postgres', '-qc', 'CREATE DATABASE stall_bench'], { stdio: 'ignore' }); } catch { /* exists */ }
execFileSync('node', ['scripts/buildServer.mjs'], { cwd: engineDir, stdio: 'ignore' });

// The POST-mode auth webhook: every caller is `user`.
const hook = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('{"X-Svc-Role":"user"}'));
});
await new Promise((r) => hook.listen(0, '127.0.0.1', r));

const port = 18700 + Math.floor(Math.random() * 200);
const child = spawn(process.execPath, ['dist/bin/svc-graphql-engine.js', 'serve'], {
  cwd: engineDir, stdio: 'ignore',
  env: {
    ...process.env, NODE_ENV: 'production', SVC_GRAPHQL_DATABASE_URL: DB, SVC_GRAPHQL_SERVER_PORT: String(port), SVC_GRAPHQL_SERVER_HOST: '127.0.0.1',
    SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_AUTH_HOOK: `http://127.0.0.1:${hook.address().port}/`, SVC_GRAPHQL_AUTH_HOOK_MODE: 'POST',
  },
});
const base = `http://127.0.0.1:${port}`;
let up = false;
for (let i = 0; i < 300 && !up; i++) {
  try { up = (await fetch(`${base}/healthz`)).ok; } catch { await sleep(100); }
}
if (!up) { child.kill('SIGKILL'); throw new Error('the engine did not start'); }

/** One HTTP request with a raw body; resolves with the status. */
function post(path, body, headers) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', (e) => resolve(`error ${e.code ?? e.message}`));
    req.end(body);
  });
}

/** A WebSocket without credentials sends `message` before connection_init; resolves with the close code. */
function wsBeforeInit(message) {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/v1/graphql`, ['graphql-ws']);
    ws.on('open', () => ws.send(message));
    ws.on('error', () => undefined);
    ws.on('close', (code) => resolve(`close ${code}`));
    setTimeout(() => ws.terminate(), 15_000);
  });
}

/**
 * The prober: `GET /healthz` back to back from a worker thread, so that what the sender does on this
 * thread (masking an 8 MB WebSocket frame, writing a body) is not counted as the engine's stall.
 */
const prober = new Worker(`
  const { parentPort, workerData } = require('node:worker_threads');
  const { request, Agent } = require('node:http');
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  let worst = 0;
  let round = 0;
  const probe = () => new Promise((resolve) => {
    const t0 = performance.now();
    request(workerData.url, { agent }, (res) => { res.resume(); res.on('end', () => resolve(performance.now() - t0)); }).end();
  });
  parentPort.on('message', (m) => {
    if (m === 'reset') { worst = 0; round++; } else parentPort.postMessage(worst);
  });
  // A probe counts in the round it started in.
  (async () => { for (;;) { const r = round; const ms = await probe(); if (r === round) worst = Math.max(worst, ms); } })();
`, { eval: true, workerData: { url: `${base}/healthz` } });

/** The slowest /healthz answer (ms) while `send()` runs. */
async function stallDuring(send) {
  await sleep(100);
  prober.postMessage('reset');
  const outcome = await send();
  await sleep(50);
  prober.postMessage('report');
  const worst = await new Promise((resolve) => prober.once('message', resolve));
  return { outcome, worst };
}

const USER = { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user' };
const ADMIN = { 'x-svc-admin-secret': SECRET };
const eightMb = JSON.stringify({ query: '{ __typename }', variables: { pad: Array.from({ length: 2_800_000 }, () => ({})) } });
const collection = { name: 'big', definition: { queries: Array.from({ length: 25_000 }, (_, i) => ({ name: `q${i}`, query: `query q${i} { __typename ${'a: __typename '.repeat(4)}}` })) } };
const replaceMetadata = JSON.stringify({ type: 'replace_metadata', args: { version: 2, tables: [], query_collections: [collection] } });
// 300 tables, each with an object relationship and select/insert/update permissions for 3 roles.
const TABLES = 300;
execFileSync('psql', [DB, '-qc', Array.from({ length: TABLES }, (_, i) => `CREATE TABLE IF NOT EXISTS wide_${i} (id serial PRIMARY KEY, owner_id int, parent_id int REFERENCES wide_${i}(id), name text, body text, created_at timestamptz DEFAULT now());`).join('\n')], { stdio: 'ignore' });
const roles = ['user', 'editor', 'viewer'];
const tablesMetadata = JSON.stringify({
  type: 'replace_metadata',
  args: {
    version: 2,
    tables: Array.from({ length: TABLES }, (_, i) => ({
      table: { schema: 'public', name: `wide_${i}` },
      object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }],
      select_permissions: roles.map((role) => ({ role, permission: { columns: '*', filter: { _or: [{ owner_id: { _eq: 'X-Svc-User-Id' } }, { parent: { owner_id: { _eq: 'X-Svc-User-Id' } } }] }, allow_aggregations: true } })),
      insert_permissions: roles.map((role) => ({ role, permission: { columns: ['name', 'body', 'parent_id'], check: { owner_id: { _eq: 'X-Svc-User-Id' } }, set: { owner_id: 'X-Svc-User-Id' } } })),
      update_permissions: roles.map((role) => ({ role, permission: { columns: ['name', 'body'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } } } })),
    })),
  },
});

const inputs = [
  ['8 MB WebSocket message before connection_init', () => wsBeforeInit(eightMb)],
  ['8 MB /v1/graphql body, POST-mode webhook', () => post('/v1/graphql', eightMb, {})],
  ['8 MB /v1/query body, webhook user', () => post('/v1/query', eightMb, {})],
  ['8 MB /v1/metadata body, webhook user', () => post('/v1/metadata', eightMb, {})],
  ['user: [{},{},…] 2 MB', () => post('/v1/graphql', bodies.emptyObjects(2_000_000), USER)],
  ['user: [[[…]]] 2 MB deep', () => post('/v1/graphql', bodies.deepArrays(2_000_000), USER)],
  ['user: 120000 variable keys', () => post('/v1/graphql', bodies.manyKeys(120_000), USER)],
  ['user: batch of 40000 queries', () => post('/v1/graphql', bodies.bigBatch(40_000), USER)],
  ['user: 1.9 MB escaped string', () => post('/v1/graphql', bodies.escapedString(1_900_000), USER)],
  [`admin: replace_metadata ${(replaceMetadata.length / 1e6).toFixed(1)} MB (25 000 collection queries)`, () => post('/v1/query', replaceMetadata, ADMIN)],
  [`admin: replace_metadata ${(tablesMetadata.length / 1e6).toFixed(1)} MB (${TABLES} tables, 3 roles)`, () => post('/v1/query', tablesMetadata, ADMIN)],
];

try {
  console.log(`| input | answer | longest /healthz wait (ms, best of ${args.rounds}) |\n|---|---|---|`);
  for (const [label, send] of inputs) {
    let best;
    for (let i = 0; i < Number(args.rounds); i++) {
      const r = await stallDuring(send);
      if (!best || r.worst < best.worst) best = r;
    }
    console.log(`| ${label} | ${best.outcome} | ${best.worst.toFixed(1)} |`);
  }
  await post('/v1/query', '{"type":"clear_metadata","args":{}}', ADMIN);
} finally {
  child.kill('SIGTERM');
  hook.close();
  await prober.terminate();
}
