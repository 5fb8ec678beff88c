/**
 * `--workers 2` as a user runs it: one port served by two worker processes (node:cluster). A table
 * tracked through one connection is queryable on fresh connections (handed to the workers in turn);
 * a worker killed with SIGKILL is replaced (one log line) while requests keep succeeding; SIGTERM lets
 * an in-flight request finish, then the workers and the primary exit 0.
 */
import assert from 'node:assert/strict';
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { freePort } from '../../src/lib/index.js';
import { createTestDatabase } from './harness.js';
import { eventually } from '../support/eventReceiver.js';

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const SECRET = 'workers-secret';
let db: { url: string; drop(): Promise<void> };
let child: ChildProcess;
let log = '';
let port: number;

/** One request on its own TCP connection (no keep-alive), so the cluster picks a worker for each. */
function post(path: string, body: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET, 'content-length': Buffer.byteLength(data) } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

const workerPids = (): number[] => {
  try {
    return execFileSync('ps', ['--ppid', String(child.pid), '-o', 'pid=,comm='], { encoding: 'utf8' })
      .split('\n').filter((l) => l.includes('node')).map((l) => Number(l.trim().split(/\s+/)[0]));
  } catch {
    return [];
  }
};

before(async () => {
  db = await createTestDatabase('workers');
  port = await freePort();
  child = spawn(process.execPath, ['--import', 'tsx', main, 'serve', '--workers', '2', '--server-port', String(port), '--server-host', '127.0.0.1', '--pg-connections', '4'], {
    env: { ...process.env, SVC_GRAPHQL_DATABASE_URL: db.url, SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (log += d));
  child.stderr!.on('data', (d) => (log += d));
  await eventually(() => log, (l) => l.includes('2 workers listening on'), 60_000, 'two workers listening');
});

after(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await db?.drop();
});

test('two workers on one port: a table tracked through one is served by every fresh connection', async () => {
  assert.equal(workerPids().length, 2);
  assert.equal((await post('/v1/query', { type: 'run_sql', args: { sql: "create table w_item (id int primary key, name text); insert into w_item values (1, 'one')" } })).status, 200);
  assert.equal((await post('/v1/query', { type: 'track_table', args: { schema: 'public', name: 'w_item' } })).status, 200);
  // Each request below is a new connection, handed to the workers in turn: both must know the table.
  await eventually(async () => {
    const rs = await Promise.all(Array.from({ length: 6 }, () => post('/v1/graphql', { query: '{ w_item { id name } }' })));
    return rs.map((r) => JSON.stringify(r.body));
  }, (bodies) => bodies.every((b) => b === '{"data":{"w_item":[{"id":1,"name":"one"}]}}'), 5_000, 'every worker serving w_item');
});

test('a killed worker is replaced while requests keep being served', async () => {
  const [victim, survivor] = workerPids();
  process.kill(victim, 'SIGKILL');
  await eventually(() => log, (l) => l.includes(`worker ${victim} exited (SIGKILL); starting another`), 5_000, 'the restart log line');
  // Meanwhile every request is served (by the survivor, then by both).
  for (let i = 0; i < 10; i++) assert.equal((await post('/v1/graphql', { query: '{ w_item { id } }' })).status, 200);
  await eventually(() => log.split('"kind":"server"').length - 1, (n) => n === 3, 60_000, 'a replacement worker listening');
  const pids = workerPids();
  assert.equal(pids.length, 2);
  assert.ok(pids.includes(survivor) && !pids.includes(victim));
  await eventually(async () => {
    const rs = await Promise.all(Array.from({ length: 6 }, () => post('/v1/graphql', { query: '{ w_item { name } }' })));
    return rs.map((r) => JSON.stringify(r.body));
  }, (bodies) => bodies.every((b) => b === '{"data":{"w_item":[{"name":"one"}]}}'), 30_000, 'the replacement serving');
});

test('SIGTERM: the in-flight request finishes, then workers and primary exit 0', async () => {
  const pids = workerPids();
  const slow = post('/v1/query', { type: 'run_sql', args: { sql: 'select pg_sleep(1.5)' } });
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    await eventually(async () => (await c.query("select count(*)::int as n from pg_stat_activity where query like 'select pg_sleep(1.5)%' and state = 'active'")).rows[0].n, (n) => n === 1, 10_000, 'the slow request running');
  } finally {
    await c.end();
  }
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  const r = await slow;
  assert.equal(r.status, 200);
  assert.equal(await exited, 0);
  for (const pid of pids) assert.throws(() => process.kill(pid, 0), /ESRCH/);
  assert.match(log, /"kind":"cluster","msg":"stopped"/);
});
