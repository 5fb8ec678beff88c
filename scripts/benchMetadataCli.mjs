#!/usr/bin/env node
/**
 * Times the metadata CLI on the 500-table schema of scripts/benchSchema.mjs (same DDL and metadata:
 * 500 tables, 998 object + 998 array relationships, a select permission on each table):
 * `metadata export`, `metadata apply`, `metadata diff` (no change, exit 0) and `metadata diff` after one
 * changed permission (exit 1), each as a real `node dist/bin/svc-graphql-engine.js …` process against a running
 * engine (process start included). Medians of REPEAT (3) runs. Needs `npm run build` and the bench
 * Postgres (BENCH_SCHEMA_PG, default postgres://postgres@127.0.0.1:55432).
 *
 *   node scripts/benchMetadataCli.mjs
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TABLES = Number(process.env.TABLES ?? 500);
const REPEAT = Number(process.env.REPEAT ?? 3);
const PG_BASE = process.env.BENCH_SCHEMA_PG ?? 'postgres://postgres@127.0.0.1:55432';
const DB = 'bench_metadata_cli';
const DB_URL = `${PG_BASE}/${DB}`;
// The engine as users start it; BENCH_ENGINE=dist/src/main.js runs the per-file build instead (module loading compared).
const ENGINE = process.env.BENCH_ENGINE ?? 'dist/bin/svc-graphql-engine.js';
const PORT = Number(process.env.BENCH_CLI_PORT ?? 18731);
const URL_ = `http://127.0.0.1:${PORT}`;
const SECRET = 'bench-cli-secret';
const name = (i) => `t${String(i).padStart(3, '0')}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function createDatabase() {
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${DB}`);
  await admin.end();
  const c = new pg.Client({ connectionString: DB_URL });
  await c.connect();
  const ddl = [];
  for (let i = 0; i < TABLES; i++) {
    const fks = i === 0 ? '' : `, parent_id int REFERENCES ${name(i - 1)}(id), half_id int REFERENCES ${name(Math.floor(i / 2))}(id)`;
    ddl.push(`CREATE TABLE ${name(i)} (id serial PRIMARY KEY, label text NOT NULL, amount numeric, created_at timestamptz DEFAULT now()${fks});`);
  }
  await c.query(ddl.join('\n'));
  await c.end();
}

function metadataDocument() {
  const tables = [];
  const arrays = new Map();
  for (let i = 0; i < TABLES; i++) arrays.set(i, []);
  for (let i = 1; i < TABLES; i++) {
    arrays.get(i - 1).push({ name: `children_${name(i)}`, using: { foreign_key_constraint_on: { table: name(i), column: 'parent_id' } } });
    arrays.get(Math.floor(i / 2)).push({ name: `halves_${name(i)}`, using: { foreign_key_constraint_on: { table: name(i), column: 'half_id' } } });
  }
  for (let i = 0; i < TABLES; i++) {
    const t = { table: { schema: 'public', name: name(i) } };
    if (i > 0) t.object_relationships = [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }, { name: 'half', using: { foreign_key_constraint_on: 'half_id' } }];
    if (arrays.get(i).length) t.array_relationships = arrays.get(i);
    t.select_permissions = [{ role: 'user', permission: { columns: ['id', 'label', 'amount'], filter: { id: { _gt: 0 } } } }];
    tables.push(t);
  }
  return { version: 2, tables };
}

function cli(args) {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [ENGINE, ...args, '--endpoint', URL_, '--admin-secret', SECRET, '--no-color'], { cwd: ROOT, encoding: 'utf8' });
  return { ms: performance.now() - t0, status: r.status, stderr: r.stderr, stdout: r.stdout };
}

await createDatabase();
const engine = spawn(process.execPath, [ENGINE, 'serve'], {
  cwd: ROOT,
  env: { ...process.env, SVC_GRAPHQL_DATABASE_URL: DB_URL, SVC_GRAPHQL_SERVER_PORT: String(PORT), SVC_GRAPHQL_SERVER_HOST: '127.0.0.1', SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const tmp = mkdtempSync(path.join(tmpdir(), 'svc-md-bench-'));
try {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${URL_}/healthz`)).ok) break;
    } catch {}
    if (Date.now() > deadline) throw new Error('engine did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  const r = await fetch(`${URL_}/v1/query`, { method: 'POST', headers: { 'x-svc-admin-secret': SECRET }, body: JSON.stringify({ type: 'replace_metadata', args: metadataDocument() }) });
  if (!r.ok) throw new Error(`replace_metadata: ${await r.text()}`);
  const dir = path.join(tmp, 'metadata');
  const times = { export: [], apply: [], diffSame: [], diffChanged: [] };
  for (let k = 0; k < REPEAT; k++) {
    const e = cli(['metadata', 'export', '--dir', dir]);
    if (e.status !== 0) throw new Error(e.stderr);
    times.export.push(e.ms);
    const a = cli(['metadata', 'apply', '--dir', dir]);
    if (a.status !== 0) throw new Error(a.stderr);
    times.apply.push(a.ms);
    const d = cli(['metadata', 'diff', '--dir', dir]);
    if (d.status !== 0) throw new Error(`diff on an unchanged directory: ${d.status} ${d.stdout.slice(0, 500)}`);
    times.diffSame.push(d.ms);
    const file = path.join(dir, 'tables.yaml');
    const orig = readFileSync(file, 'utf8');
    writeFileSync(file, orig.replace('_gt: 0', '_gt: 1'));
    const c = cli(['metadata', 'diff', '--dir', dir]);
    if (c.status !== 1) throw new Error(`diff on a changed permission: exit ${c.status}`);
    times.diffChanged.push(c.ms);
    writeFileSync(file, orig);
  }
  const size = spawnSync('du', ['-sh', dir], { encoding: 'utf8' }).stdout.split('\t')[0];
  console.log(`metadata CLI on ${TABLES} tables (${size} of YAML), medians of ${REPEAT}, process start included:`);
  for (const [k, v] of Object.entries(times)) console.log(`  ${k.padEnd(12)} ${median(v).toFixed(0)} ms   (runs: ${v.map((x) => x.toFixed(0)).join(', ')})`);
} finally {
  engine.kill('SIGTERM');
  rmSync(tmp, { recursive: true, force: true });
}
