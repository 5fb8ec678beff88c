/**
 * A connection to Postgres that fails says why, with host:port and never the password: at start
 * (`checkConnection`, and the CLI's one line) and later in the engine's log while /healthz fails.
 * Every cause is produced for real: a closed port, a `.invalid` host, a TCP server that accepts and
 * never answers, a wrong password and a missing database on the test Postgres, and sslmode=require
 * against that Postgres (which has no TLS).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import pg from 'pg';
import { checkConnection, DatabaseConnectionError } from '../../src/execution/index.js';
import { freePort } from '../../src/lib/index.js';
import { startTestEngine } from './harness.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const SECRET = 'hunter2-SeCrEt';

function testServer(): URL {
  const url = process.env.SVC_TEST_DATABASE_URL;
  assert.ok(url, 'run through npm test');
  return new URL(url);
}

/** The message checkConnection fails with (it must fail, with a DatabaseConnectionError). */
async function failure(url: string, timeoutMs?: number): Promise<string> {
  try {
    await checkConnection(url, timeoutMs);
  } catch (err) {
    assert.ok(err instanceof DatabaseConnectionError, String(err));
    assert.ok(!err.message.includes(SECRET), `no password in: ${err.message}`);
    assert.ok(!err.message.includes('\n'), 'one line');
    return err.message;
  }
  assert.fail(`connecting to ${url} succeeded`);
}

test('refused: a closed port', async () => {
  const port = await freePort();
  const msg = await failure(`postgres://app:${SECRET}@127.0.0.1:${port}/db`);
  assert.equal(msg, `cannot connect to Postgres at 127.0.0.1:${port}: connection refused (is Postgres running and listening there?)`);
});

test('unknown host: a .invalid name', async () => {
  const msg = await failure(`postgres://app:${SECRET}@db.example.invalid:5433/db`);
  assert.equal(msg, 'cannot connect to Postgres at db.example.invalid:5433: unknown host "db.example.invalid"');
});

test('timed out: a server that accepts and never answers', async () => {
  const sockets = new Set<Socket>();
  const server = createServer((s) => sockets.add(s));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  try {
    const t0 = Date.now();
    const msg = await failure(`postgres://app:${SECRET}@127.0.0.1:${port}/db`, 500);
    assert.equal(msg, `cannot connect to Postgres at 127.0.0.1:${port}: timed out (no answer from the server)`);
    assert.ok(Date.now() - t0 < 10_000, 'gave up near the timeout');
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  }
});

test('authentication failed: a wrong password on the test Postgres', async () => {
  const u = testServer();
  u.password = SECRET;
  const msg = await failure(u.toString());
  assert.equal(msg, `cannot connect to Postgres at ${u.hostname}:${u.port}: authentication failed for user "${decodeURIComponent(u.username)}"`);
});

test('database does not exist', async () => {
  const u = testServer();
  u.pathname = '/no_such_db_h17';
  const msg = await failure(u.toString());
  assert.equal(msg, `cannot connect to Postgres at ${u.hostname}:${u.port}: database "no_such_db_h17" does not exist`);
});

test('TLS: sslmode=require against a server without TLS', async () => {
  const u = testServer();
  u.searchParams.set('sslmode', 'require');
  const msg = await failure(u.toString());
  assert.match(msg, new RegExp(`^cannot connect to Postgres at ${u.hostname}:${u.port}: TLS: .*SSL`));
});

test('the CLI refuses to start with that one line, without the password', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src', 'main.ts'), 'serve', '--server-port', String(await freePort())], {
    cwd: root,
    env: { ...process.env, SVC_GRAPHQL_DATABASE_URL: `postgres://app:${SECRET}@127.0.0.1:${port}/db` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
  assert.equal(code, 1);
  assert.equal(err, `svc-graphql-engine: failed to start: cannot connect to Postgres at 127.0.0.1:${port}: connection refused (is Postgres running and listening there?)\n`);
  assert.ok(!(out + err).includes(SECRET));
});

test('a running engine logs the cause when its database goes away; /healthz fails', async () => {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(s) });
  const e = await startTestEngine({ startOptions: { logger } });
  try {
    assert.equal((await e.request('GET', '/healthz')).status, 200);
    const dbName = new URL(e.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: process.env.SVC_TEST_DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE ${admin.escapeIdentifier(dbName)} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
    const deadline = Date.now() + 20_000;
    let health = await e.request('GET', '/healthz');
    while (health.status !== 500 && Date.now() < deadline) health = await e.request('GET', '/healthz');
    assert.equal(health.text, 'ERROR');
    const logged = lines.map((l) => JSON.parse(l) as { type?: string; msg?: string }).filter((l) => l.type === 'pg-connection');
    assert.ok(logged.length >= 1, 'a pg-connection line was logged');
    const u = new URL(e.databaseUrl);
    assert.equal(logged[0]!.msg, `cannot connect to Postgres at ${u.hostname}:${u.port}: database "${dbName}" does not exist`);
  } finally {
    await e.stop();
  }
});
