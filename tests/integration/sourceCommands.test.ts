/**
 * The `pg_*` metadata commands with `source` on a source beside `default` (a PG 15 cluster started
 * here), each through the same handler as on `default`: tracking (and untracking with cascade),
 * table customization and enums, relationships, the four permissions and their comments, functions
 * and their permissions, computed fields, inherited roles, a `bulk` mixing both sources (all or
 * nothing), `/v2/query`'s DML with `source`, and Hasura's errors (a table missing in that source, an
 * unknown source, an event trigger on a table the source does not track), every failure leaving the metadata as it was.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSystemPostgres, type SystemPostgres } from '../support/systemPostgres.js';
import { sqlOn } from '../support/standbyPostgres.js';
import { startTestEngine, type TestEngine } from './harness.js';

let archive: SystemPostgres;
let e: TestEngine;
const SRC = 'archive';

before(async () => {
  archive = await startSystemPostgres();
  await sqlOn(archive.url, `
    CREATE TABLE genre (value text PRIMARY KEY, comment text);
    INSERT INTO genre VALUES ('rock', 'Rock'), ('jazz', 'Jazz');
    CREATE TABLE album (id serial PRIMARY KEY, title text NOT NULL, owner_id int NOT NULL, genre text REFERENCES genre(value));
    CREATE TABLE track (id serial PRIMARY KEY, album_id int NOT NULL REFERENCES album(id), name text NOT NULL);
    INSERT INTO album (title, owner_id, genre) VALUES ('Blue', 1, 'jazz'), ('Red', 2, 'rock');
    INSERT INTO track (album_id, name) VALUES (1, 'b1'), (1, 'b2'), (2, 'r1');
    CREATE FUNCTION albums_of(owner int) RETURNS SETOF album LANGUAGE sql STABLE AS 'SELECT * FROM album WHERE owner_id = owner';
    CREATE FUNCTION track_count(a album) RETURNS int LANGUAGE sql STABLE AS 'SELECT count(*)::int FROM track WHERE album_id = a.id';
  `);
  e = await startTestEngine({ adminSecret: 'secret' });
  await e.runSql('CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO author (name) VALUES (\'Ann\');');
  const add = await metadata({ type: 'pg_add_source', args: { name: SRC, configuration: { connection_info: { database_url: archive.url, pool_settings: { max_connections: 4 } } } } });
  assert.equal(add.status, 200, add.text);
});

after(async () => {
  await e?.stop();
  archive?.stop();
});

const metadata = (body: unknown) => e.request('POST', '/v1/metadata', body, { 'x-svc-admin-secret': 'secret' });
const v2 = (body: unknown, headers: Record<string, string> = {}) => e.request('POST', '/v2/query', body, { 'x-svc-admin-secret': 'secret', ...headers });
const exportV3 = async () => (await metadata({ type: 'export_metadata', version: 2, args: {} })).body;
const archiveTables = async () => (await exportV3()).sources.find((s: any) => s.name === SRC);
const as = (role: string, userId: string) => ({ 'x-svc-admin-secret': 'secret', 'x-svc-role': role, 'x-svc-user-id': userId });
const ok = async (body: unknown) => {
  const r = await metadata(body);
  assert.equal(r.status, 200, `${JSON.stringify(body)} → ${r.text}`);
  return r.body;
};
/** The request fails with `code` (and `error` when given) and the metadata is left as it was. */
async function refused(body: unknown, code: string, error?: string | RegExp): Promise<any> {
  const before = await exportV3();
  const r = await metadata(body);
  assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
  assert.equal(r.body.code, code, r.text);
  if (typeof error === 'string') assert.equal(r.body.error, error);
  else if (error) assert.match(r.body.error, error);
  assert.deepEqual(await exportV3(), before);
  return r.body;
}

