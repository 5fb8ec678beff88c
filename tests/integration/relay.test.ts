/**
 * The Relay API at /v1beta1/relay, used as a Relay client uses it: `node(id:)` with `... on Node`
 * and type fragments, ids from connections fed back to `node`, forward pagination with first/after
 * through a whole table and backward with last/before (cursors and pageInfo at every boundary),
 * where/order_by with pagination, array relationships as connections, a role with a row filter
 * (a forbidden id gives null), mutations, and a subscription over WebSocket on the same path.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';

const ADMIN = { 'x-svc-admin-secret': 'adm' };
const USER1 = { ...ADMIN, 'x-svc-role': 'user', 'x-svc-user-id': '1' };

const b64 = (s: string) => Buffer.from(s).toString('base64');
const unb64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');

async function seed(e: TestEngine): Promise<void> {
  await e.runSql(`CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
    CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL REFERENCES author(id), rating int NOT NULL);
    INSERT INTO author (name) VALUES ('Author 1'), ('Author 2'), ('Author 3'), ('Author 4');
    INSERT INTO article (title, author_id, rating) VALUES ('Article 1', 1, 3), ('Article 2', 1, 5), ('Article 3', 1, 1),
      ('Article 4', 2, 4), ('Article 5', 2, 2), ('Article 6', 3, 5);`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'author' } },
      { type: 'track_table', args: { schema: 'public', name: 'article' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
}

test('the Relay API at /v1beta1/relay', async (t) => {
  const e = await startTestEngine({ adminSecret: 'adm', liveQueries: { batchSize: 10, refetchIntervalMs: 100, changePollIntervalMs: 50 } });
  t.after(() => e.stop());
  await seed(e);
  const relay = async (query: string, variables?: Record<string, unknown>, headers: Record<string, string> = ADMIN) => {
    const r = await e.request('POST', '/v1beta1/relay', { query, variables }, headers);
    assert.equal(r.status, 200, r.text);
    return r.body;
  };

  await t.test('connections: edges { cursor node { id } } with Hasura v1.3 cursors and global ids', async () => {
    const body = await relay('{ author_connection { edges { cursor node { id name } } } }');
    const edges = body.data.author_connection.edges;
    assert.equal(edges.length, 4);
    assert.equal(edges[0].cursor, 'eyJpZCIgOiAxfQ==', 'the cursor of Hasura v1.3: base64 of {"id" : 1}');
    assert.equal(unb64(edges[1].node.id), '[1, "public", "author", 2]');
    assert.deepEqual(edges.map((x: any) => x.node.name), ['Author 1', 'Author 2', 'Author 3', 'Author 4']);
  });

  await t.test('node(id:) round trip from connection ids, with ... on Node and type fragments', async () => {
    const ids = (await relay('{ article_connection { edges { node { id title } } } }')).data.article_connection.edges.map((x: any) => x.node);
    for (const a of ids) {
      const body = await relay(
        `query ($id: ID!) { node(id: $id) { __typename ... on Node { id } ...A } } fragment A on article { title author { name } }`,
        { id: a.id },
      );
      assert.equal(body.data.node.__typename, 'article');
      assert.equal(body.data.node.id, a.id);
      assert.equal(body.data.node.title, a.title);
    }
    const author = await relay(`{ node(id: "${b64('[1, "public", "author", 2]')}") { id ... on author { name articles_connection { edges { node { title } } } } ... on article { title } } }`);
    assert.deepEqual(author.data.node.articles_connection.edges.map((x: any) => x.node.title), ['Article 4', 'Article 5']);
    assert.equal(author.data.node.name, 'Author 2');
    assert.equal(author.data.node.title, undefined, 'fields of another type are left out');
    const missing = await relay(`{ node(id: "${b64('[1, "public", "author", 99]')}") { id } }`);
    assert.deepEqual(missing, { data: { node: null } });
  });

  await t.test('bad ids and pagination arguments: validation-failed with Hasura messages', async () => {
    const v2 = await relay(`{ node(id: "${b64('[2, "public", "author", 1]')}") { id } }`);
    assert.equal(v2.errors[0].message, 'the node id is invalid: Error in $: unsupported GUID version: 2.0');
    assert.equal(v2.errors[0].extensions.code, 'validation-failed');
    const both = await relay('{ author_connection(first: 1, last: 2) { edges { cursor } } }');
    assert.equal(both.errors[0].message, '"first" and "last" are not allowed at once');
    const ab = await relay('{ author_connection(after: "eyJpZCIgOiAyfQ==", before: "eyJpZCIgOiA0fQ==") { edges { cursor } } }');
    assert.equal(ab.errors[0].message, '"after" and "before" are not allowed at once');
  });

  const PAGE = `query ($first: Int, $after: String, $last: Int, $before: String) {
    article_connection(first: $first, after: $after, last: $last, before: $before, order_by: {rating: desc}, where: {rating: {_gt: 1}}) {
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { cursor node { title rating } }
    } }`;
  // rating > 1 ordered by rating desc, id as tie-break: 2 (5), 6 (5), 4 (4), 1 (3), 5 (2)
  const EXPECTED = ['Article 2', 'Article 6', 'Article 4', 'Article 1', 'Article 5'];

  await t.test('forward through the whole set with first/after; backward with last/before', async () => {
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; ; page++) {
      const c = (await relay(PAGE, { first: 2, after })).data.article_connection;
      seen.push(...c.edges.map((x: any) => x.node.title));
      assert.equal(c.pageInfo.startCursor, c.edges[0].cursor);
      assert.equal(c.pageInfo.endCursor, c.edges.at(-1).cursor);
      assert.equal(c.pageInfo.hasPreviousPage, page > 0);
      assert.equal(c.pageInfo.hasNextPage, seen.length < EXPECTED.length);
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    assert.deepEqual(seen, EXPECTED);
    assert.deepEqual(JSON.parse(unb64((await relay(PAGE, { first: 1 })).data.article_connection.edges[0].cursor)), { rating: 5, id: 2 });

    const back: string[] = [];
    let before: string | undefined;
    for (let page = 0; ; page++) {
      const c = (await relay(PAGE, { last: 2, before })).data.article_connection;
      back.unshift(...c.edges.map((x: any) => x.node.title));
      assert.equal(c.pageInfo.hasNextPage, page > 0);
      assert.equal(c.pageInfo.hasPreviousPage, back.length < EXPECTED.length);
      if (!c.pageInfo.hasPreviousPage) break;
      before = c.pageInfo.startCursor;
    }
    assert.deepEqual(back, EXPECTED);
    const end = (await relay(PAGE, { first: 2, after: (await relay(PAGE, { last: 1 })).data.article_connection.pageInfo.endCursor })).data.article_connection;
    assert.deepEqual(end, { pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null }, edges: [] });
  });

  await t.test('a role with a row filter: its rows only, a forbidden id is null', async () => {
    const c = (await relay('{ author_connection { edges { node { id name articles_connection(last: 1) { edges { node { title } } pageInfo { hasPreviousPage } } } } } }', undefined, USER1)).data.author_connection;
    assert.equal(c.edges.length, 1);
    assert.equal(c.edges[0].node.name, 'Author 1');
    assert.deepEqual(c.edges[0].node.articles_connection, { edges: [{ node: { title: 'Article 3' } }], pageInfo: { hasPreviousPage: true } });
    const own = await relay(`{ node(id: "${b64('[1, "public", "author", 1]')}") { ... on author { name } } }`, undefined, USER1);
    assert.deepEqual(own, { data: { node: { name: 'Author 1' } } });
    const forbidden = await relay(`{ node(id: "${b64('[1, "public", "author", 2]')}") { ... on author { name } } }`, undefined, USER1);
    assert.deepEqual(forbidden, { data: { node: null } });
    const col = await relay('{ article_connection { edges { node { rating } } } }', undefined, USER1);
    assert.equal(col.errors[0].extensions.code, 'validation-failed', 'a column the role may not select is not in its schema');
  });

  await t.test('the GraphQL API is unchanged: no node, no connections, id is the column', async () => {
    const r = await e.graphql('{ author(limit: 1) { id } }', undefined, ADMIN);
    assert.deepEqual(r.body, { data: { author: [{ id: 1 }] } });
    const n = await e.graphql('{ author_connection { edges { cursor } } }', undefined, ADMIN);
    assert.equal(n.body.errors[0].extensions.code, 'validation-failed');
  });

  await t.test('mutations return nodes with global ids', async () => {
    const body = await relay('mutation { insert_author(objects: [{name: "Author 5"}]) { returning { id name } } }');
    const created = body.data.insert_author.returning[0];
    assert.equal(unb64(created.id), '[1, "public", "author", 5]');
    assert.deepEqual(await relay(`{ node(id: "${created.id}") { ... on author { name } } }`), { data: { node: { name: 'Author 5' } } });
  });

  await t.test('a subscription over WebSocket on /v1beta1/relay', async () => {
    const s = await TestSocket.open(e.url, 'graphql-ws', '/v1beta1/relay');
    s.send({ type: 'connection_init', payload: { headers: ADMIN } });
    assert.deepEqual(await s.next(), { type: 'connection_ack' });
    s.send({ type: 'start', id: '1', payload: { query: 'subscription { author_connection(last: 1) { edges { node { id name } } } }' } });
    const first = await s.next(5000);
    assert.equal(first.payload.data.author_connection.edges[0].node.name, 'Author 5');
    await e.runSql("INSERT INTO author (name) VALUES ('Author 6')");
    const next = await s.next(5000);
    assert.equal(next.payload.data.author_connection.edges[0].node.name, 'Author 6');
    assert.equal(unb64(next.payload.data.author_connection.edges[0].node.id), '[1, "public", "author", 6]');
    s.close();
    await s.closed;
  });
});
