/**
 * Bad input on /v1/query beyond single arguments: bodies that are not JSON objects, references to
 * tables/columns/relationships/roles/functions/collections that do not exist, pathologically deep
 * nesting, and `bulk` requests failing in the middle (metadata byte-identical, no schema change,
 * no rows left behind). Every answer is a 4xx `{path, error, code}`, never a 500.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, age int CHECK (age > 0));
CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author(id));
INSERT INTO author (name, age) VALUES ('a', 1), ('b', 2);
`;

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine();
  t.after(() => e.stop());
  await e.runSql(SCHEMA);
  const ops = [
    { type: 'track_table', args: { schema: 'public', name: 'author' } },
    { type: 'track_table', args: { schema: 'public', name: 'article' } },
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
    { type: 'create_query_collection', args: { name: 'c', definition: { queries: [] } } },
  ];
  for (const q of ops) assert.equal((await e.query(q)).status, 200, JSON.stringify(q));
  return e;
}

/** Metadata export + row count + public tables: what a failed request must leave untouched. */
async function snapshot(e: TestEngine): Promise<string> {
  const md = (await e.query({ type: 'export_metadata', args: {} })).text;
  const db = await e.runSql(`SELECT (SELECT count(*) FROM author), (SELECT string_agg(table_name, ',' ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'public')`);
  return md + JSON.stringify(db.result);
}

test('bodies that are not a query object: invalid JSON, empty, scalars, arrays, wrong content type', async (t) => {
  const e = await setup(t);
  const cases: Array<[string, string, Record<string, string>, number, Record<string, string> | null]> = [
    ['invalid json', '{"type":', {}, 400, { path: '$', error: 'invalid json', code: 'invalid-json' }],
    ['empty body', '', {}, 400, { path: '$', error: 'invalid json', code: 'invalid-json' }],
    ['invalid utf-8', '\u00ff\u00fe', {}, 400, { path: '$', error: 'invalid json', code: 'invalid-json' }],
    ['number', '1', {}, 400, { path: '$', error: 'expected Object, encountered Number', code: 'parse-failed' }],
    ['null', 'null', {}, 400, { path: '$', error: 'expected Object, encountered Null', code: 'parse-failed' }],
    ['string', '"count"', {}, 400, { path: '$', error: 'expected Object, encountered String', code: 'parse-failed' }],
    ['array', '[]', {}, 400, { path: '$', error: 'expected Object, encountered Array', code: 'parse-failed' }],
    ['very deep array', '['.repeat(100_000) + ']'.repeat(100_000), {}, 400, { path: '$', error: 'expected Object, encountered Array', code: 'parse-failed' }],
    // Hasura does not look at the content type: a JSON body is a JSON body
    ['text/plain', '{"type":"count","args":{"table":"author"}}', { 'content-type': 'text/plain' }, 200, null],
  ];
  for (const [label, body, headers, status, expected] of cases) {
    const r = await e.request('POST', '/v1/query', body, headers);
    assert.equal(r.status, status, `${label}: ${r.text}`);
    if (expected) assert.deepEqual(r.body, expected, label);
  }
  assert.deepEqual((await e.query({ type: 'count', args: { table: 'author' } })).body, { count: 2 });
});

test('deeply nested boolean expressions are a 400, not a stack overflow 500', async (t) => {
  const e = await setup(t);
  const deepAnd = '{"$and":['.repeat(3000) + '{}' + ']}'.repeat(3000);
  const deepNot = '{"$not":'.repeat(5000) + '{}' + '}'.repeat(5000);
  for (const where of [deepAnd, deepNot]) {
    const r = await e.request('POST', '/v1/query', `{"type":"select","args":{"table":"author","columns":["id"],"where":${where}}}`);
    assert.equal(r.status, 400, r.text.slice(0, 300));
    assert.deepEqual(r.body, { path: '$', error: 'the request is nested too deeply', code: 'parse-failed' });
  }
  // moderately deep is fine
  const ok = await e.query({ type: 'select', args: { table: 'author', columns: ['id'], where: JSON.parse('{"$not":'.repeat(51) + '{"id":{"$eq":1}}' + '}'.repeat(51)) } });
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.body, [{ id: 2 }]);
});