test('pg_track_table / pg_untrack_table with source: tracked in that source, Hasura\'s errors, nothing changed on failure', async () => {
  await ok({ type: 'pg_track_table', args: { source: SRC, table: 'album' } });
  await ok({ type: 'pg_track_table', args: { source: SRC, table: { schema: 'public', name: 'track' } } });
  const src = await archiveTables();
  assert.deepEqual(src.tables.map((t: any) => t.table.name), ['album', 'track']);
  assert.deepEqual((await exportV3()).sources[0].tables, []);
  await refused({ type: 'pg_track_table', args: { source: SRC, table: 'nope' } }, 'not-exists', 'no such table/view exists in source: "nope"');
  // `author` is a table of default, not of this source.
  await refused({ type: 'pg_track_table', args: { source: SRC, table: 'author' } }, 'not-exists', 'no such table/view exists in source: "author"');
  await refused({ type: 'pg_track_table', args: { source: SRC, table: 'album' } }, 'already-tracked', 'view/table already tracked: "album"');
  await refused({ type: 'pg_track_table', args: { source: 'nowhere', table: 'album' } }, 'not-exists', 'source with name "nowhere" does not exist');
  const q = await e.graphql('{ album(order_by: {id: asc}) { title } track_aggregate { aggregate { count } } }');
  assert.deepEqual(q.body, { data: { album: [{ title: 'Blue' }, { title: 'Red' }], track_aggregate: { aggregate: { count: 3 } } } });
  // The same table name in default is tracked there, on its own (the sources' root fields would clash: refused).
  await ok({ type: 'pg_track_table', args: { source: 'default', table: 'author' } });
  assert.deepEqual((await exportV3()).sources[0].tables.map((t: any) => t.table.name), ['author']);
});

test('relationships with source: create, rename, comment, drop; a missing column is refused', async () => {
  await ok({ type: 'pg_create_array_relationship', args: { source: SRC, table: 'album', name: 'tracks', using: { foreign_key_constraint_on: { table: 'track', column: 'album_id' } } } });
  await ok({ type: 'pg_create_object_relationship', args: { source: SRC, table: 'track', name: 'album', using: { foreign_key_constraint_on: 'album_id' } } });
  await refused({ type: 'pg_create_object_relationship', args: { source: SRC, table: 'track', name: 'bad', using: { foreign_key_constraint_on: 'nope' } } }, 'constraint-error');
  await refused({ type: 'pg_create_object_relationship', args: { source: SRC, table: 'author', name: 'x', using: { foreign_key_constraint_on: 'id' } } }, 'not-exists', 'table "author" does not exist');
  await ok({ type: 'pg_rename_relationship', args: { source: SRC, table: 'album', name: 'tracks', new_name: 'songs' } });
  await ok({ type: 'pg_set_relationship_comment', args: { source: SRC, table: 'album', name: 'songs', comment: 'the songs' } });
  const album = (await archiveTables()).tables.find((t: any) => t.table.name === 'album');
  assert.deepEqual(album.array_relationships, [{ name: 'songs', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'track' }, column: 'album_id' } }, comment: 'the songs' }]);
  const q = await e.graphql('{ album(where: {id: {_eq: 1}}) { songs(order_by: {id: asc}) { name album { title } } } }');
  assert.deepEqual(q.body, { data: { album: [{ songs: [{ name: 'b1', album: { title: 'Blue' } }, { name: 'b2', album: { title: 'Blue' } }] }] } });
  await ok({ type: 'pg_drop_relationship', args: { source: SRC, table: 'album', relationship: 'songs' } });
  await ok({ type: 'pg_create_array_relationship', args: { source: SRC, table: 'album', name: 'tracks', using: { foreign_key_constraint_on: { table: 'track', column: 'album_id' } } } });
});

