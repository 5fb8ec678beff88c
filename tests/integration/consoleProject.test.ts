/**
 * `svc-graphql-engine console --project DIR` (migrations mode) against real engines: through its
 * proxy a table is created with SQL (with and without the console's migration headers), tracked and
 * given a permission; the project gets exactly one migration folder per schema change (recorded as
 * applied) and its metadata folder is rewritten as `metadata export` writes it, so `git diff` shows
 * the clicks and nothing else; `migrate apply` + `metadata apply` on a fresh engine reproduce the
 * first engine's metadata. Read-only SQL and failures write nothing; the binary's errors are one line.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { metadataToFiles, runCli, startProjectConsole, type CliIo, type ConsoleProxy } from '../../src/cli/index.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { openTransportWs } from './subscriptionsClient.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
if (!existsSync(`${root}dist/console/index.html`)) execFileSync(process.execPath, [`${root}scripts/buildConsole.mjs`], { stdio: 'ignore' });
const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const SECRET = 'project-secret';

let a: TestEngine;
let tmp: string;
let dir: string;
let proxy: ConsoleProxy;
const progress: string[] = [];

function io(env: NodeJS.ProcessEnv = {}): { io: CliIo; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, io: { out: (t) => void out.push(t), err: (l) => void err.push(l), progress: (l) => void progress.push(l), env, color: false } };
}
const git = (...args: string[]): string => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

/** POST through the console's proxy, as the console does (no admin secret: the proxy adds the project's). */
async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const r = await fetch(proxy.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}
const migrations = async (): Promise<string[]> => (await readdir(join(dir, 'migrations', 'default')).catch(() => [] as string[])).sort();
const withoutConnectionEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'SVC_GRAPHQL_ENDPOINT' && k !== 'SVC_GRAPHQL_ADMIN_SECRET'));
const b64 = (s: string) => Buffer.from(s).toString('base64');

before(async () => {
  a = await startTestEngine({ adminSecret: SECRET });
  tmp = await mkdtemp(join(tmpdir(), 'svc-console-project-'));
  dir = join(tmp, 'project');
  await runCli('migrate', ['create', 'init', '--dir', join(dir, 'migrations', 'default')], io().io).then((c) => assert.equal(c, 0));
  await rm(join(dir, 'migrations'), { recursive: true });
  await writeFile(join(dir, 'config.yaml'), `version: 3\nendpoint: ${a.url}\nadmin_secret: ${SECRET}\nmetadata_directory: metadata\n`);
  assert.equal(await runCli('metadata', ['export', '--project', dir], io().io), 0);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
  proxy = await startProjectConsole(['--project', dir, '--port', '0'], io().io);
});

