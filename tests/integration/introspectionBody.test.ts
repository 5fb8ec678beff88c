/**
 * Introspection over HTTP, answered as bytes (api/introspectionBody.ts) from the walker's UTF-8 chunks, against
 * graphql-js's `execute` + `JSON.stringify` on the same role's schema built whole: the response body byte for
 * byte, the first time and from the kept answer, on a real database with what makes schemas differ: a
 * relationship to a table the role cannot see, aggregations on for one role and off for another, computed
 * fields (scalar and table), an enum table, custom column and root-field names, non-ASCII comments,
 * a second source with a root-field namespace and a type-name prefix, and an action's custom types (an input
 * object, an enum, an output object with a relationship to a table) mixed in. The walker's text
 * (`introspectionText`) is compared too.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execute, getIntrospectionQuery, parse } from 'graphql';
import { createTestDatabase, sqlOn, startTestEngine, type TestEngine } from './harness.js';
import { buildRoleSchema, introspectionText } from '../../src/graphql/index.js';
import { ENGINE_PARTS } from '../../src/appState.js';

const SECRET = 'introspection-body-secret';
const admin = { 'x-svc-admin-secret': SECRET };
let e: TestEngine;
let other: { url: string; drop(): Promise<void> };

const metadata = async (body: unknown) => {
  const r = await e.request('POST', '/v1/metadata', body, admin);
  assert.equal(r.status, 200, `${JSON.stringify(body)} → ${r.text}`);
};

before(async () => {
  e = await startTestEngine({ adminSecret: SECRET });
  other = await createTestDatabase('introbody');
  await e.runSql(`
    CREATE TABLE status (value text PRIMARY KEY, comment text);
    INSERT INTO status VALUES ('draft', 'not yet out'), ('live', 'out: “live” ✓');
    CREATE TABLE hidden (id serial PRIMARY KEY, note text);
    CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, status text REFERENCES status(value), hidden_id int REFERENCES hidden(id));
    COMMENT ON TABLE author IS 'écrivains — authors';
    CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int NOT NULL REFERENCES author(id), rating numeric, tags jsonb);
    CREATE FUNCTION author_label(a author) RETURNS text LANGUAGE sql STABLE AS $$ SELECT a.name || '!' $$;
    CREATE FUNCTION author_rated(a author, min numeric) RETURNS SETOF article LANGUAGE sql STABLE AS $$ SELECT * FROM article WHERE author_id = a.id AND rating >= min $$;
  `);
  await sqlOn(other.url, 'CREATE TABLE item (id serial PRIMARY KEY, label text NOT NULL, price numeric);');
  await metadata({ type: 'pg_track_table', args: { table: 'status', is_enum: true } });
  for (const table of ['hidden', 'author', 'article']) await metadata({ type: 'pg_track_table', args: { table } });
  await metadata({ type: 'pg_set_table_customization', args: { table: 'article', configuration: { custom_column_names: { title: 'headline' }, custom_root_fields: { select: 'posts', select_by_pk: 'post_one' } } } });
  await metadata({ type: 'pg_create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });
  await metadata({ type: 'pg_create_object_relationship', args: { table: 'author', name: 'hidden', using: { foreign_key_constraint_on: 'hidden_id' } } });
  await metadata({ type: 'pg_create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } });
  await metadata({ type: 'pg_add_computed_field', args: { table: 'author', name: 'label', definition: { function: 'author_label' }, comment: 'name, loudly' } });
  await metadata({ type: 'pg_add_computed_field', args: { table: 'author', name: 'rated', definition: { function: 'author_rated' } } });
  for (const [role, aggregations] of [['reader', false], ['analyst', true]] as const) {
    // Neither role sees `hidden`: author.hidden points at a table they cannot see.
    await metadata({ type: 'pg_create_select_permission', args: { table: 'author', role, permission: { columns: ['id', 'name', 'status'], filter: {}, allow_aggregations: aggregations, computed_fields: ['label', 'rated'] } } });
    await metadata({ type: 'pg_create_select_permission', args: { table: 'article', role, permission: { columns: ['id', 'title', 'author_id', 'rating'], filter: {}, allow_aggregations: aggregations } } });
    await metadata({ type: 'pg_create_insert_permission', args: { table: 'article', role, permission: { columns: ['title', 'author_id'], check: {} } } });
    await metadata({ type: 'pg_create_update_permission', args: { table: 'article', role, permission: { columns: ['title', 'rating'], filter: {}, check: {} } } });
  }
  await metadata({ type: 'pg_add_source', args: { name: 'shop', configuration: { connection_info: { database_url: other.url } }, customization: { root_fields: { namespace: 'shop' }, type_names: { prefix: 'shop_' } } } });
  await metadata({ type: 'pg_track_table', args: { source: 'shop', table: 'item' } });
  await metadata({ type: 'pg_create_select_permission', args: { source: 'shop', table: 'item', role: 'analyst', permission: { columns: '*', filter: {}, allow_aggregations: true } } });
  // An action's types among the tables' (its handler is never called: introspection only reads its types).
  await metadata({ type: 'set_custom_types', args: {
    enums: [{ name: 'Mood', values: [{ value: 'HAPPY', description: 'glad' }, { value: 'SAD' }] }],
    input_objects: [{ name: 'RateInput', description: 'what to rate', fields: [{ name: 'author_id', type: 'Int!' }, { name: 'mood', type: 'Mood' }] }],
    objects: [{ name: 'RateOutput', fields: [{ name: 'author_id', type: 'Int!' }, { name: 'scores', type: '[Float!]' }], relationships: [{ name: 'author', type: 'object', remote_table: 'author', field_mapping: { author_id: 'id' } }] }],
  } });
  await metadata({ type: 'create_action', args: { name: 'rate', definition: { kind: 'synchronous', arguments: [{ name: 'input', type: 'RateInput!' }], output_type: 'RateOutput', handler: 'http://127.0.0.1:9/rate' }, comment: 'rate an author' } });
  await metadata({ type: 'create_action_permission', args: { action: 'rate', role: 'analyst' } });
});

after(async () => {
  await e?.stop();
  await other?.drop();
});

const QUERIES: Array<[string, string, Record<string, unknown>]> = [
  ['getIntrospectionQuery()', getIntrospectionQuery(), {}],
  ['without descriptions', getIntrospectionQuery({ descriptions: false }), {}],
  ['every option', getIntrospectionQuery({ specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true, oneOf: true }), {}],
  ['__type and __typename beside __schema', 'query Q($n: String!) { __typename t: __type(name: $n) { name fields { name type { kind name ofType { name } } } } __schema { types { name } } }', { n: 'author' }],
  ['__type alone', '{ __type(name: "article_bool_exp") { name inputFields { name type { name kind } } } }', {}],
];

test('the HTTP body of an introspection = graphql-js execute + JSON.stringify, byte for byte, first and kept; the walker\'s text too', async () => {
  const cache = e.engine.ctx.state.current;
  for (const role of ['admin', 'reader', 'analyst']) {
    const headers = role === 'admin' ? admin : { ...admin, 'x-svc-role': role };
    for (const [name, query, variables] of QUERIES) {
      const whole = buildRoleSchema(cache, role, ENGINE_PARTS.schema).schema;
      const result = await execute({ schema: whole, document: parse(query), variableValues: variables });
      assert.equal(result.errors, undefined, `${role}, ${name}: ${String(result.errors)}`);
      const expected = JSON.stringify({ data: result.data });
      for (const turn of ['first', 'kept']) {
        // The body's own bytes: without Accept-Encoding (fetch sends `gzip, deflate` unless told otherwise).
        const r = await e.graphql(query, variables, { ...headers, 'accept-encoding': 'identity' });
        assert.equal(r.status, 200, `${role}, ${name}`);
        assert.equal(r.headers.get('content-length'), String(Buffer.byteLength(expected)), `${role}, ${name}, ${turn}`);
        assert.ok(r.text === expected, `${role}, ${name}, ${turn}: the body differs from graphql-js's`);
      }
      const text = await introspectionText(buildRoleSchema(cache, role, ENGINE_PARTS.schema).schema, parse(query), variables);
      const data = result.data as Record<string, unknown>;
      for (const [alias, value] of text ?? []) assert.equal(value, JSON.stringify(data[alias]), `${role}, ${name}: ${alias}`);
    }
  }
  // What differs between the roles is there: aggregations for one, the namespace for the admin and analyst only, no `hidden`.
  const typesOf = async (headers: Record<string, string>) => new Set(((await e.graphql('{ __schema { types { name } } }', undefined, headers)).body.data.__schema.types as Array<{ name: string }>).map((t) => t.name));
  const reader = await typesOf({ ...admin, 'x-svc-role': 'reader' });
  const analyst = await typesOf({ ...admin, 'x-svc-role': 'analyst' });
  assert.ok(!reader.has('article_aggregate') && analyst.has('article_aggregate'));
  assert.ok(!reader.has('hidden') && !analyst.has('hidden') && (await typesOf(admin)).has('hidden'));
  assert.ok(analyst.has('shop_item') && !reader.has('shop_item'));
  assert.ok(analyst.has('status_enum'));
  assert.ok(analyst.has('RateOutput') && analyst.has('Mood') && !reader.has('RateOutput'));
});

test('an introspection beside an ordinary root field is answered as before; bad introspection gets the error shape', async () => {
  const r = await e.graphql('{ author { name } __schema { queryType { name } } }', undefined, admin);
  assert.deepEqual(r.body, { data: { author: [], __schema: { queryType: { name: 'query_root' } } } });
  const bad = await e.graphql('{ __type(name: 1) { name } }', undefined, admin);
  assert.equal(bad.status, 200);
  assert.equal(bad.body.errors?.[0]?.extensions?.code, 'validation-failed', bad.text);
});
