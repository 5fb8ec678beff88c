/**
 * The listener with stand-in handlers, over real HTTP: body limit, error masking, graceful
 * shutdown (once closing, new connections are refused while in-flight requests finish, bounded
 * by the timeout). And the CLI: SIGTERM stops the engine and exits 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ApiError } from '../../src/core/index.js';
import { freePort } from '../../src/lib/index.js';
import { createEngineServer } from '../../src/server/httpServer.js';
import type { Handler } from '../../src/server/index.js';
import { listenerContext } from '../support/listenerContext.js';

test('bodies over 50 MB are refused with 413 before the handler runs', async () => {
  let called = false;
  const server = createEngineServer(listenerContext(), { v1Query: async () => ((called = true), { status: 200, body: '{}' }) });
  const port = await server.listen(0, '127.0.0.1');
  try {
    const big = Buffer.alloc(50 * 1024 * 1024 + 1, 0x20);
    const r = await fetch(`http://127.0.0.1:${port}/v1/query`, { method: 'POST', body: big });
    assert.equal(r.status, 413);
    assert.equal(called, false);
    const ok = await fetch(`http://127.0.0.1:${port}/v1/query`, { method: 'POST', body: '{}' });
    assert.equal(ok.status, 200);
  } finally {
    await server.close(1000);
  }
});

test('a handler that throws a plain error gives 500 "internal error" without details; ApiErrors keep their shape', async () => {
  const server = createEngineServer(listenerContext(), {
    v1Query: async () => {
      throw new Error('secret stack detail');
    },
    v1Graphql: async () => {
      throw new ApiError('access-denied', 'invalid x-svc-admin-secret/x-svc-access-key', { status: 401 });
    },
  });
  const port = await server.listen(0, '127.0.0.1');
  try {
    const r = await fetch(`http://127.0.0.1:${port}/v1/query`, { method: 'POST', body: '{}' });
    assert.equal(r.status, 500);
    assert.deepEqual(await r.json(), { path: '$', error: 'internal error', code: 'unexpected' });
    const a = await fetch(`http://127.0.0.1:${port}/v1/graphql`, { method: 'POST', body: '{}' });
    assert.equal(a.status, 401);
    assert.deepEqual(await a.json(), { path: '$', error: 'invalid x-svc-admin-secret/x-svc-access-key', code: 'access-denied' });
  } finally {
    await server.close(1000);
  }
});

test('close() stops accepting, lets in-flight requests finish, then resolves', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow: Handler = async () => {
    await gate;
    return { status: 200, body: 'slow done' };
  };
  const server = createEngineServer(listenerContext(), { v1Query: slow, healthz: async () => ({ status: 200, body: 'OK' }) });
  const port = await server.listen(0, '127.0.0.1');
  const inflight = fetch(`http://127.0.0.1:${port}/v1/query`, { method: 'POST', body: '{}' });
  while (server.inFlight === 0) await new Promise((r) => setTimeout(r, 5));

  let closed = false;
  const closing = server.close(5000).then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(closed, false, 'waits for the in-flight request');
  await assert.rejects(fetch(`http://127.0.0.1:${port}/healthz`), 'new connections are refused');

  release();
  const res = await inflight;
  assert.equal(res.status, 200);
  assert.equal(await res.text(), 'slow done');
  await closing;
  assert.equal(closed, true);
});

test('close() gives up on requests that outlive the timeout', async () => {
  const never: Handler = () => new Promise(() => {});
  const server = createEngineServer(listenerContext(), { v1Query: never });
  const port = await server.listen(0, '127.0.0.1');
  const stuck = fetch(`http://127.0.0.1:${port}/v1/query`, { method: 'POST', body: '{}' }).catch((err: unknown) => err);
  while (server.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
  const t0 = Date.now();
  await server.close(300);
  assert.ok(Date.now() - t0 < 3000);
  assert.ok((await stuck) instanceof Error, 'the stuck connection is cut');
});

test('the CLI exits 0 on SIGTERM after a graceful stop', { timeout: 60_000 }, async () => {
  const maintenance = process.env.SVC_TEST_DATABASE_URL;
  assert.ok(maintenance, 'run through npm test');
  const name = 't_cli_' + randomBytes(5).toString('hex');
  const admin = new pg.Client({ connectionString: maintenance });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(maintenance);
  url.pathname = '/' + name;
  const port = await freePort();
  const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve', '--server-port', String(port), '--server-host', '127.0.0.1', '--log-level', 'info'], {
    env: { ...process.env, SVC_GRAPHQL_DATABASE_URL: url.toString() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let out = '';
    const listening = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/[^"\s]+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`engine exited early (${code}): ${out}`)));
      setTimeout(() => reject(new Error(`engine did not start: ${out}`)), 45_000);
    });
    assert.equal((await fetch(listening + '/healthz')).status, 200);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.match(out, /"type":"shutdown"/);
    await assert.rejects(fetch(listening + '/healthz'));
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
});
