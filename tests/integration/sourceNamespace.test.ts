/**
 * A source's root-field namespace (`customization.root_fields.namespace`, Hasura v2's source
 * customization), against a second real database: its root fields under one root field per root type
 * (`<namespace>_query`, `<namespace>_mutation_frontend`, `<namespace>_subscription`, named with the
 * source's type-name prefix), in queries (one statement, several, several sources, remote-source
 * relationships both ways), mutations (one transaction per source), live queries and streams over
 * WebSocket, introspection, `__typename`, error paths, explain, REST endpoints with `@cached`, the
 * allow-list, inherited roles, a metadata round trip, and the clashes and bad names refused.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sqlOn } from '../support/standbyPostgres.js';
import { createTestDatabase, startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const SECRET = 'ns-secret';
let e: TestEngine;
let db: { url: string; drop(): Promise<void> };
const admin = { 'x-svc-admin-secret': SECRET };
const asUser = (id: string, role = 'user') => ({ ...admin, 'x-svc-role': role, 'x-svc-user-id': id });

const metadata = (body: unknown) => e.request('POST', '/v1/metadata', body, admin);
const gql = (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = admin) => e.graphql(query, variables, headers);
const exportV3 = async () => (await metadata({ type: 'export_metadata', version: 2, args: {} })).body;
const ok = async (body: unknown) => {
  const r = await metadata(body);
  assert.equal(r.status, 200, `${JSON.stringify(body)} → ${r.text}`);
  return r.body;
};
/** The request fails with `code` and `error`, and the metadata is left as it was. */
async function refused(body: unknown, code: string, error: string | RegExp): Promise<void> {
  const before = await exportV3();
  const r = await metadata(body);
  assert.equal(r.status, 400, `${JSON.stringify(body)} → ${r.text}`);
  assert.equal(r.body.code, code, r.text);
  if (typeof error === 'string') assert.equal(r.body.error, error, r.text);
  else assert.match(r.body.error, error);
  assert.deepEqual(await exportV3(), before);
}

const CUSTOMIZATION = { root_fields: { namespace: 'archive' }, type_names: { prefix: 'Arc_' } };
const ALBUM_QUERY = 'query ($id: Int!) @cached(ttl: 30) { archive { album_by_pk(id: $id) { title } } }';
const USER_SCHEMA = '{ __schema { mutationType { name } } __type(name: "Arc_archive_query") { fields { name } } }';

before(async () => {
  db = await createTestDatabase('ns');
  await sqlOn(db.url, `
    CREATE TABLE album (id int PRIMARY KEY, title text NOT NULL, author_id int NOT NULL);
    INSERT INTO album VALUES (1, 'Blue', 1), (2, 'Red', 2), (3, 'Green', 1);
  `);
  e = await startTestEngine({ adminSecret: SECRET, enableAllowlist: true, liveQueries: { batchSize: 100, refetchIntervalMs: 60_000, changePollIntervalMs: 50 } });
  await e.runSql("CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL); INSERT INTO author VALUES (1, 'Ann'), (2, 'Bob');");
  await ok({ type: 'pg_add_source', args: { name: 'archive', configuration: { connection_info: { database_url: db.url, pool_settings: { max_connections: 4 } } }, customization: CUSTOMIZATION } });
  await ok({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: 'author' } },
      { type: 'pg_track_table', args: { source: 'archive', table: 'album' } },
      { type: 'pg_create_select_permission', args: { source: 'archive', table: 'album', role: 'user', permission: { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'pg_create_select_permission', args: { source: 'default', table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'add_inherited_role', args: { role_name: 'reader', role_set: ['user'] } },
      { type: 'pg_create_remote_relationship', args: { source: 'default', table: 'author', name: 'albums', definition: { to_source: { source: 'archive', table: 'album', relationship_type: 'array', field_mapping: { id: 'author_id' } } } } },
      { type: 'pg_create_remote_relationship', args: { source: 'archive', table: 'album', name: 'author', definition: { to_source: { source: 'default', table: 'author', relationship_type: 'object', field_mapping: { author_id: 'id' } } } } },
      { type: 'create_query_collection', args: { name: 'c', definition: { queries: [{ name: 'album', query: ALBUM_QUERY }, { name: 'albums', query: '{ archive { album(order_by: {id: asc}) { id title } } }' }, { name: 'schema', query: USER_SCHEMA }] } } },
      { type: 'add_collection_to_allowlist', args: { collection: 'c' } },
      { type: 'create_rest_endpoint', args: { name: 'album', url: 'album/:id', methods: ['GET'], definition: { query: { collection_name: 'c', query_name: 'album' } } } },
    ],
  });
});

after(async () => {
  await e?.stop();
  await db?.drop();
});