test('references to things that do not exist: 400 with the Hasura code, metadata and data untouched', async (t) => {
  const e = await setup(t);
  const cases: Array<[unknown, string, string?]> = [
    [{ type: 'track_table', args: { schema: 'public', name: 'nope' } }, 'not-exists', 'no such table/view exists in the database: "nope"'],
    [{ type: 'track_table', args: { schema: 'public', name: 'author' } }, 'already-tracked', 'view/table already tracked: "author"'],
    [{ type: 'untrack_table', args: { table: 'nope' } }, 'already-untracked'],
    [{ type: 'untrack_table', args: { table: 'author' } }, 'dependency-error'],
    [{ type: 'create_select_permission', args: { table: 'article', role: 'r', permission: { columns: ['nope'], filter: {} } } }, 'constraint-violation'],
    [{ type: 'create_select_permission', args: { table: 'article', role: 'r', permission: { columns: '*', filter: { nope: { _eq: 1 } } } } }, 'constraint-violation'],
    [{ type: 'create_select_permission', args: { table: 'article', role: 'r', permission: { columns: '*', filter: { id: { _nope: 1 } } } } }, 'constraint-violation'],
    [{ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: '*', filter: {} } } }, 'permission-error', '\'select\' permission on "author" for role "user" already exists'],
    [{ type: 'drop_select_permission', args: { table: 'author', role: 'nobody' } }, 'permission-error', '\'select\' permission on "author" for role "nobody" does not exist'],
    [{ type: 'set_permission_comment', args: { table: 'author', role: 'nobody', type: 'select', comment: 'x' } }, 'permission-error'],
    [{ type: 'create_object_relationship', args: { table: 'article', name: 'x', using: { foreign_key_constraint_on: 'nope' } } }, 'constraint-error', 'no foreign constraint exists on the given column'],
    [{ type: 'create_object_relationship', args: { table: 'article', name: 'x', using: { manual_configuration: { remote_table: 'nope', column_mapping: { author_id: 'id' } } } } }, 'constraint-violation'],
    [{ type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } }, 'already-exists'],
    [{ type: 'drop_relationship', args: { table: 'article', relationship: 'nope' } }, 'not-exists', 'relationship "nope" does not exist'],
    [{ type: 'rename_relationship', args: { table: 'article', name: 'nope', new_name: 'x' } }, 'not-exists'],
    [{ type: 'rename_relationship', args: { table: 'article', name: 'author', new_name: 'title' } }, 'already-exists'],
    [{ type: 'set_table_custom_fields', args: { table: 'author', custom_column_names: { nope: 'x' } } }, 'constraint-violation'],
    [{ type: 'track_function', args: { schema: 'public', name: 'nope' } }, 'not-exists'],
    [{ type: 'untrack_function', args: { schema: 'public', name: 'nope' } }, 'not-exists'],
    [{ type: 'add_computed_field', args: { table: 'author', name: 'x', definition: { function: 'nope' } } }, 'constraint-violation'],
    [{ type: 'drop_computed_field', args: { table: 'author', name: 'nope' } }, 'not-exists'],
    [{ type: 'add_query_to_collection', args: { collection_name: 'nope', query_name: 'q', query: '{ a }' } }, 'not-exists'],
    [{ type: 'add_collection_to_allowlist', args: { collection: 'nope' } }, 'not-exists'],
    [{ type: 'create_query_collection', args: { name: 'c', definition: { queries: [] } } }, 'already-exists'],
    [{ type: 'replace_metadata', args: { version: 2, tables: [{ table: 'nope' }] } }, 'unexpected', 'cannot continue due to inconsistent metadata'],
    [{ type: 'select', args: { table: 'author', columns: ['nope'] } }, 'not-exists', 'no such column exists: "nope"'],
    [{ type: 'select', args: { table: 'article', columns: ['id', { name: 'nope', columns: ['id'] }] } }, 'not-exists'],
    [{ type: 'select', args: { table: 'author', columns: ['id'], where: { id: { $nope: 1 } } } }, 'unexpected-payload', 'unknown operator: $nope'],
    [{ type: 'select', args: { table: 'author', columns: ['id'], where: { id: { constructor: 'name' } } } }, 'unexpected-payload', 'unknown operator: constructor'],
    [{ type: 'select', args: { table: 'author', columns: ['id'], where: { id: { toString: 1 } } } }, 'unexpected-payload', 'unknown operator: toString'],
    [{ type: 'create_select_permission', args: { table: 'article', role: 'r', permission: { columns: '*', filter: { id: { constructor: 'title' } } } } }, 'constraint-violation'],
    // "__proto__" keys are keys like any other (not a prototype): unknown columns, not an empty mapping
    [{ type: 'create_object_relationship', args: { table: 'article', name: 'x', using: { manual_configuration: { remote_table: 'author', column_mapping: JSON.parse('{"__proto__":"id"}') } } } }, 'constraint-violation'],
    [{ type: 'set_table_custom_fields', args: { table: 'author', custom_column_names: JSON.parse('{"__proto__":"x"}') } }, 'constraint-violation', 'column "__proto__" does not exist'],
    [{ type: 'insert', args: { table: 'author', objects: [{ nope: 1 }] } }, 'not-exists'],
    [{ type: 'insert', args: { table: 'author', objects: [{ name: 'x', age: 'old' }] } }, 'data-exception'],
    [{ type: 'insert', args: { table: 'author', objects: [{ name: 'ok', age: 3 }, { name: 'x', age: -1 }] } }, 'permission-error'],
    [{ type: 'update', args: { table: 'author', where: {}, $set: { nope: 1 } } }, 'not-exists'],
    [{ type: 'update', args: { table: 'author', where: {}, $inc: { name: 1 } } }, 'unexpected-payload', '"name" is of type "text"; $inc works only on numeric columns'],
    [{ type: 'update', args: { table: 'author', where: {}, $mul: { name: 2 } } }, 'unexpected-payload', '"name" is of type "text"; $mul works only on numeric columns'],
    [{ type: 'delete', args: { table: 'author', where: { nope: { $eq: 1 } } } }, 'not-exists'],
    [{ type: 'count', args: { table: 'author', distinct: ['nope'] } }, 'not-exists'],
  ];
  for (const [body, code, message] of cases) {
    const before = await snapshot(e);
    const r = await e.query(body);
    assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.equal(r.body.code, code, `${JSON.stringify(body)}: ${r.text}`);
    assert.equal(typeof r.body.path, 'string');
    if (message) assert.equal(r.body.error, message, JSON.stringify(body));
    assert.equal(await snapshot(e), before, `${JSON.stringify(body)} changed metadata or data`);
  }
});

