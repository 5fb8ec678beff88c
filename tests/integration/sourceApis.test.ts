/**
 * The APIs around the GraphQL endpoint on a source other than `default` (a second database on the
 * test server): a REST endpoint whose query reads the second source, with the caller's permissions;
 * `@cached` answers of that source keyed by role and session; the allow-list (an operation of that
 * source outside it is refused, one inside it runs); an inherited role whose members see different
 * columns of that source's table (hidden cells null); a tracked function of that source under the
 * function permissions; explain of that source's field.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sqlOn } from '../support/standbyPostgres.js';
import { createTestDatabase, startTestEngine, type TestEngine } from './harness.js';

const SECRET = 'side-secret';
const BY_ID = 'query ($id: Int!) { note_by_pk(id: $id) { id body } }';
const CACHED = 'query @cached(ttl: 30) { note(order_by: {id: asc}) { id body } }';
const NOTES = 'query { note(order_by: {id: asc}) { id body } }';
const MINE = 'query { notes_of(args: {who: 1}, order_by: {id: asc}) { id } }';

let side: { url: string; drop(): Promise<void> };
let e: TestEngine;

before(async () => {
  side = await createTestDatabase('side_apis');
  await sqlOn(side.url, `
    CREATE TABLE note (id int PRIMARY KEY, body text NOT NULL, owner int NOT NULL);
    INSERT INTO note VALUES (1, 'first', 1), (2, 'second', 2), (3, 'third', 1);
    CREATE FUNCTION notes_of(who int) RETURNS SETOF note LANGUAGE sql STABLE AS $$ SELECT * FROM note WHERE owner = who OR who = 0 $$;
  `);
  e = await startTestEngine({ adminSecret: SECRET, enableAllowlist: true });
  for (const step of [
    { type: 'pg_add_source', args: { name: 'side', configuration: { connection_info: { database_url: side.url } } } },
    { type: 'pg_track_table', args: { source: 'side', table: 'note' } },
    { type: 'pg_track_function', args: { source: 'side', function: 'notes_of' } },
    { type: 'pg_create_select_permission', args: { source: 'side', table: 'note', role: 'user', permission: { columns: ['id', 'body'], filter: { owner: { _eq: 'X-Svc-User-Id' } } } } },
    { type: 'pg_create_select_permission', args: { source: 'side', table: 'note', role: 'auditor', permission: { columns: ['id'], filter: {} } } },
    { type: 'add_inherited_role', args: { role_name: 'staff', role_set: ['user', 'auditor'] } },
    { type: 'create_query_collection', args: { name: 'side_ops', definition: { queries: [
      { name: 'by_id', query: BY_ID }, { name: 'cached', query: CACHED }, { name: 'notes', query: NOTES }, { name: 'mine', query: MINE },
    ] } } },
    { type: 'add_collection_to_allowlist', args: { collection: 'side_ops' } },
    { type: 'create_rest_endpoint', args: { name: 'note', url: 'notes/:id', methods: ['GET'], definition: { query: { collection_name: 'side_ops', query_name: 'by_id' } } } },
  ]) {
    const r = await e.request('POST', '/v1/metadata', step);
    assert.equal(r.status, 200, `${step.type}: ${r.text}`);
  }
});

after(async () => {
  await e?.stop();
  await side?.drop();
});

const as = (role: string, userId?: string): Record<string, string> =>
  ({ 'x-svc-admin-secret': SECRET, 'x-svc-role': role, ...(userId ? { 'x-svc-user-id': userId } : {}) });

test('a REST endpoint reads the second source with the caller\'s permissions', async () => {
  const own = await e.request('GET', '/api/rest/notes/1', undefined, as('user', '1'));
  assert.deepEqual([own.status, own.body], [200, { note_by_pk: { id: 1, body: 'first' } }]);
  const other = await e.request('GET', '/api/rest/notes/2', undefined, as('user', '1'));
  assert.deepEqual([other.status, other.body], [200, { note_by_pk: null }]);
  const admin = await e.request('GET', '/api/rest/notes/2', undefined, { 'x-svc-admin-secret': SECRET });
  assert.deepEqual(admin.body, { note_by_pk: { id: 2, body: 'second' } });
});

test('@cached answers of the second source: kept until refresh, keyed by the session the permission reads', async () => {
  const first = await e.graphql(CACHED, undefined, as('user', '1'));
  assert.deepEqual(first.body, { data: { note: [{ id: 1, body: 'first' }, { id: 3, body: 'third' }] } });
  assert.equal(first.headers.get('cache-control'), 'max-age=30');
  await sqlOn(side.url, "UPDATE note SET body = 'changed' WHERE id = 1");
  const again = await e.graphql(CACHED, undefined, as('user', '1'));
  assert.deepEqual(again.body, first.body, 'answered from the cache');
  const otherUser = await e.graphql(CACHED, undefined, as('user', '2'));
  assert.deepEqual(otherUser.body, { data: { note: [{ id: 2, body: 'second' }] } });
  const fresh = await e.graphql(NOTES, undefined, as('user', '1'));
  assert.deepEqual(fresh.body, { data: { note: [{ id: 1, body: 'changed' }, { id: 3, body: 'third' }] } });
  await sqlOn(side.url, "UPDATE note SET body = 'first' WHERE id = 1");
});

test('the allow-list covers operations on the second source', async () => {
  const outside = await e.graphql('query { note { id } }', undefined, as('user', '1'));
  assert.equal(outside.body.errors?.[0]?.extensions?.code, 'validation-failed', outside.text);
  assert.match(outside.body.errors[0].message, /not allowed/);
  const inside = await e.graphql(BY_ID, { id: 3 }, as('user', '1'));
  assert.deepEqual(inside.body, { data: { note_by_pk: { id: 3, body: 'third' } } });
  const admin = await e.graphql('query { note_aggregate { aggregate { count } } }');
  assert.deepEqual(admin.body, { data: { note_aggregate: { aggregate: { count: 3 } } } });
});

test('an inherited role on the second source: the union of rows, each column only where a member grants it', async () => {
  const r = await e.graphql(NOTES, undefined, as('staff', '1'));
  assert.deepEqual(r.body, { data: { note: [{ id: 1, body: 'first' }, { id: 2, body: null }, { id: 3, body: 'third' }] } });
});

test('a function of the second source, under its table\'s permission', async () => {
  const mine = await e.graphql(MINE, undefined, as('user', '1'));
  assert.deepEqual(mine.body, { data: { notes_of: [{ id: 1 }, { id: 3 }] } });
  // Every row the function returns is still filtered by the role's select permission.
  const filtered = await e.graphql(MINE, undefined, as('user', '2'));
  assert.deepEqual(filtered.body, { data: { notes_of: [] } });
});

test('explain of a field of the second source', async () => {
  const r = await e.request('POST', '/v1/graphql/explain', { query: { query: NOTES }, user: { 'x-svc-role': 'user', 'x-svc-user-id': '1' } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.map((p: { field: string }) => p.field), ['note']);
  assert.match(r.body[0].sql, /"note"/);
  assert.ok(Array.isArray(r.body[0].plan) && r.body[0].plan.length > 0, r.text);
});
