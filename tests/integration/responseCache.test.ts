/**
 * `@cached` query responses (Hasura v2's response caching), through HTTP against real Postgres and
 * a real Redis (Debian's redis-server on a free port): a cached answer outlives a change to its
 * rows until its ttl or a `@cached(refresh: true)`; `Cache-Control: max-age=<seconds left>`; the key
 * holds the role, the session variables the permissions read (not the others), the variables and
 * the operation name; hits and misses in /v1/metrics; mutations and subscriptions refused; the
 * in-memory store bounded in bytes; Redis shared by two engines, and a stopped Redis making
 * requests run uncached, never fail.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, createTestDatabase, type TestEngine, type TestEngineOptions } from './harness.js';
import { startRedis } from '../support/redisServer.js';

const SECRET = 'cache-secret';
const BY_PK = 'query ($id: Int!) @cached(ttl: 30) { a_by_pk(id: $id) { id name } }';

async function setup(t: { after: (fn: () => Promise<void>) => void }, opts: TestEngineOptions = {}): Promise<TestEngine> {
  const e = await startTestEngine({ adminSecret: SECRET, ...opts });
  t.after(() => e.stop());
  await prepare(e);
  return e;
}

async function prepare(e: TestEngine): Promise<void> {
  await e.runSql("CREATE TABLE IF NOT EXISTS a (id int PRIMARY KEY, name text, owner int); INSERT INTO a VALUES (1, 'one', 1), (2, 'two', 2) ON CONFLICT DO NOTHING;");
  for (const s of [
    { type: 'track_table', args: { schema: 'public', name: 'a' } },
    { type: 'create_select_permission', args: { table: 'a', role: 'user', permission: { columns: ['id', 'name'], filter: { owner: { _eq: 'X-Svc-User-Id' } } } } },
    { type: 'create_select_permission', args: { table: 'a', role: 'reader', permission: { columns: ['id', 'name'], filter: {} } } },
  ]) assert.equal((await e.query(s)).status, 200, JSON.stringify(s));
}

const rename = (e: TestEngine, id: number, name: string) => e.runSql(`UPDATE a SET name = '${name}' WHERE id = ${id}`);

/** The hit and miss counts of /v1/metrics. */
async function counts(e: TestEngine): Promise<{ hit: number; miss: number }> {
  const text = (await e.request('GET', '/v1/metrics')).text;
  const read = (status: string) => Number(new RegExp(`^svc_cache_request_count\\{status="${status}"\\} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { hit: read('hit'), miss: read('miss') };
}

test('@cached: a hit keeps the stored answer until refresh; Cache-Control; hits and misses in /v1/metrics', async (t) => {
  const e = await setup(t);
  const first = await e.graphql(BY_PK, { id: 1 });
  assert.deepEqual(first.body, { data: { a_by_pk: { id: 1, name: 'one' } } });
  assert.equal(first.headers.get('cache-control'), 'max-age=30');
  await rename(e, 1, 'uno');
  const second = await e.graphql(BY_PK, { id: 1 });
  assert.deepEqual(second.body, { data: { a_by_pk: { id: 1, name: 'one' } } }, 'answered from the cache');
  assert.match(second.headers.get('cache-control') ?? '', /^max-age=(30|29|28)$/);
  assert.deepEqual(await counts(e), { hit: 1, miss: 1 });
  // The same query without @cached reads the database, and sends no Cache-Control.
  const plain = await e.graphql('query ($id: Int!) { a_by_pk(id: $id) { id name } }', { id: 1 });
  assert.deepEqual(plain.body, { data: { a_by_pk: { id: 1, name: 'uno' } } });
  assert.equal(plain.headers.get('cache-control'), null);
  // refresh: true runs the query and replaces the entry.
  const refreshed = await e.graphql('query ($id: Int!) @cached(ttl: 30, refresh: true) { a_by_pk(id: $id) { id name } }', { id: 1 });
  assert.deepEqual(refreshed.body, { data: { a_by_pk: { id: 1, name: 'uno' } } });
  assert.equal(refreshed.headers.get('cache-control'), 'max-age=30');
  // Other variables: another entry.
  assert.deepEqual((await e.graphql(BY_PK, { id: 2 })).body, { data: { a_by_pk: { id: 2, name: 'two' } } });
  assert.deepEqual(await counts(e), { hit: 1, miss: 3 });
  // The default ttl is 60 s.
  const dflt = await e.graphql('query @cached { a_by_pk(id: 2) { name } }');
  assert.equal(dflt.headers.get('cache-control'), 'max-age=60');
  // GET requests (GraphQL over HTTP) are cached the same way.
  const get = await e.request('GET', `/v1/graphql?query=${encodeURIComponent('query @cached(ttl: 7) { a_by_pk(id: 2) { name } }')}`);
  assert.deepEqual([get.body, get.headers.get('cache-control')], [{ data: { a_by_pk: { name: 'two' } } }, 'max-age=7']);
});

test('@cached keys: the session variables the permissions read, the role, the operation name', async (t) => {
  const e = await setup(t);
  const q = 'query @cached(ttl: 30) { a(order_by: {id: asc}) { id name } }';
  const user = (id: string, extra: Record<string, string> = {}) => ({ 'x-svc-role': 'user', 'x-svc-user-id': id, ...extra });
  assert.deepEqual((await e.graphql(q, undefined, user('1'))).body, { data: { a: [{ id: 1, name: 'one' }] } });
  assert.deepEqual((await e.graphql(q, undefined, user('2'))).body, { data: { a: [{ id: 2, name: 'two' }] } });
  await rename(e, 1, 'uno');
  // A session variable the permission does not read is not part of the key: a hit.
  assert.deepEqual((await e.graphql(q, undefined, user('1', { 'x-svc-team': 'z' }))).body, { data: { a: [{ id: 1, name: 'one' }] } });
  assert.deepEqual(await counts(e), { hit: 1, miss: 2 });
  // Another role: its own entry (and its own rows).
  assert.deepEqual((await e.graphql(q, undefined, { 'x-svc-role': 'reader' })).body, { data: { a: [{ id: 1, name: 'uno' }, { id: 2, name: 'two' }] } });
  // Another operation name: its own entry.
  const named = await e.request('POST', '/v1/graphql', { query: 'query A @cached(ttl: 30) { a(order_by: {id: asc}) { id name } } query B { a { id } }', operationName: 'A' }, user('1'));
  assert.deepEqual(named.body, { data: { a: [{ id: 1, name: 'uno' }] } });
  assert.deepEqual(await counts(e), { hit: 1, miss: 4 });
  // Errors are not cached.
  const missing = await e.graphql(q, undefined, { 'x-svc-role': 'user' });
  assert.equal(missing.body.errors[0].message, '"x-svc-user-id" header is expected but not found');
  assert.equal(missing.headers.get('cache-control'), null);
});

test('@cached refused on mutations and subscriptions, a ttl above the maximum refused, variables as arguments', async (t) => {
  const e = await setup(t, { cacheMaxEntryTtl: 100 });
  const err = async (q: string, v?: Record<string, unknown>) => (await e.graphql(q, v)).body.errors?.[0];
  assert.deepEqual(await err('mutation @cached { delete_a(where: {}) { affected_rows } }'), {
    extensions: { path: '$.directives.cached', code: 'validation-failed' }, message: 'directive "cached" is not allowed on a mutation',
  });
  assert.equal((await e.graphql('{ a { id } }')).body.data.a.length, 2, 'the refused mutation ran nothing');
  assert.equal((await err('subscription @cached { a { id } }')).message, 'directive "cached" is not allowed on a subscription');
  assert.deepEqual(await err('query @cached(ttl: 101) { a { id } }'), {
    extensions: { path: '$.directives.cached.args.ttl', code: 'validation-failed' },
    message: 'the ttl of @cached is 101 seconds, more than the maximum of 100 (--cache-max-entry-ttl)',
  });
  assert.equal((await err('query @cached(ttl: 0) { a { id } }')).message, 'the ttl of @cached must be a positive number of seconds');
  assert.equal((await err('query @cached(ttl: "x") { a { id } }')).message, 'expected an Int for this argument');
  const viaVar = await e.graphql('query ($t: Int!) @cached(ttl: $t) { a { id } }', { t: 9 });
  assert.equal(viaVar.headers.get('cache-control'), 'max-age=9');
  // The directive is in the schema (introspection).
  const intro = await e.graphql('{ __schema { directives { name locations args { name defaultValue } } } }');
  assert.deepEqual(intro.body.data.__schema.directives.find((d: { name: string }) => d.name === 'cached'), {
    name: 'cached', locations: ['QUERY'], args: [{ name: 'ttl', defaultValue: '60' }, { name: 'refresh', defaultValue: 'false' }],
  });
});

test('the in-memory store is bounded in bytes: the least recently used answer goes first', async (t) => {
  const e = await setup(t, { cacheMemorySize: 600 });
  const q = (id: number) => e.graphql(`query @cached(ttl: 30) { a_by_pk(id: ${id}) { id name } }`);
  await q(1);
  await q(2); // two entries of ~250 bytes each fit in 600
  await q(1); // hit: 1 is now the most recent
  await rename(e, 2, 'dos');
  await e.graphql('query @cached(ttl: 30) { a { id } }'); // a third entry pushes out the least recent (2)
  assert.deepEqual((await q(2)).body, { data: { a_by_pk: { id: 2, name: 'dos' } } }, 'evicted: read again');
  assert.deepEqual(await counts(e), { hit: 1, miss: 4 });
});

test('Redis: two engines share the cache; a stopped Redis makes requests run uncached, never fail', async (t) => {
  const redis = await startRedis();
  t.after(() => redis.stop());
  const db = await createTestDatabase('cache');
  const a = await startTestEngine({ adminSecret: SECRET, databaseUrl: db.url, redisUrl: redis.url, schemaSyncIntervalMs: 100 });
  // b catches up with the stored metadata before each request: the key holds the metadata's version.
  const b = await startTestEngine({ adminSecret: SECRET, databaseUrl: db.url, redisUrl: redis.url, schemaSyncIntervalMs: 100, strictSchemaSync: true });
  t.after(async () => {
    await a.stop();
    await b.stop();
    await db.drop();
  });
  await prepare(a);
  const first = await a.graphql(BY_PK, { id: 1 });
  assert.deepEqual([first.body, first.headers.get('cache-control')], [{ data: { a_by_pk: { id: 1, name: 'one' } } }, 'max-age=30']);
  await rename(a, 1, 'uno');
  // Engine b has never run the query: its answer comes from Redis, with the time left.
  const fromB = await b.graphql(BY_PK, { id: 1 });
  assert.deepEqual(fromB.body, { data: { a_by_pk: { id: 1, name: 'one' } } });
  assert.match(fromB.headers.get('cache-control') ?? '', /^max-age=(30|29|28)$/);
  assert.equal((await counts(b)).hit, 1);
  await redis.stop();
  const down = await a.graphql(BY_PK, { id: 1 });
  assert.deepEqual([down.status, down.body], [200, { data: { a_by_pk: { id: 1, name: 'uno' } } }]);
});

test('an unreachable Redis at start: the engine does not start, and says why', async () => {
  const redis = await startRedis();
  await redis.stop();
  await assert.rejects(startTestEngine({ redisUrl: redis.url }), /cannot connect to the Redis response cache \(--redis-url\)/);
});