test('bulk failing in the middle: export_metadata byte-identical, no table created, no row inserted', async (t) => {
  const e = await setup(t);
  const before = await snapshot(e);
  const graphqlBefore = (await e.graphql('{ __schema { queryType { fields { name } } } }')).text;
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'run_sql', args: { sql: 'CREATE TABLE made_in_bulk (id int PRIMARY KEY)' } },
      { type: 'track_table', args: { schema: 'public', name: 'made_in_bulk' } },
      { type: 'create_select_permission', args: { table: 'article', role: 'bulk_role', permission: { columns: '*', filter: {} } } },
      { type: 'insert', args: { table: 'author', objects: [{ name: 'bulk row', age: 9 }] } },
      { type: 'drop_relationship', args: { table: 'article', relationship: 'nope' } },
      { type: 'create_select_permission', args: { table: 'article', role: 'after', permission: { columns: '*', filter: {} } } },
    ],
  });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { path: '$.args[4].args.relationship', error: 'relationship "nope" does not exist', code: 'not-exists' });
  assert.equal(await snapshot(e), before);
  assert.equal((await e.graphql('{ __schema { queryType { fields { name } } } }')).text, graphqlBefore);
  // an op that fails to decode fails the whole bulk before anything runs
  const undecodable = await e.query({ type: 'bulk', args: [{ type: 'run_sql', args: { sql: 'CREATE TABLE t2 (id int)' } }, { type: 'track_table', args: 5 }] });
  assert.equal(undecodable.status, 400);
  assert.equal(undecodable.body.code, 'parse-failed');
  assert.equal(await snapshot(e), before);
});
