/**
 * Bad input on /v1/graphql: malformed bodies, bad queries and variables, deep nesting, batches
 * with bad members, and Postgres failures caused by a non-admin role. Every answer is HTTP 200
 * with `{errors:[{extensions:{path,code},message}]}` (DECISIONS 9), never an `unexpected` error,
 * never SQL or internals for a non-admin; a failed multi-root mutation leaves no rows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type HttpResult, type TestEngine } from './harness.js';

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL UNIQUE, age int CHECK (age > 0));
CREATE TABLE article (id serial PRIMARY KEY, title text CHECK (title <> 'bad'), author_id int REFERENCES author(id));
CREATE TABLE boom (id serial PRIMARY KEY, v int);
CREATE FUNCTION boom_trg() RETURNS trigger AS $$ BEGIN PERFORM 1 / 0; RETURN NEW; END $$ LANGUAGE plpgsql;
CREATE TRIGGER boom_t BEFORE INSERT ON boom FOR EACH ROW EXECUTE FUNCTION boom_trg();
CREATE VIEW ratio AS SELECT id, 10 / (id - 1) AS q FROM author;
INSERT INTO author (name, age) VALUES ('a', 1), ('b', 2);
`;

const USER = { 'x-svc-role': 'user' };

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine({ adminSecret: 'gql-secret' });
  t.after(() => e.stop());
  await e.runSql(SCHEMA);
  for (const name of ['author', 'article', 'boom', 'ratio']) assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name } })).status, 200);
  for (const table of ['author', 'article', 'boom']) {
    for (const [kind, permission] of [['insert', { check: {}, columns: '*' }], ['select', { columns: '*', filter: {} }], ['update', { columns: '*', filter: {} }]] as const) {
      assert.equal((await e.query({ type: `create_${kind}_permission`, args: { table, role: 'user', permission } })).status, 200);
    }
  }
  assert.equal((await e.query({ type: 'create_select_permission', args: { table: 'ratio', role: 'user', permission: { columns: '*', filter: {} } } })).status, 200);
  const rels = [
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  ];
  for (const q of rels) assert.equal((await e.query(q)).status, 200);
  return e;
}

/** Asserts the GraphQL error shape and returns the first error. */
function gqlError(label: string, r: HttpResult): { message: string; extensions: { path: string; code: string; internal?: unknown } } {
  assert.equal(r.status, 200, `${label}: ${r.text}`);
  assert.ok(Array.isArray(r.body?.errors), `${label}: ${r.text.slice(0, 300)}`);
  const err = r.body.errors[0];
  assert.equal(typeof err.message, 'string', label);
  assert.equal(typeof err.extensions?.path, 'string', label);
  assert.equal(typeof err.extensions?.code, 'string', label);
  assert.notEqual(err.extensions.code, 'unexpected', `${label}: ${r.text.slice(0, 300)}`);
  return err;
}

test('malformed request bodies', async (t) => {
  const e = await setup(t);
  const cases: Array<[string, string, string, string, string]> = [
    ['invalid json', '{"query":', '$', 'invalid-json', 'invalid json'],
    ['empty body', '', '$', 'invalid-json', 'invalid json'],
    ['number', '1', '$', 'parse-failed', 'expected Object, encountered Number'],
    ['null', 'null', '$', 'parse-failed', 'expected Object, encountered Null'],
    ['no query', '{}', '$', 'parse-failed', 'key "query" not found'],
    ['query null', '{"query":null}', '$.query', 'parse-failed', 'expected Text, encountered Null'],
    ['variables array', '{"query":"{ author { id } }","variables":[]}', '$.variables', 'parse-failed', 'expected Object for variables'],
    ['operationName number', '{"query":"{ author { id } }","operationName":1}', '$.operationName', 'parse-failed', 'expected Text for operationName'],
    ['batch with a bad member', '[{"query":"{ author { id } }"},1]', '$[1]', 'parse-failed', 'expected Object, encountered Number'],
  ];
  for (const [label, body, path, code, message] of cases) {
    const err = gqlError(label, await e.request('POST', '/v1/graphql', body, USER));
    assert.deepEqual(err, { extensions: { path, code }, message }, label);
  }
  // a batch answers each member on its own
  const batch = await e.request('POST', '/v1/graphql', [{ query: '{ author(order_by: {id: asc}) { id } }' }, { query: '{ nope }' }], USER);
  assert.equal(batch.status, 200);
  assert.deepEqual(batch.body[0], { data: { author: [{ id: 1 }, { id: 2 }] } });
  assert.equal(batch.body[1].errors[0].extensions.code, 'validation-failed');
});

