import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { getRoleSchema } from '../../../src/graphql/index.js';
import { getCompiledOperation } from '../../../src/planner/index.js';
import { makeCache } from '../graphql/fixtures.js';
import { ENGINE_PARTS } from '../../../src/appState.js';

function compiled(sc: ReturnType<typeof makeCache>, query: string, variables?: Record<string, unknown>, role = 'admin') {
  return getCompiledOperation({ cache: sc, roleSchema: getRoleSchema(sc, role, ENGINE_PARTS.schema), request: { query, variables }, stringifyNumericTypes: false, planners: ENGINE_PARTS.planners });
}

test('the same query with new scalar values reuses the compiled plan', () => {
  const sc = makeCache();
  const q = 'query ($id: Int) { author(where: {id: {_eq: $id}}) { id name } }';
  const a = compiled(sc, q, { id: 1 });
  const b = compiled(sc, q, { id: 2 });
  assert.equal(a.compiled, b.compiled);
  assert.deepEqual(b.variables, { id: 2 });
  const f = a.compiled.fields[0];
  assert.ok(f.kind === 'sql');
  assert.match(f.text, /\$1/);
  assert.deepEqual(f.params[0].source, { kind: 'variable', name: 'id', path: [] });
});

test('a null variable, another where shape, or another role gets its own plan', () => {
  const sc = makeCache();
  const q = 'query ($id: Int) { author(where: {id: {_eq: $id}}) { id } }';
  assert.notEqual(compiled(sc, q, { id: 1 }).compiled, compiled(sc, q, { id: null }).compiled);
  const w = 'query ($w: author_bool_exp) { author(where: $w) { id } }';
  const byId = compiled(sc, w, { w: { id: { _eq: 1 } } }).compiled;
  assert.equal(byId, compiled(sc, w, { w: { id: { _eq: 7 } } }).compiled);
  assert.notEqual(byId, compiled(sc, w, { w: { name: { _eq: 'x' } } }).compiled);
  assert.notEqual(compiled(sc, '{ author { id } }').compiled, compiled(sc, '{ author { id } }', undefined, 'user').compiled);
});

test('values baked into SQL (json path) are part of the key', () => {
  const sc = makeCache();
  const q = 'query ($p: String) { article { tags(path: $p) } }';
  const a = compiled(sc, q, { p: 'a' }).compiled;
  const b = compiled(sc, q, { p: 'b' }).compiled;
  assert.notEqual(a, b);
  assert.equal(a, compiled(sc, q, { p: 'a' }).compiled);
});

test('a new schema cache starts with no plans', () => {
  const q = '{ author { id } }';
  assert.notEqual(compiled(makeCache(), q).compiled, compiled(makeCache(), q).compiled);
});

test('variables are re-validated and limit values re-checked on cache hits', () => {
  const sc = makeCache();
  const q = 'query ($l: Int) { author(limit: $l) { id } }';
  compiled(sc, q, { l: 1 });
  assert.throws(() => compiled(sc, q, { l: -3 }), (e: ApiError) => e.path === '$.selectionSet.author.args.limit');
  assert.throws(() => compiled(sc, q, { l: true }), (e: ApiError) => e.code === 'validation-failed' && e.path === '$.variableValues.l'
    && e.message === 'expected a 32-bit integer for type "Int", but found a boolean');
  assert.throws(() => compiled(sc, q, { l: 2147483648 }), (e: ApiError) => e.code === 'validation-failed' && e.path === '$.variableValues.l');
});
