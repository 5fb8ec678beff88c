/**
 * /v1/graphql queries over real HTTP against a real Postgres: selects with relationships,
 * arguments and variables, permissions with session variables, aggregates, introspection,
 * batching and request errors. Metadata is written to the catalog directly (then the engine
 * rebuilds its schema cache), so these tests do not depend on /v1/query.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { decodeMetadata, saveMetadata } from '../../src/metadata/index.js';

const SQL = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, bio jsonb, secret text, rating numeric);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id), published boolean NOT NULL DEFAULT false, views bigint);
INSERT INTO author (name, bio, secret, rating) VALUES ('Ann', '{"city": "Oslo", "tags": ["a", "b"]}', 's1', 4.5), ('Bob', '{"city": "Rome"}', 's2', 3), ('Cy', NULL, 's3', NULL);
INSERT INTO article (title, author_id, published, views) VALUES ('A1', 1, true, 10), ('A2', 1, false, 20), ('B1', 2, true, 30), ('B2', 2, true, 9007199254740993);
`;

const METADATA = {
  version: 2,
  tables: [
    {
      table: { schema: 'public', name: 'author' },
      array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }],
      select_permissions: [
        { role: 'user', permission: { columns: ['id', 'name', 'bio'], filter: { id: { _eq: 'X-Svc-User-Id' } } } },
        { role: 'reader', permission: { columns: ['id', 'name'], filter: {}, limit: 2, allow_aggregations: true } },
      ],
    },
    {
      table: { schema: 'public', name: 'article' },
      object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
      select_permissions: [
        { role: 'user', permission: { columns: ['id', 'title', 'author_id'], filter: { published: { _eq: true } } } },
        { role: 'reader', permission: { columns: ['id', 'title', 'author_id', 'views'], filter: { published: { _eq: true } }, allow_aggregations: true } },
      ],
    },
  ],
};

describe('/v1/graphql queries', () => {
  let e: TestEngine;
  const gql = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) => {
    const r = await e.graphql(query, variables, headers);
    assert.equal(r.status, 200);
    return r.body;
  };

  before(async () => {
    e = await startTestEngine({ stringifyNumericTypes: true });
    await e.engine.ctx.db.queryRaw(SQL);
    await e.engine.ctx.db.transaction({}, (c) => saveMetadata(c, decodeMetadata(METADATA)));
    await e.engine.ctx.state.rebuild();
  });
  after(() => e?.stop());

  test('selects with relationships, where, order_by, limit and offset', async () => {
    const body = await gql(`{
      author(where: {articles: {published: {_eq: true}}}, order_by: {name: desc}) {
        name
        articles(order_by: {id: asc}, limit: 1, offset: 1) { title author { name } }
      }
    }`);
    assert.deepEqual(body, { data: { author: [
      { name: 'Bob', articles: [{ title: 'B2', author: { name: 'Bob' } }] },
      { name: 'Ann', articles: [{ title: 'A2', author: { name: 'Ann' } }] },
    ] } });
  });

  test('null comparison values are ignored (Hasura v1.3)', async () => {
    const body = await gql('query ($n: String) { author(where: {name: {_eq: $n}}, order_by: {id: asc}) { id } }', { n: null });
    assert.deepEqual(body, { data: { author: [{ id: 1 }, { id: 2 }, { id: 3 }] } });
  });

  test('the same query with different variables returns different rows', async () => {
    const q = 'query ($id: Int!) { author_by_pk(id: $id) { name } }';
    assert.deepEqual(await gql(q, { id: 1 }), { data: { author_by_pk: { name: 'Ann' } } });
    assert.deepEqual(await gql(q, { id: 2 }), { data: { author_by_pk: { name: 'Bob' } } });
    assert.deepEqual(await gql(q, { id: 99 }), { data: { author_by_pk: null } });
  });

  test('jsonb paths, jsonb operators and stringified big numbers', async () => {
    const body = await gql(`{
      author(where: {bio: {_has_key: "tags"}}) { city: bio(path: "city") tag: bio(path: "$.tags[1]") rating }
      article(where: {id: {_eq: 4}}) { views }
    }`);
    assert.deepEqual(body, { data: { author: [{ city: 'Oslo', tag: 'b', rating: '4.5' }], article: [{ views: '9007199254740993' }] } });
  });

  test('permissions: row filter from a session variable, hidden columns, missing session variable', async () => {
    const user = { 'x-svc-role': 'user', 'x-svc-user-id': '2' };
    assert.deepEqual(await gql('{ author { id name articles { title } } }', undefined, user),
      { data: { author: [{ id: 2, name: 'Bob', articles: [{ title: 'B1' }, { title: 'B2' }] }] } });
    assert.deepEqual(await gql('{ author { secret } }', undefined, user), { errors: [{
      extensions: { path: '$.selectionSet.author.selectionSet.secret', code: 'validation-failed' },
      message: 'field "secret" not found in type: \'author\'',
    }] });
    assert.deepEqual(await gql('{ author { id } }', undefined, { 'x-svc-role': 'user' }), { errors: [{
      extensions: { path: '$', code: 'not-found' }, message: '"x-svc-user-id" header is expected but not found',
    }] });
    assert.deepEqual(await gql('{ author_aggregate { aggregate { count } } }', undefined, user), { errors: [{
      extensions: { path: '$.selectionSet.author_aggregate', code: 'validation-failed' },
      message: 'field "author_aggregate" not found in type: \'query_root\'',
    }] });
  });

  test('aggregates, and the permission limit capping nodes only', async () => {
    const reader = { 'x-svc-role': 'reader' };
    const body = await gql('{ author_aggregate { aggregate { count } nodes { id } } article_aggregate { aggregate { count sum { views } max { title } } } }', undefined, reader);
    assert.deepEqual(body, { data: {
      author_aggregate: { aggregate: { count: 3 }, nodes: [{ id: 1 }, { id: 2 }] },
      article_aggregate: { aggregate: { count: 3, sum: { views: '9007199254741033' }, max: { title: 'B2' } } },
    } });
    const ordered = await gql('{ author(order_by: {articles_aggregate: {count: desc}}, limit: 5) { name } }', undefined, reader);
    assert.deepEqual(ordered, { data: { author: [{ name: 'Bob' }, { name: 'Ann' }] } });
  });

  test('distinct_on must match the leading order_by columns', async () => {
    const body = await gql('{ article(distinct_on: [author_id], order_by: [{id: desc}]) { id } }');
    assert.deepEqual(body, { errors: [{
      extensions: { path: '$.selectionSet.article.args', code: 'validation-failed' },
      message: '"distinct_on" columns must match initial "order_by" columns',
    }] });
    assert.deepEqual(await gql('{ article(distinct_on: [author_id], order_by: [{author_id: asc}, {id: desc}]) { id } }'),
      { data: { article: [{ id: 2 }, { id: 4 }] } });
  });

  test('introspection and __typename next to data fields', async () => {
    const body = await gql('{ __typename author(limit: 1) { __typename id } __schema { queryType { name } } t: __type(name: "author") { name } }');
    assert.deepEqual(body, { data: {
      __typename: 'query_root', author: [{ __typename: 'author', id: 1 }], __schema: { queryType: { name: 'query_root' } }, t: { name: 'author' },
    } });
  });

  test('several root fields answer in request order, in one statement', async () => {
    const user = { 'x-svc-role': 'user', 'x-svc-user-id': '1' };
    const body = await gql('{ b: article(order_by: {id: asc}) { id } __typename a: author { name } c: author_by_pk(id: 1) { id } }', undefined, user);
    assert.deepEqual(body, { data: { b: [{ id: 1 }, { id: 3 }, { id: 4 }], __typename: 'query_root', a: [{ name: 'Ann' }], c: { id: 1 } } });
    assert.deepEqual(Object.keys(body.data), ['b', '__typename', 'a', 'c']);
  });

  test('subscriptions are refused over HTTP; /v1alpha1/graphql keeps error statuses', async () => {
    assert.deepEqual(await gql('subscription { author { id } }'), { errors: [{
      extensions: { path: '$', code: 'unexpected-payload' }, message: 'subscriptions are not supported over HTTP, use websockets instead',
    }] });
    const r = await e.request('POST', '/v1alpha1/graphql', { query: '{ nope }' });
    assert.equal(r.status, 400);
    assert.equal(r.body.errors[0].extensions.code, 'validation-failed');
  });

  test('batches, request errors and validation errors', async () => {
    const batch = await e.request('POST', '/v1/graphql', [{ query: '{ nope { id } }' }, { query: '{ author(limit: 1) { id } }' }]);
    assert.deepEqual(batch.body, [
      { errors: [{ extensions: { path: '$.selectionSet.nope', code: 'validation-failed' }, message: 'field "nope" not found in type: \'query_root\'' }] },
      { data: { author: [{ id: 1 }] } },
    ]);
    const bad = await e.request('POST', '/v1/graphql', '{not json');
    assert.equal(bad.status, 200);
    assert.deepEqual(bad.body, { errors: [{ extensions: { path: '$', code: 'invalid-json' }, message: 'invalid json' }] });
    assert.deepEqual(await gql('{ author { id }'), { errors: [{ extensions: { path: '$.query', code: 'validation-failed' }, message: 'not a valid graphql query' }] });
    assert.deepEqual(await gql('{ article(limit: "3") { id } }'), { errors: [{
      extensions: { path: '$.selectionSet.article.args.limit', code: 'validation-failed' }, message: 'expecting Integer value for "limit"',
    }] });
  });
});
