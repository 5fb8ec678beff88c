import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { getRoleSchema, validateRequest, type NField } from '../../../src/graphql/index.js';
import { makeCache } from './fixtures.js';
import { ENGINE_PARTS } from '../../../src/appState.js';

const sc = makeCache();

function errorOf(query: string, opts: { role?: string; variables?: Record<string, unknown>; operationName?: string } = {}) {
  try {
    validateRequest(getRoleSchema(sc, opts.role ?? 'admin', ENGINE_PARTS.schema), { query, variables: opts.variables, operationName: opts.operationName });
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return { path: e.path, code: e.code, message: e.message };
  }
  assert.fail('expected a validation error');
}

const ok = (query: string, opts: { role?: string; variables?: Record<string, unknown> } = {}) =>
  validateRequest(getRoleSchema(sc, opts.role ?? 'admin', ENGINE_PARTS.schema), { query, variables: opts.variables });

const shape = (fs: NField[]): unknown => fs.map((f) => (f.selection ? { [f.alias]: shape(f.selection) } : f.alias));

test('unknown fields use Hasura messages and paths', () => {
  assert.deepEqual(errorOf('query { random { id } }'),
    { path: '$.selectionSet.random', code: 'validation-failed', message: 'field "random" not found in type: \'query_root\'' });
  assert.deepEqual(errorOf('{ author { id name notPresentCol } }'),
    { path: '$.selectionSet.author.selectionSet.notPresentCol', code: 'validation-failed', message: 'field "notPresentCol" not found in type: \'author\'' });
  assert.deepEqual(errorOf('{ author(where: {id: {_ne: 1}}) { id } }'),
    { path: '$.selectionSet.author.args.where.id._ne', code: 'validation-failed', message: 'field "_ne" not found in type: \'Int_comparison_exp\'' });
  assert.equal(errorOf('{ author { remarks } }', { role: 'user' }).message, 'field "remarks" not found in type: \'author\'');
});

test('arguments, sub-selections and enum values are checked', () => {
  assert.deepEqual(errorOf('{ author_by_pk { id } }'),
    { path: '$.selectionSet.author_by_pk.args', code: 'validation-failed', message: 'the required argument "id" is missing' });
  assert.equal(errorOf('{ author(foo: 1) { id } }').message, 'no such argument "foo" is expected');
  assert.equal(errorOf('{ author { articles } }').message, 'field "articles" of type [article!]! must have a selection of subfields');
  assert.equal(errorOf('{ author { id { x } } }').message, 'field "id" must not have a selection since type Int! has no subfields');
  assert.deepEqual(errorOf('{ author(order_by: {id: up}) { id } }'),
    { path: '$.selectionSet.author.args.order_by[0].id', code: 'validation-failed', message: 'unexpected value "up" for enum: \'order_by\'' });
});

test('operation selection follows Hasura rules', () => {
  assert.equal(errorOf('query A { author { id } } query B { author { id } }').message,
    'exactly one operation has to be present in the document when operationName is not specified');
  assert.equal(errorOf('query A { author { id } }', { operationName: 'C' }).message, 'no such operation found in the document: "C"');
  assert.equal(errorOf('{ author { id } } query B { author { id } }', { operationName: 'B' }).message,
    'operationName cannot be used when an anonymous operation exists in the document');
  assert.deepEqual(errorOf('mutation { x }', { role: 'anon' }), { path: '$', code: 'validation-failed', message: 'no mutations exist' });
  assert.deepEqual(errorOf('{ author { id }'), { path: '$.query', code: 'validation-failed', message: 'not a valid graphql query' });
});

test('variables are checked against their declarations', () => {
  assert.deepEqual(errorOf('query ($x: Int!) { author { id } }'),
    { path: '$.variableValues', code: 'validation-failed', message: 'expecting a value for non-nullable variable: "x" of type: Int! in variableValues' });
  assert.equal(errorOf('query ($x: Int) { author { id } }', { variables: { y: 1 } }).message, 'unexpected variables in variableValues: "y"');
  assert.equal(errorOf('query ($id: String) { author(where: {id: {_eq: $id}}) { id } }').message,
    'variable id of type String is used in position expecting Int');
  assert.equal(errorOf('query { author(where: {id: {_eq: $nope}}) { id } }').message, 'no such variable defined in the operation: "nope"');
  assert.deepEqual(errorOf('query ($x: Int!) { author(limit: $x) { id } }', { variables: { x: null } }),
    { path: '$.variableValues.x', code: 'validation-failed', message: 'null value found for non-nullable type: Int!' });
});

