/**
 * The document cost counters and limits: figures after fragment expansion computed
 * without expanding (a 60-level fragment bomb is measured, not walked), saturation, cycles, the
 * hard bounds (tokens, work, depth, introspection nesting), per-role limit resolution and the
 * walker's own budget.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kind, parse, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { ApiError } from '../../../src/core/index.js';
import {
  HARD_BOUNDS, checkBatchSize, checkOperationCost, getRoleSchema, limitsForRole, measureOperation, validateRequest,
} from '../../../src/graphql/index.js';
import { OBJECT_FIELD_WORK } from '../../../src/graphql/request/documentCost.js';
import { fragmentBomb } from '../../support/attackDocuments.js';
import { makeCache } from './fixtures.js';
import { ENGINE_PARTS } from '../../../src/appState.js';

function cost(query: string) {
  const doc = parse(query);
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const frags = doc.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION);
  return measureOperation(op, frags);
}

function errorOf(fn: () => unknown): { path?: string; code: string; message: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ApiError, String(e));
    return { path: e.path, code: e.code, message: e.message };
  }
  return assert.fail('expected an error');
}

test('nodes, depth and work count fields after fragment expansion', () => {
  assert.deepEqual(cost('{ a { b c { d } } }'), { nodes: 4, depth: 3, work: 2 * OBJECT_FIELD_WORK + 2, introspectionNesting: 0 });
  // a fragment spread twice counts twice; its depth adds to the depth where it is spread
  const c = cost('{ a { ...F x: a { ...F } } } fragment F on T { b c { d } }');
  assert.equal(c.nodes, 1 + 3 + 1 + 3);
  assert.equal(c.depth, 4);
  assert.equal(c.work, OBJECT_FIELD_WORK * 2 + (OBJECT_FIELD_WORK + 2 + 1) * 2);
  // inline fragments add no depth
  assert.equal(cost('{ a { ... on T { ... on T { b } } } }').depth, 2);
  // unknown fragments count nothing (the walker reports them)
  assert.equal(cost('{ a { ...Nope } }').nodes, 1);
});

test('a fragment bomb is measured exactly, in linear time, without expanding it', () => {
  const t0 = performance.now();
  const c = cost(fragmentBomb(24));
  assert.equal(c.nodes, 1 + (2 ** 25 - 1)); // `t` + one `id` per F_i instance: 1 + 2 + 4 + ... + 2^24
  assert.equal(c.depth, 2);
  const huge = cost(fragmentBomb(1100)); // 2^1100 overflows doubles: counts saturate instead
  assert.equal(huge.nodes, Number.MAX_SAFE_INTEGER);
  assert.ok(Number.isFinite(huge.work));
  // Expanded, fragmentBomb(1100) would never finish; the bound is loose so a loaded CI machine passes.
  assert.ok(performance.now() - t0 < 5000, 'measured in a few seconds at most, not expanded');
});

test('fragment cycles terminate', () => {
  const c = cost('{ a { ...A } } fragment A on T { x ...B } fragment B on T { y ...A }');
  assert.equal(c.nodes, 3);
});

test('introspection nesting counts fields/inputFields/interfaces/possibleTypes under __schema and __type only', () => {
  assert.equal(cost('{ __schema { types { fields { type { fields { name } } } } } }').introspectionNesting, 2);
  assert.equal(cost('{ __type(name: "x") { fields { type { fields { type { fields { name } } } } } } }').introspectionNesting, 3);
  assert.equal(cost('{ fields { fields { fields { fields { id } } } } }').introspectionNesting, 0);
  assert.equal(cost('{ __schema { ...S } } fragment S on __Schema { types { interfaces { possibleTypes { inputFields { name } } } } }').introspectionNesting, 3);
});

test('hard bounds refuse with validation-failed at $', () => {
  assert.deepEqual(errorOf(() => checkOperationCost({ nodes: 1, work: 1, depth: HARD_BOUNDS.depth + 1, introspectionNesting: 0 })),
    { path: '$', code: 'validation-failed', message: 'the request is nested too deeply' });
  const big = errorOf(() => checkOperationCost({ nodes: 1, work: HARD_BOUNDS.work + 1, depth: 1, introspectionNesting: 0 }));
  assert.equal(big.code, 'validation-failed');
  assert.match(big.message, /^the query is too large/);
  assert.match(errorOf(() => checkOperationCost({ nodes: 1, work: 1, depth: 1, introspectionNesting: 3 })).message, /introspection query nests .* 3 levels deep/);
  checkOperationCost({ nodes: 1, work: HARD_BOUNDS.work, depth: HARD_BOUNDS.depth, introspectionNesting: 2 });
});

test('role limits: per_role, then global, then the flags; admin only by its own per_role entry; disabled', () => {
  const md = { depth_limit: { global: 5, per_role: { user: 3, admin: 9 } }, node_limit: { global: 100 } };
  const flags = { queryDepthLimit: 50, queryNodeLimit: 1000, queryBatchLimit: 4 };
  assert.deepEqual(limitsForRole(md, flags, 'user'), { role: 'user', depth: 3, nodes: 100, batch: 4 });
  assert.deepEqual(limitsForRole(md, flags, 'editor'), { role: 'editor', depth: 5, nodes: 100, batch: 4 });
  assert.deepEqual(limitsForRole(md, flags, 'admin'), { role: 'admin', depth: 9, nodes: undefined, batch: undefined });
  assert.deepEqual(limitsForRole(undefined, flags, 'admin'), { role: 'admin', depth: undefined, nodes: undefined, batch: undefined });
  assert.deepEqual(limitsForRole({ ...md, disabled: true }, flags, 'user'), { role: 'user', depth: 50, nodes: 1000, batch: 4 });
  assert.deepEqual(limitsForRole(undefined, {}, 'user'), { role: 'user', depth: undefined, nodes: undefined, batch: undefined });
  // a role named like an Object.prototype key is not confused with one
  assert.equal(limitsForRole(md, {}, 'constructor').depth, 5);
});

test('user limits name the limit and the role', () => {
  const limits = { role: 'user', depth: 2, nodes: 3, batch: 2 };
  assert.deepEqual(errorOf(() => checkOperationCost({ nodes: 1, work: 1, depth: 3, introspectionNesting: 0 }, limits)),
    { path: '$', code: 'validation-failed', message: 'the query depth 3 exceeds the depth limit of 2 for role "user"' });
  assert.deepEqual(errorOf(() => checkOperationCost({ nodes: 4, work: 1, depth: 1, introspectionNesting: 0 }, limits)),
    { path: '$', code: 'validation-failed', message: 'the query selects 4 fields, more than the node limit of 3 for role "user"' });
  checkOperationCost({ nodes: 3, work: 1, depth: 2, introspectionNesting: 0 }, limits);
  assert.deepEqual(errorOf(() => checkBatchSize(3, limits)),
    { path: '$', code: 'validation-failed', message: 'the batch has 3 operations, more than the batch limit of 2 for role "user"' });
  checkBatchSize(2, limits);
});

test('validation runs the bounds before walking: a bomb on the real validator is refused quickly', () => {
  const rs = getRoleSchema(makeCache(), 'admin', ENGINE_PARTS.schema);
  const t0 = performance.now();
  const err = errorOf(() => validateRequest(rs, { query: fragmentBomb(24, 'author').replace('{ t {', '{ author {') }));
  assert.match(err.message, /^the query is too large/);
  assert.ok(performance.now() - t0 < 1000);
  // the limits passed in apply
  assert.match(errorOf(() => validateRequest(rs, { query: '{ author { id articles { id } } }' }, { role: 'admin', depth: 1 })).message, /depth limit of 1 for role "admin"/);
  // cycles still get Hasura's message
  assert.match(errorOf(() => validateRequest(rs, { query: '{ author { ...A } } fragment A on author { id ...B } fragment B on author { ...A }' })).message, /cannot spread fragment "A" within itself/);
});

test('the parser stops at the token bound with a message that says so', () => {
  const rs = getRoleSchema(makeCache(), 'admin', ENGINE_PARTS.schema);
  const query = `{ author { ${'id '.repeat(HARD_BOUNDS.tokens)}} }`;
  assert.deepEqual(errorOf(() => validateRequest(rs, { query })),
    { path: '$.query', code: 'validation-failed', message: `the query is too large: it has more than ${HARD_BOUNDS.tokens} tokens` });
});

test('the standard introspection query (graphql-js getIntrospectionQuery, all options) stays well inside the hard bounds', async () => {
  const { getIntrospectionQuery } = await import('graphql');
  const c = cost(getIntrospectionQuery({ descriptions: true, specifiedByUrl: true, directiveIsRepeatable: true, schemaDescription: true, inputValueDeprecation: true }));
  checkOperationCost(c);
  assert.ok(c.work * 4 < HARD_BOUNDS.work, `work ${c.work}`);
  assert.equal(c.introspectionNesting, 1);
});