test('permissions with source: all four kinds, comments, drops; served to the role', async () => {
  const user = { filter: { owner_id: { _eq: 'X-Svc-User-Id' } } };
  await ok({ type: 'pg_create_select_permission', args: { source: SRC, table: 'album', role: 'user', permission: { columns: ['id', 'title'], ...user } } });
  await ok({ type: 'pg_create_insert_permission', args: { source: SRC, table: 'album', role: 'user', permission: { columns: ['title'], check: {}, set: { owner_id: 'X-Svc-User-Id' } } } });
  await ok({ type: 'pg_create_update_permission', args: { source: SRC, table: 'album', role: 'user', permission: { columns: ['title'], ...user } } });
  await ok({ type: 'pg_create_delete_permission', args: { source: SRC, table: 'album', role: 'user', permission: user } });
  await ok({ type: 'pg_set_permission_comment', args: { source: SRC, table: 'album', role: 'user', type: 'select', comment: 'own albums' } });
  await refused({ type: 'pg_create_select_permission', args: { source: SRC, table: 'album', role: 'user', permission: { columns: ['id'], filter: {} } } }, 'permission-error', '\'select\' permission on "album" for role "user" already exists');
  await refused({ type: 'pg_create_select_permission', args: { source: SRC, table: 'track', role: 'user', permission: { columns: ['nope'], filter: {} } } }, 'constraint-violation');
  const album = (await archiveTables()).tables.find((t: any) => t.table.name === 'album');
  assert.equal(album.select_permissions[0].comment, 'own albums');
  assert.deepEqual(
    ['insert', 'select', 'update', 'delete'].map((k) => album[`${k}_permissions`]?.[0]?.role),
    ['user', 'user', 'user', 'user'],
  );
  const seen = await e.graphql('{ album { title } }', undefined, as('user', '2'));
  assert.deepEqual(seen.body, { data: { album: [{ title: 'Red' }] } });
  const ins = await e.graphql('mutation { insert_album_one(object: {title: "Mine"}) { title } }', undefined, as('user', '3'));
  assert.deepEqual(ins.body, { data: { insert_album_one: { title: 'Mine' } } });
  const upd = await e.graphql('mutation { update_album(where: {}, _set: {title: "Ours"}) { affected_rows } }', undefined, as('user', '3'));
  assert.deepEqual(upd.body, { data: { update_album: { affected_rows: 1 } } });
  const del = await e.graphql('mutation { delete_album(where: {}) { affected_rows } }', undefined, as('user', '3'));
  assert.deepEqual(del.body, { data: { delete_album: { affected_rows: 1 } } });
  assert.deepEqual(await sqlOn(archive.url, 'SELECT count(*)::int AS n FROM album'), [{ n: 2 }]);
  for (const k of ['insert', 'update', 'delete']) await ok({ type: `pg_drop_${k}_permission`, args: { source: SRC, table: 'album', role: 'user' } });
  await refused({ type: 'pg_drop_insert_permission', args: { source: SRC, table: 'album', role: 'user' } }, 'permission-error', '\'insert\' permission on "album" for role "user" does not exist');
  const none = await e.graphql('mutation { insert_album_one(object: {title: "X"}) { title } }', undefined, as('user', '3'));
  assert.equal(none.body.errors?.[0]?.extensions?.code, 'validation-failed', none.text);
});

test('inherited roles are global: a role combining roles serves tables of every source', async () => {
  await ok({ type: 'pg_create_select_permission', args: { source: SRC, table: 'track', role: 'listener', permission: { columns: ['id', 'name'], filter: {} } } });
  await ok({ type: 'pg_create_select_permission', args: { source: 'default', table: 'author', role: 'reader', permission: { columns: ['name'], filter: {} } } });
  await ok({ type: 'add_inherited_role', args: { role_name: 'both', role_set: ['listener', 'reader'] } });
  const q = await e.graphql('{ track(where: {id: {_eq: 1}}) { name } author { name } }', undefined, as('both', '1'));
  assert.deepEqual(q.body, { data: { track: [{ name: 'b1' }], author: [{ name: 'Ann' }] } });
  assert.deepEqual((await exportV3()).inherited_roles, [{ role_name: 'both', role_set: ['listener', 'reader'] }]);
  // Its parent's only permission is in the other source: dropping it would leave the role without a parent.
  const dropped = await refused({ type: 'pg_drop_select_permission', args: { source: SRC, table: 'track', role: 'listener' } }, 'unexpected', 'cannot continue due to new inconsistent metadata');
  assert.match(JSON.stringify(dropped.internal), /parent role\(s\) are not found: listener/);
  await ok({ type: 'drop_inherited_role', args: { role_name: 'both' } });
  await ok({ type: 'pg_drop_select_permission', args: { source: SRC, table: 'track', role: 'listener' } });
});

