/**
 * run_sql `read_only: true` runs in a READ ONLY transaction, as Hasura v1.3 (`rTxAccessMode`):
 * writes fail with Postgres's own read-only error behind 400 database-error "query execution
 * failed"; a `bulk` whose items force different access modes is refused before running anything
 * (Hasura's `getQueryAccessMode`, path `$`).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
before(async () => {
  e = await startTestEngine();
  await e.runSql(`CREATE TABLE item (id int PRIMARY KEY, name text); INSERT INTO item VALUES (1, 'one')`);
});
after(() => e?.stop());

const count = async () => (await e.runSql('SELECT count(*) FROM item')).result[1][0];

test('run_sql read_only: an INSERT fails with the read-only transaction error and writes nothing', async () => {
  const r = await e.query({ type: 'run_sql', args: { sql: `INSERT INTO item VALUES (2, 'two')`, read_only: true } });
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'database-error');
  assert.equal(r.body.error, 'query execution failed');
  assert.equal(r.body.path, '$.args');
  assert.equal(r.body.internal.error.message, 'cannot execute INSERT in a read-only transaction');
  assert.equal(r.body.internal.error.status_code, '25006');
  assert.equal(await count(), '1');
  // The same statement without read_only writes.
  assert.equal((await e.query({ type: 'run_sql', args: { sql: `INSERT INTO item VALUES (2, 'two')` } })).status, 200);
  assert.equal(await count(), '2');
});

test('run_sql read_only: DDL is refused too', async () => {
  const r = await e.query({ type: 'run_sql', args: { sql: 'CREATE TABLE other (id int)', read_only: true } });
  assert.equal(r.status, 400);
  assert.equal(r.body.internal.error.message, 'cannot execute CREATE TABLE in a read-only transaction');
  const exists = await e.runSql(`SELECT to_regclass('public.other') IS NULL AS missing`);
  assert.deepEqual(exists.result, [['missing'], ['t']]);
});

test('run_sql read_only: a SELECT answers TuplesOk', async () => {
  const r = await e.query({ type: 'run_sql', args: { sql: 'SELECT id, name FROM item WHERE id = 1', read_only: true } });
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { result_type: 'TuplesOk', result: [['id', 'name'], ['1', 'one']] });
  const mode = await e.query({ type: 'run_sql', args: { sql: 'SHOW transaction_read_only', read_only: true } });
  assert.deepEqual(mode.body.result, [['transaction_read_only'], ['on']]);
});

test('bulk mixing read-only and read-write items is refused with Hasura\'s access-mode error', async () => {
  const mixed = await e.query({
    type: 'bulk',
    args: [
      { type: 'run_sql', args: { sql: 'SELECT 1', read_only: true } },
      { type: 'run_sql', args: { sql: `INSERT INTO item VALUES (3, 'three')` } },
    ],
  });
  assert.equal(mixed.status, 400);
  assert.deepEqual(mixed.body, {
    path: '$',
    error: 'incompatible access mode requirements in bulk query, expected access mode: ReadOnly but $.args[1] forces ReadWrite',
    code: 'bad-request',
  });
  // select/count accept either mode; a metadata operation forces ReadWrite.
  const withMetadata = await e.query({
    type: 'bulk',
    args: [
      { type: 'select', args: { table: 'item', columns: ['id'] } },
      { type: 'run_sql', args: { sql: 'SELECT 1', read_only: true } },
      { type: 'track_table', args: { table: 'item' } },
    ],
  });
  assert.equal(withMetadata.status, 400);
  assert.equal(withMetadata.body.error, 'incompatible access mode requirements in bulk query, expected access mode: ReadOnly but $.args[2] forces ReadWrite');
  assert.equal(await count(), '2');
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, { version: 2, tables: [] });
  // All read-only: runs, in one read-only transaction.
  const ok = await e.query({
    type: 'bulk',
    args: [
      { type: 'run_sql', args: { sql: 'SELECT 1 AS a', read_only: true } },
      { type: 'run_sql', args: { sql: 'SHOW transaction_read_only', read_only: true } },
    ],
  });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body[1].result, [['transaction_read_only'], ['on']]);
});
