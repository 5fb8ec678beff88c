/**
 * Bad input on the other HTTP endpoints: /v1/graphql/explain, /v1alpha1/config, /v1alpha1/pg_dump,
 * unknown paths and wrong methods. Each answers a `{path, error, code}` 4xx (404 `not-found` for
 * an unknown route, DECISIONS 9), never a 500, and the engine keeps serving.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type HttpResult, type TestEngine } from './harness.js';

const USER = { 'x-svc-role': 'user' };

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine({ adminSecret: 'ep-secret', env: { SVC_GRAPHQL_ENABLED_APIS: 'graphql,metadata,config,pgdump' } });
  t.after(() => e.stop());
  await e.runSql('CREATE TABLE author (id serial PRIMARY KEY, name text); INSERT INTO author (name) VALUES (\'a\')');
  assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'author' } })).status, 200);
  assert.equal((await e.query({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: '*', filter: {} } } })).status, 200);
  return e;
}

function assertQueryError(label: string, r: HttpResult, status: number, code: string, path = '$'): void {
  assert.equal(r.status, status, `${label}: ${r.text.slice(0, 300)}`);
  assert.equal(r.body?.code, code, `${label}: ${r.text.slice(0, 300)}`);
  assert.equal(r.body.path, path, label);
  assert.equal(typeof r.body.error, 'string', label);
}

test('/v1/graphql/explain: malformed bodies, bad queries, non-admin callers', async (t) => {
  const e = await setup(t);
  const explain = (body: unknown, headers?: Record<string, string>) => e.request('POST', '/v1/graphql/explain', body, headers);
  const cases: Array<[string, unknown, number, string, string?]> = [
    ['invalid json', '{"query":', 400, 'invalid-json'],
    ['empty body', '', 400, 'invalid-json'],
    ['null', 'null', 400, 'parse-failed'],
    ['no query', {}, 400, 'parse-failed'],
    ['query is a number', { query: 1 }, 400, 'parse-failed'],
    ['query.query missing', { query: {} }, 400, 'parse-failed', '$.query'],
    ['variables not an object', { query: { query: '{ author { id } }', variables: [] } }, 400, 'parse-failed', '$.query.variables'],
    ['user not an object', { query: { query: '{ author { id } }' }, user: 1 }, 400, 'parse-failed', '$.user'],
    ['syntax error', { query: { query: '{ author ' } }, 400, 'validation-failed', '$.query'],
    ['unknown field', { query: { query: '{ nope }' } }, 400, 'validation-failed', '$.selectionSet.nope'],
    ['mutation', { query: { query: 'mutation { delete_author(where: {}) { affected_rows } }' } }, 400, 'invalid-params'],
    ['deep nesting', { query: { query: '{ ' + 'author { '.repeat(3000) + 'id' + ' }'.repeat(3000) + ' }' } }, 400, 'validation-failed'],
  ];
  for (const [label, body, status, code, path] of cases) assertQueryError(label, await explain(body), status, code, path);
  assertQueryError('non-admin', await explain({ query: { query: '{ author { id } }' } }, USER), 400, 'access-denied');
  const ok = await explain({ query: { query: '{ author { id } }' }, user: { 'x-svc-role': 'user' } });
  assert.equal(ok.status, 200);
  assert.equal(ok.body[0].field, 'author');
});

test('/v1alpha1/config: admin only, GET only', async (t) => {
  const e = await setup(t);
  assertQueryError('non-admin', await e.request('GET', '/v1alpha1/config', undefined, USER), 400, 'access-denied');
  assert.equal((await e.request('GET', '/v1alpha1/config', undefined, { 'x-svc-admin-secret': 'wrong' })).status, 401);
  assertQueryError('POST', await e.request('POST', '/v1alpha1/config', {}), 405, 'method-not-allowed');
  const ok = await e.request('GET', '/v1alpha1/config');
  assert.equal(ok.status, 200);
  assert.equal(ok.body.is_admin_secret_set, true);
});

test('/v1alpha1/pg_dump: bodies are checked before pg_dump runs; redirecting options are refused', async (t) => {
  const e = await setup(t);
  const dump = (body: unknown, headers?: Record<string, string>) => e.request('POST', '/v1alpha1/pg_dump', body, headers);
  const cases: Array<[string, unknown, number, string, string?]> = [
    ['invalid json', '{', 400, 'invalid-json'],
    ['null', 'null', 400, 'parse-failed'],
    ['opts missing', {}, 400, 'parse-failed', '$.opts'],
    ['opts a string', { opts: '-O' }, 400, 'parse-failed', '$.opts'],
    ['opts with a number', { opts: ['-O', 1] }, 400, 'parse-failed', '$.opts'],
    ['clean_output a string', { opts: ['-O'], clean_output: 'yes' }, 400, 'parse-failed', '$.clean_output'],
    ['-f redirects the dump', { opts: ['-f', '/tmp/x.sql'] }, 400, 'invalid-params', '$.opts'],
    ['--dbname', { opts: ['--dbname=postgres'] }, 400, 'invalid-params', '$.opts'],
  ];
  for (const [label, body, status, code, path] of cases) assertQueryError(label, await dump(body), status, code, path);
  assertQueryError('non-admin', await dump({ opts: ['-O'] }, USER), 400, 'access-denied');
  assertQueryError('GET', await e.request('GET', '/v1alpha1/pg_dump'), 405, 'method-not-allowed');
});

test('unknown paths are 404 not-found; wrong methods are 405; the engine keeps answering', async (t) => {
  const e = await setup(t);
  const notFound = { path: '$', error: 'resource does not exist', code: 'not-found' };
  for (const [method, path] of [['GET', '/nope'], ['POST', '/v1/nope'], ['POST', '/v3/query'], ['GET', '/v1/query/extra'], ['POST', '/v1/graphql/']]) {
    const r = await e.request(method!, path!, method === 'POST' ? {} : undefined);
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.deepEqual(r.body, notFound, `${method} ${path}`);
  }
  for (const [method, path] of [['GET', '/v1/query'], ['GET', '/v2/query'], ['PUT', '/v1/query'], ['DELETE', '/v1/graphql'], ['GET', '/v1/graphql/explain'], ['PATCH', '/v1alpha1/config']]) {
    assertQueryError(`${method} ${path}`, await e.request(method!, path!), 405, 'method-not-allowed');
  }
  assert.equal((await e.request('GET', '/healthz')).text, 'OK');
  assert.deepEqual((await e.graphql('{ author { id } }')).body, { data: { author: [{ id: 1 }] } });
});
