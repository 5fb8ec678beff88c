/**
 * Several Postgres sources behind one API (Hasura v2's sources), against the test Postgres
 * (`default`) and a PG 15 cluster started here (`archive`): pg_add_source of an unreachable
 * database refused with nothing stored; the source added from a URL, an env var and connection
 * parameters; a version-3 document with both sources replaced and exported; a query and a mutation on
 * each source (permissions applied on the second), a mutation touching both, root-field prefixes;
 * the second cluster stopped (its fields error in Hasura's shape, it is reported inconsistent, the
 * default keeps answering) and started again (it answers without a restart); rename and drop.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSystemPostgres, type SystemPostgres } from '../support/systemPostgres.js';
import { sqlOn } from '../support/standbyPostgres.js';
import { eventually } from '../support/eventReceiver.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';

let archive: SystemPostgres;
let e: TestEngine;
const ENV = 'SVC_TEST_ARCHIVE_DATABASE_URL';

before(async () => {
  archive = await startSystemPostgres();
  await sqlOn(archive.url, `
    CREATE TABLE album (id serial PRIMARY KEY, title text NOT NULL, owner_id int NOT NULL);
    CREATE TABLE track (id serial PRIMARY KEY, album_id int NOT NULL REFERENCES album(id), name text NOT NULL);
    INSERT INTO album (title, owner_id) VALUES ('Blue', 1), ('Red', 2);
    INSERT INTO track (album_id, name) VALUES (1, 'b1'), (1, 'b2'), (2, 'r1');
  `);
  process.env[ENV] = archive.url;
  e = await startTestEngine({ adminSecret: 'secret', liveQueries: { batchSize: 100, refetchIntervalMs: 100, changePollIntervalMs: 50 } });
  await e.runSql('CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO author (name) VALUES (\'Ann\');');
});

after(async () => {
  await e?.stop();
  archive?.stop();
  delete process.env[ENV];
});

const metadata = (body: unknown) => e.request('POST', '/v1/metadata', body);
const exportV3 = async () => (await metadata({ type: 'export_metadata', version: 2, args: {} })).body;
const archiveConfig = (database_url: unknown) => ({ connection_info: { database_url, pool_settings: { max_connections: 4 } } });

test('pg_add_source of a database that cannot be reached is refused whole: nothing stored', async () => {
  const before = await exportV3();
  const r = await metadata({ type: 'pg_add_source', args: { name: 'nowhere', configuration: archiveConfig('postgres://postgres@127.0.0.1:1/postgres') } });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.path, '$.args');
  assert.match(r.body.error, /nowhere|connect|refused/i);
  assert.deepEqual(await exportV3(), before);
  const missingEnv = await metadata({ type: 'pg_add_source', args: { name: 'nowhere', configuration: archiveConfig({ from_env: 'SVC_TEST_NO_SUCH_VAR' }) } });
  assert.equal(missingEnv.status, 400, missingEnv.text);
  assert.match(missingEnv.body.error, /SVC_TEST_NO_SUCH_VAR/);
  assert.deepEqual(await exportV3(), before);
});

test('pg_add_source from an env var, tables tracked through replace_metadata version 3, a query on each source', async () => {
  const add = await metadata({ type: 'pg_add_source', args: { name: 'archive', configuration: archiveConfig({ from_env: ENV }) } });
  assert.equal(add.status, 200, add.text);
  assert.deepEqual(add.body, { message: 'success' });
  const again = await metadata({ type: 'pg_add_source', args: { name: 'archive', configuration: archiveConfig({ from_env: ENV }) } });
  assert.equal(again.status, 400);
  assert.deepEqual(again.body, { code: 'already-exists', error: 'source with name "archive" already exists', path: '$.args' });

  const doc = await exportV3();
  assert.equal(doc.version, 3);
  assert.deepEqual(doc.sources.map((s: any) => s.name), ['default', 'archive']);
  doc.sources[0].tables = [{ table: { schema: 'public', name: 'author' }, select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], filter: {} } }] }];
  doc.sources[1].tables = [
    {
      table: { schema: 'public', name: 'album' },
      array_relationships: [{ name: 'tracks', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'track' }, column: 'album_id' } } }],
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'title'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } } } }],
      insert_permissions: [{ role: 'user', permission: { columns: ['title'], check: {}, set: { owner_id: 'X-Svc-User-Id' } } }],
    },
    { table: { schema: 'public', name: 'track' }, select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], filter: {} } }] },
  ];
  const replaced = await metadata({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
  assert.equal(replaced.status, 200, replaced.text);
  const exported = await exportV3();
  assert.deepEqual(exported.sources[1].tables.map((t: any) => t.table.name), ['album', 'track']);
  assert.deepEqual(exported.sources[1].configuration, archiveConfig({ from_env: ENV }));

  const both = await e.graphql('{ author { name } album(order_by: {id: asc}) { title tracks(order_by: {id: asc}) { name } } }');
  assert.deepEqual(both.body, { data: { author: [{ name: 'Ann' }], album: [{ title: 'Blue', tracks: [{ name: 'b1' }, { name: 'b2' }] }, { title: 'Red', tracks: [{ name: 'r1' }] }] } });
  const onlyArchive = await e.graphql('{ track_aggregate { aggregate { count } } }');
  assert.deepEqual(onlyArchive.body, { data: { track_aggregate: { aggregate: { count: 3 } } } });
  // The second source's permissions: user 2 sees only its album.
  const asUser = await e.graphql('{ album { title } author { name } }', undefined, { 'x-svc-admin-secret': 'secret', 'x-svc-role': 'user', 'x-svc-user-id': '2' });
  assert.deepEqual(asUser.body, { data: { album: [{ title: 'Red' }], author: [{ name: 'Ann' }] } });
});

test('a mutation on each source, and one touching both (each root field on its own source)', async () => {
  const onArchive = await e.graphql('mutation { insert_album_one(object: {title: "Green"}) { title } }', undefined, { 'x-svc-admin-secret': 'secret', 'x-svc-role': 'user', 'x-svc-user-id': '3' });
  assert.deepEqual(onArchive.body, { data: { insert_album_one: { title: 'Green' } } });
  assert.deepEqual(await sqlOn(archive.url, "SELECT owner_id FROM album WHERE title = 'Green'"), [{ owner_id: 3 }]);
  const onDefault = await e.graphql('mutation { insert_author_one(object: {name: "Bo"}) { name } }');
  assert.deepEqual(onDefault.body, { data: { insert_author_one: { name: 'Bo' } } });
  const bothSources = await e.graphql('mutation { a: insert_author(objects: [{name: "Cy"}]) { affected_rows } b: update_album(where: {title: {_eq: "Green"}}, _set: {title: "Teal"}) { affected_rows } }');
  assert.deepEqual(bothSources.body, { data: { a: { affected_rows: 1 }, b: { affected_rows: 1 } } });
  assert.deepEqual(await sqlOn(archive.url, "SELECT count(*)::int AS n FROM album WHERE title = 'Teal'"), [{ n: 1 }]);
  const authors = await e.graphql('{ author(order_by: {id: asc}) { name } }');
  assert.deepEqual(authors.body, { data: { author: [{ name: 'Ann' }, { name: 'Bo' }, { name: 'Cy' }] } });
});

test('pg_update_source: a root-field prefix renames the source\'s root fields; connection_parameters', async () => {
  const u = new URL(archive.url);
  const configuration = { connection_info: { database_url: { connection_parameters: { host: u.hostname, port: Number(u.port), username: 'postgres', database: 'postgres' } } } };
  const r = await metadata({ type: 'pg_update_source', args: { name: 'archive', configuration, customization: { root_fields: { prefix: 'arch_' } } } });
  assert.equal(r.status, 200, r.text);
  const q = await e.graphql('{ arch_album(where: {title: {_eq: "Blue"}}) { title } author(limit: 1) { name } }');
  assert.deepEqual(q.body, { data: { arch_album: [{ title: 'Blue' }], author: [{ name: 'Ann' }] } });
  const old = await e.graphql('{ album { title } }');
  assert.equal(old.body.errors?.[0]?.extensions?.code, 'validation-failed');
  const exported = await exportV3();
  assert.deepEqual(exported.sources[1].customization, { root_fields: { prefix: 'arch_' } });
  assert.deepEqual(exported.sources[1].configuration, configuration);
});

test('explain runs each field on its source', async () => {
  const r = await e.request('POST', '/v1/graphql/explain', { query: { query: '{ arch_album(limit: 1) { title } author(limit: 1) { name } }' } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.map((p: any) => p.field), ['arch_album', 'author']);
  assert.match(r.body[0].sql, /"album"/);
  assert.match(r.body[1].sql, /"author"/);
});

test('a live query on the second source: its first answer, then the rows a write there adds', async () => {
  const ws = await TestSocket.open(e.url, 'graphql-transport-ws');
  try {
    ws.send({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'secret', 'x-svc-role': 'user', 'x-svc-user-id': '1' } } });
    assert.equal((await ws.next()).type, 'connection_ack');
    ws.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { arch_album(order_by: {id: asc}) { title } }' } });
    const first = await ws.next();
    assert.deepEqual(first.payload?.data, { arch_album: [{ title: 'Blue' }] }, JSON.stringify(first));
    await sqlOn(archive.url, "INSERT INTO album (title, owner_id) VALUES ('Navy', 1)");
    const next = await ws.next();
    assert.deepEqual(next.payload?.data, { arch_album: [{ title: 'Blue' }, { title: 'Navy' }] }, JSON.stringify(next));
    const streaming = 'subscription { arch_album_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { title } }';
    ws.send({ id: '2', type: 'subscribe', payload: { query: streaming } });
    const batch = await ws.next();
    assert.equal(batch.id, '2', JSON.stringify(batch));
    assert.deepEqual(batch.payload?.data, { arch_album_stream: [{ title: 'Blue' }] }, JSON.stringify(batch));
  } finally {
    ws.ws.close();
  }
});

test('a source that is down: its fields error in Hasura\'s shape, it shows as inconsistent, default answers; back without a restart', async () => {
  archive.halt();
  try {
    const down = await e.graphql('{ arch_album { title } }');
    assert.equal(down.status, 200);
    assert.equal(down.body.errors?.length, 1, down.text);
    assert.ok(down.body.errors[0].extensions?.code, down.text);
    const up = await e.graphql('{ author(limit: 1) { name } }');
    assert.deepEqual(up.body, { data: { author: [{ name: 'Ann' }] } });
    const reload = await metadata({ type: 'reload_metadata', args: {} });
    assert.equal(reload.status, 200, reload.text);
    const inconsistent = await metadata({ type: 'get_inconsistent_metadata', args: {} });
    assert.equal(inconsistent.body.is_consistent, false);
    assert.deepEqual(inconsistent.body.inconsistent_objects.map((o: any) => o.type), ['source']);
    const still = await e.graphql('{ author(limit: 1) { name } }');
    assert.deepEqual(still.body, { data: { author: [{ name: 'Ann' }] } });
  } finally {
    archive.start();
  }
  // Back: a reload reads the source again (no restart).
  await eventually(async () => (await metadata({ type: 'reload_metadata', args: {} })).body, (b) => b?.is_consistent === true || b?.message === 'success', 10_000, 'reload');
  // (the engine's own probe of the source clears its outage within a second of its answer)
  const inconsistent = await eventually(() => metadata({ type: 'get_inconsistent_metadata', args: {} }), (r) => r.body?.is_consistent === true, 10_000, 'consistent again');
  assert.deepEqual(inconsistent.body, { is_consistent: true, inconsistent_objects: [] });
  const back = await e.graphql('{ arch_album(where: {title: {_eq: "Red"}}) { title } }');
  assert.deepEqual(back.body, { data: { arch_album: [{ title: 'Red' }] } });
});

test('rename_source and pg_drop_source, with Hasura\'s errors', async () => {
  const missing = await metadata({ type: 'rename_source', args: { name: 'nope', new_name: 'x' } });
  assert.deepEqual(missing.body, { code: 'not-exists', error: 'Could not find source with name "nope"', path: '$.args' });
  const taken = await metadata({ type: 'rename_source', args: { name: 'archive', new_name: 'default' } });
  assert.deepEqual(taken.body, { code: 'already-exists', error: 'Source with name "default" already exists', path: '$.args' });
  const renamed = await metadata({ type: 'rename_source', args: { name: 'archive', new_name: 'old' } });
  assert.equal(renamed.status, 200, renamed.text);
  assert.deepEqual((await exportV3()).sources.map((s: any) => s.name), ['default', 'old']);
  const q = await e.graphql('{ arch_album_aggregate { aggregate { count } } }');
  assert.deepEqual(q.body, { data: { arch_album_aggregate: { aggregate: { count: 4 } } } });
  const dropMissing = await metadata({ type: 'pg_drop_source', args: { name: 'archive' } });
  assert.deepEqual(dropMissing.body, { code: 'not-exists', error: 'source with name "archive" does not exist', path: '$.args' });
  const dropped = await metadata({ type: 'pg_drop_source', args: { name: 'old', cascade: true } });
  assert.equal(dropped.status, 200, dropped.text);
  assert.deepEqual((await exportV3()).sources.map((s: any) => s.name), ['default']);
  const gone = await e.graphql('{ arch_album { title } }');
  assert.equal(gone.body.errors?.[0]?.extensions?.code, 'validation-failed');
});
