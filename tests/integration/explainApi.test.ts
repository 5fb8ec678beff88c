/**
 * POST /v1/graphql/explain against a real engine: per-root-field plans from Postgres, the role's
 * permissions applied, subscriptions, EXPLAIN ANALYZE, admin only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine } from './harness.js';
import type { TestEngine } from './harness.js';
import { rawRequest } from '../support/rawRequest.js';

async function seed(e: TestEngine): Promise<void> {
  await e.runSql(`CREATE TABLE "user" (id serial PRIMARY KEY, name text NOT NULL, age int);
    INSERT INTO "user" (name, age) VALUES ('ann', 30), ('bob', 40), ('cid', 50);`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'user' } },
      { type: 'create_select_permission', args: { table: 'user', role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
}

const explain = (e: TestEngine, body: unknown, headers?: Record<string, string>) => e.request('POST', '/v1/graphql/explain', body, headers);

function assertPlan(p: any): void {
  assert.equal(typeof p.sql, 'string');
  assert.ok(Array.isArray(p.plan) && p.plan.length > 0 && p.plan.every((l: unknown) => typeof l === 'string'), JSON.stringify(p));
}

test('explain API', async (t) => {
  const e = await startTestEngine({ adminSecret: 'adm' });
  t.after(() => e.stop());
  await seed(e);

  await t.test('a query: one {field, sql, plan} per root field, named by alias', async () => {
    const r = await explain(e, { query: { query: '{ people: user(order_by: {id: asc}) { id name } __typename n: user_aggregate { aggregate { count } } }' } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.map((p: any) => p.field), ['people', '__typename', 'n']);
    assertPlan(r.body[0]);
    assertPlan(r.body[2]);
    assert.match(r.body[0].plan.join('\n'), /Scan .*on "user"/);
    assert.deepEqual(r.body[1], { field: '__typename', sql: null, plan: null });
  });

  await t.test('the query may be the GraphQL text itself; operationName and variables are honoured', async () => {
    const r = await explain(e, { query: 'query { user { id } }' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body[0].field, 'user');
    const v = await explain(e, { query: { query: 'query A { a: user { id } } query B($id: Int!) { b: user_by_pk(id: $id) { name } }', operationName: 'B', variables: { id: 2 } } });
    assert.equal(v.status, 200, v.text);
    assert.equal(v.body[0].field, 'b');
    assert.match(v.body[0].plan.join('\n'), /Index Scan using user_pkey/);
  });

  await t.test("the user's role and session variables: plans under that role's permissions", async () => {
    const r = await explain(e, { query: { query: '{ user { id name } }' }, user: { 'X-Svc-Role': 'user', 'X-Svc-User-Id': '2' } });
    assert.equal(r.status, 200, r.text);
    const [p] = r.body;
    assert.match(p.plan.join('\n'), /Index Cond: \(id = 2\)/);
    // The SQL shown is the statement /v1/graphql runs for that role, values inlined: running it gives the same rows.
    const viaSql = await e.runSql(p.sql);
    const viaGraphql = await e.graphql('{ user { id name } }', undefined, { 'x-svc-role': 'user', 'x-svc-user-id': '2' });
    assert.deepEqual(JSON.parse(viaSql.result[1][0]), viaGraphql.body.data.user);
    assert.deepEqual(viaGraphql.body.data.user, [{ id: 2, name: 'bob' }]);
    // The role's schema applies: `age` is not selectable for user.
    const denied = await explain(e, { query: { query: '{ user { age } }' }, user: { 'x-svc-role': 'user', 'x-svc-user-id': '1' } });
    assert.equal(denied.status, 400);
    assert.equal(denied.body.code, 'validation-failed');
    const missing = await explain(e, { query: { query: '{ user { id } }' }, user: { 'x-svc-role': 'user' } });
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /x-svc-user-id/);
  });

  await t.test('a subscription gives one {sql, plan}', async () => {
    const r = await explain(e, { query: { query: 'subscription getUsers { user { name } }', operationName: 'getUsers' } });
    assert.equal(r.status, 200, r.text);
    assert.ok(!Array.isArray(r.body));
    assert.deepEqual(Object.keys(r.body).sort(), ['plan', 'sql']);
    assertPlan(r.body);
  });

  await t.test('"analyze": true gives real timings per root field', async () => {
    const r = await explain(e, { query: { query: '{ a: user { id } b: user_by_pk(id: 1) { id } }' }, analyze: true });
    assert.equal(r.status, 200, r.text);
    for (const p of r.body) {
      const plan = p.plan.join('\n');
      assert.match(plan, /actual time=/);
      assert.match(plan, /Execution Time: [\d.]+ ms/);
    }
    const plain = await explain(e, { query: { query: '{ user { id } }' } });
    assert.doesNotMatch(plain.body[0].plan.join('\n'), /actual time=/);
  });

  await t.test('mutations are refused; bad bodies are 400', async () => {
    const m = await explain(e, { query: { query: 'mutation { delete_user(where: {}) { affected_rows } }' } });
    assert.equal(m.status, 400, m.text);
    assert.deepEqual(m.body, { path: '$', error: 'only queries can be explained', code: 'invalid-params' });
    assert.equal((await e.graphql('{ user_aggregate { aggregate { count } } }')).body.data.user_aggregate.aggregate.count, 3);
    const bad = await explain(e, { nothing: 1 });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'parse-failed');
    const invalid = await explain(e, '{not json');
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.code, 'invalid-json');
  });

  await t.test('admin only', async () => {
    const user = await explain(e, { query: { query: '{ user { id } }' } }, { 'x-svc-role': 'user' });
    assert.equal(user.status, 400);
    assert.deepEqual(user.body, { path: '$', error: 'you have to be admin to access this endpoint', code: 'access-denied' });
    const anon = await rawRequest(e.url, 'POST', '/v1/graphql/explain', { query: { query: '{ user { id } }' } });
    assert.equal(anon.status, 401);
    assert.equal(anon.body.code, 'access-denied');
  });
});