test('bad operations, fields, arguments and variables', async (t) => {
  const e = await setup(t);
  const idQuery = 'query ($id: Int!) { author(where: {id: {_eq: $id}}) { id } }';
  const cases: Array<[string, Record<string, unknown>, string, string?]> = [
    ['syntax error', { query: '{ author { id ' }, 'validation-failed', 'not a valid graphql query'],
    ['empty query', { query: '' }, 'validation-failed'],
    ['unknown operationName', { query: 'query A { author { id } }', operationName: 'B' }, 'validation-failed', 'no such operation found in the document: "B"'],
    ['several operations, no operationName', { query: 'query A { author { id } } query B { author { id } }' }, 'validation-failed', 'exactly one operation has to be present in the document when operationName is not specified'],
    ['unknown root field', { query: '{ nope { id } }' }, 'validation-failed', 'field "nope" not found in type: \'query_root\''],
    ['unknown column', { query: '{ author { nope } }' }, 'validation-failed', 'field "nope" not found in type: \'author\''],
    ['unknown argument', { query: '{ author(nope: 1) { id } }' }, 'validation-failed', 'no such argument "nope" is expected'],
    ['argument of the wrong type', { query: '{ author(limit: "x") { id } }' }, 'validation-failed'],
    ['unknown operator', { query: '{ author(where: {id: {_nope: 1}}) { id } }' }, 'validation-failed'],
    ['missing required variable', { query: idQuery }, 'validation-failed', 'expecting a value for non-nullable variable: "id" of type: Int! in variableValues'],
    ['null for a non-null variable', { query: idQuery, variables: { id: null } }, 'validation-failed'],
    ['object for an Int variable', { query: idQuery, variables: { id: { a: 1 } } }, 'validation-failed', 'expected a 32-bit integer for type "Int", but found an object'],
    ['string for an Int variable', { query: idQuery, variables: { id: 'x' } }, 'validation-failed', 'expected a 32-bit integer for type "Int", but found a string'],
    ['undeclared variable', { query: '{ author(where: {id: {_eq: $id}}) { id } }', variables: { id: 1 } }, 'validation-failed'],
    ['unknown variable type', { query: 'query ($id: Nope) { author { id } }', variables: { id: 1 } }, 'validation-failed'],
    ['selection on a scalar', { query: '{ author { id { x } } }' }, 'validation-failed'],
    ['fragment cycle', { query: 'fragment F on author { ...G } fragment G on author { ...F } { author { ...F } }' }, 'validation-failed'],
    ['unknown directive', { query: '{ author @nope { id } }' }, 'validation-failed'],
    ['mutation field that does not exist', { query: 'mutation { nope }' }, 'validation-failed'],
    ['subscription over HTTP', { query: 'subscription { author { id } }' }, 'unexpected-payload'],
    ['role that has no permissions', { query: '{ author { id } }' }, 'validation-failed'],
  ];
  for (const [label, body, code, message] of cases) {
    const headers = label.startsWith('role') ? { 'x-svc-role': 'ghost' } : USER;
    const err = gqlError(label, await e.request('POST', '/v1/graphql', body, headers));
    assert.equal(err.extensions.code, code, `${label}: ${err.message}`);
    if (message) assert.equal(err.message, message, label);
  }
  // a variable named like an Object.prototype member is just a variable
  const proto = await e.request('POST', '/v1/graphql', '{"query":"query ($__proto__: Int) { author(where: {id: {_eq: $__proto__}}) { id } }","variables":{"__proto__":1}}', USER);
  assert.deepEqual(proto.body, { data: { author: [{ id: 1 }] } });
  const toStr = await e.request('POST', '/v1/graphql', { query: 'query ($toString: Int!) { author(where: {id: {_eq: $toString}}) { id } }' }, USER);
  assert.equal(gqlError('toString variable', toStr).extensions.code, 'validation-failed');
});

test('deep nesting is a clear validation error, never a crash', async (t) => {
  const e = await setup(t);
  const deep = [
    ['deep selection', '{ ' + 'author { '.repeat(3000) + 'id' + ' }'.repeat(3000) + ' }'],
    ['deep where', '{ author(where: ' + '{_and: ['.repeat(3000) + '{}' + ']}'.repeat(3000) + ') { id } }'],
    ['deep list value', '{ author(where: {id: {_in: ' + '['.repeat(5000) + ']'.repeat(5000) + '}}) { id } }'],
  ];
  for (const [label, query] of deep) {
    const err = gqlError(label!, await e.request('POST', '/v1/graphql', { query }, USER));
    assert.deepEqual(err, { extensions: { path: '$', code: 'validation-failed' }, message: 'the request is nested too deeply' }, label);
  }
  const deepVar = '{"query":"query ($w: author_bool_exp) { author(where: $w) { id } }","variables":{"w":' + '{"_not":'.repeat(5000) + '{}' + '}'.repeat(5000) + '}}';
  const err = gqlError('deep variable', await e.request('POST', '/v1/graphql', deepVar, USER));
  assert.equal(err.message, 'the request is nested too deeply');
  // a query too big for Postgres' own limits (stack depth) is a 4xx-style error too, without internals
  // (or, should the engine ever build a flatter statement, simply the data)
  const aliases = '{ ' + Array.from({ length: 5000 }, (_, i) => `a${i}: author { id }`).join(' ') + ' }';
  const big = await e.graphql(aliases, undefined, USER);
  if (big.body.errors) {
    const err = gqlError('5000 root fields', big);
    assert.ok(
      err.message === 'the request is nested too deeply' || err.message === 'the request is too large or too complex for the database: stack depth limit exceeded'
        || err.message.startsWith('the query is too large'), // the hard bounds (tokens, work) refuse it before SQL
      err.message,
    );
    assert.equal(err.extensions.internal, undefined);
  } else {
    assert.equal(Object.keys(big.body.data).length, 5000);
  }
  // a reasonable depth still works
  const ok = await e.graphql('{ author(where: ' + '{_not: '.repeat(41) + '{id: {_eq: 1}}' + '}'.repeat(41) + ') { id } }', undefined, USER);
  assert.deepEqual(ok.body, { data: { author: [{ id: 2 }] } });
});