test('table customization and enums with source', async () => {
  await ok({ type: 'pg_set_table_customization', args: { source: SRC, table: 'track', configuration: { custom_root_fields: { select: 'songs' }, custom_column_names: { name: 'title' } } } });
  const q = await e.graphql('{ songs(where: {id: {_eq: 1}}) { title } }');
  assert.deepEqual(q.body, { data: { songs: [{ title: 'b1' }] } });
  await ok({ type: 'pg_track_table', args: { source: SRC, table: 'genre' } });
  await ok({ type: 'pg_set_table_is_enum', args: { source: SRC, table: 'genre', is_enum: true } });
  const enumType = await e.graphql('{ __type(name: "genre_enum") { enumValues { name description } } }');
  assert.deepEqual(enumType.body, { data: { __type: { enumValues: [{ name: 'jazz', description: 'Jazz' }, { name: 'rock', description: 'Rock' }] } } });
  // A table that cannot be an enum (album has more than one text column) is refused: nothing changes.
  await refused({ type: 'pg_set_table_is_enum', args: { source: SRC, table: 'album', is_enum: true } }, 'constraint-violation');
});

test('functions, function permissions and computed fields with source', async () => {
  await ok({ type: 'pg_track_function', args: { source: SRC, function: 'albums_of' } });
  await refused({ type: 'pg_track_function', args: { source: SRC, function: 'no_such_fn' } }, 'not-exists');
  await ok({ type: 'pg_add_computed_field', args: { source: SRC, table: 'album', name: 'track_count', definition: { function: 'track_count' } } });
  const q = await e.graphql('{ albums_of(args: {owner: 1}) { title track_count } }');
  assert.deepEqual(q.body, { data: { albums_of: [{ title: 'Blue', track_count: 2 }] } });
  await ok({ type: 'pg_create_function_permission', args: { source: SRC, function: 'albums_of', role: 'user' } });
  await refused({ type: 'pg_create_function_permission', args: { source: SRC, function: 'albums_of', role: 'user' } }, 'already-exists',
    'permission of role "user" already exists for function "albums_of" in source: "archive"');
  const fns = (await archiveTables()).functions;
  assert.deepEqual(fns, [{ function: { schema: 'public', name: 'albums_of' }, permissions: [{ role: 'user' }] }]);
  await ok({ type: 'pg_drop_function_permission', args: { source: SRC, function: 'albums_of', role: 'user' } });
  await ok({ type: 'pg_drop_computed_field', args: { source: SRC, table: 'album', name: 'track_count' } });
  await ok({ type: 'pg_untrack_function', args: { source: SRC, function: 'albums_of' } });
  assert.equal((await archiveTables()).functions, undefined);
});

