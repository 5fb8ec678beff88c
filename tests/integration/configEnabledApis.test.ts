/**
 * --enabled-apis: a disabled API answers 404 not-found; explain goes with metadata; the pgdump
 * API (off by default) runs pg_dump for an admin, or says clearly why it cannot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestEngine } from './harness.js';
import { rawRequest } from '../support/rawRequest.js';
import { findSystemPostgres, startSystemPostgres } from '../support/systemPostgres.js';

const NOT_FOUND = { path: '$', error: 'resource does not exist', code: 'not-found' };

test('disabled APIs answer 404 not-found; explain is disabled with metadata', async (t) => {
  const e = await startTestEngine({ env: { SVC_GRAPHQL_ENABLED_APIS: 'graphql' } });
  t.after(() => e.stop());
  for (const [method, path] of [['GET', '/v1alpha1/config'], ['POST', '/v1/query'], ['POST', '/v1/graphql/explain'], ['POST', '/v1alpha1/pg_dump']] as const) {
    const r = await rawRequest(e.url, method, path, method === 'POST' ? {} : undefined);
    assert.equal(r.status, 404, `${path}: ${r.text}`);
    assert.deepEqual(r.body, NOT_FOUND);
  }
});

test('pg_dump is off by default, admin only when enabled, and dumps the database', async (t) => {
  const off = await startTestEngine({ adminSecret: 'adm' });
  t.after(() => off.stop());
  assert.equal((await off.request('POST', '/v1alpha1/pg_dump', { opts: ['--schema-only'] })).status, 404);

  const e = await startTestEngine({ adminSecret: 'adm', env: { SVC_GRAPHQL_ENABLED_APIS: 'graphql,metadata,config,pgdump' } });
  t.after(() => e.stop());
  await e.runSql('CREATE TABLE dumped_table (id int PRIMARY KEY)');
  const user = await e.request('POST', '/v1alpha1/pg_dump', { opts: ['--schema-only'] }, { 'x-svc-role': 'user' });
  assert.equal(user.status, 400);
  assert.equal(user.body.code, 'access-denied');
  assert.equal((await rawRequest(e.url, 'POST', '/v1alpha1/pg_dump', { opts: [] })).status, 401);
  const redirect = await e.request('POST', '/v1alpha1/pg_dump', { opts: ['--file=/tmp/x.sql'] });
  assert.equal(redirect.status, 400);
  assert.match(redirect.body.error, /pg_dump option --file=\/tmp\/x\.sql is not allowed/);
  const bad = await e.request('POST', '/v1alpha1/pg_dump', { opts: 'x' });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'parse-failed');


  // The test server is the embedded Postgres 17: a pg_dump older than that is refused up front,
  // with both versions and the fix in the message; no binary at all is said just as clearly.
  const fakeDir = mkdtempSync(join(tmpdir(), 'svc-fake-pgdump-'));
  t.after(() => rmSync(fakeDir, { recursive: true, force: true }));
  const old = join(fakeDir, 'pg_dump');
  writeFileSync(old, '#!/bin/sh\necho "pg_dump (PostgreSQL) 9.6.24"\n', { mode: 0o755 });
  const mismatch = await withPgDumpPath(old, () => e.request('POST', '/v1alpha1/pg_dump', { opts: [] }));
  assert.equal(mismatch.status, 500);
  assert.equal(mismatch.body.code, 'unexpected');
  assert.match(mismatch.body.error, /^pg_dump is not available: the database runs PostgreSQL 1[0-9] but the newest pg_dump found \(.*\/pg_dump\) is version 9, .*set SVC_GRAPHQL_PG_DUMP_PATH/);
  const missing = await withPgDumpPath('/nonexistent/pg_dump', () => e.request('POST', '/v1alpha1/pg_dump', { opts: [] }));
  assert.equal(missing.status, 500);
  assert.match(missing.body.error, /^pg_dump is not available: no pg_dump binary was found/);
});

/** Runs `fn` with SVC_GRAPHQL_PG_DUMP_PATH set to `path` (the engine runs in this process). */
async function withPgDumpPath<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const saved = process.env.SVC_GRAPHQL_PG_DUMP_PATH;
  process.env.SVC_GRAPHQL_PG_DUMP_PATH = path;
  try {
    return await fn();
  } finally {
    if (saved === undefined) delete process.env.SVC_GRAPHQL_PG_DUMP_PATH;
    else process.env.SVC_GRAPHQL_PG_DUMP_PATH = saved;
  }
}

// The machine's own PostgreSQL packages bring a server and the pg_dump of the same version: an
// engine on that server dumps it for real (clean_output drops comments and the SET preamble).
test('pg_dump dumps the engine\'s database (a server with matching client tools)', async (t) => {
  const sys = findSystemPostgres();
  if (!sys) {
    // No PostgreSQL package here: the only pg_dump-capable setup is missing, so the API must say so.
    const e = await startTestEngine({ env: { SVC_GRAPHQL_ENABLED_APIS: 'pgdump,metadata' } });
    t.after(() => e.stop());
    const r = await e.request('POST', '/v1alpha1/pg_dump', { opts: [] });
    assert.equal(r.status, 500);
    assert.match(r.body.error, /^pg_dump is not available/);
    return;
  }
  const pgServer = await startSystemPostgres();
  t.after(() => pgServer.stop());
  const e = await startTestEngine({ databaseUrl: pgServer.url, env: { SVC_GRAPHQL_ENABLED_APIS: 'graphql,metadata,pgdump' } });
  t.after(() => e.stop());
  await e.runSql("CREATE TABLE dumped_table (id int PRIMARY KEY, label text DEFAULT 'x'); INSERT INTO dumped_table VALUES (7, 'seven')");
  const schema = await e.request('POST', '/v1alpha1/pg_dump', { opts: ['--schema-only', '--table=dumped_table'], clean_output: true });
  assert.equal(schema.status, 200, schema.text);
  assert.match(schema.headers.get('content-type') ?? '', /^application\/sql/);
  assert.match(schema.text, /CREATE TABLE public\.dumped_table/);
  assert.doesNotMatch(schema.text, /^--/m, 'clean_output drops comments');
  assert.doesNotMatch(schema.text, /^SET statement_timeout/m, 'clean_output drops the preamble');
  assert.doesNotMatch(schema.text, /INSERT INTO|COPY /, '--schema-only has no data');
  const data = await e.request('POST', '/v1alpha1/pg_dump', { opts: ['--data-only', '--inserts', '--table=dumped_table'] });
  assert.equal(data.status, 200, data.text);
  assert.match(data.text, /^--/m, 'without clean_output the comments stay');
  // pg_dump 15.14 and later bracket the dump in psql's \restrict / \unrestrict, which is not SQL:
  // clean_output drops them with the comments, so the output runs through run_sql as it is.
  const cleanData = await e.request('POST', '/v1alpha1/pg_dump', { opts: ['--data-only', '--inserts', '--table=dumped_table'], clean_output: true });
  await e.runSql('TRUNCATE dumped_table');
  await e.runSql(cleanData.text);
  assert.deepEqual((await e.runSql('SELECT id, label FROM dumped_table')).result, [['id', 'label'], ['7', 'seven']]);
  assert.match(data.text, /INSERT INTO public\.dumped_table VALUES \(7, 'seven'\);/);
  const bad = await e.request('POST', '/v1alpha1/pg_dump', { opts: ['--table=no_such_table'] });
  assert.equal(bad.status, 500);
  assert.match(bad.body.error, /^error while executing pg_dump: .*no matching tables were found/s);
});
