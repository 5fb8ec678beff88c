/**
 * The built-in pg_dump (PostgreSQL 18's, WebAssembly) against Debian's own pg_dump on a server of
 * that package's version (/usr/lib/postgresql/<v>/bin): the conformance schema dumped both ways
 * through /v1alpha1/pg_dump gives the same statements once comments, version lines and psql's
 * `\restrict` lines are set aside. CI installs that package (.ci/run). The server asks for SCRAM-SHA-256 (and MD5 for a second role),
 * which the built-in pg_dump's connection answers with the engine's credentials.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { sqlOn, startTestEngine, type TestEngine } from './harness.js';
import { applyConformanceSchema } from '../support/conformanceSchema.js';
import { startSystemPostgres } from '../support/systemPostgres.js';

const ENABLED = { SVC_GRAPHQL_ENABLED_APIS: 'graphql,metadata,pgdump' };

/** The statements of a plain dump: no comments, blank lines or psql meta-commands (`\\restrict`). */
function statements(dump: string): string[] {
  return dump
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('--') && !l.startsWith('\\'))
    .join('\n')
    .split(/;\n/)
    .map((s) => s.trim());
}

async function timedDump(e: TestEngine, binary: string, opts: string[]): Promise<{ text: string; ms: number }> {
  const saved = process.env.SVC_GRAPHQL_PG_DUMP_PATH;
  process.env.SVC_GRAPHQL_PG_DUMP_PATH = binary;
  try {
    const t0 = performance.now();
    const r = await e.request('POST', '/v1alpha1/pg_dump', { opts });
    assert.equal(r.status, 200, `${binary}: ${r.text.slice(0, 2000)}`);
    return { text: r.text, ms: performance.now() - t0 };
  } finally {
    if (saved === undefined) delete process.env.SVC_GRAPHQL_PG_DUMP_PATH;
    else process.env.SVC_GRAPHQL_PG_DUMP_PATH = saved;
  }
}

test('the built-in pg_dump and the installed one dump the same statements (SCRAM and MD5 logins)', async (t) => {
  const server = await startSystemPostgres(['password_encryption=scram-sha-256']);
  t.after(() => server.stop());
  const trust = new pg.Client({ connectionString: server.url });
  await trust.connect();
  await trust.query("ALTER ROLE postgres PASSWORD 'scram secret'; SET password_encryption = 'md5'; CREATE ROLE md5_user LOGIN SUPERUSER PASSWORD 'md5 secret'");
  writeFileSync(join(server.dir, 'data', 'pg_hba.conf'), 'local all all trust\nhost all md5_user 127.0.0.1/32 md5\nhost all all 127.0.0.1/32 scram-sha-256\n');
  await trust.query('SELECT pg_reload_conf()');
  await trust.end();
  const url = `postgres://postgres:${encodeURIComponent('scram secret')}@127.0.0.1:${server.port}/postgres`;
  const e = await startTestEngine({ databaseUrl: url, env: ENABLED });
  t.after(() => e.stop());
  const applied = await applyConformanceSchema(url);
  assert.ok(applied.length >= 50, `the conformance schema applies (${applied.length} groups)`);

  const opts = ['--schema-only', '-O', '-x'];
  const installed = await timedDump(e, join(server.bin, 'pg_dump'), opts);
  const builtIn = await timedDump(e, 'built-in', opts);
  assert.match(installed.text, new RegExp(`^-- Dumped by pg_dump version ${server.major}\\.`, 'm'));
  assert.match(builtIn.text, /^-- Dumped by pg_dump version 18\./m);
  const a = statements(installed.text);
  const b = statements(builtIn.text);
  assert.ok(a.length > 500, `${a.length} statements`);
  assert.deepEqual(b, a);
  console.log(`# schema dump of the conformance schema (${a.length} statements): installed pg_dump ${server.major} ${Math.round(installed.ms)} ms, built-in ${Math.round(builtIn.ms)} ms`);

  // Rows too: the built-in pg_dump writes table data as INSERT statements, as the installed one
  // does with --inserts; its dump restores on this server into the same database.
  const data = ['-O', '-x', '--exclude-schema=hdb_catalog'];
  const installedData = statements((await timedDump(e, join(server.bin, 'pg_dump'), [...data, '--inserts'])).text);
  const builtInData = (await timedDump(e, 'built-in', data)).text;
  assert.ok(installedData.filter((s) => s.startsWith('INSERT INTO ')).length > 100);
  assert.deepEqual(statements(builtInData), installedData);
  await sqlOn(url, 'CREATE DATABASE restored');
  await sqlOn(url.replace(/\/postgres$/, '/restored'), builtInData.replace(/^\\(un)?restrict .*$/gm, ''));
  const r = await startTestEngine({ databaseUrl: url.replace(/\/postgres$/, '/restored'), env: ENABLED });
  t.after(() => r.stop());
  assert.deepEqual(statements((await timedDump(r, join(server.bin, 'pg_dump'), [...data, '--inserts'])).text), installedData);

  // The same through an MD5 login.
  const md5 = await startTestEngine({ databaseUrl: `postgres://md5_user:${encodeURIComponent('md5 secret')}@127.0.0.1:${server.port}/postgres`, env: ENABLED });
  t.after(() => md5.stop());
  const viaMd5 = await timedDump(md5, 'built-in', opts);
  assert.deepEqual(statements(viaMd5.text), a);
});
