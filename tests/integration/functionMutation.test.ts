/**
 * Hasura v2's `exposed_as: "mutation"` for tracked functions: a VOLATILE SQL function (refused as a
 * query, as Hasura v1.3 does) becomes a `mutation_root` field with the select arguments, runs in the
 * mutation's transaction with the session variables (its writes kept, or rolled back with a failing
 * field beside it), answers the returned rows as the role may see them, and is exported with its
 * configuration. A function exposed as a mutation is not a query field, and reaches a non-admin role
 * only through a function permission (functionPermissions.test.ts covers those).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
const user = { 'x-svc-role': 'user', 'x-svc-user-id': '7' };

before(async () => {
  e = await startTestEngine();
  await e.runSql(`CREATE TABLE counter (id int PRIMARY KEY, hits int NOT NULL, last_user text, hidden text DEFAULT 'h');
    INSERT INTO counter VALUES (1, 0, NULL), (2, 0, NULL);
    CREATE FUNCTION bump(counter_id int, hasura_session json) RETURNS SETOF counter LANGUAGE sql VOLATILE AS $$
      UPDATE counter SET hits = hits + 1, last_user = hasura_session->>'x-svc-user-id' WHERE id = counter_id RETURNING * $$;`);
  for (const q of [{ type: 'track_table', args: { schema: 'public', name: 'counter' } },
    { type: 'create_select_permission', args: { table: 'counter', role: 'user', permission: { columns: ['id', 'hits', 'last_user'], filter: {} } } },
    { type: 'create_update_permission', args: { table: 'counter', role: 'user', permission: { columns: ['hits'], filter: {}, check: { hits: { _lt: 100 } } } } }]) {
    assert.equal((await e.query(q)).status, 200);
  }
});
after(() => e?.stop());

test('a VOLATILE function is refused as a query and accepted as a mutation', async () => {
  const asQuery = await e.query({ type: 'track_function', version: 2, args: { function: { schema: 'public', name: 'bump' }, configuration: { session_argument: 'hasura_session' } } });
  assert.equal(asQuery.status, 400, asQuery.text);
  assert.match(asQuery.body.error, /VOLATILE/);
  const bad = await e.query({ type: 'track_function', version: 2, args: { function: 'bump', configuration: { exposed_as: 'both' } } });
  assert.equal(bad.status, 400, bad.text);
  const ok = await e.query({ type: 'track_function', version: 2, args: { function: { schema: 'public', name: 'bump' }, configuration: { session_argument: 'hasura_session', exposed_as: 'mutation' } } });
  assert.equal(ok.status, 200, ok.text);
  // Not inferred from the select permission: `user` needs a function permission for it.
  const before = await e.graphql('mutation { bump(args: {counter_id: 1}) { id } }', undefined, user);
  assert.equal(before.body.errors?.[0]?.extensions?.code, 'validation-failed', before.text);
  const granted = await e.request('POST', '/v1/metadata', { type: 'pg_create_function_permission', args: { source: 'default', function: 'bump', role: 'user' } });
  assert.equal(granted.status, 200, granted.text);
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.deepEqual(md.functions, [{ function: { schema: 'public', name: 'bump' }, configuration: { session_argument: 'hasura_session', exposed_as: 'mutation' }, permissions: [{ role: 'user' }] }]);
});

test('the mutation field runs the function with the session, answers what the role may see; not a query field', async () => {
  const r = await e.graphql('mutation { bump(args: {counter_id: 1}) { id hits last_user } }', undefined, user);
  assert.deepEqual(r.body, { data: { bump: [{ id: 1, hits: 1, last_user: '7' }] } });
  const hidden = await e.graphql('mutation { bump(args: {counter_id: 1}) { hidden } }', undefined, user);
  assert.equal(hidden.body.errors?.[0]?.extensions?.code, 'validation-failed');
  const asQuery = await e.graphql('query { bump(args: {counter_id: 1}) { id } }', undefined, user);
  assert.equal(asQuery.body.errors?.[0]?.extensions?.code, 'validation-failed');
  const rows = await e.runSql('SELECT hits FROM counter WHERE id = 1');
  assert.deepEqual(rows.result, [['hits'], ['1']], 'the failed requests ran nothing');
});

test('it shares the transaction of the other mutation fields: a failing one rolls its writes back', async () => {
  const r = await e.graphql(`mutation {
    b: bump(args: {counter_id: 2}) { hits }
    u: update_counter(where: {id: {_eq: 2}}, _set: {hits: 500}) { affected_rows }
  }`, undefined, user);
  assert.equal(r.body.errors?.[0]?.extensions?.code, 'permission-error', r.text);
  assert.deepEqual((await e.runSql('SELECT hits FROM counter WHERE id = 2')).result, [['hits'], ['0']]);
  const both = await e.graphql('mutation { b: bump(args: {counter_id: 2}) { hits } u: update_counter(where: {id: {_eq: 2}}, _inc: {hits: 10}) { returning { hits } } }', undefined, user);
  assert.deepEqual(both.body, { data: { b: [{ hits: 1 }], u: { returning: [{ hits: 11 }] } } });
});
