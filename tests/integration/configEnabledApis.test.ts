/**
 * --enabled-apis: a disabled API answers 404 not-found; explain goes with metadata; the pgdump
 * API (off by default) runs pg_dump for an admin, or says clearly why it cannot.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { startTestEngine } from './harness.js';
import { rawRequest } from '../support/rawRequest.js';
import { findPgDump } from '../../src/api/v1alpha1PgDump.js';

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

  const r = await e.request('POST', '/v1alpha1/pg_dump', { opts: ['--schema-only', '--table=dumped_table'], clean_output: true });
  const bin = findPgDump();
  const server = Number((await e.runSql('SHOW server_version_num')).result[1][0]) / 10000;
  const client = bin ? Number(/(\d+)(\.\d+)?/.exec(spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout)?.[1]) : 0;
  if (bin && client >= Math.floor(server)) {
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^application\/sql/);
    assert.match(r.text, /CREATE TABLE public\.dumped_table/);
    assert.doesNotMatch(r.text, /^--/m, 'clean_output drops comments');
    assert.doesNotMatch(r.text, /^SET statement_timeout/m, 'clean_output drops the preamble');
  } else {
    // This machine's pg_dump is older than the server: the error says so.
    assert.equal(r.status, 500, r.text);
    assert.equal(r.body.code, 'unexpected');
    assert.match(r.body.error, /^(error while executing pg_dump: .*version mismatch|pg_dump is not available)/s);
  }

  const saved = process.env.SVC_GRAPHQL_PG_DUMP_PATH;
  process.env.SVC_GRAPHQL_PG_DUMP_PATH = '/nonexistent/pg_dump';
  t.after(() => (saved === undefined ? delete process.env.SVC_GRAPHQL_PG_DUMP_PATH : (process.env.SVC_GRAPHQL_PG_DUMP_PATH = saved)));
  const missing = await e.request('POST', '/v1alpha1/pg_dump', { opts: [] });
  assert.equal(missing.status, 500);
  assert.match(missing.body.error, /^pg_dump is not available: no pg_dump binary was found/);
});
