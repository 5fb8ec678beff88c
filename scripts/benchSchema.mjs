#!/usr/bin/env node
/**
 * Schema-scale benchmark: 500 tracked tables with foreign-key relationships.
 *
 *   node scripts/benchSchema.mjs            (after `npm run build`; bench Postgres from bench/pg-up.sh)
 *
 * Creates database `bench_schema` (dropped first) on BENCH_SCHEMA_PG (default the bench Postgres,
 * postgres://postgres@127.0.0.1:55432) with TABLES (500) tables `t000…`: each has a primary key, two
 * columns and a foreign key to the previous table (t_i.parent_id → t_{i-1}) and to t_{i/2}
 * (t_i.half_id), so 998 FKs. It starts `node dist/src/main.js` on BENCH_SCHEMA_PORT (18624), sets the
 * metadata with one `replace_metadata` (500 tables, 998 object + 998 array relationships, a select
 * permission for role `user` on every table) and measures, over the HTTP API:
 *   - schema cache build: `reload_metadata` (load metadata, introspect, full build, install);
 *   - one metadata operation: `create_select_permission`, `drop_select_permission`, `track_table` of a
 *     new table, `create_object_relationship` (each a full /v1/query round trip);
 *   - cold start: a new engine process against this database until its first answered GraphQL query
 *     (process start → HTTP 200 with data), and the first query of a role (its GraphQL schema build);
 * and, in this process, the pure build (`buildSchemaCacheFull` over an introspected snapshot).
 * Timings are medians of REPEAT (5) runs. Run it under the measurement lock:
 *   flock .tmp/measure.lock node scripts/benchSchema.mjs
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TABLES = Number(process.env.TABLES ?? 500);
const REPEAT = Number(process.env.REPEAT ?? 5);
const PG_BASE = process.env.BENCH_SCHEMA_PG ?? 'postgres://postgres@127.0.0.1:55432';
const DB_URL = `${PG_BASE}/bench_schema`;
const PORT = Number(process.env.BENCH_SCHEMA_PORT ?? 18624);
const SECRET = 'bench-schema-secret';
const BASE = `http://127.0.0.1:${PORT}`;
const name = (i) => `t${String(i).padStart(3, '0')}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;

async function createDatabase() {
  const admin = new pg.Client({ connectionString: `${PG_BASE}/postgres` });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS bench_schema WITH (FORCE)');
  await admin.query('CREATE DATABASE bench_schema');
  await admin.end();
  const c = new pg.Client({ connectionString: DB_URL });
  await c.connect();
  const ddl = [];
  for (let i = 0; i < TABLES; i++) {
    const fks = i === 0 ? '' : `, parent_id int REFERENCES ${name(i - 1)}(id), half_id int REFERENCES ${name(Math.floor(i / 2))}(id)`;
    ddl.push(`CREATE TABLE ${name(i)} (id serial PRIMARY KEY, label text NOT NULL, amount numeric, created_at timestamptz DEFAULT now()${fks});`);
    if (i > 0) ddl.push(`CREATE INDEX ON ${name(i)} (parent_id); CREATE INDEX ON ${name(i)} (half_id);`);
  }
  ddl.push(`CREATE TABLE extra_table (id serial PRIMARY KEY, t000_id int REFERENCES t000(id), note text);`);
  await c.query(ddl.join('\n'));
  await c.query(`INSERT INTO t000 (label) VALUES ('root')`);
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
    if (i > 0) {
      t.object_relationships = [
        { name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } },
        { name: 'half', using: { foreign_key_constraint_on: 'half_id' } },
      ];
    }
    if (arrays.get(i).length) t.array_relationships = arrays.get(i);
    t.select_permissions = [{ role: 'user', permission: { columns: ['id', 'label', 'amount'], filter: { id: { _gt: 0 } } } }];
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
  if (res.status !== 200 || text.includes('"errors"')) throw new Error(`${pathname} ${res.status}: ${text.slice(0, 400)}`);
  return { dt, text };
}
const query = (body) => post('/v1/query', body);

function startEngine() {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['dist/src/main.js', 'serve'], {
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

/** Polls with a GraphQL query until it is answered; returns ms since `t0`. */
async function firstAnswer(t0, role) {
  const headers = role ? { 'x-svc-role': role } : {};
  for (;;) {
    try {
      const r = await post('/v1/graphql', { query: '{ t000(limit: 1) { id label } }' }, headers);
      if (r.text.includes('"t000"')) return performance.now() - t0;
    } catch (e) {
      if (!/ECONNREFUSED|fetch failed/.test(String(e.cause?.code ?? e.message))) throw e;
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function pureBuild() {
  const m = await import(path.join(ROOT, 'dist/src/metadata/index.js'));
  const ex = await import(path.join(ROOT, 'dist/src/execution/index.js'));
  const db = ex.createDb(DB_URL, 2);
  try {
    return await db.withClient(async (c) => {
      const intro = [], build = [], load = [];
      for (let i = 0; i < REPEAT; i++) {
        let t = performance.now();
        const { metadata } = await m.loadMetadata(c);
        load.push(performance.now() - t);
        t = performance.now();
        const snap = await m.introspectDatabase(c, []);
        intro.push(performance.now() - t);
        t = performance.now();
        const r = m.buildSchemaCacheFull(metadata, snap);
        build.push(performance.now() - t);
        if (r.inconsistent.length) throw new Error(`inconsistent metadata: ${JSON.stringify(r.inconsistent[0]).slice(0, 300)}`);
      }
      return { load: median(load), introspect: median(intro), build: median(build) };
    });
  } finally {
    await db.close();
  }
}

async function main() {
  console.log(`benchSchema: ${TABLES} tables, ${2 * (TABLES - 1)} foreign keys, repeat ${REPEAT}, node ${process.version}`);
  let t = performance.now();
  await createDatabase();
  console.log(`  create database + tables: ${ms(performance.now() - t)}`);

  let { child, t0 } = startEngine();
  await firstAnswer(t0).catch(() => undefined); // fails on an empty schema: only wait for the port
  for (;;) {
    try { await query({ type: 'export_metadata', args: {} }); break; } catch { await new Promise((r) => setTimeout(r, 20)); }
  }
  const md = metadataDocument();
  const rels = md.tables.reduce((n, x) => n + (x.object_relationships?.length ?? 0) + (x.array_relationships?.length ?? 0), 0);
  const replace = await query({ type: 'replace_metadata', args: md });
  console.log(`  replace_metadata (${TABLES} tables, ${rels} relationships, ${TABLES} permissions): ${ms(replace.dt)}`);

  const out = {};
  const reload = [];
  for (let i = 0; i < REPEAT; i++) reload.push((await query({ type: 'reload_metadata', args: {} })).dt);
  out.reload = median(reload);

  const perm = [], dropPerm = [], track = [], untrack = [], rel = [], dropRel = [];
  for (let i = 0; i < REPEAT; i++) {
    perm.push((await query({ type: 'create_select_permission', args: { table: 't250', role: 'editor', permission: { columns: ['id', 'label'], filter: { parent: { id: { _gt: 1 } } } } } })).dt);
    dropPerm.push((await query({ type: 'drop_select_permission', args: { table: 't250', role: 'editor' } })).dt);
    track.push((await query({ type: 'track_table', args: { schema: 'public', name: 'extra_table' } })).dt);
    rel.push((await query({ type: 'create_object_relationship', args: { table: 'extra_table', name: 'root', using: { foreign_key_constraint_on: 't000_id' } } })).dt);
    dropRel.push((await query({ type: 'drop_relationship', args: { table: 'extra_table', relationship: 'root' } })).dt);
    untrack.push((await query({ type: 'untrack_table', args: { table: 'extra_table' } })).dt);
  }
  Object.assign(out, { perm: median(perm), dropPerm: median(dropPerm), track: median(track), untrack: median(untrack), rel: median(rel), dropRel: median(dropRel) });
  const gq = [];
  for (let i = 0; i < REPEAT; i++) gq.push((await post('/v1/graphql', { query: `{ t${String(100 + i).padStart(3, '0')}(limit: 1) { id parent { id } } }` })).dt);
  out.query = median(gq);
  await stopEngine(child);

  const cold = [], coldRole = [];
  for (let i = 0; i < REPEAT; i++) {
    ({ child, t0 } = startEngine());
    cold.push(await firstAnswer(t0));
    const t1 = performance.now();
    await firstAnswer(t1, 'user');
    coldRole.push(performance.now() - t1);
    await stopEngine(child);
  }
  out.cold = median(cold);
  out.coldRole = median(coldRole);

  const pure = await pureBuild();

  console.log(`  schema cache build, reload_metadata over HTTP (load + introspect + build + install): ${ms(out.reload)}  [goal ≤ 2000 ms]`);
  console.log(`    of which, in process: load metadata ${ms(pure.load)}, introspect ${ms(pure.introspect)}, buildSchemaCacheFull ${ms(pure.build)}`);
  console.log(`  metadata operations (one /v1/query each)  [goal ≤ 200 ms]:`);
  console.log(`    create_select_permission ${ms(out.perm)}, drop_select_permission ${ms(out.dropPerm)}`);
  console.log(`    track_table ${ms(out.track)}, untrack_table ${ms(out.untrack)}`);
  console.log(`    create_object_relationship ${ms(out.rel)}, drop_relationship ${ms(out.dropRel)}`);
  console.log(`  cold start to the first answered query (admin; includes the admin GraphQL schema): ${ms(out.cold)}`);
  console.log(`  first query of another role (its GraphQL schema build): ${ms(out.coldRole)}`);
  console.log(`  a warm query: ${ms(out.query)}`);
  console.log(JSON.stringify({ tables: TABLES, ...out, pure }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
