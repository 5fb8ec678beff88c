#!/usr/bin/env node
/**
 * `npm run bench:source-join -- [--pairs 3] [--warmup 3] [--duration 8] [--conns 16] [--pool 8]`
 *
 * A join across databases against the same join in one database: c_nested_3's shape (10 artists,
 * their albums, their tracks) on the bench dataset (bench/dataset.sql), in two PostgreSQL 15 servers
 * started here (removed at the end):
 *   - engine ONE: every table in server A (`artist.albums`, `album.tracks` ordinary relationships: one statement);
 *   - engine SPLIT: `album` in server B (source `music`), `artist` and `track` in A; `artist.albums` and
 *     `album.tracks` remote-source relationships (to_source): the root statement on A, one join statement
 *     on B for every album of the page, one on A for every track of them (three statements in all).
 * Both answer the same query with the same JSON (checked first). Load: wrk, interleaved pairs (ONE then
 * SPLIT), req/s of each and the ratio; the join statements B ran per request (pg_stat_statements).
 * Output: Markdown on stdout; engine logs in .tmp/bench/source-join-<port>.log. Needs wrk and psql.
 */
import { spawn, execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { tsImport } from 'tsx/esm/api';

const loadAtStart = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bench = resolve(root, 'bench');
const { values: args } = parseArgs({
  options: {
    pairs: { type: 'string', default: '3' },
    warmup: { type: 'string', default: '3' },
    duration: { type: 'string', default: '8' },
    conns: { type: 'string', default: '16' },
    pool: { type: 'string', default: '8' },
  },
});
const SECRET = 'bench-admin-secret';
const run = promisify(execFile);
const psql = async (url, sql) => (await run('psql', [url, '-Atqc', sql])).stdout.trim();
const tmp = join(root, '.tmp/bench');
mkdirSync(tmp, { recursive: true });

execFileSync('node', ['scripts/buildServer.mjs'], { cwd: root, stdio: 'ignore' });
const { startSystemPostgres } = await tsImport('../tests/support/systemPostgres.ts', import.meta.url);
const a = await startSystemPostgres();
const b = await startSystemPostgres(['shared_preload_libraries=pg_stat_statements']);
const children = [];
const cleanup = () => {
  for (const c of children) c.kill('SIGKILL');
  a.stop();
  b.stop();
};
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

try {
  const A_URL = a.url.replace(/\/postgres$/, '/bench');
  const B_URL = b.url.replace(/\/postgres$/, '/bench');
  await psql(a.url, 'create database bench');
  await psql(b.url, 'create database bench');
  execFileSync('psql', [A_URL, '-v', 'ON_ERROR_STOP=1', '-q', '-f', join(bench, 'dataset.sql')], { stdio: 'ignore' });
  // The albums, copied to server B.
  await psql(B_URL, 'create extension pg_stat_statements; create table album (id integer primary key, title text not null, artist_id integer not null); create index on album (artist_id)');
  const rows = spawnSync('psql', [A_URL, '-Atqc', 'copy album (id, title, artist_id) to stdout'], { maxBuffer: 64 << 20 }).stdout;
  const copied = spawnSync('psql', [B_URL, '-qc', 'copy album (id, title, artist_id) from stdin'], { input: rows });
  if (copied.status !== 0) throw new Error(copied.stderr.toString());
  await psql(B_URL, 'analyze album');
  // Engine SPLIT keeps its catalog apart: its default database is a copy of the dataset (made before either engine starts).
  await psql(a.url, 'create database bench_split template bench');
  const A_SPLIT_URL = a.url.replace(/\/postgres$/, '/bench_split');

  async function startEngine(port, databaseUrl) {
    const log = openSync(join(tmp, `source-join-${port}.log`), 'w');
    const child = spawn(process.execPath, ['dist/bin/svc-graphql-engine.js', 'serve'], {
      cwd: root, stdio: ['ignore', log, log],
      env: { ...process.env, NODE_ENV: 'production', SVC_GRAPHQL_DATABASE_URL: databaseUrl, SVC_GRAPHQL_SERVER_PORT: String(port), SVC_GRAPHQL_SERVER_HOST: '127.0.0.1', SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_PG_CONNECTIONS: args.pool },
    });
    children.push(child);
    for (let i = 0; i < 200; i++) {
      try { if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) return; } catch { /* not yet */ }
      await sleep(100);
    }
    throw new Error(`engine on ${port} did not become healthy`);
  }
  const metadata = async (port, body) => {
    const res = await fetch(`http://127.0.0.1:${port}/v1/metadata`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: JSON.stringify(body) });
    const json = await res.json();
    if (res.status !== 200) throw new Error(`${body.type}: ${JSON.stringify(json)}`);
    return json;
  };
  const toSource = (source, table, type, mapping) => ({ to_source: { source, table, relationship_type: type, field_mapping: mapping } });

  const ONE = 18651;
  const SPLIT = 18652;
  await startEngine(ONE, A_URL);
  await metadata(ONE, {
    type: 'bulk',
    args: [
      ...['artist', 'album', 'track'].map((table) => ({ type: 'pg_track_table', args: { source: 'default', table } })),
      { type: 'pg_create_array_relationship', args: { source: 'default', table: 'artist', name: 'albums', using: { foreign_key_constraint_on: { table: 'album', column: 'artist_id' } } } },
      { type: 'pg_create_array_relationship', args: { source: 'default', table: 'album', name: 'tracks', using: { foreign_key_constraint_on: { table: 'track', column: 'album_id' } } } },
    ],
  });
  await startEngine(SPLIT, A_SPLIT_URL);
  await metadata(SPLIT, { type: 'pg_add_source', args: { name: 'music', configuration: { connection_info: { database_url: B_URL, pool_settings: { max_connections: Number(args.pool) } } } } });
  await metadata(SPLIT, {
    type: 'bulk',
    args: [
      ...['artist', 'track'].map((table) => ({ type: 'pg_track_table', args: { source: 'default', table } })),
    ],
  });
  const doc = await metadata(SPLIT, { type: 'export_metadata', version: 2, args: {} });
  doc.sources[1].tables = [{ table: { schema: 'public', name: 'album' }, remote_relationships: [{ name: 'tracks', definition: toSource('default', 'track', 'array', { id: 'album_id' }) }] }];
  doc.sources[0].tables.find((t) => t.table.name === 'artist').remote_relationships = [{ name: 'albums', definition: toSource('music', 'album', 'array', { id: 'artist_id' }) }];
  await metadata(SPLIT, { type: 'replace_metadata', version: 2, args: { metadata: doc } });

  const query = readFileSync(join(bench, 'queries', 'c_nested_3.hasura.graphql'), 'utf8');
  const variables = JSON.parse(readFileSync(join(bench, 'queries', 'c_nested_3.variables.json'), 'utf8'));
  const post = async (port) => (await fetch(`http://127.0.0.1:${port}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: JSON.stringify({ query, variables }) })).text();
  // Nested lists are ordered by each table's order here (no order_by): compare them sorted by id.
  const canonical = (text) => JSON.stringify(JSON.parse(text), (_k, v) => (Array.isArray(v) && v.every((x) => x && typeof x === 'object' && 'id' in x) ? [...v].sort((x, y) => x.id - y.id) : v));
  const one = await post(ONE);
  const split = await post(SPLIT);
  if (JSON.parse(one).errors || canonical(one) !== canonical(split)) throw new Error(`the answers differ:\n${one.slice(0, 400)}\n${split.slice(0, 400)}`);

  const body = join(tmp, 'source-join-body.json');
  writeFileSync(body, JSON.stringify({ query, variables }));
  async function wrk(port, seconds) {
    const out = join(tmp, 'source-join-run.json');
    await run('wrk', ['-t1', `-c${args.conns}`, `-d${seconds}s`, '--timeout', '10s', '-s', join(bench, 'load/post.lua'), `http://127.0.0.1:${port}/v1/graphql`], { env: { ...process.env, BENCH_BODY_FILE: body, BENCH_WRK_JSON: out, BENCH_ADMIN_SECRET: SECRET } });
    const r = JSON.parse(readFileSync(out, 'utf8'));
    const errors = r.err_connect + r.err_read + r.err_write + r.err_status + r.err_timeout;
    if (errors > 0) throw new Error(`${port}: ${errors} errors`);
    return { requests: r.requests, rps: r.requests / (r.duration_us / 1e6), p50: r.lat_p50_us / 1000, p99: r.lat_p99_us / 1000 };
  }
  const joinCalls = async () => Number(await psql(B_URL, "select coalesce(sum(calls), 0) from pg_stat_statements where query like '%json_to_recordset%'"));

  const results = { one: [], split: [] };
  let perRequest = 0;
  for (let i = 0; i < Number(args.pairs); i++) {
    for (const [name, port] of [['one', ONE], ['split', SPLIT]]) {
      await wrk(port, Number(args.warmup));
      if (name === 'split') await psql(B_URL, 'select pg_stat_statements_reset()');
      const r = await wrk(port, Number(args.duration));
      if (name === 'split') perRequest = (await joinCalls()) / r.requests;
      results[name].push(r);
    }
  }
  const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const row = (name, rs) => `| ${name} | ${med(rs.map((r) => r.rps)).toFixed(0)} | ${Math.min(...rs.map((r) => r.rps)).toFixed(0)}–${Math.max(...rs.map((r) => r.rps)).toFixed(0)} | ${med(rs.map((r) => r.p50)).toFixed(1)} | ${med(rs.map((r) => r.p99)).toFixed(1)} |`;
  console.log(`load average at start: ${loadAtStart}, at the end: ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ${args.pairs} interleaved pairs, ${args.warmup} s warm-up + ${args.duration} s, wrk -c${args.conns}, pool ${args.pool}\n`);
  console.log('| c_nested_3 | req/s (median) | range | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|');
  console.log(row('one database', results.one));
  console.log(row('albums in another database', results.split));
  console.log(`\nsplit / one: ${(med(results.split.map((r) => r.rps)) / med(results.one.map((r) => r.rps))).toFixed(2)}; join statements on the albums' server per request: ${perRequest.toFixed(2)}`);
} finally {
  cleanup();
}
