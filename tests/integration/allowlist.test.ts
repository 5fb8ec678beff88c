/**
 * Query collections and the allow-list over HTTP, on an engine started with the allow-list on:
 * what a non-admin role may run, the collection operations and their errors, export/replace.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';

let e: TestEngine;
const USER = { 'x-svc-role': 'user' };
const Q1 = 'query {\n  user {\n    id\n    name\n  }\n}\n';
const NOT_ALLOWED = { errors: [{ extensions: { path: '$', code: 'validation-failed' }, message: 'query is not allowed' }] };

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm', enableAllowlist: true });
  await e.runSql(`CREATE TABLE "user"(id serial PRIMARY KEY, name text NOT NULL, secret text);
    INSERT INTO "user"(name, secret) VALUES ('clarke', 's1'), ('reckler', 's2');`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'user' } },
      { type: 'create_select_permission', args: { table: 'user', role: 'user', permission: { columns: '*', filter: {} } } },
      { type: 'create_query_collection', args: { name: 'c1', comment: 'first', definition: { queries: [{ name: 'q1', query: Q1 }] } } },
      { type: 'add_collection_to_allowlist', args: { collection: 'c1' } },
    ],
  });
  assert.equal(r.status, 200, r.text);
});
after(() => e.stop());

const exported = async () => (await e.query({ type: 'export_metadata', args: {} })).body;

test('the config API reports the allow-list as enabled', async () => {
  const r = await e.request('GET', '/v1alpha1/config');
  assert.equal(r.body.is_allow_list_enabled, true);
});

test('a non-admin query on the list runs, however it is formatted', async () => {
  const rows = [{ id: 1, name: 'clarke' }, { id: 2, name: 'reckler' }];
  for (const q of [Q1, 'query{user{id,name}}', 'query { user { id name __typename } }']) {
    const r = await e.graphql(q, undefined, USER);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data.user.map((u: any) => ({ id: u.id, name: u.name })), rows, q);
  }
});

test('a non-admin query not on the list is refused; admin always passes', async () => {
  const r = await e.graphql('query { user { id name secret } }', undefined, USER);
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, NOT_ALLOWED);
  const reordered = await e.graphql('query { user { name id } }', undefined, USER);
  assert.deepEqual(reordered.body, NOT_ALLOWED);
  const asAdmin = await e.graphql('query { user { id name secret } }');
  assert.deepEqual(asAdmin.body, { data: { user: [{ id: 1, name: 'clarke', secret: 's1' }, { id: 2, name: 'reckler', secret: 's2' }] } });
});

test('adding and dropping queries and collections changes what is allowed at once', async () => {
  const q2 = 'query { user { secret } }';
  assert.deepEqual((await e.graphql(q2, undefined, USER)).body, NOT_ALLOWED);
  assert.equal((await e.query({ type: 'add_query_to_collection', args: { collection_name: 'c1', query_name: 'q2', query: q2 } })).status, 200);
  assert.deepEqual((await e.graphql(q2, undefined, USER)).body, { data: { user: [{ secret: 's1' }, { secret: 's2' }] } });
  assert.equal((await e.query({ type: 'drop_query_from_collection', args: { collection_name: 'c1', query_name: 'q2' } })).status, 200);
  assert.deepEqual((await e.graphql(q2, undefined, USER)).body, NOT_ALLOWED);

  // A collection off the list allows nothing; on the list, its queries.
  const c2 = { type: 'create_query_collection', args: { name: 'c2', definition: { queries: [{ name: 'x', query: q2 }] } } };
  assert.equal((await e.query(c2)).status, 200);
  assert.deepEqual((await e.graphql(q2, undefined, USER)).body, NOT_ALLOWED);
  assert.equal((await e.query({ type: 'add_collection_to_allowlist', args: { collection: 'c2' } })).status, 200);
  assert.equal((await e.graphql(q2, undefined, USER)).status, 200);
  assert.ok((await e.graphql(q2, undefined, USER)).body.data);
  assert.equal((await e.query({ type: 'drop_collection_from_allowlist', args: { collection: 'c2' } })).status, 200);
  assert.deepEqual((await e.graphql(q2, undefined, USER)).body, NOT_ALLOWED);
  assert.equal((await e.query({ type: 'drop_query_collection', args: { collection: 'c2', cascade: false } })).status, 200);
});

test('drop_query_collection: refused while allow-listed without cascade; cascade removes it from the list', async () => {
  const mk = { type: 'create_query_collection', args: { name: 'c3', definition: { queries: [{ name: 'x', query: 'query { user { id } }' }] } } };
  assert.equal((await e.query({ type: 'bulk', args: [mk, { type: 'add_collection_to_allowlist', args: { collection: 'c3' } }] })).status, 200);
  assert.equal((await e.graphql('query { user { id } }', undefined, USER)).status, 200);
  const refused = await e.query({ type: 'drop_query_collection', args: { collection: 'c3', cascade: false } });
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.body, {
    path: '$.args.collection', code: 'dependency-error',
    error: 'query collection with name "c3" is present in allowlist; cannot proceed to drop',
  });
  assert.equal((await e.query({ type: 'drop_query_collection', args: { collection: 'c3', cascade: true } })).status, 200);
  const md = await exported();
  assert.deepEqual(md.allowlist, [{ collection: 'c1' }]);
  assert.ok(!md.query_collections.some((c: any) => c.name === 'c3'));
  assert.deepEqual((await e.graphql('query { user { id } }', undefined, USER)).body, NOT_ALLOWED);
});

test('the operations\' errors', async () => {
  const cases: Array<[unknown, number, Record<string, unknown>]> = [
    [{ type: 'create_query_collection', args: { name: 'c1', definition: { queries: [] } } }, 400,
      { path: '$.args.name', code: 'already-exists', error: 'query collection with name "c1" already exists' }],
    [{ type: 'create_query_collection', args: { name: 'd', definition: { queries: [{ name: 'a', query: '{ a }' }, { name: 'a', query: '{ b }' }] } } }, 400,
      { path: '$.args.definition.queries', code: 'not-supported', error: 'found duplicate query names "a"' }],
    [{ type: 'create_query_collection', args: { name: 'd', definition: { queries: [{ name: 'a', query: 'query {' }] } } }, 400,
      { path: '$.definition.queries[0].query', code: 'parse-failed', error: 'parsing the graphql query failed' }],
    [{ type: 'drop_query_collection', args: { collection: 'nope', cascade: true } }, 400,
      { path: '$.args.collection', code: 'not-exists', error: 'query collection with name "nope" does not exists' }],
    [{ type: 'drop_query_collection', args: { collection: 'c1' } }, 400,
      { path: '$', code: 'parse-failed', error: 'key "cascade" not found' }],
    [{ type: 'add_query_to_collection', args: { collection_name: 'nope', query_name: 'q', query: '{ a }' } }, 400,
      { path: '$.args', code: 'not-exists', error: 'query collection with name "nope" does not exists' }],
    [{ type: 'add_query_to_collection', args: { collection_name: 'c1', query_name: 'q1', query: '{ a }' } }, 400,
      { path: '$.args', code: 'already-exists', error: 'query with name "q1" already exists in collection "c1"' }],
    [{ type: 'drop_query_from_collection', args: { collection_name: 'c1', query_name: 'zz' } }, 400,
      { path: '$.args', code: 'not-found', error: 'query with name "zz" not found in collection "c1"' }],
    [{ type: 'add_collection_to_allowlist', args: { collection: 'nope' } }, 400,
      { path: '$.args.collection', code: 'not-exists', error: 'query collection with name "nope" does not exists' }],
    [{ type: 'drop_collection_from_allowlist', args: { collection: 'nope' } }, 400,
      { path: '$.args.collection', code: 'not-exists', error: 'query collection with name "nope" does not exists' }],
  ];
  for (const [body, status, expected] of cases) {
    const r = await e.query(body);
    assert.equal(r.status, status, JSON.stringify(body));
    assert.deepEqual(r.body, expected, JSON.stringify(body));
  }
  // Non-admin roles may not run them.
  const denied = await e.query({ type: 'add_collection_to_allowlist', args: { collection: 'c1' } }, USER);
  assert.equal(denied.body.code, 'access-denied');
});

test('a failed operation in a bulk leaves metadata unchanged', async () => {
  const before = await exported();
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'create_query_collection', args: { name: 'tmp', definition: { queries: [{ name: 'a', query: 'query { user { name } }' }] } } },
      { type: 'add_collection_to_allowlist', args: { collection: 'tmp' } },
      { type: 'add_query_to_collection', args: { collection_name: 'c1', query_name: 'q1', query: '{ a }' } },
    ],
  });
  assert.equal(r.status, 400);
  assert.equal(r.body.path, '$.args[2].args');
  assert.deepEqual(await exported(), before);
  assert.deepEqual((await e.graphql('query { user { name } }', undefined, USER)).body, NOT_ALLOWED);
});

test('export_metadata / replace_metadata round trip, and replace_metadata refusals', async () => {
  const md = await exported();
  assert.deepEqual(md.query_collections, [{ name: 'c1', definition: { queries: [{ name: 'q1', query: Q1 }] }, comment: 'first' }]);
  assert.deepEqual(md.allowlist, [{ collection: 'c1' }]);

  // Replace with a document whose list allows another query.
  const other = 'query { user { id } }';
  const next = { ...md, query_collections: [{ name: 'k', definition: { queries: [{ name: 'o', query: other }] } }], allowlist: [{ collection: 'k' }] };
  assert.equal((await e.query({ type: 'replace_metadata', args: next })).status, 200);
  assert.deepEqual(await exported(), next);
  assert.equal((await e.graphql(other, undefined, USER)).status, 200);
  assert.ok((await e.graphql(other, undefined, USER)).body.data);
  assert.deepEqual((await e.graphql(Q1, undefined, USER)).body, NOT_ALLOWED);

  const unknown = await e.query({ type: 'replace_metadata', args: { ...md, allowlist: [{ collection: 'missing' }] } });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.code, 'not-exists');
  const bad = await e.query({ type: 'replace_metadata', args: { ...md, query_collections: [{ name: 'c1', definition: { queries: [{ name: 'q', query: '{' }] } }] } });
  assert.deepEqual(bad.body, { path: '$.query_collections[0].definition.queries[0].query', code: 'parse-failed', error: 'parsing the graphql query failed' });
  assert.deepEqual(await exported(), next);

  // Back to the original; clear_metadata drops collections and the list.
  assert.equal((await e.query({ type: 'replace_metadata', args: md })).status, 200);
  assert.deepEqual(await exported(), md);
  assert.equal((await e.graphql(Q1, undefined, USER)).status, 200);
  assert.equal((await e.query({ type: 'clear_metadata', args: {} })).status, 200);
  const cleared = await exported();
  assert.equal(cleared.query_collections, undefined);
  assert.equal(cleared.allowlist, undefined);
  assert.equal((await e.query({ type: 'replace_metadata', args: md })).status, 200);
});

test('over WebSocket: an allowed query runs as a non-admin, another is refused', async () => {
  const s = await TestSocket.open(e.url, 'graphql-transport-ws');
  s.send({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'adm', ...USER } } });
  assert.deepEqual(await s.next(), { type: 'connection_ack' });
  s.send({ id: '1', type: 'subscribe', payload: { query: 'query{user{id,name}}' } });
  assert.deepEqual(await s.next(), { id: '1', type: 'next', payload: { data: { user: [{ id: 1, name: 'clarke' }, { id: 2, name: 'reckler' }] } } });
  assert.deepEqual(await s.next(), { id: '1', type: 'complete' });
  s.send({ id: '2', type: 'subscribe', payload: { query: 'query { user { secret } }' } });
  const err = await s.next();
  assert.equal(err.type, 'error');
  assert.deepEqual(err.payload[0], NOT_ALLOWED.errors[0]);
  s.close();
  await s.closed;
});
