/**
 * Query-root SQL functions (with arguments, defaults and a session argument), computed fields
 * (scalar and SETOF table) and enum-table columns, through /v1/graphql over real HTTP.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { decodeMetadata, saveMetadata } from '../../src/metadata/index.js';

const SQL = `
CREATE TABLE color (value text PRIMARY KEY, comment text);
INSERT INTO color VALUES ('red', 'warm'), ('blue', 'cold');
CREATE TABLE post (id serial PRIMARY KEY, title text NOT NULL, owner text NOT NULL, color text REFERENCES color(value));
INSERT INTO post (title, owner, color) VALUES ('alpha', 'u1', 'red'), ('beta', 'u2', 'blue'), ('alphabet', 'u2', 'red');
CREATE FUNCTION search_posts(q text, max_len int DEFAULT 100) RETURNS SETOF post AS $$
  SELECT * FROM post WHERE title LIKE '%' || q || '%' AND length(title) <= max_len
$$ LANGUAGE sql STABLE;
CREATE FUNCTION my_posts(hasura_session json) RETURNS SETOF post AS $$
  SELECT * FROM post WHERE owner = hasura_session ->> 'x-svc-user-id'
$$ LANGUAGE sql STABLE;
CREATE FUNCTION title_upper(p post) RETURNS text AS $$ SELECT upper(p.title) $$ LANGUAGE sql STABLE;
CREATE FUNCTION same_owner(p post) RETURNS SETOF post AS $$ SELECT * FROM post WHERE owner = p.owner AND id <> p.id $$ LANGUAGE sql STABLE;
`;

const METADATA = {
  version: 2,
  tables: [
    { table: { schema: 'public', name: 'color' }, is_enum: true },
    {
      table: { schema: 'public', name: 'post' },
      computed_fields: [
        { name: 'upper', definition: { function: { schema: 'public', name: 'title_upper' } } },
        { name: 'siblings', definition: { function: { schema: 'public', name: 'same_owner' } } },
      ],
      select_permissions: [{ role: 'user', permission: { columns: ['id', 'title'], filter: { owner: { _eq: 'X-Svc-User-Id' } }, computed_fields: ['upper'] } }],
    },
  ],
  functions: [
    { function: { schema: 'public', name: 'search_posts' } },
    { function: { schema: 'public', name: 'my_posts' }, configuration: { session_argument: 'hasura_session' } },
  ],
};

describe('/v1/graphql functions, computed fields, enum tables', () => {
  let e: TestEngine;
  const gql = async (query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) => (await e.graphql(query, variables, headers)).body;

  before(async () => {
    e = await startTestEngine();
    await e.engine.ctx.db.queryRaw(SQL);
    await e.engine.ctx.db.transaction({}, (c) => saveMetadata(c, decodeMetadata(METADATA)));
    await e.engine.ctx.state.rebuild();
  });
  after(() => e?.stop());

  test('functions take their arguments (defaults may be left out) and the select arguments', async () => {
    assert.deepEqual(await gql('{ search_posts(args: {q: "alpha"}, order_by: {id: desc}) { title } }'),
      { data: { search_posts: [{ title: 'alphabet' }, { title: 'alpha' }] } });
    assert.deepEqual(await gql('query ($n: Int) { search_posts(args: {q: "alpha", max_len: $n}) { title } }', { n: 5 }),
      { data: { search_posts: [{ title: 'alpha' }] } });
    assert.deepEqual(await gql('{ search_posts_aggregate(args: {q: "a"}) { aggregate { count } } }'),
      { data: { search_posts_aggregate: { aggregate: { count: 3 } } } });
  });

  test('a function with a session argument receives the session variables; permissions still apply', async () => {
    const user = { 'x-svc-role': 'user', 'x-svc-user-id': 'u2' };
    assert.deepEqual(await gql('{ my_posts(order_by: {id: asc}) { id title upper } }', undefined, user),
      { data: { my_posts: [{ id: 2, title: 'beta', upper: 'BETA' }, { id: 3, title: 'alphabet', upper: 'ALPHABET' }] } });
    assert.deepEqual(await gql('{ search_posts(args: {q: "alpha"}) { title } }', undefined, user),
      { data: { search_posts: [{ title: 'alphabet' }] } });
  });

  test('computed fields: scalar, and SETOF table with select arguments', async () => {
    assert.deepEqual(await gql('{ post(where: {id: {_eq: 3}}) { upper siblings(order_by: {id: asc}) { title } } }'),
      { data: { post: [{ upper: 'ALPHABET', siblings: [{ title: 'beta' }] }] } });
  });

  test('enum-table columns are GraphQL enums, compared with enum values', async () => {
    assert.deepEqual(await gql('{ post(where: {color: {_eq: red}}, order_by: {id: asc}) { id color } }'),
      { data: { post: [{ id: 1, color: 'red' }, { id: 3, color: 'red' }] } });
    assert.deepEqual(await gql('{ __type(name: "color_enum") { kind enumValues { name description } } }'),
      { data: { __type: { kind: 'ENUM', enumValues: [{ name: 'blue', description: 'cold' }, { name: 'red', description: 'warm' }] } } });
    const bad = await gql('{ post(where: {color: {_eq: green}}) { id } }');
    assert.equal(bad.errors[0].message, 'unexpected value "green" for enum: \'color_enum\'');
  });
});
