#!/usr/bin/env node
/**
 * One engine on an existing bench:schema database, measured step by step (engine CPU from /proc, wall):
 * cold start to the first answered admin query, the first query of role r1 (its schema built), a nested
 * query, r1's first mutation, then (OPS=1) create/drop_select_permission, track/untrack_table each followed
 * by a query, then create_object_relationship/drop_relationship, the RSS, then the introspections of r1, r2, r1
 * again, r3 and admin (ONLY_R1=1: r1 only; SHORT=1: none). ROLES=1: r2…r5 each queried and mutated once after r1.
 * The engine's RSS and `process.memoryUsage()` are printed once the steps before the introspections settle (HEAP_SNAPSHOT=file: a heap
 * snapshot of the engine there, after a full collection when the engine runs with --expose-gc); BENCH_NODE_FLAGS: more
 * Node flags for the engine (`--expose-gc`); SETTLE_S: the second reading's wait (35 s: worker threads stop 30 s after a
 * small job); SETTLE_TRACE=1: a reading every 2 s for 40 s instead; SETTLE_AFTER=1: the same two readings after the introspections too. While each step runs, another client (a worker
 * thread) sends an ordinary admin query every 20 ms (the next 20 ms after the last answer): the step's line
 * ends with that client's median and longest wait (`stall p50/max`), the figure of "other clients stall", and
 * the engine's own longest event-loop delay during the step (`loop max`: `monitorEventLoopDelay`, 5 ms
 * resolution, in a module preloaded into the engine that reports on SIGUSR2; the wait of a request includes
 * the machine's load, the loop delay much less). CLI=1: before the introspections, `metadata export` to a
 * temporary directory and `metadata apply` of it through the CLI (a process each, its start included; the
 * engine's CPU beside). MOREOPS=1: after OPS, set_table_customization, an event trigger created and deleted, a
 * bulk of three permissions and of their drops, a second small source (database bench_schema_small, made when
 * missing) added, a table of it tracked, a permission on default, the source updated and dropped, then
 * export_metadata, replace_metadata of that same document, reload_metadata, a permission and its drop.
 *
 *   BENCH_SCHEMA_SETUP_ONLY=1 SIZES=5000 REPEAT=1 npm run bench:schema     (the database)
 *   OPS=1 ONLY_R1=1 node scripts/benchSchemaSteps.mjs [database] [profile-dir]
 *
 * The database defaults to bench_schema on BENCH_SCHEMA_PG (default postgres://postgres@127.0.0.1:55432);
 * a profile dir runs the engine under --cpu-prof and --heap-prof (a file per thread there). Uses the
 * built server (dist/).
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, mkdirSync, writeFileSync, mkdtempSync, existsSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { stallProbe } from './lib/stallProbe.mjs';
import { getIntrospectionQuery } from 'graphql';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const [db = process.env.BENCH_SCHEMA_DB ?? 'bench_schema', prof] = process.argv.slice(2);
const PG_BASE = process.env.BENCH_SCHEMA_PG ?? 'postgres://postgres@127.0.0.1:55432';
// The engine as users start it; BENCH_ENGINE=dist/src/main.js runs the per-file build instead (module loading compared).
const ENGINE = process.env.BENCH_ENGINE ?? 'dist/bin/svc-graphql-engine.js';
const PORT = Number(process.env.BENCH_SCHEMA_PORT ?? 18625), BASE = `http://127.0.0.1:${PORT}`, SECRET = 'x';
const monDir = mkdtempSync(path.join(tmpdir(), 'bench-eld-'));
const monFile = path.join(monDir, 'eld.json');
// HEAP_SNAPSHOT=file: a heap snapshot of the engine written there after the role steps (before the introspections).
const snapReq = path.join(monDir, 'snap.req'), snapFile = process.env.HEAP_SNAPSHOT ? path.resolve(process.env.HEAP_SNAPSHOT) : '';
writeFileSync(path.join(monDir, 'monitor.mjs'), `import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeFileSync, existsSync, rmSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';
const h = monitorEventLoopDelay({ resolution: 5 });
h.enable();
process.on('SIGUSR2', () => {
  if (existsSync(${JSON.stringify(snapReq)})) { rmSync(${JSON.stringify(snapReq)}); globalThis.gc?.(); writeHeapSnapshot(${JSON.stringify(snapFile)}); }
  writeFileSync(${JSON.stringify(monFile)}, JSON.stringify({ max: h.max / 1e6, p99: h.percentile(99) / 1e6, mem: process.memoryUsage() })); h.reset();
});
`);
const flags = ['--max-semi-space-size=4', ...(process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean), '--import', path.join(monDir, 'monitor.mjs')];
if (prof) { mkdirSync(prof, { recursive: true }); flags.push('--cpu-prof', `--cpu-prof-dir=${prof}`, '--heap-prof', `--heap-prof-dir=${prof}`); }
const t0 = performance.now();
const child = spawn(process.execPath, [...flags, ENGINE, 'serve'], { cwd: ROOT, env: { ...process.env, NODE_ENV: 'production', SVC_GRAPHQL_DATABASE_URL: `${PG_BASE}/${db}`, SVC_GRAPHQL_SERVER_PORT: String(PORT), SVC_GRAPHQL_SERVER_HOST: '127.0.0.1', SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
child.once('exit', (code) => { if (!stopping) { console.error(`the engine exited (${code})`); process.exit(1); } });
let stopping = false;
function proc() {
  const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kb = (k) => Math.round(Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  return { cpu: (Number(stat[11]) + Number(stat[12])) * 10, rss: kb('VmRSS'), peak: kb('VmHWM') };
}
async function post(body, headers = {}) {
  const res = await fetch(BASE + '/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET, ...headers }, body: JSON.stringify(body) });
  return res.text();
}
const rh = (r) => ({ 'x-svc-role': r, 'x-svc-user-id': '1' });
for (;;) { try { const t = await post({ query: '{ t0000(limit: 1) { id label } }' }); if (t.includes('"t0000"')) break; } catch {} await new Promise((r) => setTimeout(r, 5)); }
const out = [];
const probe = stallProbe(BASE + '/v1/graphql', SECRET);
/** The engine's event-loop delay since the last call (it writes and resets its histogram on SIGUSR2). */
async function loopDelay() {
  rmSync(monFile, { force: true });
  child.kill('SIGUSR2');
  for (;;) {
    if (existsSync(monFile)) { try { return JSON.parse(readFileSync(monFile, 'utf8')); } catch {} }
    await new Promise((r) => setTimeout(r, 5));
  }
}
const step = async (name, fn) => {
  await probe.start();
  await new Promise((r) => setTimeout(r, 30));
  await loopDelay();
  const c = proc().cpu, t = performance.now(); const r = await fn(); const wall = performance.now() - t, cpu = proc().cpu - c;
  const eld = await loopDelay();
  const s = await probe.stop();
  out.push(`${name}: ${Math.round(wall)} ms wall, ${cpu} ms CPU, stall p50/max ${Math.round(s.p50)}/${Math.round(s.max)} ms (${s.n}), loop max ${Math.round(eld.max)} ms${r ? ' ' + r : ''}`);
};
out.push(`cold start: ${Math.round(performance.now() - t0)} ms wall, ${proc().cpu} ms CPU`);
await step('first query r1', async () => { const t = await post({ query: '{ t0000(limit: 1) { id label } }' }, rh('r1')); if (!t.includes('"t0000"')) return t.slice(0, 200); });
await step('query r1 nested', async () => { const t = await post({ query: '{ t0100(limit: 1) { id parent { id half { label } } children_t0101 { id } } }' }, rh('r1')); if (!t.includes('"t0100"')) return t.slice(0, 200); });
await step('insert r1', async () => { const t = await post({ query: 'mutation { insert_t4000_one(object: { label: "x" }) { id } }' }, rh('r1')); return t.slice(0, 80); });
if (process.env.ROLES) {
  // ROLES=1: r2…r5 each queried once and mutated once (r1 above), then the memory once the engine settles.
  for (const r of ['r2', 'r3', 'r4', 'r5']) {
    await step(`first query ${r}`, async () => { const t = await post({ query: '{ t0000(limit: 1) { id label } }' }, rh(r)); if (!t.includes('"t0000"')) return t.slice(0, 200); });
    await step(`insert ${r}`, async () => { const t = await post({ query: 'mutation { insert_t4000_one(object: { label: "x" }) { id } }' }, rh(r)); return t.slice(0, 80); });
  }
}
const q = async (body) => { const res = await fetch(BASE + '/v1/query', { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: JSON.stringify(body) }); return (await res.text()).slice(0, 120); };
if (process.env.OPS) {
  await step('create_select_permission', () => q({ type: 'create_select_permission', args: { table: 't0250', role: 'editor', permission: { columns: ['id', 'label'], filter: { parent: { id: { _gt: 1 } } } } } }));
  await step('admin query after', async () => { await post({ query: '{ t0000(limit: 1) { id } }' }); });
  await step('drop_select_permission', () => q({ type: 'drop_select_permission', args: { table: 't0250', role: 'editor' } }));
  await step('r1 query after', async () => { await post({ query: '{ t0000(limit: 1) { id } }' }, rh('r1')); });
  await step('track_table', () => q({ type: 'track_table', args: { schema: 'public', name: 'extra_table' } }));
  await step('admin query after', async () => { await post({ query: '{ t0000(limit: 1) { id } }' }); });
  await step('untrack_table', () => q({ type: 'untrack_table', args: { table: 'extra_table' } }));
  await step('r1 query after', async () => { await post({ query: '{ t0000(limit: 1) { id } }' }, rh('r1')); });
  await step('create_object_relationship', () => q({ type: 'create_object_relationship', args: { table: 't0250', name: 'parent_again', using: { foreign_key_constraint_on: 'parent_id' } } }));
  await step('admin query after', async () => { await post({ query: '{ t0250(limit: 1) { id parent_again { id } } }' }); });
  await step('drop_relationship', () => q({ type: 'drop_relationship', args: { table: 't0250', relationship: 'parent_again' } }));
  await step('r1 query after', async () => { await post({ query: '{ t0000(limit: 1) { id } }' }, rh('r1')); });
}
if (process.env.MOREOPS) {
  // The other operations (a second small source: database bench_schema_small, made here when missing).
  const qm = async (body) => { const res = await fetch(BASE + '/v1/metadata', { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: JSON.stringify(body) }); return (await res.text()).slice(0, 120); };
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  if ((await admin.query(`SELECT 1 FROM pg_database WHERE datname = 'bench_schema_small'`)).rowCount === 0) {
    await admin.query('CREATE DATABASE bench_schema_small');
    const small = new pg.Client({ connectionString: `${PG_BASE}/bench_schema_small` });
    await small.connect();
    await small.query('CREATE TABLE IF NOT EXISTS small_items (id serial PRIMARY KEY, label text)');
    await small.end();
  }
  await admin.end();
  await step('set_table_customization', () => qm({ type: 'pg_set_table_customization', args: { source: 'default', table: 't0250', configuration: { custom_root_fields: { select: 'items_t0250' } } } }));
  await step('admin query after', async () => { await post({ query: '{ items_t0250(limit: 1) { id } }' }); });
  await step('create_event_trigger', () => q({ type: 'create_event_trigger', args: { name: 'bench_t0250', table: 't0250', insert: { columns: '*' }, webhook: 'http://127.0.0.1:9/' } }));
  await step('delete_event_trigger', () => q({ type: 'delete_event_trigger', args: { name: 'bench_t0250' } }));
  await step('bulk of three permissions', () => q({ type: 'bulk', args: ['t0300', 't0301', 't0302'].map((table) => ({ type: 'create_select_permission', args: { table, role: 'editor', permission: { columns: ['id'], filter: {} } } })) }));
  await step('bulk of three drops', () => q({ type: 'bulk', args: ['t0300', 't0301', 't0302'].map((table) => ({ type: 'drop_select_permission', args: { table, role: 'editor' } })) }));
  await step('pg_add_source (small)', () => qm({ type: 'pg_add_source', args: { name: 'small', configuration: { connection_info: { database_url: `${PG_BASE}/bench_schema_small` } } } }));
  await step('pg_track_table (small)', () => qm({ type: 'pg_track_table', args: { source: 'small', table: 'small_items' } }));
  await step('pg_create_select_permission (default, with a source)', () => qm({ type: 'pg_create_select_permission', args: { source: 'default', table: 't0250', role: 'editor', permission: { columns: ['id'], filter: {} } } }));
  await step('pg_update_source (small)', () => qm({ type: 'pg_update_source', args: { name: 'small', configuration: { connection_info: { database_url: `${PG_BASE}/bench_schema_small`, pool_settings: { max_connections: 5 } } } } }));
  await step('pg_drop_source (small)', () => qm({ type: 'pg_drop_source', args: { name: 'small', cascade: true } }));
  await step('pg_drop_select_permission (default)', () => qm({ type: 'pg_drop_select_permission', args: { source: 'default', table: 't0250', role: 'editor' } }));
  let doc;
  await step('export_metadata', async () => { const res = await fetch(BASE + '/v1/query', { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: JSON.stringify({ type: 'export_metadata', args: {} }) }); doc = await res.text(); return `${(doc.length / 1e6).toFixed(1)} MB`; });
  await step('replace_metadata (the same document)', async () => { const res = await fetch(BASE + '/v1/query', { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: `{"type":"replace_metadata","args":${doc}}` }); return (await res.text()).slice(0, 120); });
  await step('admin query after', async () => { await post({ query: '{ t0000(limit: 1) { id } }' }); });
  await step('reload_metadata', () => q({ type: 'reload_metadata', args: {} }));
  await step('admin query after', async () => { await post({ query: '{ t0000(limit: 1) { id } }' }); });
  await step('create_select_permission (after reload)', () => q({ type: 'create_select_permission', args: { table: 't0250', role: 'editor', permission: { columns: ['id'], filter: {} } } }));
  await step('drop_select_permission', () => q({ type: 'drop_select_permission', args: { table: 't0250', role: 'editor' } }));
}
if (process.env.CLI) {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-bench-cli-'));
  const cli = (...args) => { const r = spawnSync(process.execPath, [ENGINE, 'metadata', ...args, '--dir', dir, '--endpoint', BASE, '--admin-secret', SECRET], { cwd: ROOT, encoding: 'utf8' }); if (r.status !== 0) throw new Error(r.stderr); return r.stderr.trim().split('\n').at(-1); };
  try {
    await step('CLI metadata export (engine CPU)', async () => cli('export'));
    await step('CLI metadata apply (engine CPU)', async () => cli('apply'));
  } finally { rmSync(dir, { recursive: true, force: true }); }
}
{
  // 3 s for the collector's idle work, then SETTLE_S more (default 35: the worker threads stop after 30 s idle).
  const mb = (n) => Math.round(n / 1048576);
  const marks = process.env.SETTLE_TRACE ? Array.from({ length: 20 }, (_, i) => [`${(i + 1) * 2} s`, 2000]) : [['3 s', 3000], [`${Number(process.env.SETTLE_S ?? 35) + 3} s`, Number(process.env.SETTLE_S ?? 35) * 1000]];
  for (const [label, ms] of marks) {
    await new Promise((r) => setTimeout(r, ms));
    const { mem } = await loopDelay(), p = proc();
    out.push(`settled ${label}: RSS ${p.rss} MB peak ${p.peak} MB; heap used ${mb(mem.heapUsed)} of ${mb(mem.heapTotal)} MB, external ${mb(mem.external)} MB (array buffers ${mb(mem.arrayBuffers)} MB); load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
  }
  if (snapFile) { writeFileSync(snapReq, ''); await loopDelay(); out.push(`heap snapshot: ${snapFile}`); }
}
{ const p = proc(); out.push(`RSS before introspection ${p.rss} MB peak ${p.peak} MB`); }
if (process.env.SHORT) { out.push('(short)'); } else {
await step('introspection r1', async () => { const t = await post({ query: getIntrospectionQuery() }, rh('r1')); return `${(t.length / 1e6).toFixed(1)} MB`; });
if (!process.env.ONLY_R1) {
await step('introspection r2', async () => { const t = await post({ query: getIntrospectionQuery() }, rh('r2')); return `${(t.length / 1e6).toFixed(1)} MB`; });
await step('introspection r1 again (kept answer)', async () => { await post({ query: getIntrospectionQuery() }, rh('r1')); });
await step('introspection r3', async () => { const t = await post({ query: getIntrospectionQuery() }, rh('r3')); return `${(t.length / 1e6).toFixed(1)} MB`; });
await step('introspection admin', async () => { const t = await post({ query: getIntrospectionQuery() }); return `${(t.length / 1e6).toFixed(1)} MB`; });
}
}
const memLine = async () => {
  const mb = (n) => Math.round(n / 1048576);
  const { mem } = await loopDelay(), p = proc();
  return `RSS ${p.rss} MB peak ${p.peak} MB; heap used ${mb(mem.heapUsed)} of ${mb(mem.heapTotal)} MB, external ${mb(mem.external)} MB (array buffers ${mb(mem.arrayBuffers)} MB); load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`;
};
out.push(await memLine());
if (process.env.SETTLE_AFTER && !process.env.SHORT) {
  // SETTLE_AFTER=1: the memory after the introspections 3 s and SETTLE_S (35) s more later.
  for (const [label, ms] of [['3 s', 3000], [`${Number(process.env.SETTLE_S ?? 35) + 3} s`, Number(process.env.SETTLE_S ?? 35) * 1000]]) {
    await new Promise((r) => setTimeout(r, ms));
    out.push(`after the introspections, settled ${label}: ${await memLine()}`);
  }
}
console.log(out.join('\n'));
stopping = true;
const exited = new Promise((r) => child.once('exit', r));
child.kill('SIGTERM'); await exited;
await probe.terminate();
rmSync(monDir, { recursive: true, force: true });
