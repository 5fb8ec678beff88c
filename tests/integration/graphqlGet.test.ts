/**
 * GraphQL over HTTP on /v1/graphql: queries sent by GET with `query`, `variables` and
 * `operationName` in the URL (urql's default), never a mutation by GET (405, `Allow: POST`, nothing
 * written), and `application/graphql-response+json` with its status codes when the client's Accept
 * asks for it (Hasura's HTTP 200 + errors stays the answer for `application/json`). The allow-list,
 * the auth webhook and CORS apply to GET exactly as to POST; the explain endpoint stays POST only.
 * A real engine, a real auth webhook on 127.0.0.1, real HTTP.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { rawRequest, type RawResult } from '../support/rawRequest.js';
import { startWebhookServer, type WebhookServer } from '../support/webhookServer.js';

let e: TestEngine;
let hook: WebhookServer;
const ADMIN = { 'x-svc-admin-secret': 'adm' };
const USER = { ...ADMIN, 'x-svc-role': 'user' };
const SPEC = 'application/graphql-response+json';
const LISTED = 'query ($id: Int!) { author(where: {id: {_eq: $id}}) { name } }';

before(async () => {
  hook = await startWebhookServer((req) => {
    const auth = (req.body as { headers?: Record<string, string> } | null)?.headers?.authorization;
    return auth === 'Bearer user' ? { status: 200, body: { 'X-Svc-Role': 'user' } } : { status: 401, body: {} };
  });
  e = await startTestEngine({
    adminSecret: 'adm', enableAllowlist: true, authHook: hook.url, authHookMode: 'POST', corsDomain: ['https://app.example.com'],
  });
  await e.runSql(`CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
    INSERT INTO author (name) VALUES ('A1'), ('A2');`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { name: 'author' } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'create_query_collection', args: { name: 'c1', definition: { queries: [{ name: 'q1', query: LISTED }] } } },
      { type: 'add_collection_to_allowlist', args: { collection: 'c1' } },
    ],
  });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await e?.stop();
  await hook?.stop();
});

/** GET /v1/graphql with the given URL parameters. */
function get(params: Record<string, string>, headers: Record<string, string> = ADMIN, path = '/v1/graphql'): Promise<RawResult> {
  return rawRequest(e.url, 'GET', `${path}?${new URLSearchParams(params)}`, undefined, headers);
}

const authorCount = async () => (await e.graphql('{ author_aggregate { aggregate { count } } }')).body.data.author_aggregate.aggregate.count;

