#!/usr/bin/env node
/**
 * Schema-scale benchmark: thousands of tracked tables, 5 roles.
 *
 *   npm run bench:schema                     (builds the server; bench Postgres from bench/pg-up.sh)
 *   SIZES=5000 REPEAT=1 npm run bench:schema
 *   BENCH_SCHEMA_PROFILE=.tmp/prof SIZES=5000 npm run bench:schema   (engine run with --cpu-prof and --heap-prof)
 *
 * For each size N of SIZES (default 500,2000,5000) it creates database `bench_schema` (dropped first) on
 * BENCH_SCHEMA_PG (default the bench Postgres, postgres://postgres@127.0.0.1:55432) with N tables `t0000…`:
 * each has a primary key, three columns and foreign keys to the previous table (t_i.parent_id → t_{i-1})
 * and to t_{i/2} (t_i.half_id): 2(N-1) foreign keys, 4(N-1) relationships counting both directions. It
 * starts `node dist/bin/svc-graphql-engine.js serve` on BENCH_SCHEMA_PORT (18624), sets the metadata with one
 * `replace_metadata` (every relationship; select, insert and update permissions for 5 roles r1…r5 on
 * every table) and measures, over the HTTP API:
 *   - `replace_metadata`, `reload_metadata`;
 *   - single metadata operations: create/drop_select_permission (role r1 on t0250), track/untrack_table,
 *     create_object_relationship/drop_relationship (each a full /v1/query round trip);
 *   - the first query of a role after a permission change of that role, and its introspection;
 *   - while each metadata operation and each role's first build runs, the longest wait of an ordinary
 *     query (admin, `{ t0000(limit: 1) { id } }`) sent every 20 ms by another client (a worker thread);
 *   - cold start: a new engine process until its first answered query (admin), then the first query of
 *     role r1 (its schema built), then r1's introspection (getIntrospectionQuery), then r2's introspection
 *     with no query before it, r1's again, r3's (r1's columns with other row filters) and admin's;
 *   - the engine's memory (RSS, and its peak) with the admin schema and all 5 roles' schemas built and
 *     introspected; the engine's CPU time (user + system, from /proc) of each phase;
 *   - `metadata export` and `metadata apply` through the CLI (a process each, start included).
 * BENCH_SCHEMA_DB names the database (default bench_schema); BENCH_SCHEMA_SETUP_ONLY=1 stops after the
 * `replace_metadata` (a database to experiment on), BENCH_SCHEMA_NO_BUILD=1 skips the server build.
 * Timings are medians of REPEAT (3) runs. The last line per size is JSON (raw data).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stallProbe } from './lib/stallProbe.mjs';
import { getIntrospectionQuery } from 'graphql';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// The engine as users start it; BENCH_ENGINE=dist/src/main.js runs the per-file build instead (module loading compared).
const ENGINE = process.env.BENCH_ENGINE ?? 'dist/bin/svc-graphql-engine.js';
const SIZES = (process.env.SIZES ?? '500,2000,5000').split(',').map(Number);
const REPEAT = Number(process.env.REPEAT ?? 3);
const PG_BASE = process.env.BENCH_SCHEMA_PG ?? 'postgres://postgres@127.0.0.1:55432';
const DB = process.env.BENCH_SCHEMA_DB ?? 'bench_schema';
const DB_URL = `${PG_BASE}/${DB}`;
const PORT = Number(process.env.BENCH_SCHEMA_PORT ?? 18624);
const PROFILE = process.env.BENCH_SCHEMA_PROFILE;
const SECRET = 'bench-schema-secret';
const BASE = `http://127.0.0.1:${PORT}`;
const ROLES = ['r1', 'r2', 'r3', 'r4', 'r5'];
const name = (i) => `t${String(i).padStart(4, '0')}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${Math.round(x)} ms`;
const load = () => loadavg().map((x) => x.toFixed(1)).join(' ');

async function createDatabase(n) {
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const c = new pg.Client({ connectionString: DB_URL });
  await c.connect();
  for (let from = 0; from < n; from += 500) {
    const ddl = [];
    for (let i = from; i < Math.min(n, from + 500); i++) {
      const fks = i === 0 ? '' : `, parent_id int REFERENCES ${name(i - 1)}(id), half_id int REFERENCES ${name(Math.floor(i / 2))}(id)`;
      ddl.push(`CREATE TABLE ${name(i)} (id serial PRIMARY KEY, label text NOT NULL, amount numeric, owner_id int, created_at timestamptz DEFAULT now()${fks});`);
    }
    await c.query(ddl.join('\n'));
  }
  await c.query(`CREATE TABLE extra_table (id serial PRIMARY KEY, t0000_id int REFERENCES t0000(id), note text);`);
  await c.query(`INSERT INTO t0000 (label, owner_id) VALUES ('root', 1)`);
  await c.end();
}

function permissions(role) {
  const cols = ['id', 'label', 'amount', 'owner_id'];
  const mine = { owner_id: { _eq: 'X-Svc-User-Id' } };
  return {
    select: { role, permission: { columns: cols, filter: role === 'r1' ? {} : mine, allow_aggregations: role === 'r2' } },
    insert: { role, permission: { columns: ['label', 'amount'], check: {}, set: { owner_id: 'X-Svc-User-Id' } } },
    update: { role, permission: { columns: ['label', 'amount'], filter: mine, check: {} } },
  };
}

function metadataDocument(n) {
  const tables = [];
  const arrays = new Map();
  for (let i = 0; i < n; i++) arrays.set(i, []);
  for (let i = 1; i < n; i++) {
    arrays.get(i - 1).push({ name: `children_${name(i)}`, using: { foreign_key_constraint_on: { table: name(i), column: 'parent_id' } } });
    arrays.get(Math.floor(i / 2)).push({ name: `halves_${name(i)}`, using: { foreign_key_constraint_on: { table: name(i), column: 'half_id' } } });
  }
  const perms = ROLES.map(permissions);
  for (let i = 0; i < n; i++) {
    const t = { table: { schema: 'public', name: name(i) } };
    if (i > 0) {
      t.object_relationships = [
        { name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } },
        { name: 'half', using: { foreign_key_constraint_on: 'half_id' } },
      ];
    }
    if (arrays.get(i).length) t.array_relationships = arrays.get(i);
    t.select_permissions = perms.map((p) => p.select);
    t.insert_permissions = perms.map((p) => p.insert);
    t.update_permissions = perms.map((p) => p.update);
    tables.push(t);
  }
  return { version: 2, tables };
}

async function post(pathname, body, headers = {}) {
  const t0 = performance.now();
  const res = await fetch(BASE + pathname, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET, ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const dt = performance.now() - t0;
  if (res.status !== 200 || text.startsWith('{"errors"')) throw new Error(`${pathname} ${res.status}: ${text.slice(0, 400)}`);
  return { dt, text };
}
const query = (body) => post('/v1/query', body);
const roleHeaders = (role) => ({ 'x-svc-role': role, 'x-svc-user-id': '1' });

function startEngine(tag) {
  const t0 = performance.now();
  const flags = ['--max-semi-space-size=4'];
  if (PROFILE) {
    mkdirSync(PROFILE, { recursive: true });
    flags.push('--cpu-prof', `--cpu-prof-dir=${PROFILE}`, `--cpu-prof-name=${tag}.cpuprofile`, '--heap-prof', `--heap-prof-dir=${PROFILE}`, `--heap-prof-name=${tag}.heapprofile`);
  }
  const child = spawn(process.execPath, [...flags, ENGINE, 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env, NODE_ENV: 'production', SVC_GRAPHQL_DATABASE_URL: DB_URL, SVC_GRAPHQL_SERVER_PORT: String(PORT),
      SVC_GRAPHQL_SERVER_HOST: '127.0.0.1', SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { child, t0 };
}
async function stopEngine(child) {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

/** CPU time (user + system, ms) and memory (RSS, peak RSS, MB) of a process, from /proc. */
function proc(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024;
  return { cpu: (Number(stat[11]) + Number(stat[12])) * 10, rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** Polls with a GraphQL query until it is answered; returns ms since `t0`. */
async function firstAnswer(t0, role) {
  const headers = role ? roleHeaders(role) : {};
  for (;;) {
    try {
      const r = await post('/v1/graphql', { query: '{ t0000(limit: 1) { id label } }' }, headers);
      if (r.text.includes('"t0000"')) return performance.now() - t0;
    } catch (e) {
      if (!/ECONNREFUSED|fetch failed|ECONNRESET/.test(String(e.cause?.code ?? e.message))) throw e;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Another client: a worker thread sends an ordinary query every 20 ms (the next one 20 ms after the last
 * answer) while `fn` runs, and reports the slowest answer and the median.
 */
async function withProbe(fn) {
  const probe = stallProbe(`${BASE}/v1/graphql`, SECRET);
  await probe.start();
  await new Promise((r) => setTimeout(r, 60));
  try {
    const dt = await fn();
    const p = await probe.stop();
    return { dt, stall: p.max, p50: p.p50 };
  } finally {
    await probe.terminate();
  }
}

function cli(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [ENGINE, ...args, '--endpoint', BASE, '--admin-secret', SECRET, '--no-color'], { cwd: ROOT, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${args.join(' ')}: ${r.stderr}`);
  return performance.now() - t0;
}

async function runSize(n) {
  const out = { tables: n, relationships: 4 * (n - 1), roles: ROLES.length };
  console.log(`benchSchema: ${n} tables, ${2 * (n - 1)} foreign keys (${4 * (n - 1)} relationships), select/insert/update for ${ROLES.length} roles, repeat ${REPEAT}, node ${process.version}; load ${load()}`);
  let t = performance.now();
  await createDatabase(n);
  console.log(`  create database + tables: ${ms(performance.now() - t)}`);

  let { child, t0 } = startEngine(`t${n}-setup`);
  for (;;) {
    try { await query({ type: 'export_metadata', args: {} }); break; } catch { await new Promise((r) => setTimeout(r, 20)); }
  }
  const md = metadataDocument(n);
  let c0 = proc(child.pid).cpu;
  const replace = await withProbe(async () => (await query({ type: 'replace_metadata', args: md })).dt);
  out.replace = { ms: replace.dt, cpu: proc(child.pid).cpu - c0, stall: replace.stall };
  await firstAnswer(performance.now());
  if (process.env.BENCH_SCHEMA_SETUP_ONLY) {
    await stopEngine(child);
    return out;
  }

  const ops = {
    reload: () => ({ type: 'reload_metadata', args: {} }),
    createSelectPermission: () => ({ type: 'create_select_permission', args: { table: 't0250', role: 'editor', permission: { columns: ['id', 'label'], filter: { parent: { id: { _gt: 1 } } } } } }),
    dropSelectPermission: () => ({ type: 'drop_select_permission', args: { table: 't0250', role: 'editor' } }),
    trackTable: () => ({ type: 'track_table', args: { schema: 'public', name: 'extra_table' } }),
    createObjectRelationship: () => ({ type: 'create_object_relationship', args: { table: 'extra_table', name: 'root', using: { foreign_key_constraint_on: 't0000_id' } } }),
    dropRelationship: () => ({ type: 'drop_relationship', args: { table: 'extra_table', relationship: 'root' } }),
    untrackTable: () => ({ type: 'untrack_table', args: { table: 'extra_table' } }),
  };
  const opRuns = Object.fromEntries(Object.keys(ops).map((k) => [k, []]));
  const roleAfterChange = [];
  for (let i = 0; i < REPEAT; i++) {
    for (const [k, op] of Object.entries(ops)) {
      c0 = proc(child.pid).cpu;
      const r = await withProbe(async () => (await query(op())).dt);
      opRuns[k].push({ ms: r.dt, cpu: proc(child.pid).cpu - c0, stall: r.stall });
    }
    // a permission change of role r1, then r1's first query (its schema rebuilt or kept)
    await query({ type: 'drop_select_permission', args: { table: 't0250', role: 'r1' } });
    await query({ type: 'create_select_permission', args: { table: 't0250', role: 'r1', permission: permissions('r1').select.permission } });
    c0 = proc(child.pid).cpu;
    const r = await withProbe(async () => (await post('/v1/graphql', { query: '{ t0000(limit: 1) { id } }' }, roleHeaders('r1'))).dt);
    roleAfterChange.push({ ms: r.dt, cpu: proc(child.pid).cpu - c0, stall: r.stall });
  }
  const med = (runs) => ({ ms: median(runs.map((x) => x.ms)), cpu: median(runs.map((x) => x.cpu)), stall: median(runs.map((x) => x.stall)), maxStall: Math.max(...runs.map((x) => x.stall)) });
  out.ops = Object.fromEntries(Object.entries(opRuns).map(([k, v]) => [k, med(v)]));
  out.roleQueryAfterPermissionChange = med(roleAfterChange);
  const warm = [];
  for (let i = 0; i < 5; i++) warm.push((await post('/v1/graphql', { query: `{ ${name(100 + i)}(limit: 1) { id parent { id } } }` })).dt);
  out.warmQuery = median(warm);

  const tmp = mkdtempSync(path.join(tmpdir(), 'svc-bench-schema-'));
  try {
    const dir = path.join(tmp, 'metadata');
    const ex = [], ap = [];
    for (let i = 0; i < REPEAT; i++) {
      ex.push(cli(['metadata', 'export', '--dir', dir]));
      ap.push(cli(['metadata', 'apply', '--dir', dir]));
    }
    out.cliExport = median(ex);
    out.cliApply = median(ap);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  await stopEngine(child);

  const runs = [];
  for (let i = 0; i < REPEAT; i++) {
    ({ child, t0 } = startEngine(`t${n}-cold${i}`));
    const r = {};
    r.cold = await firstAnswer(t0);
    r.coldCpu = proc(child.pid).cpu;
    let c = proc(child.pid).cpu;
    const role = await withProbe(async () => { const t1 = performance.now(); await firstAnswer(t1, 'r1'); return performance.now() - t1; });
    Object.assign(r, { role: role.dt, roleCpu: proc(child.pid).cpu - c, roleStall: role.stall });
    c = proc(child.pid).cpu;
    r.introspect = (await post('/v1/graphql', { query: getIntrospectionQuery() }, roleHeaders('r1'))).dt;
    r.introspectCpu = proc(child.pid).cpu - c;
    c = proc(child.pid).cpu;
    const cold = await withProbe(async () => (await post('/v1/graphql', { query: getIntrospectionQuery() }, roleHeaders('r2'))).dt);
    Object.assign(r, { introspectCold: cold.dt, introspectColdCpu: proc(child.pid).cpu - c, introspectColdStall: cold.stall });
    r.introspectAgain = (await post('/v1/graphql', { query: getIntrospectionQuery() }, roleHeaders('r1'))).dt;
    // r3..r5: the same columns as r1, other row filters
    r.introspectOther = (await post('/v1/graphql', { query: getIntrospectionQuery() }, roleHeaders('r3'))).dt;
    for (const role of ROLES.slice(3)) await post('/v1/graphql', { query: getIntrospectionQuery() }, roleHeaders(role));
    r.introspectAdmin = (await post('/v1/graphql', { query: getIntrospectionQuery() })).dt;
    const p = proc(child.pid);
    Object.assign(r, { rss: p.rss, peakRss: p.peak });
    runs.push(r);
    await stopEngine(child);
  }
  for (const k of Object.keys(runs[0])) out[k] = median(runs.map((r) => r[k]));

  const o = out.ops;
  console.log(`  replace_metadata: ${ms(out.replace.ms)} (engine CPU ${ms(out.replace.cpu)}, other client stalled ${ms(out.replace.stall)})`);
  console.log(`  single metadata operations (median; engine CPU; other client's longest wait median/max):  [goal ≤ 200 ms, stall ≤ 100 ms]`);
  for (const [k, v] of Object.entries(o)) console.log(`    ${k.padEnd(26)} ${ms(v.ms).padStart(9)}  cpu ${ms(v.cpu).padStart(9)}  stall ${ms(v.stall)} / ${ms(v.maxStall)}`);
  console.log(`  role r1's first query after a permission change of r1: ${ms(out.roleQueryAfterPermissionChange.ms)} (stall ${ms(out.roleQueryAfterPermissionChange.stall)})`);
  console.log(`  cold start to the first answered query (admin): ${ms(out.cold)} (engine CPU ${ms(out.coldCpu)})  [goal ≤ 3000 ms]`);
  console.log(`  first query of role r1: ${ms(out.role)} (CPU ${ms(out.roleCpu)}, stall ${ms(out.roleStall)})  [goal ≤ 300 ms]`);
  console.log(`  introspection of r1 after its first query: ${ms(out.introspect)} (CPU ${ms(out.introspectCpu)}); of r2 with no query before: ${ms(out.introspectCold)} (CPU ${ms(out.introspectColdCpu)}, stall ${ms(out.introspectColdStall)})  [goal ≤ 500 ms]`);
  console.log(`  introspection of r1 again: ${ms(out.introspectAgain)}; of r3 (r1's columns, other filters): ${ms(out.introspectOther)}; of admin: ${ms(out.introspectAdmin)}`);
  console.log(`  memory with admin + 5 role schemas built and introspected: RSS ${Math.round(out.rss)} MB, peak ${Math.round(out.peakRss)} MB  [goal ≤ 600 MB]`);
  console.log(`  metadata export / apply through the CLI: ${ms(out.cliExport)} / ${ms(out.cliApply)}  [goal ≤ 5000 ms]`);
  console.log(`  a warm query: ${ms(out.warmQuery)}; load average now ${load()}`);
  console.log(JSON.stringify(out));
  return out;
}

async function main() {
  if (!process.env.BENCH_SCHEMA_NO_BUILD) spawnSync('node', ['scripts/buildServer.mjs'], { cwd: ROOT, stdio: 'inherit' });
  for (const n of SIZES) await runSize(n);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
