/**
 * What the `@cached` key holds beyond Hasura's (query, operation name, variables, role, session
 * variables read), through HTTP against real Postgres and a real redis-server: the database (two
 * engines on two databases sharing one Redis never see each other's answers; two on one database
 * share them), the metadata's resource version (after a row filter is narrowed, or an inherited
 * role's set shrinks, the very next request is answered fresh), and the backend-only flag (the
 * backend-only schema's introspection is not served to a request without it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, createTestDatabase, type TestEngine } from './harness.js';
import { startRedis } from '../support/redisServer.js';

const SECRET = 'cache-key-secret';
const Q = 'query @cached(ttl: 300) { doc(order_by: {id: asc}) { id title } }';

async function track(e: TestEngine, rows: string): Promise<void> {
  await e.runSql(`CREATE TABLE IF NOT EXISTS doc (id int PRIMARY KEY, title text, owner int, secret boolean NOT NULL DEFAULT false); INSERT INTO doc VALUES ${rows} ON CONFLICT DO NOTHING;`);
  const r = await e.query({ type: 'bulk', args: [
    { type: 'track_table', args: { schema: 'public', name: 'doc' } },
    { type: 'create_select_permission', args: { table: 'doc', role: 'reader', permission: { columns: ['id', 'title'], filter: {} } } },
  ] });
  assert.equal(r.status, 200, r.text);
}

/** The hit and miss counts of /v1/metrics. */
async function counts(e: TestEngine): Promise<{ hit: number; miss: number }> {
  const text = (await e.request('GET', '/v1/metrics')).text;
  const read = (status: string) => Number(new RegExp(`^svc_cache_request_count\\{status="${status}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { hit: read('hit'), miss: read('miss') };
}

test('one Redis, two databases: never each other\'s answers; two engines on one database share theirs', async (t) => {
  const redis = await startRedis();
  const dbA = await createTestDatabase('ckey_a');
  const dbB = await createTestDatabase('ckey_b');
  const a = await startTestEngine({ adminSecret: SECRET, databaseUrl: dbA.url, redisUrl: redis.url });
  const b = await startTestEngine({ adminSecret: SECRET, databaseUrl: dbB.url, redisUrl: redis.url });
  // A second engine on database A, that catches up with the stored metadata before each request.
  const a2 = await startTestEngine({ adminSecret: SECRET, databaseUrl: dbA.url, redisUrl: redis.url, strictSchemaSync: true });
  t.after(async () => {
    await a.stop();
    await a2.stop();
    await b.stop();
    await dbA.drop();
    await dbB.drop();
    await redis.stop();
  });
  // The same schema and metadata history on both databases (so the same resource version), other rows.
  await track(a, "(1, 'a-one', 1)");
  await track(b, "(1, 'b-one', 1)");
  assert.equal(a.engine.ctx.state.resourceVersion, b.engine.ctx.state.resourceVersion);
  const reader = { 'x-svc-role': 'reader' };
  assert.deepEqual((await a.graphql(Q, undefined, reader)).body, { data: { doc: [{ id: 1, title: 'a-one' }] } });
  assert.deepEqual((await b.graphql(Q, undefined, reader)).body, { data: { doc: [{ id: 1, title: 'b-one' }] } }, 'database B answers from database B');
  assert.deepEqual(await counts(b), { hit: 0, miss: 1 });
  // The same database: a2 gets a's entry (a's rows changed since: the answer is the cached one).
  await a.runSql("UPDATE doc SET title = 'a-uno'");
  const shared = await a2.graphql(Q, undefined, reader);
  assert.deepEqual(shared.body, { data: { doc: [{ id: 1, title: 'a-one' }] } });
  assert.deepEqual(await counts(a2), { hit: 1, miss: 0 });
  // And B's own entry is B's.
  assert.deepEqual((await b.graphql(Q, undefined, reader)).body, { data: { doc: [{ id: 1, title: 'b-one' }] } });
  assert.deepEqual(await counts(b), { hit: 1, miss: 1 });
});

test('after a row filter is narrowed, or an inherited role loses a member, the next request is answered fresh', async (t) => {
  const e = await startTestEngine({ adminSecret: SECRET });
  t.after(() => e.stop());
  await track(e, "(1, 'public', 1), (2, 'hidden', 2)");
  await e.runSql('UPDATE doc SET secret = true WHERE id = 2');
  const r = await e.query({ type: 'bulk', args: [
    { type: 'create_select_permission', args: { table: 'doc', role: 'staff', permission: { columns: ['id', 'title'], filter: { secret: { _eq: true } } } } },
    { type: 'create_select_permission', args: { table: 'doc', role: 'guest', permission: { columns: ['id', 'title'], filter: { secret: { _eq: false } } } } },
    { type: 'add_inherited_role', args: { role_name: 'member', role_set: ['staff', 'guest'] } },
  ] });
  assert.equal(r.status, 200, r.text);
  const both = { data: { doc: [{ id: 1, title: 'public' }, { id: 2, title: 'hidden' }] } };
  const onlyPublic = { data: { doc: [{ id: 1, title: 'public' }] } };

  // A narrowed filter: reader may read only the non-secret rows now.
  assert.deepEqual((await e.graphql(Q, undefined, { 'x-svc-role': 'reader' })).body, both);
  assert.deepEqual((await e.graphql(Q, undefined, { 'x-svc-role': 'reader' })).body, both, 'a hit');
  const narrowed = await e.query({ type: 'bulk', args: [
    { type: 'drop_select_permission', args: { table: 'doc', role: 'reader' } },
    { type: 'create_select_permission', args: { table: 'doc', role: 'reader', permission: { columns: ['id', 'title'], filter: { secret: { _eq: false } } } } },
  ] });
  assert.equal(narrowed.status, 200, narrowed.text);
  assert.deepEqual((await e.graphql(Q, undefined, { 'x-svc-role': 'reader' })).body, onlyPublic, 'the narrowed filter applies at once');

  // An inherited role whose set shrinks.
  assert.deepEqual((await e.graphql(Q, undefined, { 'x-svc-role': 'member' })).body, both);
  assert.deepEqual((await e.graphql(Q, undefined, { 'x-svc-role': 'member' })).body, both, 'a hit');
  const shrunk = await e.query({ type: 'add_inherited_role', args: { role_name: 'member', role_set: ['guest'] } });
  assert.equal(shrunk.status, 200, shrunk.text);
  assert.deepEqual((await e.graphql(Q, undefined, { 'x-svc-role': 'member' })).body, onlyPublic, 'the smaller role set applies at once');
  assert.deepEqual(await counts(e), { hit: 2, miss: 4 });
});

test('the backend-only flag is part of the key: the backend-only schema is not served without it', async (t) => {
  const e = await startTestEngine({ adminSecret: SECRET });
  t.after(() => e.stop());
  await track(e, "(1, 'one', 1)");
  const r = await e.query({ type: 'create_insert_permission', args: { table: 'doc', role: 'reader', permission: { check: {}, columns: ['id', 'title'], backend_only: true } } });
  assert.equal(r.status, 200, r.text);
  const intro = 'query @cached(ttl: 300) { __schema { mutationType { fields { name } } } }';
  const names = (body: any): string[] => (body.data.__schema.mutationType?.fields ?? []).map((f: { name: string }) => f.name).sort();
  const backend = await e.graphql(intro, undefined, { 'x-svc-role': 'reader', 'x-svc-use-backend-only-permissions': 'true' });
  assert.deepEqual(names(backend.body), ['insert_doc', 'insert_doc_one']);
  const plain = await e.graphql(intro, undefined, { 'x-svc-role': 'reader' });
  assert.deepEqual(names(plain.body), [], 'the same role and text without the flag: its own answer');
  assert.deepEqual(await counts(e), { hit: 0, miss: 2 });
});