describe('GET /v1/graphql', () => {
  it('runs a query from the URL: query, variables (JSON text) and operationName', async () => {
    const r = await get({ query: 'query ($id: Int!) { author(where: {id: {_eq: $id}}) { name } }', variables: JSON.stringify({ id: 2 }) });
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type')!, /^application\/json/);
    assert.deepEqual(r.body, { data: { author: [{ name: 'A2' }] } });
    const two = 'query A { author(order_by: {id: asc}) { id } } query B { author(order_by: {id: desc}) { id } }';
    assert.deepEqual((await get({ query: two, operationName: 'B' })).body, { data: { author: [{ id: 2 }, { id: 1 }] } });
    assert.deepEqual((await get({ query: '{ author(limit: 1) { id } }', variables: '', operationName: '' })).body, { data: { author: [{ id: 1 }] } });
  });

  it('never runs a mutation: 405 with Allow: POST, and no row is written', async () => {
    const before = await authorCount();
    const m = 'mutation { insert_author(objects: [{name: "by GET"}]) { affected_rows } }';
    for (const accept of ['application/json', SPEC]) {
      const r = await get({ query: m }, { ...ADMIN, accept });
      assert.equal(r.status, 405, r.text);
      assert.equal(r.headers.get('allow'), 'POST');
      assert.deepEqual(r.body.errors[0].extensions, { path: '$', code: 'method-not-allowed' });
    }
    // operationName picks the mutation of a document that also has a query
    const both = `query Q { author(limit: 1) { id } } ${m.replace('mutation', 'mutation M')}`;
    assert.equal((await get({ query: both, operationName: 'M' })).status, 405);
    assert.deepEqual((await get({ query: both, operationName: 'Q' })).body, { data: { author: [{ id: 1 }] } });
    assert.equal(await authorCount(), before);
    // the same mutation by POST still works
    const p = await e.graphql(m);
    assert.deepEqual(p.body, { data: { insert_author: { affected_rows: 1 } } });
    assert.equal(await authorCount(), before + 1);
    await e.runSql(`DELETE FROM author WHERE name = 'by GET'`);
  });

  it('bad URL parameters are Hasura-style errors (HTTP 200 for application/json)', async () => {
    const noQuery = await get({});
    assert.equal(noQuery.status, 200);
    assert.deepEqual(noQuery.body, { errors: [{ extensions: { path: '$', code: 'parse-failed' }, message: 'key "query" not found' }] });
    const badVars = await get({ query: '{ author { id } }', variables: '{id: 1' });
    assert.deepEqual(badVars.body.errors[0].extensions, { path: '$.variables', code: 'parse-failed' });
    const listVars = await get({ query: '{ author { id } }', variables: '[1]' });
    assert.deepEqual(listVars.body.errors[0], { extensions: { path: '$.variables', code: 'parse-failed' }, message: 'expected Object for variables' });
    const sub = await get({ query: 'subscription { author { id } }' });
    assert.equal(sub.body.errors[0].message, 'subscriptions are not supported over HTTP, use websockets instead');
  });

  it('allow-list and roles apply to GET as to POST', async () => {
    assert.deepEqual((await get({ query: LISTED, variables: '{"id":1}' }, USER)).body, { data: { author: [{ name: 'A1' }] } });
    assert.deepEqual((await get({ query: '{ author { id } }' }, USER)).body,
      { errors: [{ extensions: { path: '$', code: 'validation-failed' }, message: 'query is not allowed' }] });
  });

  it('the auth webhook (POST mode) sees the GET request as {query, variables, operationName}; a refusal is access-denied', async () => {
    const ok = await get({ query: LISTED, variables: '{"id":2}' }, { authorization: 'Bearer user' });
    assert.deepEqual(ok.body, { data: { author: [{ name: 'A2' }] } });
    const seen = hook.requests.at(-1)!.body as { request: unknown };
    assert.deepEqual(seen.request, { query: LISTED, operationName: null, variables: { id: 2 } });
    const denied = await get({ query: LISTED, variables: '{"id":2}' }, { authorization: 'Bearer nobody' });
    assert.equal(denied.status, 200);
    assert.equal(denied.body.errors[0].extensions.code, 'access-denied');
    const deniedSpec = await get({ query: LISTED, variables: '{"id":2}' }, { authorization: 'Bearer nobody', accept: SPEC });
    assert.equal(deniedSpec.status, 401, deniedSpec.text);
    assert.equal(deniedSpec.body.errors[0].extensions.code, 'access-denied');
  });

  it('CORS headers are sent on GET for an allowed origin', async () => {
    const r = await get({ query: '{ author(limit: 1) { id } }' }, { ...ADMIN, origin: 'https://app.example.com' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), 'https://app.example.com');
  });

  it('the explain endpoint stays POST only', async () => {
    const r = await get({ query: '{ author { id } }' }, ADMIN, '/v1/graphql/explain');
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'POST');
  });
});

describe('application/graphql-response+json', () => {
  const post = (body: unknown, accept: string) => rawRequest(e.url, 'POST', '/v1/graphql', body, { ...ADMIN, accept });

  it('is the response type when the client asks for it (GET and POST); success is 200', async () => {
    for (const r of [await get({ query: '{ author(limit: 1) { id } }' }, { ...ADMIN, accept: `${SPEC}, application/json;q=0.9` }),
      await post({ query: '{ author(limit: 1) { id } }' }, SPEC)]) {
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers.get('content-type'), `${SPEC}; charset=utf-8`);
      assert.deepEqual(r.body, { data: { author: [{ id: 1 }] } });
    }
  });

  it('a document that fails to parse or validate, or bad variables, is 400 with the errors body', async () => {
    const cases: Array<[Promise<RawResult>, string]> = [
      [post({ query: '{ author { id ' }, SPEC), '$.query'],
      [post({ query: '{ author { nope } }' }, SPEC), '$.selectionSet.author.selectionSet.nope'],
      [post({ query: 'query ($id: Int!) { author_by_pk(id: $id) { id } }', variables: { id: 'abc' } }, SPEC), '$.variableValues.id'],
      [get({ query: '{ author { nope } }' }, { ...ADMIN, accept: SPEC }), '$.selectionSet.author.selectionSet.nope'],
      [get({ query: '{ author { id } }', variables: 'nope' }, { ...ADMIN, accept: SPEC }), '$.variables'],
    ];
    for (const [pending, path] of cases) {
      const r = await pending;
      assert.equal(r.status, 400, r.text);
      assert.equal(r.headers.get('content-type'), `${SPEC}; charset=utf-8`);
      assert.equal(r.body.data, undefined);
      assert.equal(r.body.errors[0].extensions.path, path, r.text);
    }
  });

  it('application/json (or no Accept, or a preference for it) keeps Hasura: HTTP 200 with errors', async () => {
    for (const accept of ['application/json', '*/*', `application/json, ${SPEC};q=0.5`, 'text/html']) {
      const r = await post({ query: '{ author { nope } }' }, accept);
      assert.equal(r.status, 200, accept);
      assert.match(r.headers.get('content-type')!, /^application\/json/, accept);
      assert.equal(r.body.errors[0].extensions.code, 'validation-failed');
    }
  });
});
