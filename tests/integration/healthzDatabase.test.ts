/**
 * /healthz follows the database: 500 `ERROR` while the engine's Postgres is down, `OK` again once
 * it is back and the pool reconnects. The engine runs against an embedded Postgres of this test's
 * own, which the test stops and restarts underneath it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startEmbeddedPostgres } from '../../src/execution/index.js';
import { freePort } from '../../src/lib/index.js';
import { startTestEngine } from './harness.js';

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) assert.fail(`not converged after ${timeoutMs} ms; last value: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

test('/healthz answers 500 ERROR while the database is down and OK once it is back', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-healthz-'));
  const port = await freePort();
  const flags = ['-c', 'fsync=off'];
  let pg = await startEmbeddedPostgres({ dataDir, port, postgresFlags: flags });
  const e = await startTestEngine({ databaseUrl: pg.url });
  t.after(async () => {
    await e.stop();
    await pg.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const health = async () => {
    const r = await e.request('GET', '/healthz');
    return `${r.status} ${r.text}`;
  };
  assert.equal(await health(), '200 OK');

  await pg.stop();
  const t0 = Date.now();
  assert.equal(await eventually(health, (v) => v !== '200 OK', 10_000), '500 ERROR');
  assert.ok(Date.now() - t0 < 8000, 'healthz answered within the ping timeout');
  const gql = await e.graphql('{ __typename }');
  assert.equal(gql.status, 200);

  pg = await startEmbeddedPostgres({ dataDir, port, postgresFlags: flags });
  assert.equal(await eventually(health, (v) => v === '200 OK', 15_000), '200 OK');
  const r = await e.query({ type: 'run_sql', args: { sql: 'SELECT 1 AS one' } });
  assert.deepEqual(r.body, { result_type: 'TuplesOk', result: [['one'], ['1']] });
});
