/**
 * /v1/query metadata operations against a real engine and database: tracking, relationships,
 * permissions, bulk atomicity, export/replace round trip, admin-only access, inconsistencies.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE, remarks text);
CREATE TABLE article (id serial PRIMARY KEY, title text, author_id integer REFERENCES author(id), published_on timestamp);
INSERT INTO author (name) VALUES ('A1'), ('A2');
INSERT INTO article (title, author_id) VALUES ('T1', 1), ('T2', 1), ('T3', 2);
`;

async function withEngine(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine();
  t.after(() => e.stop());
  await e.runSql(SCHEMA);
  return e;
}

const ok = { message: 'success' };

async function exportMd(e: TestEngine): Promise<any> {
  const r = await e.query({ type: 'export_metadata', args: {} });
  assert.equal(r.status, 200);
  return r.body;
}

test('track_table / untrack_table: success, already tracked/untracked errors, metadata exported', async (t) => {
  const e = await withEngine(t);
  assert.deepEqual((await e.query({ type: 'track_table', args: { schema: 'public', name: 'author' } })).body, ok);
  const again = await e.query({ type: 'track_table', args: { table: 'author' } });
  assert.equal(again.status, 400);
  assert.deepEqual(again.body, { path: '$.args', error: 'view/table already tracked: "author"', code: 'already-tracked' });
  const missing = await e.query({ type: 'track_table', args: { table: 'nope' } });
  assert.deepEqual(missing.body, { path: '$.args', error: 'no such table/view exists in the database: "nope"', code: 'not-exists' });
  assert.deepEqual((await exportMd(e)).tables, [{ table: { schema: 'public', name: 'author' } }]);
  // the GraphQL schema sees the table right away
  const g = await e.graphql('{ author(order_by: {id: asc}) { name } }');
  assert.deepEqual(g.body, { data: { author: [{ name: 'A1' }, { name: 'A2' }] } });
  assert.deepEqual((await e.query({ type: 'untrack_table', args: { table: 'author' } })).body, ok);
  const gone = await e.query({ type: 'untrack_table', args: { table: { schema: 'public', name: 'author' } } });
  assert.deepEqual(gone.body, { path: '$.args', error: 'view/table already untracked: "author"', code: 'already-untracked' });
  assert.deepEqual((await exportMd(e)).tables, []);
});

test('relationships: FK both ways, manual, rename, drop; a column without FK is a constraint-error', async (t) => {
  const e = await withEngine(t);
  await e.query({ type: 'bulk', args: [{ type: 'track_table', args: { table: 'author' } }, { type: 'track_table', args: { table: 'article' } }] });
  const bad = await e.query({ type: 'create_object_relationship', args: { table: 'article', name: 'pub', using: { foreign_key_constraint_on: 'published_on' } } });
  assert.deepEqual(bad.body, { path: '$.args', error: 'no foreign constraint exists on the given column', code: 'constraint-error' });
  assert.deepEqual((await e.query({ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } })).body, ok);
  assert.deepEqual(
    (await e.query({ type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } })).body,
    ok,
  );
  const dup = await e.query({ type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } });
  assert.equal(dup.body.code, 'already-exists');
  const g = await e.graphql('{ author(where: {id: {_eq: 2}}) { name articles { title author { name } } } }');
  assert.deepEqual(g.body, { data: { author: [{ name: 'A2', articles: [{ title: 'T3', author: { name: 'A2' } }] }] } });

  assert.deepEqual((await e.query({ type: 'rename_relationship', args: { table: 'article', name: 'author', new_name: 'writer' } })).body, ok);
  assert.deepEqual((await e.graphql('{ article(where: {id: {_eq: 1}}) { writer { name } } }')).body, { data: { article: [{ writer: { name: 'A1' } }] } });
  assert.deepEqual((await e.query({ type: 'drop_relationship', args: { table: 'article', relationship: 'writer' } })).body, ok);
  const none = await e.query({ type: 'drop_relationship', args: { table: 'article', relationship: 'writer' } });
  assert.deepEqual(none.body, { path: '$.args.relationship', error: 'relationship "writer" does not exist', code: 'not-exists' });

  const manual = await e.query({
    type: 'create_object_relationship',
    args: { table: 'article', name: 'by', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } } },
  });
  assert.deepEqual(manual.body, ok);
  assert.deepEqual((await e.graphql('{ article(where: {id: {_eq: 3}}) { by { name } } }')).body, { data: { article: [{ by: { name: 'A2' } }] } });
});

test('permissions: create, refuse a bad one with the reason, the role sees only its rows, drop', async (t) => {
  const e = await withEngine(t);
  await e.query({ type: 'track_table', args: { table: 'author' } });
  const perm = { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: { id: 'X-Svc-User-Id' } } };
  assert.deepEqual((await e.query({ type: 'create_select_permission', args: perm })).body, ok);
  const twice = await e.query({ type: 'create_select_permission', args: perm });
  assert.deepEqual(twice.body, { path: '$.args', error: `'select' permission on "author" for role "user" already exists`, code: 'permission-error' });
  const bad = await e.query({ type: 'create_select_permission', args: { table: 'author', role: 'other', permission: { columns: '*', filter: { nope: 1 } } } });
  assert.equal(bad.status, 400);
  assert.equal(bad.body.code, 'constraint-violation');
  assert.equal(bad.body.error, 'in table "author": in permission for role "other": "nope" does not exist');
  assert.equal(bad.body.internal[0].type, 'select_permission');

  const g = await e.graphql('{ author { id name } }', undefined, { 'x-svc-role': 'user', 'x-svc-user-id': '2' });
  assert.deepEqual(g.body, { data: { author: [{ id: 2, name: 'A2' }] } });
  for (const kind of ['insert', 'update', 'delete']) {
    const body: Record<string, unknown> = kind === 'insert' ? { check: { id: 'X-Svc-User-Id' }, set: { remarks: 'X-Svc-Note' } } : kind === 'update' ? { columns: ['name'], filter: {} } : { filter: { id: 1 } };
    assert.deepEqual((await e.query({ type: `create_${kind}_permission`, args: { table: 'author', role: 'user', permission: body } })).body, ok, kind);
  }
  const md = await exportMd(e);
  assert.deepEqual(md.tables[0].insert_permissions, [{ role: 'user', permission: { check: { id: 'X-Svc-User-Id' }, set: { remarks: 'X-Svc-Note' } } }]);
  assert.deepEqual((await e.query({ type: 'drop_select_permission', args: { table: 'author', role: 'user' } })).body, ok);
  const gone = await e.query({ type: 'drop_select_permission', args: { table: 'author', role: 'user' } });
  assert.deepEqual(gone.body, { path: '$.args', error: `'select' permission on "author" for role "user" does not exist`, code: 'permission-error' });
});

test('bulk is atomic: a failing last operation leaves metadata and the database as they were', async (t) => {
  const e = await withEngine(t);
  await e.query({ type: 'track_table', args: { table: 'author' } });
  const before = await exportMd(e);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'run_sql', args: { sql: 'CREATE TABLE extra (id int PRIMARY KEY)' } },
      { type: 'track_table', args: { table: 'extra' } },
      { type: 'track_table', args: { table: 'article' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'a', using: { foreign_key_constraint_on: 'title' } } },
    ],
  });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { path: '$.args[3].args', error: 'no foreign constraint exists on the given column', code: 'constraint-error' });
  assert.deepEqual(await exportMd(e), before);
  const exists = await e.runSql("SELECT to_regclass('public.extra') IS NULL AS missing");
  assert.deepEqual(exists.result, [['missing'], ['t']]);
  // a bulk answers with the list of results
  const good = await e.query({ type: 'bulk', args: [{ type: 'track_table', args: { table: 'article' } }, { type: 'run_sql', args: { sql: 'SELECT 1 AS one' } }] });
  assert.deepEqual(good.body, [ok, { result_type: 'TuplesOk', result: [['one'], ['1']] }]);
});

test('run_sql: results, NULL cells, database errors, dependency errors and cascade', async (t) => {
  const e = await withEngine(t);
  const sel = await e.query({ type: 'run_sql', args: { sql: 'SELECT id, remarks FROM author ORDER BY id' } });
  assert.deepEqual(sel.body, { result_type: 'TuplesOk', result: [['id', 'remarks'], ['1', 'NULL'], ['2', 'NULL']] });
  assert.deepEqual((await e.query({ type: 'run_sql', args: { sql: "SET TIME ZONE 'UTC'" } })).body, { result_type: 'CommandOk', result: null });
  const err = await e.query({ type: 'run_sql', args: { sql: 'SELECT * FROM nowhere' } });
  assert.equal(err.status, 400);
  assert.equal(err.body.code, 'database-error');
  assert.equal(err.body.error, 'query execution failed');

  await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'author' } },
      { type: 'track_table', args: { table: 'article' } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
    ],
  });
  const drop = await e.query({ type: 'run_sql', args: { sql: 'DROP TABLE article' } });
  assert.deepEqual(drop.body, { path: '$.args', error: 'cannot drop due to the following dependent objects: relationship author.articles', code: 'dependency-error' });
  const col = await e.query({ type: 'run_sql', args: { sql: 'ALTER TABLE author DROP COLUMN name' } });
  assert.deepEqual(col.body, { path: '$.args', error: 'cannot drop due to the following dependent objects: permission author.user.select', code: 'dependency-error' });
  // nothing changed
  assert.equal((await exportMd(e)).tables.length, 2);

  const cascade = await e.query({ type: 'run_sql', args: { sql: 'DROP TABLE article CASCADE', cascade: true } });
  assert.deepEqual(cascade.body, { result_type: 'CommandOk', result: null });
  const md = await exportMd(e);
  assert.deepEqual(md.tables.map((x: any) => [x.table.name, x.array_relationships]), [['author', undefined]]);
});

test('run_sql follows renames of tracked tables and columns', async (t) => {
  const e = await withEngine(t);
  await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'author' } },
      { type: 'track_table', args: { table: 'article' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } } } },
      { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'author_id'], filter: { author: { name: { _eq: 'A1' } } } } } },
    ],
  });
  assert.equal((await e.query({ type: 'run_sql', args: { sql: 'ALTER TABLE author RENAME TO writer; ALTER TABLE writer RENAME COLUMN name TO full_name' } })).status, 200);
  const md = await exportMd(e);
  assert.deepEqual(md.tables[0].table, { schema: 'public', name: 'writer' });
  const art = md.tables[1];
  assert.deepEqual(art.object_relationships[0].using.manual_configuration.remote_table, { schema: 'public', name: 'writer' });
  assert.deepEqual(art.select_permissions[0].permission.filter, { author: { full_name: { _eq: 'A1' } } });
  const r = await e.query({ type: 'get_inconsistent_metadata', args: {} });
  assert.deepEqual(r.body, { is_consistent: true, inconsistent_objects: [] });
  const g = await e.graphql('{ article(order_by: {id: asc}) { id } }', undefined, { 'x-svc-role': 'user' });
  assert.deepEqual(g.body, { data: { article: [{ id: 1 }, { id: 2 }] } });
});

test('export → replace round trip; inconsistent metadata is refused by replace_metadata', async (t) => {
  const e = await withEngine(t);
  await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'author' } },
      { type: 'track_table', args: { table: 'article' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' }, comment: 'who' } },
      { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: '*', filter: {}, limit: 2 } } },
    ],
  });
  const md = await exportMd(e);
  assert.deepEqual((await e.query({ type: 'clear_metadata', args: {} })).body, ok);
  assert.deepEqual(await exportMd(e), { version: 2, tables: [] });
  assert.deepEqual((await e.query({ type: 'replace_metadata', args: md })).body, ok);
  assert.deepEqual(await exportMd(e), md);
  const broken = { ...md, tables: [...md.tables, { table: { schema: 'public', name: 'missing' } }] };
  const r = await e.query({ type: 'replace_metadata', args: broken });
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'cannot continue due to inconsistent metadata');
  assert.deepEqual(r.body.internal, [{ type: 'table', definition: { schema: 'public', name: 'missing' }, reason: 'no such table/view exists in postgres: "missing"' }]);
  assert.deepEqual(await exportMd(e), md);
});

test('inconsistent objects after a drop behind the engine, then drop_inconsistent_metadata', async (t) => {
  const e = await withEngine(t);
  await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'author' } },
      { type: 'track_table', args: { table: 'article' } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
    ],
  });
  await e.query({ type: 'run_sql', args: { sql: 'DROP TABLE article', check_metadata_consistency: false } });
  await e.query({ type: 'reload_metadata', args: {} });
  const r = await e.query({ type: 'get_inconsistent_metadata', args: {} });
  assert.equal(r.body.is_consistent, false);
  assert.deepEqual(r.body.inconsistent_objects.map((o: any) => [o.type, o.reason]), [
    ['table', 'no such table/view exists in postgres: "article"'],
    ['array_relation', 'in table "author": in relationship "articles": table "article" does not exist'],
  ]);
  assert.equal((await e.request('GET', '/healthz')).text, 'WARN: inconsistent objects in schema');
  assert.deepEqual((await e.query({ type: 'drop_inconsistent_metadata', args: {} })).body, ok);
  assert.deepEqual((await e.query({ type: 'get_inconsistent_metadata', args: {} })).body, { is_consistent: true, inconsistent_objects: [] });
  assert.deepEqual((await exportMd(e)).tables, [{ table: { schema: 'public', name: 'author' } }]);
});

test('only admin may use metadata operations; envelope errors', async (t) => {
  const e = await withEngine(t);
  const user = { 'x-svc-role': 'user' };
  for (const body of [
    { type: 'run_sql', args: { sql: 'SELECT 1' } },
    { type: 'export_metadata', args: {} },
    { type: 'track_table', args: { table: 'author' } },
  ]) {
    const r = await e.query(body, user);
    assert.deepEqual([r.status, r.body], [400, { path: '$.args', error: 'restricted access: admin only', code: 'access-denied' }], body.type);
  }
  const inBulk = await e.query({ type: 'bulk', args: [{ type: 'export_metadata', args: {} }] }, user);
  assert.deepEqual(inBulk.body, { path: '$.args[0].args', error: 'restricted access: admin only', code: 'access-denied' });
  const str = await e.query('"type: count"');
  assert.deepEqual(str.body, { path: '$', error: 'expected Object, encountered String', code: 'parse-failed' });
  const bad = await e.request('POST', '/v1/query', '{not json', { 'content-type': 'application/json' });
  assert.deepEqual([bad.status, bad.body.code], [400, 'invalid-json']);
  const unknown = await e.query({ type: 'random', args: {} });
  assert.deepEqual([unknown.status, unknown.body.code], [400, 'parse-failed']);
  const decode = await e.query({ type: 'bulk', args: [{ type: 'track_table', args: { table: 'author' } }, { type: 'create_select_permission', args: { table: 'author', role: 'u' } }] });
  assert.deepEqual(decode.body, { path: '$[1]', error: 'key "permission" not found', code: 'parse-failed' });
});

test('untrack_table refuses while other tables depend on it, and cascades when asked', async (t) => {
  const e = await withEngine(t);
  await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'author' } },
      { type: 'track_table', args: { table: 'article' } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: { articles: { title: { _eq: 'T1' } } } } } },
      { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id'], filter: {} } } },
    ],
  });
  const r = await e.query({ type: 'untrack_table', args: { table: 'article' } });
  assert.deepEqual(r.body, {
    path: '$.args',
    error: 'cannot drop due to the following dependent objects: permission author.user.select, relationship author.articles',
    code: 'dependency-error',
  });
  assert.deepEqual((await e.query({ type: 'untrack_table', args: { table: 'article', cascade: true } })).body, ok);
  assert.deepEqual((await exportMd(e)).tables, [{ table: { schema: 'public', name: 'author' } }]);
});
