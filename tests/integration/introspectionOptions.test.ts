/**
 * Hasura v2's `graphql_schema_introspection.disabled_for_roles`: a security setting, honoured and
 * never dropped. `set_graphql_schema_introspection_options` on /v1/query and /v1/metadata; the listed
 * roles get `field "__schema" not found in type: 'query_root'` (as for any unknown field) over HTTP and WebSocket, other roles
 * and their ordinary queries are untouched; the setting is exported, restored by `replace_metadata`
 * (version 2 and Hasura v2's version 3 document), removed by `clear_metadata`; bad args change nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';

const SECRET = 'introspection-secret';
const ANON = { 'x-svc-role': 'anonymous' };
const USER = { 'x-svc-role': 'user' };

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine({ adminSecret: SECRET });
  t.after(() => e.stop());
  await e.runSql("CREATE TABLE t (id serial PRIMARY KEY, name text); INSERT INTO t (name) VALUES ('a');");
  assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 't' } })).status, 200);
  for (const role of ['anonymous', 'user']) {
    assert.equal((await e.query({ type: 'create_select_permission', args: { table: 't', role, permission: { columns: '*', filter: {} } } })).status, 200);
  }
  return e;
}

const asRole = (headers: Record<string, string>) => ({ 'x-svc-admin-secret': SECRET, ...headers });
const schemaQuery = '{ __schema { queryType { name } } }';
const exported = async (e: TestEngine) => (await e.query({ type: 'export_metadata', args: {} })).body;

test('the listed roles cannot introspect; others can; ordinary queries and __typename still work', async (t) => {
  const e = await setup(t);
  const set = await e.query({ type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: ['anonymous'] } });
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.body, { message: 'success' });

  const denied = await e.graphql(schemaQuery, undefined, asRole(ANON));
  assert.deepEqual(denied.body, { errors: [{ extensions: { path: '$.selectionSet.__schema', code: 'validation-failed' }, message: 'field "__schema" not found in type: \'query_root\'' }] });
  const byType = await e.graphql('query { t { id } x: __type(name: "t") { name } }', undefined, asRole(ANON));
  assert.equal(byType.body.errors?.[0]?.message, 'field "__type" not found in type: \'query_root\'');
  assert.deepEqual((await e.graphql('{ t { name } __typename }', undefined, asRole(ANON))).body, { data: { t: [{ name: 'a' }], __typename: 'query_root' } });

  assert.deepEqual((await e.graphql(schemaQuery, undefined, asRole(USER))).body, { data: { __schema: { queryType: { name: 'query_root' } } } });
  assert.deepEqual((await e.graphql(schemaQuery)).body.data, { __schema: { queryType: { name: 'query_root' } } }, 'admin is not listed');

  // Over WebSocket too.
  const ws = await TestSocket.open(e.url, 'graphql-ws');
  t.after(() => ws.ws.close());
  ws.send({ type: 'connection_init', payload: { headers: asRole(ANON) } });
  assert.equal((await ws.next()).type, 'connection_ack');
  ws.send({ id: '1', type: 'start', payload: { query: schemaQuery } });
  const r = await ws.next();
  assert.equal(r.type, 'error');
  assert.equal(r.payload.errors?.[0]?.message, 'field "__schema" not found in type: \'query_root\'');

  assert.deepEqual((await exported(e)).graphql_schema_introspection, { disabled_for_roles: ['anonymous'] });
  // Replaced whole; an empty list opens introspection again and leaves no key in the export.
  assert.equal((await e.query({ type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: [] } })).status, 200);
  assert.ok((await e.graphql(schemaQuery, undefined, asRole(ANON))).body.data.__schema);
  assert.equal((await exported(e)).graphql_schema_introspection, undefined);
});

test('bad args change nothing; the setting travels with replace_metadata (v2 and v3) and goes with clear_metadata', async (t) => {
  const e = await setup(t);
  assert.equal((await e.query({ type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: ['user'] } })).status, 200);
  for (const args of [{ disabled_for_roles: 'user' }, { disabled_for_roles: [1] }, { disabled_for_roles: [''] }, { enabled_for_roles: ['x'] }]) {
    const r = await e.query({ type: 'set_graphql_schema_introspection_options', args });
    assert.equal(r.status, 400, JSON.stringify(args));
    assert.equal(r.body.code, 'parse-failed', r.text);
  }
  assert.deepEqual((await exported(e)).graphql_schema_introspection, { disabled_for_roles: ['user'] });

  const doc = await exported(e);
  assert.equal((await e.query({ type: 'clear_metadata', args: {} })).status, 200);
  assert.equal((await exported(e)).graphql_schema_introspection, undefined);
  assert.equal((await e.query({ type: 'replace_metadata', args: doc })).status, 200);
  assert.equal((await e.graphql(schemaQuery, undefined, asRole(USER))).body.errors?.[0]?.extensions?.code, 'validation-failed');

  // Hasura v2's /v1/metadata: the same operation, and the version-3 document.
  const v3 = (await e.request('POST', '/v1/metadata', { type: 'export_metadata', version: 1, args: {} })).body;
  assert.deepEqual(v3.graphql_schema_introspection, { disabled_for_roles: ['user'] });
  assert.equal((await e.request('POST', '/v1/metadata', { type: 'set_graphql_schema_introspection_options', args: { disabled_for_roles: ['anonymous'] } })).status, 200);
  assert.ok((await e.graphql(schemaQuery, undefined, asRole(USER))).body.data.__schema);
  assert.equal((await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: v3 })).status, 200);
  assert.equal((await e.graphql(schemaQuery, undefined, asRole(USER))).body.errors?.[0]?.extensions?.code, 'validation-failed');
  assert.ok((await e.graphql(schemaQuery, undefined, asRole(ANON))).body.data.__schema);
});
