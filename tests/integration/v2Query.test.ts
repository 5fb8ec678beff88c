/**
 * Hasura v2's schema API, POST /v2/query, as a v2 script calls it: run_sql and the DML operations
 * with `source`, bulk, their answers (the shapes of Hasura's schema API reference) and errors (an
 * unknown source, another backend's run_sql, an unknown type, run_sql without admin rights), and
 * that a failed bulk writes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
const user = (id: number) => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });
const v2 = (body: unknown, headers?: Record<string, string>) => e.request('POST', '/v2/query', body, headers);

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm' });
  const r = await v2({
    type: 'bulk',
    args: [
      { type: 'run_sql', args: { source: 'default', sql: 'CREATE TABLE note (id serial PRIMARY KEY, owner int NOT NULL, body text, at timestamptz DEFAULT now())' } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, [{ result_type: 'CommandOk', result: null }]);
  const md = await e.request('POST', '/v1/metadata', {
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: 'note' } },
      { type: 'pg_create_select_permission', args: { source: 'default', table: 'note', role: 'user', permission: { columns: ['id', 'body'], filter: { owner: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'pg_create_insert_permission', args: { source: 'default', table: 'note', role: 'user', permission: { check: { owner: { _eq: 'X-Svc-User-Id' } }, columns: ['owner', 'body'] } } },
    ],
  });
  assert.equal(md.status, 200, md.text);
});

after(async () => {
  await e?.stop();
});

describe('/v2/query', () => {
  it('runs run_sql with and without source, answering TuplesOk / CommandOk', async () => {
    const r = await v2({ type: 'run_sql', args: { sql: "SELECT 1 AS one, NULL::text AS none, 'x' AS s" } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { result_type: 'TuplesOk', result: [['one', 'none', 's'], ['1', 'NULL', 'x']] });
    const ro = await v2({ type: 'run_sql', args: { source: 'default', sql: 'SELECT count(*) FROM note', read_only: true } });
    assert.deepEqual(ro.body, { result_type: 'TuplesOk', result: [['count'], ['0']] });
  });

  it('runs insert, select, count, update and delete with source, in a bulk, answering as /v1/query does', async () => {
    const r = await v2({
      type: 'bulk',
      args: [
        { type: 'insert', args: { source: 'default', table: 'note', objects: [{ owner: 1, body: 'a' }, { owner: 2, body: 'b' }], returning: ['id', 'body'] } },
        { type: 'select', args: { source: 'default', table: { schema: 'public', name: 'note' }, columns: ['id', 'body'], order_by: ['id'] } },
        { type: 'count', args: { table: 'note', where: { owner: 1 } } },
        { type: 'update', args: { source: 'default', table: 'note', where: { id: 1 }, $set: { body: 'a2' } } },
        { type: 'delete', args: { source: 'default', table: 'note', where: { id: 2 }, returning: ['id'] } },
      ],
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, [
      { affected_rows: 2, returning: [{ id: 1, body: 'a' }, { id: 2, body: 'b' }] },
      [{ id: 1, body: 'a' }, { id: 2, body: 'b' }],
      { count: 1 },
      { affected_rows: 1 },
      { affected_rows: 1, returning: [{ id: 2 }] },
    ]);
  });

  it('runs the DML as a role under its permissions, and refuses run_sql without admin rights', async () => {
    const ins = await v2({ type: 'insert', args: { table: 'note', objects: [{ owner: 7, body: 'mine' }] } }, user(7));
    assert.equal(ins.status, 200, ins.text);
    const sel = await v2({ type: 'select', args: { source: 'default', table: 'note', columns: ['body'] } }, user(7));
    assert.deepEqual(sel.body, [{ body: 'mine' }]);
    const bad = await v2({ type: 'insert', args: { table: 'note', objects: [{ owner: 8, body: 'theirs' }] } }, user(7));
    assert.equal(bad.status, 400, bad.text);
    assert.equal(bad.body.code, 'permission-error');
    for (const body of [
      { type: 'run_sql', args: { sql: 'SELECT 1' } },
      { type: 'bulk', args: [{ type: 'select', args: { table: 'note', columns: ['body'] } }, { type: 'run_sql', args: { sql: 'SELECT 1' } }] },
    ]) {
      const r = await v2(body, user(7));
      assert.equal(r.status, 400, r.text);
      assert.deepEqual(r.body, { path: '$.args', error: 'restricted access : admin only', code: 'access-denied' });
    }
  });

  it('refuses another source, another backend, an unknown type and metadata operations, changing nothing', async () => {
    const before = (await e.runSql('SELECT count(*) FROM note')).result;
    const src = await v2({ type: 'bulk', args: [{ type: 'insert', args: { table: 'note', objects: [{ owner: 1 }] } }, { type: 'select', args: { source: 'other', table: 'note', columns: ['id'] } }] });
    assert.equal(src.status, 400, src.text);
    assert.deepEqual(src.body, { path: '$.args[1].args', error: 'source with name "other" does not exist', code: 'not-exists' });
    assert.deepEqual((await e.runSql('SELECT count(*) FROM note')).result, before);

    const mssql = await v2({ type: 'mssql_run_sql', args: { source: 'default', sql: 'SELECT 1' } });
    assert.equal(mssql.status, 400);
    assert.equal(mssql.body.code, 'not-supported');
    assert.match(mssql.body.error, /use "run_sql"/);

    for (const type of ['track_table', 'nope']) {
      const r = await v2({ type, args: {} });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.code, 'parse-failed');
      assert.equal(r.body.path, '$');
      assert.match(r.body.error, new RegExp(`^parsing Hasura\\.Server\\.API\\.V2Query\\.RQLQuery failed, expected tag field to be one of \\["insert","select",.*"bulk"\\], but found tag "${type}"$`));
    }
    const noType = await v2({ args: {} });
    assert.deepEqual(noType.body, { path: '$', error: 'key "type" not found', code: 'parse-failed' });
  });

  it('answers run_sql errors as /v1/query does', async () => {
    const r = await v2({ type: 'run_sql', args: { source: 'default', sql: 'SELECT * FROM missing_table' } });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.path, '$.args');
    const v1 = await e.query({ type: 'run_sql', args: { sql: 'SELECT * FROM missing_table' } });
    assert.deepEqual(r.body, v1.body);
  });
});
