/**
 * POST /v1/metadata with Hasura v2 operation names: pg_* with source "default" mapped onto the
 * /v1/query operations, export/replace in the version-3 format, bulk, errors in {path,error,code}.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
const md = (body: unknown, headers?: Record<string, string>) => e.request('POST', '/v1/metadata', body, headers);
before(async () => {
  e = await startTestEngine({ adminSecret: 's' });
  await e.runSql(`
    CREATE TABLE author (id int PRIMARY KEY, name text);
    CREATE TABLE article (id int PRIMARY KEY, title text, author_id int REFERENCES author (id));
    INSERT INTO author VALUES (1, 'A1'), (2, 'A2'); INSERT INTO article VALUES (10, 'T', 2);
    CREATE FUNCTION search_authors(q text) RETURNS SETOF author AS $$ SELECT * FROM author WHERE name ILIKE q $$ LANGUAGE sql STABLE;
  `);
});
after(() => e?.stop());

test('pg_* operations with source "default" track, relate, permit and untrack', async () => {
  const r = await md({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'author' } } },
      { type: 'pg_track_table', args: { source: 'default', table: 'article' } },
      { type: 'pg_create_object_relationship', args: { source: 'default', table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'pg_create_array_relationship', args: { source: 'default', table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'pg_create_select_permission', args: { source: 'default', table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'pg_track_function', args: { source: 'default', function: { schema: 'public', name: 'search_authors' } } },
      { type: 'pg_set_table_customization', args: { source: 'default', table: 'article', configuration: { custom_root_fields: { select: 'posts' } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.length, 7);
  const q = await e.graphql('{ posts { id author { name } } search_authors(args: {q: "a%"}) { id } }');
  assert.deepEqual(q.body, { data: { posts: [{ id: 10, author: { name: 'A2' } }], search_authors: [{ id: 1 }, { id: 2 }] } });
  const u = await e.graphql('{ author { id } }', {}, { 'x-svc-role': 'user', 'x-svc-user-id': '1' });
  assert.deepEqual(u.body, { data: { author: [{ id: 1 }] } });

  assert.equal((await md({ type: 'pg_drop_select_permission', args: { source: 'default', table: 'author', role: 'user' } })).status, 200);
  assert.equal((await md({ type: 'pg_drop_relationship', args: { source: 'default', table: 'article', relationship: 'author' } })).status, 200);
  const d = await e.graphql('{ posts { author { name } } }');
  assert.equal(d.body.errors?.[0]?.extensions?.code, 'validation-failed');
});

test('export_metadata answers version 3 and replace_metadata takes it back', async () => {
  const ex = await md({ type: 'export_metadata', args: {} });
  assert.equal(ex.status, 200, ex.text);
  assert.equal(ex.body.version, 3);
  assert.equal(ex.body.sources.length, 1);
  assert.equal(ex.body.sources[0].name, 'default');
  assert.equal(ex.body.sources[0].kind, 'postgres');
  assert.deepEqual(ex.body.sources[0].tables.map((t: any) => t.table.name).sort(), ['article', 'author']);
  assert.equal(ex.body.sources[0].functions[0].function.name, 'search_authors');

  assert.equal((await md({ type: 'clear_metadata', args: {} })).status, 200);
  assert.equal((await md({ type: 'export_metadata', args: {} })).body.sources[0].tables.length, 0);
  const rep = await md({ type: 'replace_metadata', args: { allow_inconsistent_metadata: false, metadata: ex.body } });
  assert.equal(rep.status, 200, rep.text);
  assert.deepEqual((await md({ type: 'export_metadata', args: {} })).body, ex.body);
  const inc = await md({ type: 'get_inconsistent_metadata', args: {} });
  assert.equal(inc.body.is_consistent, true);
  assert.equal((await md({ type: 'reload_metadata', args: {} })).status, 200);
});

test('query collections and the allow-list by their v2 names', async () => {
  const r = await md({
    type: 'bulk',
    args: [
      { type: 'create_query_collection', args: { name: 'c', definition: { queries: [{ name: 'q', query: '{ posts { id } }' }] } } },
      { type: 'add_collection_to_allowlist', args: { collection: 'c' } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual((await md({ type: 'export_metadata', args: {} })).body.allowlist, [{ collection: 'c' }]);
});

test('bad requests get {path, error, code} and change nothing', async () => {
  const before = (await md({ type: 'export_metadata', args: {} })).text;
  const other = await md({ type: 'pg_track_table', args: { source: 'other', table: 'author' } });
  assert.equal(other.status, 400);
  assert.deepEqual(Object.keys(other.body).sort(), ['code', 'error', 'path']);
  assert.equal(other.body.code, 'not-exists');
  const unknown = await md({ type: 'pg_frobnicate', args: {} });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'parse-failed');
  const sql = await md({ type: 'run_sql', args: { sql: 'DROP TABLE author' } });
  assert.equal(sql.status, 400);
  const half = await md({ type: 'bulk', args: [{ type: 'pg_untrack_table', args: { source: 'default', table: 'author', cascade: true } }, { type: 'pg_track_table', args: { source: 'default', table: 'nope' } }] });
  assert.equal(half.status, 400);
  assert.equal(half.body.code, 'not-exists');
  assert.equal((await md({ type: 'export_metadata', args: {} })).text, before);
  const anon = await md({ type: 'export_metadata', args: {} }, { 'x-svc-admin-secret': 'wrong' });
  assert.equal(anon.status, 401);
});