after(async () => {
  await proxy?.stop();
  await a?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

test('the console page is served in migrations mode; other requests reach the engine with the project secret', async () => {
  const page = await fetch(`${proxy.url}/console`);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /<meta name="svc-console-project" content="\{&quot;database&quot;:&quot;default&quot;\}">/);
  const redirect = await fetch(`${proxy.url}/`, { redirect: 'manual' });
  assert.equal(redirect.status, 307);
  assert.equal(redirect.headers.get('location'), '/console');
  const health = await fetch(`${proxy.url}/healthz`);
  assert.equal(health.status, 200);
  const gql = await post('/v1/graphql', { query: '{ __typename }' });
  assert.deepEqual(gql.body, { data: { __typename: 'query_root' } });
  // A wrong secret typed in the console is the engine's answer, not replaced by the project's.
  const denied = await post('/v1/query', { type: 'export_metadata', args: {} }, { 'x-svc-admin-secret': 'wrong' });
  assert.equal(denied.status, 401);
  assert.equal(denied.body.code, 'access-denied');
});

test('another site in the browser, or another host name, cannot use the project secret', async () => {
  const evil = await fetch(`${proxy.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: 'http://evil.example' }, body: JSON.stringify({ type: 'run_sql', args: { sql: 'CREATE TABLE evil (id int)' } }) });
  assert.equal(evil.status, 403);
  assert.equal((await evil.json()).code, 'access-denied');
  const rebound = await new Promise<number>((resolve, reject) => {
    const r = httpRequest(`${proxy.url}/v1/query`, { method: 'POST', headers: { host: `attacker.example:${proxy.port}`, 'content-type': 'application/json' } }, (res) => (res.resume(), resolve(res.statusCode!)));
    r.on('error', reject);
    r.end(JSON.stringify({ type: 'run_sql', args: { sql: 'CREATE TABLE evil (id int)' } }));
  });
  assert.equal(rebound, 403);
  const same = await post('/v1/query', { type: 'run_sql', args: { sql: 'SELECT 1', read_only: true } }, { origin: proxy.url });
  assert.equal(same.status, 200);
  const exists = await a.runSql("SELECT to_regclass('public.evil') IS NULL");
  assert.equal(exists.result[1][0], 't');
});

test('SQL with the migration headers becomes a migration with its down, recorded as applied', async () => {
  const sql = 'CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL)';
  const r = await post('/v1/query', { type: 'run_sql', args: { sql } }, { 'x-svc-migration-name': 'create_table_author', 'x-svc-migration-down': b64('DROP TABLE author;') });
  assert.equal(r.status, 200);
  // The answer is run_sql's own, not the bulk the proxy sent.
  assert.deepEqual(r.body, { result_type: 'CommandOk', result: null });
  const [m] = await migrations();
  assert.match(m!, /^\d{13}_create_table_author$/);
  assert.equal(await readFile(join(dir, 'migrations', 'default', m!, 'up.sql'), 'utf8'), `${sql};\n`);
  assert.equal(await readFile(join(dir, 'migrations', 'default', m!, 'down.sql'), 'utf8'), 'DROP TABLE author;\n');
  const status = io({});
  assert.equal(await runCli('migrate', ['status', '--project', dir], status.io), 0);
  assert.match(status.out.join(''), new RegExp(`^${m!.split('_')[0]}\\tcreate_table_author\\tPresent\\tApplied$`, 'm'));
});

test('reads, row writes and failures write nothing; a failure answers as the engine would', async () => {
  const before = await migrations();
  assert.equal((await post('/v1/query', { type: 'run_sql', args: { sql: 'SELECT 1', read_only: true } })).status, 200);
  assert.equal((await post('/v1/query', { type: 'run_sql', args: { sql: "INSERT INTO author (name) VALUES ('x')" } })).status, 200);
  assert.equal((await post('/v1/query', { type: 'run_sql', args: { sql: 'CREATE TABLE later (id int)' } }, { 'x-svc-migration': 'false' })).status, 200);
  await a.runSql('DROP TABLE later');
  const bad = { type: 'run_sql', args: { sql: 'CREATE TABLE broken (id nosuchtype)' } };
  const viaProxy = await post('/v1/query', bad, { 'x-svc-migration-name': 'broken' });
  const direct = await a.query(bad);
  assert.equal(viaProxy.status, direct.status);
  assert.deepEqual(viaProxy.body, direct.body);
  assert.equal(viaProxy.body.path, '$.args');
  assert.deepEqual(await migrations(), before);
  const recorded = await a.runSql('SELECT count(*) FROM hdb_catalog.schema_migrations');
  assert.equal(recorded.result[1][0], String(before.length));
  assert.equal(git('status', '--porcelain', '--', 'metadata'), '');
});

test('SQL without headers is console_run_sql with a down saying it is not reversible; a bulk is one migration', async () => {
  const before = await migrations();
  const r = await post('/v1/query', {
    type: 'bulk',
    args: [
      { type: 'run_sql', args: { sql: 'CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author (id))' } },
      { type: 'run_sql', args: { sql: "COMMENT ON TABLE article IS 'posts'" } },
    ],
  });
  assert.equal(r.status, 200);
  assert.equal(r.body.length, 2);
  const added = (await migrations()).filter((m) => !before.includes(m));
  assert.equal(added.length, 1);
  assert.match(added[0]!, /^\d{13}_console_run_sql$/);
  const folder = join(dir, 'migrations', 'default', added[0]!);
  assert.equal(await readFile(join(folder, 'up.sql'), 'utf8'), "CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author (id));\nCOMMENT ON TABLE article IS 'posts';\n");
  assert.match(await readFile(join(folder, 'down.sql'), 'utf8'), /^-- Could not auto-generate a down migration\.\n-- Please write an appropriate down migration for the SQL below:\n-- CREATE TABLE article/);
});

test('track, relationship and permission rewrite metadata/ as metadata export does; git diff shows only the clicks', async () => {
  assert.equal((await post('/v1/query', { type: 'track_table', args: { table: { schema: 'public', name: 'author' } } })).status, 200);
  assert.equal((await post('/v1/metadata', { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'article' } } })).status, 200);
  assert.equal((await post('/v1/query', { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } })).status, 200);
  const perm = await post('/v1/metadata', {
    type: 'pg_create_select_permission',
    args: { source: 'default', table: { schema: 'public', name: 'author' }, role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } },
  });
  assert.equal(perm.status, 200, JSON.stringify(perm.body));
  // The folder is what `metadata export` writes now.
  const fresh = join(tmp, 'fresh-export');
  await writeFile(join(tmp, 'fresh.yaml'), `version: 3\nendpoint: ${a.url}\nadmin_secret: ${SECRET}\nmetadata_directory: ../fresh-export\n`);
  execFileSync('cp', ['-r', join(dir, 'metadata'), fresh]);
  assert.equal(await runCli('metadata', ['export', '--dir', fresh, '--endpoint', a.url, '--admin-secret', SECRET], io().io), 0);
  assert.equal(execFileSync('diff', ['-r', fresh, join(dir, 'metadata')], { encoding: 'utf8' }), '');
  // git: the new migrations and the metadata of the two tracked tables, nothing else.
  git('add', '-A');
  const changed = git('diff', '--cached', '--name-status').trim().split('\n').sort();
  const ms = await migrations();
  assert.deepEqual(changed, [
    'M\tmetadata/tables.yaml',
    ...ms.flatMap((m) => [`A\tmigrations/default/${m}/down.sql`, `A\tmigrations/default/${m}/up.sql`]),
  ].sort());
  const tablesYaml = await readFile(join(dir, 'metadata', 'tables.yaml'), 'utf8');
  assert.match(tablesYaml, /select_permissions:\n\s+- role: user/);
  assert.match(git('diff', '--cached', '--', 'metadata/tables.yaml'), /^\+\s+- role: user$/m);
});

test('migrate apply + metadata apply on a fresh engine reproduce the first engine', async () => {
  const b = await startTestEngine({ adminSecret: SECRET });
  try {
    const flags = ['--project', dir, '--endpoint', b.url];
    const m = io();
    assert.equal(await runCli('migrate', ['apply', ...flags], m.io), 0, m.err.join('\n'));
    const md = io();
    assert.equal(await runCli('metadata', ['apply', ...flags], md.io), 0, md.err.join('\n'));
    const exportOf = async (e: TestEngine) => (await e.query({ type: 'export_metadata', args: {} })).body;
    // Equal as the project holds them (the same files; the order of tables in an export is creation order).
    const [mdA, mdB] = [await exportOf(a), await exportOf(b)];
    assert.equal(mdA.tables.length, 2);
    assert.deepEqual(metadataToFiles(mdB), metadataToFiles(mdA));
    const st = io();
    assert.equal(await runCli('migrate', ['status', ...flags], st.io), 0);
    assert.doesNotMatch(st.out.join(''), /Not Applied|Not Present/);
    // The permission works on the second engine as on the first.
    // Rows are not migrations (the first engine's row written by SQL is not there); the permission works.
    await b.runSql("INSERT INTO author (name) VALUES ('b1'), ('b2')");
    const q = await b.graphql('{ author { name } }', undefined, { 'x-svc-role': 'user', 'x-svc-user-id': '2' });
    assert.deepEqual(q.body, { data: { author: [{ name: 'b2' }] } });
  } finally {
    await b.stop();
  }
});

test('subscriptions go through the proxy over WebSocket, the project secret added to the upgrade', async () => {
  const s = await openTransportWs(proxy.url, {});
  try {
    s.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { author(order_by: {id: asc}) { name } }' } });
    const first = await s.next(15_000);
    assert.equal(first.type, 'next', JSON.stringify(first));
    assert.deepEqual(first.payload.data.author, [{ name: 'x' }]);
    await a.runSql("INSERT INTO author (name) VALUES ('live')");
    const second = await s.next(15_000);
    assert.deepEqual(second.payload.data.author, [{ name: 'x' }, { name: 'live' }]);
  } finally {
    s.close();
  }
  await a.runSql("DELETE FROM author WHERE name = 'live'");
});

test('a config-v2 project gets its migrations flat in migrations/ and its metadata in its own layout', async () => {
  const v2 = join(tmp, 'v2');
  await runCli('migrate', ['create', 'seed', '--dir', join(v2, 'migrations')], io().io);
  await writeFile(join(v2, 'config.yaml'), `version: 2\nendpoint: ${a.url}\nadmin_secret: ${SECRET}\n`);
  const p2 = await startProjectConsole(['--project', v2, '--port', '0', '--database-name', 'default'], io().io);
  try {
    const r = await fetch(`${p2.url}/v1/query`, { method: 'POST', headers: { 'x-svc-migration-name': 'add_tag' }, body: JSON.stringify({ type: 'run_sql', args: { sql: 'CREATE TABLE tag (id int)' } }) });
    assert.equal(r.status, 200);
    const entries = (await readdir(join(v2, 'migrations'))).sort();
    assert.equal(entries.length, 2);
    assert.match(entries[1]!, /^\d{13}_add_tag$/);
    assert.ok((await readdir(join(v2, 'metadata'))).includes('tables.yaml'));
  } finally {
    await p2.stop();
    await a.runSql('DROP TABLE tag');
  }
});

test('the binary: one line and exit 1 for a missing folder or an unreachable engine; --help', async () => {
  const run = (args: string[]) =>
    new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', main, 'console', ...args], { env: withoutConnectionEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (code) => resolve({ code, stdout, stderr }));
    });
  const missing = await run(['--project', join(tmp, 'nope')]);
  assert.equal(missing.code, 1);
  assert.equal(missing.stderr, `svc-graphql-engine console: --project: no folder ${JSON.stringify(join(tmp, 'nope'))}\n`);
  const wrong = await run(['--project', dir, '--admin-secret', 'wrong', '--port', '0']);
  assert.equal(wrong.code, 1);
  // (config.yaml's endpoint is named on a progress line first, as the other commands do)
  const errors = wrong.stderr.split('\n').filter((l) => l.startsWith('svc-graphql-engine'));
  assert.equal(errors.length, 1, wrong.stderr);
  assert.match(errors[0]!, /^svc-graphql-engine console: invalid x-svc-admin-secret.*\(access-denied, HTTP 401\)$/);
  const help = await run(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--database-name NAME/);
});