test('fragments: named, inline, top-level, cycles', () => {
  const op = ok(`query { author { ...A ... on author { name } } ...Top }
    fragment A on author { id articles { title } }
    fragment Top on query_root { author { id } article { id } }`);
  assert.deepEqual(shape(op.fields), [{ author: ['id', { articles: ['title'] }, 'name'] }, { article: ['id'] }]);
  assert.deepEqual(errorOf(`query { author { ...authorFragment } }
    fragment authorFragment on author { id name articles { ...articleFragment } }
    fragment articleFragment on article { title author { ...authorFragment } }`), {
    path: '$.selectionSet.author.selectionSet.authorFragment.selectionSet.articles.selectionSet.articleFragment.selectionSet.author.selectionSet',
    code: 'validation-failed',
    message: 'cannot spread fragment "authorFragment" within itself via articleFragment,authorFragment',
  });
  assert.equal(errorOf('{ author { ...Missing } }').message, "fragment 'Missing' not found");
  assert.equal(errorOf('{ author { ... on article { id } } }').message,
    "cannot spread fragment  defined on 'article' when selecting fields of type 'author'");
});

test('@skip and @include remove fields; same-alias fields merge', () => {
  const op = ok('query ($s: Boolean!, $i: Boolean!) { author { id @skip(if: $s) name @include(if: $i) big } author { createdAt } }', { variables: { s: true, i: false } });
  assert.deepEqual(shape(op.fields), [{ author: ['big', 'createdAt'] }]);
  assert.equal(errorOf('{ a: author { id } a: article { id } }').message, 'cannot merge different fields under the same alias ("a"): "author", "article"');
  assert.equal(errorOf('{ author(limit: 1) { id } author(limit: 2) { id } }').message,
    'cannot merge fields with different arguments under the same alias: "author"');
});

test('values from variables keep a reference to the variable', () => {
  const op = ok('query ($w: author_bool_exp) { author(where: $w) { id } }', { variables: { w: { id: { _eq: 3 } } } });
  const where = op.fields[0].args.get('where')!;
  assert.equal(where.kind, 'object');
  const eq = where.kind === 'object' && where.fields[0][1].kind === 'object' ? where.fields[0][1].fields[0][1] : undefined;
  assert.deepEqual(eq?.variable, { name: 'w', path: ['id', '_eq'] });
});

test('@skip / @include apply before the field is looked up (Hasura Collect.hs): with variables and fragments', () => {
  // `remarks` is hidden from `user`: left out unchecked when skipped, an error when kept.
  const hidden = 'query ($v: Boolean!) { author { id remarks @include(if: $v) nope(x: 1) @skip(if: true) { y } } }';
  assert.deepEqual(shape(ok(hidden, { role: 'user', variables: { v: false } }).fields), [{ author: ['id'] }]);
  assert.deepEqual(errorOf(hidden, { role: 'user', variables: { v: true } }),
    { path: '$.selectionSet.author.selectionSet.remarks', code: 'validation-failed', message: 'field "remarks" not found in type: \'author\'' });
  assert.deepEqual(shape(ok('query ($v: Boolean!) { author { id nope @skip(if: $v) } }', { variables: { v: true } }).fields), [{ author: ['id'] }]);
  assert.equal(errorOf('query ($v: Boolean!) { author { id nope @skip(if: $v) } }', { variables: { v: false } }).message, 'field "nope" not found in type: \'author\'');
  // Fragments: a skipped spread or inline fragment is not walked, nor its type condition looked up.
  const frag = `query ($v: Boolean!) { author { id ...Secret @include(if: $v) ... on nowhere @skip(if: true) { x } ... @include(if: $v) { remarks } } }
    fragment Secret on author { remarks }`;
  assert.deepEqual(shape(ok(frag, { role: 'user', variables: { v: false } }).fields), [{ author: ['id'] }]);
  assert.equal(errorOf(frag, { role: 'user', variables: { v: true } }).message, 'field "remarks" not found in type: \'author\'');
  // The directives themselves, and their variables, are still checked.
  assert.equal(errorOf('{ author { id nope @skip(if: $undeclared) } }').message, 'no such variable defined in the operation: "undeclared"');
  assert.deepEqual(errorOf('query ($v: Boolean!) { author { nope @include(if: $v) } }', { variables: { v: 'no' } }).code, 'validation-failed');
  assert.equal(errorOf('{ author { nope @skip(if: true) @skip(if: true) } }').message, 'the following directives are used more than once: "skip"');
  assert.equal(errorOf('{ author { nope @skip(if: 1) } }').code, 'validation-failed');
  assert.equal(errorOf('{ author { nope @other } }').message, 'unexpected directive: "other"');
});