test('a bulk mixing sources is all or nothing', async () => {
  await e.runSql('CREATE TABLE label (id serial PRIMARY KEY, name text)');
  await sqlOn(archive.url, 'CREATE TABLE shelf (id serial PRIMARY KEY, name text)');
  const body = { type: 'bulk', args: [
    { type: 'pg_track_table', args: { source: 'default', table: 'label' } },
    { type: 'pg_track_table', args: { source: SRC, table: 'shelf' } },
    { type: 'pg_create_select_permission', args: { source: SRC, table: 'shelf', role: 'user', permission: { columns: '*', filter: {} } } },
    { type: 'pg_track_table', args: { source: SRC, table: 'missing' } },
  ] };
  const r = await refused(body, 'not-exists', 'no such table/view exists in source: "missing"');
  assert.equal(r.path, '$.args[3].args');
  body.args.pop();
  await ok(body);
  assert.ok((await archiveTables()).tables.some((t: any) => t.table.name === 'shelf'));
  assert.ok((await exportV3()).sources[0].tables.some((t: any) => t.table.name === 'label'));
  const q = await e.graphql('{ label { name } shelf { name } }');
  assert.deepEqual(q.body, { data: { label: [], shelf: [] } });
});

test('pg_untrack_table with source: its dependents refuse it, cascade removes them', async () => {
  const dep = await refused({ type: 'pg_untrack_table', args: { source: SRC, table: 'track' } }, 'dependency-error');
  assert.match(dep.error, /tracks/);
  await ok({ type: 'pg_untrack_table', args: { source: SRC, table: 'track', cascade: true } });
  const album = (await archiveTables()).tables.find((t: any) => t.table.name === 'album');
  assert.equal(album.array_relationships, undefined);
  await refused({ type: 'pg_untrack_table', args: { source: SRC, table: 'track' } }, 'already-untracked');
  await ok({ type: 'pg_track_table', args: { source: SRC, table: 'track' } });
});

test('/v2/query DML with source: insert, select, update, count and delete run on that source under the role\'s permissions', async () => {
  const r = await v2({ type: 'bulk', args: [
    { type: 'insert', args: { source: SRC, table: 'track', objects: [{ album_id: 2, name: 'r2' }], returning: ['name'] } },
    { type: 'update', args: { source: SRC, table: 'track', where: { name: 'r2' }, $set: { name: 'r3' } } },
    { type: 'select', args: { source: SRC, table: 'track', columns: ['name'], where: { album_id: 2 }, order_by: ['name'] } },
    { type: 'count', args: { source: SRC, table: 'track' } },
    { type: 'delete', args: { source: SRC, table: 'track', where: { name: 'r3' } } },
  ] });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, [
    { affected_rows: 1, returning: [{ name: 'r2' }] },
    { affected_rows: 1 },
    [{ name: 'r1' }, { name: 'r3' }],
    { count: 4 },
    { affected_rows: 1 },
  ]);
  assert.deepEqual(await sqlOn(archive.url, 'SELECT count(*)::int AS n FROM track'), [{ n: 3 }]);
  // A role sees that source's rows through its permissions there.
  const own = await v2({ type: 'select', args: { source: SRC, table: 'album', columns: ['title'] } }, as('user', '1'));
  assert.deepEqual(own.body, [{ title: 'Blue' }]);
  // A failing item rolls back the writes on that source too.
  const failing = await v2({ type: 'bulk', args: [
    { type: 'insert', args: { source: SRC, table: 'track', objects: [{ album_id: 2, name: 'lost' }] } },
    { type: 'insert', args: { source: SRC, table: 'track', objects: [{ album_id: 999, name: 'bad' }] } },
  ] });
  assert.equal(failing.status, 400, failing.text);
  assert.deepEqual(await sqlOn(archive.url, "SELECT count(*)::int AS n FROM track WHERE name = 'lost'"), [{ n: 0 }]);
  const unknown = await v2({ type: 'select', args: { source: 'nowhere', table: 'track', columns: ['id'] } });
  assert.deepEqual(unknown.body, { code: 'not-exists', error: 'source with name "nowhere" does not exist', path: '$.args' });
});

test('an event trigger on a table that source does not track is refused, nothing stored', async () => {
  // `author` is default's table: the command with source looks in that source only.
  await refused({ type: 'pg_create_event_trigger', args: { source: SRC, name: 'on_author', table: 'author', insert: { columns: '*' }, webhook: 'http://127.0.0.1:9/hook' } },
    'not-exists', /author/);
});