test('queries: the source\'s fields answer under the namespace, alone, with others of the source, with other sources and joins', async () => {
  // One root field (one statement, framed).
  let r = await gql('{ archive { album(order_by: {id: asc}) { title } } }');
  assert.deepEqual(r.body, { data: { archive: { album: [{ title: 'Blue' }, { title: 'Red' }, { title: 'Green' }] } } });
  // Several fields of the source (one combined statement), the namespace's __typename among them, an alias on the namespace.
  r = await gql('{ ns: archive { __typename one: album_by_pk(id: 1) { title } n: album_aggregate { aggregate { count } } } }');
  assert.deepEqual(r.body, { data: { ns: { __typename: 'Arc_archive_query', one: { title: 'Blue' }, n: { aggregate: { count: 3 } } } } });
  // Fields of both sources and remote-source relationships both ways, the namespace between two root fields.
  r = await gql('{ author(order_by: {id: asc}) { name albums(order_by: {id: asc}) { title } } archive { album(where: {id: {_lt: 3}}, order_by: {id: asc}) { title author { name } } } __typename }');
  assert.deepEqual(r.body, {
    data: {
      author: [{ name: 'Ann', albums: [{ title: 'Blue' }, { title: 'Green' }] }, { name: 'Bob', albums: [{ title: 'Red' }] }],
      archive: { album: [{ title: 'Blue', author: { name: 'Ann' } }, { title: 'Red', author: { name: 'Bob' } }] },
      __typename: 'query_root',
    },
  });
  // The root has the namespace, not the source's fields; a field the namespace lacks is an error at its path.
  r = await gql('{ album { id } }');
  assert.equal(r.body.errors[0].message, 'field "album" not found in type: \'query_root\'');
  r = await gql('{ archive { nope } }');
  assert.deepEqual(r.body.errors[0], { message: 'field "nope" not found in type: \'Arc_archive_query\'', extensions: { path: '$.selectionSet.archive.selectionSet.nope', code: 'validation-failed' } });
  r = await gql('{ archive { album(where: {nope: {_eq: 1}}) { id } } }');
  assert.equal(r.body.errors[0].extensions.path, '$.selectionSet.archive.selectionSet.album.args.where.nope');
  // A namespace needs a selection set.
  r = await gql('{ archive }');
  assert.equal(r.body.errors[0].extensions.code, 'validation-failed', r.text);
});

test('mutations: under <namespace>_mutation_frontend, the source\'s root fields in one transaction', async () => {
  let r = await gql('mutation { archive { __typename ins: insert_album_one(object: {id: 10, title: "Ten", author_id: 2}) { id } up: update_album(where: {id: {_eq: 10}}, _set: {title: "TEN"}) { affected_rows returning { title } } } }');
  assert.deepEqual(r.body, { data: { archive: { __typename: 'Arc_archive_mutation_frontend', ins: { id: 10 }, up: { affected_rows: 1, returning: [{ title: 'TEN' }] } } } });
  // The second insert fails: the first one, in the same transaction on that source, is rolled back.
  r = await gql('mutation { archive { a: insert_album_one(object: {id: 11, title: "a", author_id: 1}) { id } b: insert_album_one(object: {id: 11, title: "b", author_id: 1}) { id } } }');
  assert.equal(r.body.errors[0].extensions.code, 'constraint-violation', r.text);
  assert.deepEqual(await sqlOn(db.url, 'SELECT id FROM album WHERE id >= 10 ORDER BY id'), [{ id: 10 }]);
  r = await gql('mutation { archive { delete_album_by_pk(id: 10) { title } } }');
  assert.deepEqual(r.body, { data: { archive: { delete_album_by_pk: { title: 'TEN' } } } });
  r = await gql('mutation { insert_album_one(object: {id: 12, title: "x", author_id: 1}) { id } }');
  assert.equal(r.body.errors[0].message, 'field "insert_album_one" not found in type: \'mutation_root\'');
});