test('Postgres errors caused by a non-admin role: Hasura message and code, no SQL or internals', async (t) => {
  const e = await setup(t);
  const cases: Array<[string, string, string, string]> = [
    ['division by zero in a view', '{ ratio { q } }', 'data-exception', 'division by zero'],
    ['division by zero in a trigger', 'mutation { insert_boom(objects: [{v: 1}]) { affected_rows } }', 'data-exception', 'division by zero'],
    ['check constraint', 'mutation { insert_author(objects: [{name: "z", age: -1}]) { affected_rows } }', 'permission-error', 'Check constraint violation. new row for relation "author" violates check constraint "author_age_check"'],
    ['unique constraint', 'mutation { insert_author(objects: [{name: "a"}]) { affected_rows } }', 'constraint-violation', 'Uniqueness violation. duplicate key value violates unique constraint "author_name_key"'],
    ['foreign key', 'mutation { insert_article(objects: [{title: "t", author_id: 999}]) { affected_rows } }', 'constraint-violation', 'Foreign key violation. insert or update on table "article" violates foreign key constraint "article_author_id_fkey"'],
    ['integer overflow', 'mutation { update_author(where: {}, _inc: {age: 2147483647}) { affected_rows } }', 'data-exception', 'integer out of range'],
  ];
  for (const [label, query, code, message] of cases) {
    const r = await e.graphql(query, undefined, USER);
    const err = gqlError(label, r);
    assert.equal(err.extensions.code, code, `${label}: ${r.text}`);
    assert.equal(err.message, message, label);
    assert.equal(err.extensions.internal, undefined, label);
    assert.doesNotMatch(r.text, /SELECT|INSERT INTO|statement|_svc_|\$1|stack/, label);
  }
});

test('failed mutations leave no rows: multi-root, nested parent/child inserts, insert then bad update/delete', async (t) => {
  const e = await setup(t);
  const rows = async () => (await e.runSql('SELECT (SELECT count(*) FROM author), (SELECT count(*) FROM article)')).result[1];
  const cases: Array<[string, string, string]> = [
    ['second root field fails', 'mutation { a: insert_author(objects: [{name: "m1", age: 5}]) { affected_rows } b: insert_author(objects: [{name: "m2", age: -5}]) { affected_rows } }', 'permission-error'],
    ['nested object insert fails', 'mutation { insert_article(objects: [{title: "ok", author: {data: {name: "n1", age: -1}}}]) { affected_rows } }', 'permission-error'],
    ['nested array insert fails', 'mutation { insert_author(objects: [{name: "n2", age: 1, articles: {data: [{title: "fine"}, {title: "bad"}]}}]) { affected_rows } }', 'permission-error'],
    ['insert, then an update that fails', 'mutation { a: insert_author_one(object: {name: "n3", age: 1}) { id } b: update_author(where: {}, _set: {age: -5}) { affected_rows } }', 'permission-error'],
    ['insert, then an update with a bad value', 'mutation { a: insert_author_one(object: {name: "n4", age: 1}) { id } b: update_author(where: {id: {_eq: "x"}}, _set: {age: 3}) { affected_rows } }', 'validation-failed'],
    ['insert, then an update that overflows in Postgres', 'mutation { a: insert_author_one(object: {name: "n5", age: 1}) { id } b: update_author(where: {}, _inc: {age: 2147483647}) { affected_rows } }', 'data-exception'],
  ];
  for (const headers of [USER, {}]) {
    for (const [label, mutation, code] of cases) {
      const err = gqlError(label, await e.graphql(mutation, undefined, headers));
      assert.equal(err.extensions.code, code, label);
      assert.deepEqual(await rows(), ['2', '0'], `${label}: rows left behind`);
    }
  }
  assert.deepEqual((await e.graphql('{ author(order_by: {id: asc}) { name age } }')).body, { data: { author: [{ name: 'a', age: 1 }, { name: 'b', age: 2 }] } });
});
