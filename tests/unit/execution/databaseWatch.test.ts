import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import pino from 'pino';
import { createDatabaseWatch, isConnectionLoss } from '../../../src/execution/index.js';
import { ApiError } from '../../../src/core/index.js';
import { freePort } from '../../../src/lib/index.js';

const serverError = (code: string, message: string) => Object.assign(new pg.DatabaseError(message, 0, 'error'), { code, severity: 'FATAL' });

test('a connection failure is told apart from other failures', () => {
  const lost = [
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    new Error('Connection terminated unexpectedly'),
    serverError('57P01', 'terminating connection due to administrator command'),
    serverError('57P03', 'the database system is starting up'),
    serverError('08P01', 'server login has been failing, try again later (server_login_retry)'),
    new ApiError('database-error', 'database connection error', { status: 500 }),
    new ApiError('unexpected', 'database query error', { status: 500, internal: { error: { status_code: '57P01' } } }),
  ];
  for (const e of lost) assert.equal(isConnectionLoss(e), true, String(e));
  const other = [
    serverError('42P01', 'relation "x" does not exist'),
    serverError('28P01', 'password authentication failed for user "app"'),
    new ApiError('unexpected', 'database query error', { status: 500, internal: { error: { status_code: '42703' } } }),
    new TypeError('x is not a function'),
    'a string',
  ];
  for (const e of other) assert.equal(isConnectionLoss(e), false, String(e));
});

test('the first connection failure is probed and logged once for the engine; the parts\' own failures are not covered', async () => {
  const lines: Array<{ level: number; type?: string; msg: string }> = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const port = await freePort(); // nothing listens there
  const watch = createDatabaseWatch(logger, { databaseUrl: `postgres://u@127.0.0.1:${port}/db`, probeMs: 50 });
  try {
    assert.equal(watch.covers(serverError('42P01', 'relation "x" does not exist')), false);
    assert.equal(watch.covers(new Error('Connection terminated unexpectedly')), true);
    assert.equal(watch.covers(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), true);
    const deadline = Date.now() + 5000;
    while (!watch.down && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(watch.down, true);
    await new Promise((r) => setTimeout(r, 300)); // several probes more: still one line
    assert.equal(watch.covers(new Error('Connection terminated unexpectedly')), true);
    const said = lines.filter((l) => l.type === 'database').map((l) => l.msg);
    assert.deepEqual(said, [`database unreachable at 127.0.0.1:${port} (the database URL): connection refused (is Postgres running and listening there?); the engine keeps retrying (probing every 0.05 s), requests that need the database fail or wait until it is back`]);
  } finally {
    watch.stop();
  }
});
