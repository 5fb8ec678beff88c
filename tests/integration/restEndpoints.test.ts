/**
 * REST endpoints (Hasura v2's RESTified endpoints) through HTTP against real Postgres:
 * `create_rest_endpoint` / `drop_rest_endpoint` with Hasura's errors (nothing changed by a refused
 * call), `rest_endpoints` in export / replace (v1 and v2 shapes) and dependencies on the query
 * collections; `/api/rest/<url>` with URL, query-string and JSON-body variables typed by the
 * query's declarations, the caller's session and permissions, 404 / 405 / 400 in Hasura's error
 * shape, mutations, `@cached` endpoints; the OpenAPI 3 document at /api/swagger/json checked by an
 * OpenAPI validator (@seriousme/openapi-schema-validator).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestEngine, type TestEngine } from './harness.js';

const SECRET = 'rest-secret';
const QUERIES = [
  { name: 'all', query: 'query { author(order_by: {id: asc}) { id name } }' },
  { name: 'by_id', query: 'query ($id: Int!) { author_by_pk(id: $id) { id name active } }' },
  { name: 'by_name', query: 'query ($name: String!, $active: Boolean) { author(where: {name: {_eq: $name}, active: {_eq: $active}}) { id } }' },
  { name: 'mine', query: 'query { author { id name } }' },
  { name: 'add', query: 'mutation ($name: String!) { insert_author_one(object: {name: $name}) { id name } }' },
  { name: 'by_ids', query: 'query ($ids: [Int!]!) { author(where: {id: {_in: $ids}}, order_by: {id: asc}) { id } }' },
  { name: 'cached', query: 'query @cached(ttl: 20) { author_aggregate { aggregate { count } } }' },
  { name: 'watch', query: 'subscription { author { id } }' },
  { name: 'two', query: 'query A { author { id } } query B { author { name } }' },
  { name: 'bad', query: '{ author { nope } }' },
];

const endpoint = (name: string, url: string, methods: string[], query = name) =>
  ({ type: 'create_rest_endpoint', args: { name, url, methods, definition: { query: { collection_name: 'c', query_name: query } } } });

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine({ adminSecret: SECRET });
  t.after(() => e.stop());
  await e.runSql(`CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, active boolean DEFAULT true, owner int);
    INSERT INTO author (name, owner) VALUES ('ann', 1), ('bob', 2), ('x y', 1);`);
  for (const s of [
    { type: 'track_table', args: { schema: 'public', name: 'author' } },
    { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: { owner: { _eq: 'X-Svc-User-Id' } } } } },
    { type: 'create_query_collection', args: { name: 'c', definition: { queries: QUERIES } } },
    endpoint('all', 'authors', ['GET']),
    endpoint('by_id', 'authors/:id', ['GET', 'POST']),
    endpoint('by_name', 'by_name', ['GET', 'POST']),
    endpoint('mine', 'mine', ['GET']),
    endpoint('add', 'authors', ['POST', 'PUT']),
    endpoint('cached', 'count', ['GET']),
    endpoint('by_ids', 'by_ids', ['GET', 'POST']),
  ]) assert.equal((await e.query(s)).status, 200, JSON.stringify(s));
  return e;
}

test('GET / POST / PUT at URL templates: variables from the path, the query string and the body, typed by the query', async (t) => {
  const e = await setup(t);
  assert.deepEqual((await e.request('GET', '/api/rest/authors')).body, { author: [{ id: 1, name: 'ann' }, { id: 2, name: 'bob' }, { id: 3, name: 'x y' }] });
  const one = await e.request('GET', '/api/rest/authors/2');
  assert.deepEqual([one.status, one.body], [200, { author_by_pk: { id: 2, name: 'bob', active: true } }]);
  assert.match(one.headers.get('content-type') ?? '', /application\/json/);
  // POST with the path variable and an empty body.
  assert.deepEqual((await e.request('POST', '/api/rest/authors/1')).body, { author_by_pk: { id: 1, name: 'ann', active: true } });
  // Query string (URL-encoded), a bare Boolean key meaning true, booleans as JSON.
  assert.deepEqual((await e.request('GET', '/api/rest/by_name?name=x%20y')).body, { author: [{ id: 3 }] });
  assert.deepEqual((await e.request('GET', '/api/rest/by_name?name=ann&active')).body, { author: [{ id: 1 }] });
  assert.deepEqual((await e.request('GET', '/api/rest/by_name?name=ann&active=false')).body, { author: [] });
  // JSON body members, taken as JSON.
  assert.deepEqual((await e.request('POST', '/api/rest/by_name', { name: 'bob', active: true })).body, { author: [{ id: 2 }] });
  // A list variable from the body.
  assert.deepEqual((await e.request('POST', '/api/rest/by_ids', { ids: [1, 3] })).body, { author: [{ id: 1 }, { id: 3 }] });
  // A mutation; PUT too.
  const added = await e.request('POST', '/api/rest/authors', { name: 'cy' });
  assert.deepEqual([added.status, added.body], [200, { insert_author_one: { id: 4, name: 'cy' } }]);
  assert.equal((await e.request('PUT', '/api/rest/authors', { name: 'dee' })).body.insert_author_one.name, 'dee');
});

test('errors in Hasura shape: 404, 405 with Allow, bad and unexpected variables, validation, a failed mutation leaves no row', async (t) => {
  const e = await setup(t);
  assert.deepEqual(await pick(e.request('GET', '/api/rest/void')), [404, { path: '$', error: 'Endpoint not found', code: 'not-found' }]);
  assert.deepEqual(await pick(e.request('GET', '/api/rest/authors/1/x')), [404, { path: '$', error: 'Endpoint not found', code: 'not-found' }]);
  const wrong = await e.request('DELETE', '/api/rest/authors');
  assert.deepEqual([wrong.status, wrong.body, wrong.headers.get('allow')], [405, { path: '$', error: 'Allowed methods: GET, POST, PUT', code: 'method-not-allowed' }, 'GET, POST, PUT']);
  assert.deepEqual(await pick(e.request('GET', '/api/rest/authors/1?extra=1')), [400, { path: '$', error: 'Unexpected variable extra', code: 'bad-request' }]);
  const notInt = await e.request('GET', '/api/rest/authors/abc');
  assert.equal(notInt.status, 400);
  assert.equal(notInt.body.code, 'validation-failed');
  const missing = await e.request('GET', '/api/rest/by_name');
  assert.deepEqual([missing.status, missing.body.code], [400, 'validation-failed']);
  assert.match(missing.body.error, /name/);
  assert.deepEqual(await pick(e.request('POST', '/api/rest/by_name', '[1]')), [400, { path: '$', error: 'the request body must be a JSON object of variables', code: 'bad-request' }]);
  assert.deepEqual(await pick(e.request('POST', '/api/rest/by_name', '{"name":')), [400, { path: '$', error: 'invalid json', code: 'invalid-json' }]);
  const list = await e.request('GET', '/api/rest/by_ids?ids=1');
  assert.deepEqual([list.status, list.body.code], [400, 'bad-request']);
  assert.match(list.body.error, /^List variables are not currently supported in URL or Query parameters/);
  // A mutation that fails in Postgres (name NOT NULL) answers 400 and leaves no row.
  const bad = await e.request('POST', '/api/rest/authors', { name: null });
  assert.equal(bad.status, 400);
  assert.equal((await e.graphql('{ author_aggregate { aggregate { count } } }')).body.data.author_aggregate.aggregate.count, 3);
});

test('the session and permissions of GraphQL: roles, session variables, JWT-less unauthorized callers refused', async (t) => {
  const e = await setup(t);
  const user = (id: string) => ({ 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user', 'x-svc-user-id': id });
  assert.deepEqual((await e.request('GET', '/api/rest/mine', undefined, user('1'))).body, { author: [{ id: 1, name: 'ann' }, { id: 3, name: 'x y' }] });
  assert.deepEqual((await e.request('GET', '/api/rest/mine', undefined, user('2'))).body, { author: [{ id: 2, name: 'bob' }] });
  // A field the role may not see: Hasura's validation error, 400.
  const hidden = await e.request('GET', '/api/rest/authors/1', undefined, user('1'));
  assert.deepEqual([hidden.status, hidden.body.code], [400, 'validation-failed']);
  // A missing session variable.
  const noId = await e.request('GET', '/api/rest/mine', undefined, { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user' });
  assert.deepEqual([noId.status, noId.body.error], [400, '"x-svc-user-id" header is expected but not found']);
  // A wrong admin secret: 401, as on /v1/graphql.
  const denied = await e.request('GET', '/api/rest/authors', undefined, { 'x-svc-admin-secret': 'nope' });
  assert.deepEqual([denied.status, denied.body.code], [401, 'access-denied']);
});

test('a caller who is refused learns nothing of the endpoints: the same auth error on every path and method', async (t) => {
  const e = await setup(t);
  const KEY = 'a-rest-hs256-key-of-at-least-32-characters';
  const j = await startTestEngine({ adminSecret: SECRET, jwtSecret: { type: 'HS256', key: KEY } });
  t.after(() => j.stop());
  // An endpoint that exists (GET), the same with a method it does not serve, and no endpoint at all.
  const probes: Array<[string, string]> = [['GET', '/api/rest/authors'], ['DELETE', '/api/rest/authors'], ['PATCH', '/api/rest/authors/1'], ['GET', '/api/rest/void/x'], ['POST', '/api/rest/nothing']];
  const raw = async (url: string, method: string, path: string, headers: Record<string, string>) => {
    const r = await fetch(url + path, { method, headers });
    return { status: r.status, allow: r.headers.get('allow'), body: await r.json() };
  };
  const cases: Array<[string, string, Record<string, string>, { status: number; allow: null; body: unknown }]> = [
    ['wrong admin secret', e.url, { 'x-svc-admin-secret': 'nope' }, { status: 401, allow: null, body: { path: '$', error: 'invalid x-svc-admin-secret/x-svc-access-key', code: 'access-denied' } }],
    ['no credentials', e.url, {}, { status: 401, allow: null, body: { path: '$', error: 'x-svc-admin-secret/x-svc-access-key required, but not found', code: 'access-denied' } }],
    ['a token signed with another key', j.url, { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl' }, { status: 400, allow: null, body: { path: '$', error: 'Could not verify JWT: JWSError JWSInvalidSignature', code: 'invalid-jwt' } }],
    ['wrong admin secret (JWT engine)', j.url, { 'x-svc-admin-secret': 'nope' }, { status: 401, allow: null, body: { path: '$', error: 'invalid x-svc-admin-secret/x-svc-access-key', code: 'access-denied' } }],
  ];
  for (const [what, url, headers, expected] of cases) {
    for (const [method, path] of probes) assert.deepEqual(await raw(url, method, path, headers), expected, `${what}: ${method} ${path}`);
  }
  // An authenticated caller learns what exists.
  assert.deepEqual((await raw(e.url, 'DELETE', '/api/rest/authors', { 'x-svc-admin-secret': SECRET })).allow, 'GET, POST, PUT');
  assert.equal((await raw(e.url, 'GET', '/api/rest/void/x', { 'x-svc-admin-secret': SECRET })).status, 404);
});

test('@cached endpoints answer from the cache with Cache-Control', async (t) => {
  const e = await setup(t);
  const first = await e.request('GET', '/api/rest/count');
  assert.deepEqual([first.body, first.headers.get('cache-control')], [{ author_aggregate: { aggregate: { count: 3 } } }, 'max-age=20']);
  await e.runSql("INSERT INTO author (name) VALUES ('new')");
  const second = await e.request('GET', '/api/rest/count');
  assert.deepEqual(second.body, { author_aggregate: { aggregate: { count: 3 } } });
  assert.match(second.headers.get('cache-control') ?? '', /^max-age=(20|19|18)$/);
});

test('create / drop: Hasura errors, nothing changed by a refused call; export, replace, collection dependencies', async (t) => {
  const e = await setup(t);
  const before = JSON.stringify((await e.query({ type: 'export_metadata', args: {} })).body);
  const refuse = async (body: unknown, status: number, expected: Record<string, unknown>) => {
    const r = await e.query(body);
    assert.equal(r.status, status, r.text);
    for (const [k, v] of Object.entries(expected)) assert.deepEqual(r.body[k], v, `${k}: ${r.text}`);
    assert.equal(JSON.stringify((await e.query({ type: 'export_metadata', args: {} })).body), before, 'metadata unchanged');
  };
  await refuse(endpoint('all', 'other', ['GET']), 400, { code: 'already-exists', error: 'Endpoint with name: all already exists' });
  await refuse(endpoint('x', 'foo//bar', ['GET'], 'all'), 400, { code: 'bad-request', error: 'Empty segments or unnamed variables are not allowed: foo//bar', path: '$.args' });
  await refuse(endpoint('x', 'foo/', ['GET'], 'all'), 400, { error: 'Empty segments or unnamed variables are not allowed: foo/' });
  await refuse(endpoint('x', 'foo/:/bar', ['GET'], 'all'), 400, { error: 'Empty segments or unnamed variables are not allowed: foo/:/bar' });
  await refuse(endpoint('x', 'foo/:id/bar/:id', ['GET'], 'all'), 400, { error: 'Duplicate variables found in endpoint paths: foo/:id/bar/:id' });
  await refuse(endpoint('x', '', ['GET'], 'all'), 400, { code: 'parse-failed', error: 'empty string not allowed' });
  await refuse(endpoint('x', 'foo', ['HEAD'], 'all'), 400, { code: 'parse-failed' });
  await refuse(endpoint('x', 'foo', ['GET'], 'nope'), 400, { code: 'not-exists', error: 'in endpoint x: query with name nope not found in collection c' });
  await refuse(endpoint('x', 'foo', ['GET'], 'watch'), 400, { error: 'in endpoint x: query with name watch is a subscription' });
  await refuse(endpoint('x', 'foo', ['GET'], 'two'), 400, { error: 'in endpoint x: query with name two must hold exactly one operation' });
  await refuse(endpoint('x', 'authors/:other', ['GET'], 'all'), 400, { code: 'bad-request', error: 'Ambiguous URL paths: authors/:id, authors/:other' });
  await refuse({ type: 'drop_rest_endpoint', args: { name: 'nope' } }, 400, { code: 'not-exists', error: 'endpoint with name: nope does not exist' });
  await refuse({ type: 'drop_query_collection', args: { collection: 'c', cascade: false } }, 400, { code: 'dependency-error' });
  await refuse({ type: 'drop_query_from_collection', args: { collection_name: 'c', query_name: 'all' } }, 400, { code: 'dependency-error' });
  // The same path with other methods is no clash.
  assert.equal((await e.query(endpoint('del', 'authors/:id', ['DELETE'], 'by_id'))).status, 200);

  // Export (v1 and v2 shapes), replace restores them; drop; a cascading collection drop takes the endpoints along.
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.deepEqual(md.rest_endpoints.find((x: { name: string }) => x.name === 'by_id'), { name: 'by_id', url: 'authors/:id', methods: ['GET', 'POST'], definition: { query: { collection_name: 'c', query_name: 'by_id' } } });
  const v3 = (await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body;
  assert.equal(v3.version, 3);
  assert.deepEqual(v3.rest_endpoints, md.rest_endpoints);
  assert.equal((await e.query({ type: 'drop_rest_endpoint', args: { name: 'all' } })).status, 200);
  assert.equal((await e.request('GET', '/api/rest/authors')).status, 405);
  const replaced = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: v3 });
  assert.equal(replaced.status, 200, replaced.text);
  assert.equal((await e.request('GET', '/api/rest/authors')).body.author.length, 3);
  const clash = { ...md, rest_endpoints: [...md.rest_endpoints, { name: 'z', url: ':any', methods: ['GET'], definition: { query: { collection_name: 'c', query_name: 'all' } } }] };
  const r = await e.query({ type: 'replace_metadata', args: clash });
  assert.deepEqual([r.status, r.body.code], [400, 'bad-request']);
  assert.match(r.body.error, /^Ambiguous URL paths: /);
  assert.equal((await e.query({ type: 'drop_query_collection', args: { collection: 'c', cascade: true } })).status, 200);
  assert.equal((await e.query({ type: 'export_metadata', args: {} })).body.rest_endpoints, undefined);
  assert.equal((await e.request('GET', '/api/rest/authors')).status, 404);
});

test('stored queries are validated against the admin schema, as Hasura v2: a change that breaks one is refused, whole', async (t) => {
  const e = await setup(t);
  const exported = async () => JSON.stringify((await e.query({ type: 'export_metadata', args: {} })).body);
  const before = await exported();
  const refused = async (body: unknown, ...reasons: string[]) => {
    const r = await e.query(body);
    assert.deepEqual([r.status, r.body.code, r.body.error], [400, 'unexpected', 'cannot continue due to new inconsistent metadata'], r.text);
    assert.deepEqual(r.body.internal.map((o: { reason: string }) => o.reason), reasons);
    assert.equal(await exported(), before, 'metadata unchanged');
  };
  const invalid = (query: string, errors: string, endpoints?: string) =>
    `Inconsistent object: In query collection "c" the query "${query}" is invalid with the following error(s): ${errors}`
    + (endpoints ? `. This query is being used in the following REST endpoint(s): ${endpoints}` : '');
  // An endpoint for a stored query that does not validate (the collection alone is not checked, see the docs).
  await refused(endpoint('x', 'x', ['GET'], 'bad'), invalid('bad', '"Cannot query field "nope" on type "author". Did you mean "name"?"', '"x"'));
  // A schema change the endpoint's query would not survive: refused, the column and the endpoint stay.
  await refused({ type: 'run_sql', args: { sql: 'ALTER TABLE author DROP COLUMN active' } },
    invalid('by_id', '"Cannot query field "active" on type "author"."', '"by_id"'),
    invalid('by_name', '"Field "active" is not defined by type "author_bool_exp"."', '"by_name"'));
  assert.deepEqual((await e.request('GET', '/api/rest/authors/1')).body, { author_by_pk: { id: 1, name: 'ann', active: true } });
  const untrack = await e.query({ type: 'untrack_table', args: { table: 'author' } });
  assert.deepEqual([untrack.status, untrack.body.error], [400, 'cannot continue due to new inconsistent metadata']);
  assert.equal(await exported(), before);

  // Stored already broken (replace_metadata allowing inconsistencies): listed with Hasura's name and type; dropping it takes its endpoint along.
  const md = (await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body;
  md.query_collections[0].definition.queries.find((q: { name: string }) => q.name === 'all').query = 'query { author { id gone } }';
  const strict = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: { metadata: md } });
  assert.deepEqual([strict.status, strict.body.error], [400, 'cannot continue due to inconsistent metadata'], strict.text);
  assert.equal(await exported(), before);
  const allowed = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: { metadata: md, allow_inconsistent_metadata: true } });
  assert.equal(allowed.status, 200, allowed.text);
  const expected = {
    type: 'query_collections', name: 'query_collections all in c', definition: { name: 'all', query: 'query { author { id gone } }' },
    reason: invalid('all', '"Cannot query field "gone" on type "author"."', '"all"'),
  };
  assert.deepEqual([allowed.body.is_consistent, allowed.body.inconsistent_objects], [false, [expected]]);
  assert.deepEqual((await e.query({ type: 'get_inconsistent_metadata', args: {} })).body.inconsistent_objects, [expected]);
  assert.equal((await e.query({ type: 'drop_inconsistent_metadata', args: {} })).status, 200);
  const after = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.equal(after.query_collections[0].definition.queries.some((q: { name: string }) => q.name === 'all'), false);
  assert.equal(after.rest_endpoints.some((x: { name: string }) => x.name === 'all'), false);
  assert.deepEqual((await e.query({ type: 'get_inconsistent_metadata', args: {} })).body.is_consistent, true);
});

test('/api/swagger/json: a valid OpenAPI 3 document of the endpoints; admin only', async (t) => {
  const e = await setup(t);
  const r = await e.request('GET', '/api/swagger/json');
  assert.equal(r.status, 200, r.text);
  const doc = r.body;
  const result = await new Validator().validate(doc);
  assert.equal(result.valid, true, JSON.stringify(result.errors));
  assert.equal(doc.openapi, '3.0.0');
  assert.deepEqual(Object.keys(doc.paths).sort(), ['/api/rest/authors', '/api/rest/authors/{id}', '/api/rest/by_ids', '/api/rest/by_name', '/api/rest/count', '/api/rest/mine']);
  assert.deepEqual(Object.keys(doc.paths['/api/rest/authors']).sort(), ['get', 'post', 'put']);
  const byId = doc.paths['/api/rest/authors/{id}'].get;
  assert.deepEqual(byId.parameters.find((p: { in: string }) => p.in === 'path'), {
    in: 'path', name: 'id', required: true, description: '_"id" is required as part of the path_', schema: { type: 'integer', title: 'Int', nullable: false },
  });
  assert.deepEqual(byId.responses['200'].content['application/json'].schema.properties.author_by_pk.properties.name, { type: 'string', title: 'String', nullable: false });
  const byName = doc.paths['/api/rest/by_name'];
  assert.deepEqual(byName.get.parameters.filter((p: { in: string }) => p.in === 'query').map((p: { name: string; required: boolean }) => [p.name, p.required]), [['name', true], ['active', false]]);
  assert.deepEqual(Object.keys(byName.post.requestBody.content['application/json'].schema.properties), ['name', 'active']);
  assert.deepEqual(doc.paths['/api/rest/by_ids'].post.requestBody.content['application/json'].schema.properties.ids, { type: 'array', items: { type: 'integer', title: 'Int', nullable: false }, nullable: false });
  // No endpoints: still a valid document.
  assert.equal((await e.query({ type: 'drop_query_collection', args: { collection: 'c', cascade: true } })).status, 200);
  const empty = (await e.request('GET', '/api/swagger/json')).body;
  assert.equal((await new Validator().validate(empty)).valid, true);
  assert.deepEqual(empty.paths, {});
  const asUser = await e.request('GET', '/api/swagger/json', undefined, { 'x-svc-role': 'user' });
  assert.deepEqual([asUser.status, asUser.body.code], [400, 'access-denied']);
});

async function pick(p: Promise<{ status: number; body: unknown }>): Promise<[number, unknown]> {
  const r = await p;
  return [r.status, r.body];
}