test('logical models and native queries with source: tracked in that source, checked by its database, served from it', async () => {
  await ok({ type: 'pg_track_logical_model', args: { source: SRC, name: 'album_title', fields: [{ name: 'id', type: { scalar: 'integer' } }, { name: 'title', type: { scalar: 'text' } }] } });
  // The code is checked by the source's database: `author` is default's table, not this one's.
  await refused({ type: 'pg_track_native_query', args: { source: SRC, root_field_name: 'authors_here', code: 'SELECT id, name AS title FROM author', arguments: {}, returns: 'album_title' } },
    'validation-failed', /author/);
  await ok({ type: 'pg_track_native_query', args: { source: SRC, root_field_name: 'albums_titled', code: 'SELECT id, title FROM album WHERE title = {{t}}', arguments: { t: { type: 'text' } }, returns: 'album_title' } });
  const src = await archiveTables();
  assert.deepEqual(src.native_queries.map((n: any) => n.root_field_name), ['albums_titled']);
  assert.deepEqual(src.logical_models.map((m: any) => m.name), ['album_title']);
  assert.equal((await exportV3()).sources[0].native_queries, undefined);
  const got = await metadata({ type: 'pg_get_native_query', args: { source: SRC } });
  assert.deepEqual(got.body.map((n: any) => n.root_field_name), ['albums_titled']);
  const onDefault = await metadata({ type: 'pg_get_native_query', args: { source: 'default' } });
  assert.deepEqual(onDefault.body, []);
  const q = await e.graphql('{ albums_titled(args: {t: "Red"}) { id title } }');
  assert.deepEqual(q.body, { data: { albums_titled: [{ id: 2, title: 'Red' }] } });
  await refused({ type: 'pg_untrack_logical_model', args: { source: SRC, name: 'nope' } }, 'not-found', 'Logical model "nope" not found in source "archive".');
  await ok({ type: 'pg_untrack_native_query', args: { source: SRC, root_field_name: 'albums_titled' } });
  await ok({ type: 'pg_untrack_logical_model', args: { source: SRC, name: 'album_title' } });
  assert.equal((await archiveTables()).native_queries, undefined);
});

test('customization type_names and root_fields: a table named as one of default\'s is served beside it, in introspection and answers', async () => {
  await sqlOn(archive.url, "CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL); INSERT INTO author VALUES (7, 'Old Ann');");
  const configuration = { connection_info: { database_url: archive.url, pool_settings: { max_connections: 4 } } };
  await refused({ type: 'pg_update_source', args: { name: 'default', customization: { type_names: { prefix: 'X_' } } } }, 'not-supported');
  await ok({ type: 'pg_update_source', args: { name: SRC, configuration, customization: { root_fields: { prefix: 'old_' }, type_names: { prefix: 'Old_', suffix: '_t' } } } });
  await ok({ type: 'pg_track_table', args: { source: SRC, table: 'author' } });
  assert.deepEqual((await archiveTables()).customization, { root_fields: { prefix: 'old_' }, type_names: { prefix: 'Old_', suffix: '_t' } });
  const types = await e.graphql('{ a: __type(name: "Old_author_t") { fields { name } } b: __type(name: "author") { name } q: __type(name: "query_root") { fields { name type { ofType { ofType { ofType { name } } } } } } }');
  assert.deepEqual(types.body.data.a.fields.map((f: any) => f.name), ['id', 'name']);
  assert.equal(types.body.data.b.name, 'author');
  const root = types.body.data.q.fields.find((f: any) => f.name === 'old_author');
  assert.equal(root.type.ofType.ofType.ofType.name, 'Old_author_t');
  const q = await e.graphql('query ($w: Old_author_bool_exp_t!) { old_author(where: $w) { __typename name } author { __typename name } }', { w: { id: { _eq: 7 } } });
  assert.deepEqual(q.body, { data: { old_author: [{ __typename: 'Old_author_t', name: 'Old Ann' }], author: [{ __typename: 'author', name: 'Ann' }] } });
  const exported = await exportV3();
  assert.deepEqual(exported.sources[1].customization, { root_fields: { prefix: 'old_' }, type_names: { prefix: 'Old_', suffix: '_t' } });
});