test('subscriptions over WebSocket: a live query and a stream under <namespace>_subscription, answers nested, pushed on a write', { timeout: 60_000 }, async () => {
  const ws = await TestSocket.open(e.url, 'graphql-transport-ws');
  try {
    ws.send({ type: 'connection_init', payload: { headers: admin } });
    assert.equal((await ws.next()).type, 'connection_ack');
    ws.send({ id: 'live', type: 'subscribe', payload: { query: 'subscription { archive { album(where: {id: {_lt: 3}}, order_by: {id: asc}) { title } } }' } });
    const first = await ws.next(10_000);
    assert.deepEqual(first.payload?.data, { archive: { album: [{ title: 'Blue' }, { title: 'Red' }] } }, JSON.stringify(first));
    ws.send({ id: 'stream', type: 'subscribe', payload: { query: 'subscription { s: archive { album_stream(batch_size: 10, cursor: {initial_value: {id: 0}}) { id } } }' } });
    const batch = await ws.next(10_000);
    assert.equal(batch.id, 'stream', JSON.stringify(batch));
    assert.deepEqual(batch.payload?.data, { s: { album_stream: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
    // Another client's write: the change counters of that database wake both (the refetch interval is a minute).
    await sqlOn(db.url, "UPDATE album SET title = 'Navy' WHERE id = 1; INSERT INTO album VALUES (4, 'Gold', 2)");
    const got = new Map<string, any>();
    while (got.size < 2) {
      const m = await ws.next(10_000);
      if (m.type === 'next') got.set(m.id, m.payload.data);
    }
    assert.deepEqual(got.get('live'), { archive: { album: [{ title: 'Navy' }, { title: 'Red' }] } });
    assert.deepEqual(got.get('stream'), { s: { album_stream: [{ id: 4 }] } });
    // A query over the socket answers nested too.
    ws.send({ id: 'q', type: 'subscribe', payload: { query: '{ archive { album_by_pk(id: 4) { title } } }' } });
    let q = await ws.next(10_000);
    while (q.id !== 'q') q = await ws.next(10_000);
    assert.deepEqual(q.payload?.data, { archive: { album_by_pk: { title: 'Gold' } } });
  } finally {
    ws.close();
    await sqlOn(db.url, "UPDATE album SET title = 'Blue' WHERE id = 1; DELETE FROM album WHERE id = 4");
  }
});

test('introspection: the namespace fields and their types, named with the source\'s type-name prefix', async () => {
  const r = await gql(`{
    __schema { queryType { fields { name type { kind ofType { name } } } } mutationType { fields { name type { ofType { name } } } } subscriptionType { fields { name type { ofType { name } } } } }
    q: __type(name: "Arc_archive_query") { fields { name } }
    s: __type(name: "Arc_archive_subscription") { fields { name } }
    m: __type(name: "Arc_archive_mutation_frontend") { fields { name } }
  }`);
  const s = r.body.data.__schema;
  assert.deepEqual(s.queryType.fields.find((f: any) => f.name === 'archive').type, { kind: 'NON_NULL', ofType: { name: 'Arc_archive_query' } });
  assert.deepEqual(s.queryType.fields.map((f: any) => f.name).sort(), ['archive', 'author', 'author_aggregate', 'author_by_pk']);
  assert.equal(s.mutationType.fields.find((f: any) => f.name === 'archive').type.ofType.name, 'Arc_archive_mutation_frontend');
  assert.equal(s.subscriptionType.fields.find((f: any) => f.name === 'archive').type.ofType.name, 'Arc_archive_subscription');
  assert.deepEqual(r.body.data.q.fields.map((f: any) => f.name), ['album', 'album_aggregate', 'album_by_pk']);
  assert.deepEqual(r.body.data.s.fields.map((f: any) => f.name), ['album', 'album_aggregate', 'album_by_pk', 'album_stream']);
  assert.ok(r.body.data.m.fields.some((f: any) => f.name === 'insert_album_one'), JSON.stringify(r.body.data.m));
  // A role sees the namespace with what it may select (no mutations: no namespace in a mutation root).
  const user = await gql(USER_SCHEMA, undefined, asUser('1'));
  assert.deepEqual(user.body.data, { __schema: { mutationType: null }, __type: { fields: [{ name: 'album' }, { name: 'album_by_pk' }] } });
});

test('explain names a namespaced field <namespace>.<field>, as Hasura does', async () => {
  const r = await e.request('POST', '/v1/graphql/explain', { query: { query: '{ author { id } archive { album { id } } }' } }, admin);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.map((f: any) => f.field), ['author', 'archive.album']);
  assert.match(r.body[1].sql, /"album"/);
  assert.ok(r.body[1].plan.length > 0);
});

test('roles, the allow-list, inherited roles, a REST endpoint and @cached on a namespaced query', async () => {
  // The allow-listed query, for the role and the inherited role that holds it.
  for (const role of ['user', 'reader']) {
    const r = await gql('{ archive { album(order_by: {id: asc}) { id title } } }', undefined, asUser('1', role));
    assert.deepEqual(r.body, { data: { archive: { album: [{ id: 1, title: 'Blue' }, { id: 3, title: 'Green' }] } } }, role);
  }
  const denied = await gql('{ archive { album { title } } }', undefined, asUser('1'));
  assert.equal(denied.body.errors[0].extensions.code, 'validation-failed', denied.text);
  // The REST endpoint runs the collection's namespaced query; @cached keeps its answer.
  const rest = await e.request('GET', '/api/rest/album/3', undefined, asUser('1'));
  assert.equal(rest.status, 200, rest.text);
  assert.deepEqual(rest.body, { archive: { album_by_pk: { title: 'Green' } } });
  const first = await gql(ALBUM_QUERY, { id: 1 }, asUser('1'));
  assert.deepEqual(first.body, { data: { archive: { album_by_pk: { title: 'Blue' } } } });
  assert.equal(first.headers.get('cache-control'), 'max-age=30');
  await sqlOn(db.url, "UPDATE album SET title = 'Cyan' WHERE id = 1");
  try {
    const cached = await gql(ALBUM_QUERY, { id: 1 }, asUser('1'));
    assert.deepEqual(cached.body, { data: { archive: { album_by_pk: { title: 'Blue' } } } }, 'answered from the cache');
  } finally {
    await sqlOn(db.url, "UPDATE album SET title = 'Blue' WHERE id = 1");
  }
});

test('an action joined to the namespaced source\'s table, in one request with the namespace\'s fields', async () => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify((body.input.ids as number[]).map((id) => ({ author_id: id }))));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const handler = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pick`;
    await ok({
      type: 'bulk',
      args: [
        { type: 'set_custom_types', args: { objects: [{ name: 'Pick', fields: [{ name: 'author_id', type: 'Int!' }], relationships: [{ name: 'albums', type: 'array', source: 'archive', remote_table: 'album', field_mapping: { author_id: 'author_id' } }] }] } },
        { type: 'create_action', args: { name: 'pick', definition: { kind: 'synchronous', type: 'query', arguments: [{ name: 'ids', type: '[Int!]!' }], output_type: '[Pick!]!', handler } } },
      ],
    });
    const r = await gql('{ pick(ids: [2, 1]) { author_id albums(order_by: {id: asc}) { title } } archive { album_by_pk(id: 3) { title } } }');
    assert.deepEqual(r.body, { data: { pick: [{ author_id: 2, albums: [{ title: 'Red' }] }, { author_id: 1, albums: [{ title: 'Blue' }, { title: 'Green' }] }], archive: { album_by_pk: { title: 'Green' } } } }, r.text);
    await ok({ type: 'bulk', args: [{ type: 'drop_action', args: { name: 'pick' } }, { type: 'set_custom_types', args: {} }] });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('metadata round trip: export → replace_metadata gives the same document and the same schema', async () => {
  const doc = await exportV3();
  assert.deepEqual(doc.sources.find((s: any) => s.name === 'archive').customization, CUSTOMIZATION);
  const schema = async () => (await gql('{ __schema { types { name fields { name type { name ofType { name } } } } } }')).body;
  const before = await schema();
  await ok({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
  assert.deepEqual(await exportV3(), doc);
  assert.deepEqual(await schema(), before);
  const r = await gql('{ archive { album_by_pk(id: 2) { title } } }');
  assert.deepEqual(r.body, { data: { archive: { album_by_pk: { title: 'Red' } } } });
});

test('a namespace that clashes with a root field, a bad namespace, a namespace on default: refused, nothing changed', async () => {
  const configuration = { connection_info: { database_url: db.url, pool_settings: { max_connections: 4 } } };
  // The REST endpoint's stored query asks for the namespace: a customization without it is refused while it is there.
  await refused({ type: 'pg_update_source', args: { name: 'archive', configuration, customization: { root_fields: { prefix: 'arc_' } } } },
    'unexpected', 'cannot continue due to new inconsistent metadata');
  await ok({ type: 'drop_rest_endpoint', args: { name: 'album' } });
  await refused({ type: 'pg_update_source', args: { name: 'archive', configuration, customization: { root_fields: { namespace: 'author' } } } },
    'unexpected', 'following query root fields are duplicated: "author"');
  await refused({ type: 'pg_update_source', args: { name: 'archive', configuration, customization: { root_fields: { namespace: '1st' } } } },
    'parse-failed', 'expected a GraphQL name, encountered "1st"');
  await refused({ type: 'pg_update_source', args: { name: 'default', customization: { root_fields: { namespace: 'main' } } } },
    'not-supported', /not supported for the "default" source/);
  // Without the namespace the source's fields are root fields again (prefixed here), and back.
  await ok({ type: 'pg_update_source', args: { name: 'archive', configuration, customization: { root_fields: { prefix: 'arc_' } } } });
  const r = await gql('{ arc_album_by_pk(id: 2) { title } }');
  assert.deepEqual(r.body, { data: { arc_album_by_pk: { title: 'Red' } } });
  await ok({ type: 'pg_update_source', args: { name: 'archive', configuration, customization: CUSTOMIZATION } });
  assert.deepEqual((await gql('{ archive { album_by_pk(id: 2) { title } } }')).body, { data: { archive: { album_by_pk: { title: 'Red' } } } });
});