test('isolation_level: the source\'s mutations run at that level (read in the transaction); connection_info from an env var', async () => {
  await sqlOn(archive.url, "CREATE TABLE iso_log (id serial PRIMARY KEY, level text NOT NULL DEFAULT current_setting('transaction_isolation'))");
  await ok({ type: 'pg_track_table', args: { source: SRC, table: 'iso_log' } });
  const levelOfInsert = async () => {
    const r = await e.graphql('mutation { old_insert_iso_log_one(object: {}) { level } }');
    assert.ok(r.body.data, r.text);
    return r.body.data.old_insert_iso_log_one.level;
  };
  assert.equal(await levelOfInsert(), 'read committed');
  process.env.SVC_TEST_SOURCE_OPS_URL = archive.url;
  try {
    for (const [level, seen] of [['serializable', 'serializable'], ['repeatable-read', 'repeatable read'], ['read-committed', 'read committed']]) {
      const configuration = { connection_info: { database_url: { from_env: 'SVC_TEST_SOURCE_OPS_URL' }, isolation_level: level } };
      await ok({ type: 'pg_update_source', args: { name: SRC, configuration, customization: { root_fields: { prefix: 'old_' }, type_names: { prefix: 'Old_', suffix: '_t' } } } });
      assert.equal((await archiveTables()).configuration.connection_info.isolation_level, level);
      assert.equal(await levelOfInsert(), seen);
    }
    // A mutation touching both sources: each on its own source, this one at its level (customization kept when not given).
    await ok({ type: 'pg_update_source', args: { name: SRC, configuration: { connection_info: { database_url: { from_env: 'SVC_TEST_SOURCE_OPS_URL' }, isolation_level: 'serializable' } } } });
    const both = await e.graphql('mutation { old_insert_iso_log_one(object: {}) { level } insert_author_one(object: {name: "Iso"}) { name } }');
    assert.deepEqual(both.body, { data: { old_insert_iso_log_one: { level: 'serializable' }, insert_author_one: { name: 'Iso' } } });
  } finally {
    delete process.env.SVC_TEST_SOURCE_OPS_URL;
  }
  await refused({ type: 'pg_update_source', args: { name: SRC, configuration: { connection_info: { database_url: archive.url, isolation_level: 'snapshot' } } } }, 'parse-failed');
});

test('a naming_convention of a source\'s own is stored and exported (pg_update_source, the version-3 document); a bad one is refused', async () => {
  const configuration = { connection_info: { database_url: archive.url, pool_settings: { max_connections: 4 } } };
  const was = (await exportV3()).sources[1].customization;
  await refused({ type: 'pg_update_source', args: { name: SRC, configuration, customization: { ...was, naming_convention: 'camel' } } }, 'parse-failed', 'naming_convention can either be "hasura-default" or "graphql-default"');
  // Without its prefix the source's `author` would clash with default's: refused, as every root-field clash.
  await refused({ type: 'pg_update_source', args: { name: SRC, configuration, customization: { naming_convention: 'graphql-default' } } }, 'unexpected', 'following query root fields are duplicated: "author"');
  await ok({ type: 'pg_update_source', args: { name: SRC, configuration, customization: { ...was, naming_convention: 'graphql-default' } } });
  const doc = await exportV3();
  assert.deepEqual(doc.sources[1].customization, { ...was, naming_convention: 'graphql-default' });
  await ok({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
  assert.deepEqual(await exportV3(), doc);
  await ok({ type: 'pg_update_source', args: { name: SRC, configuration, customization: was } });
  assert.deepEqual((await exportV3()).sources[1].customization, was);
});
