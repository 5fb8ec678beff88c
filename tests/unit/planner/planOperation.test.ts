import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { getRoleSchema, validateRequest } from '../../../src/graphql/index.js';
import { planOperation, parseJsonPath, type RootFieldPlan } from '../../../src/planner/index.js';
import type { SelectIR, AggregateIR, BoolExp } from '../../../src/ir/index.js';
import { makeCache, userIdFilter } from '../graphql/fixtures.js';
import { ENGINE_PARTS } from '../../../src/appState.js';

const sc = makeCache();

function plan(query: string, opts: { role?: string; variables?: Record<string, unknown>; stringify?: boolean } = {}) {
  const role = opts.role ?? 'admin';
  const op = validateRequest(getRoleSchema(sc, role, ENGINE_PARTS.schema), { query, variables: opts.variables });
  return planOperation(op, { cache: sc, role, stringifyNumericTypes: opts.stringify ?? false, planners: ENGINE_PARTS.planners });
}
const selectOf = (f: RootFieldPlan): SelectIR => {
  assert.ok(f.kind === 'select' || f.kind === 'select_by_pk');
  return f.ir;
};
const aggOf = (f: RootFieldPlan): AggregateIR => {
  assert.equal(f.kind, 'aggregate');
  return (f as { ir: AggregateIR }).ir;
};
const publishedFilter: BoolExp = {
  kind: 'compare', column: { column: 'is_published', pgType: 'bool' }, op: '_eq', value: { source: { kind: 'value', value: true }, pgType: 'bool' },
};
const articleFilter: BoolExp = { kind: 'or', items: [userIdFilter('author_id'), publishedFilter] };

test('the role filter is AND-ed into where and the permission limit caps limit', () => {
  const [f] = plan('{ author(where: {id: {_gt: 1}}, limit: 50) { id } }', { role: 'user' }).fields;
  const ir = selectOf(f);
  assert.deepEqual(ir.where, { kind: 'compare', column: { column: 'id', pgType: 'int4' }, op: '_gt', value: { source: { kind: 'value', value: 1 }, pgType: 'int4' } });
  assert.equal(ir.limit, 10);
  const [a] = plan('{ article { id } }', { role: 'user' }).fields;
  assert.deepEqual(selectOf(a).where, articleFilter);
});

test('permissions apply inside relationships, where-through-relationship and order-by-through-relationship', () => {
  const [f] = plan('{ author(where: {articles: {title: {_eq: "x"}}}, order_by: {articles_aggregate: {count: desc}}) { articles { id } articles_aggregate { aggregate { count } } } }', { role: 'user' }).fields;
  const ir = selectOf(f);
  assert.equal(ir.where.kind, 'exists_rel');
  assert.deepEqual((ir.where as Extract<BoolExp, { kind: 'exists_rel' }>).where, {
    kind: 'and',
    items: [{ kind: 'compare', column: { column: 'title', pgType: 'text' }, op: '_eq', value: { source: { kind: 'value', value: 'x' }, pgType: 'text' } }, articleFilter],
  });
  assert.deepEqual(ir.orderBy?.[0], {
    target: { kind: 'array_agg', join: { remoteTable: { schema: 'public', name: 'article' }, mapping: [{ local: 'id', remote: 'author_id' }] }, filter: articleFilter, agg: { op: 'count' } },
    direction: 'desc',
  });
  const rel = ir.fields[0];
  assert.ok(rel.kind === 'array_rel');
  assert.deepEqual(rel.select.where, articleFilter);
  const agg = ir.fields[1];
  assert.ok(agg.kind === 'array_agg_rel');
  assert.deepEqual(agg.aggregate.where, articleFilter);
});

test('v1.3 null semantics: null operators are ignored, _or null is false, _not null is false', () => {
  const whereOf = (w: string) => selectOf(plan(`{ author(where: ${w}) { id } }`).fields[0]).where;
  assert.deepEqual(whereOf('{id: {_eq: null}}'), { kind: 'true' });
  assert.deepEqual(whereOf('{id: null}'), { kind: 'true' });
  assert.deepEqual(whereOf('{_and: null}'), { kind: 'true' });
  assert.deepEqual(whereOf('{_or: null}'), { kind: 'not', item: { kind: 'true' } });
  assert.deepEqual(whereOf('{_not: null}'), { kind: 'not', item: { kind: 'true' } });
  const w = whereOf('{id: {_eq: null, _gt: 2}}');
  assert.equal(w.kind, 'compare');
  const q = plan('query ($v: Int) { author(where: {id: {_eq: $v}}) { id } }', { variables: {} });
  assert.deepEqual(selectOf(q.fields[0]).where, { kind: 'true' });
});

test('variables become parameter references; in-lists are one array parameter', () => {
  const p = plan('query ($id: Int, $ids: [Int!], $w: author_bool_exp) { a: author(where: {id: {_eq: $id}}) { id } b: author(where: {id: {_in: $ids}}) { id } c: author(where: $w) { id } }',
    { variables: { id: 5, ids: [1, 2], w: { name: { _like: '%x' } } } });
  assert.deepEqual((selectOf(p.fields[0]).where as { value: unknown }).value, { source: { kind: 'variable', name: 'id', path: [] }, pgType: 'int4' });
  assert.deepEqual((selectOf(p.fields[1]).where as { value: unknown }).value, { source: { kind: 'variable', name: 'ids', path: [] }, pgType: '_int4' });
  assert.deepEqual((selectOf(p.fields[2]).where as { value: unknown }).value, { source: { kind: 'variable', name: 'w', path: ['name', '_like'] }, pgType: 'text' });
  const lit = selectOf(plan('{ author(where: {id: {_in: [1, 2]}}) { id } }').fields[0]).where;
  assert.deepEqual((lit as { value: unknown }).value, { source: { kind: 'value', value: [1, 2] }, pgType: '_int4' });
});

test('order_by, distinct_on and their Hasura error', () => {
  const ir = selectOf(plan('{ article(distinct_on: [author_id], order_by: [{author_id: asc}, {id: desc_nulls_last}]) { id } }').fields[0]);
  assert.deepEqual(ir.distinctOn, ['author_id']);
  assert.deepEqual(ir.orderBy, [{ target: { kind: 'column', column: 'author_id' }, direction: 'asc' }, { target: { kind: 'column', column: 'id' }, direction: 'desc', nulls: 'last' }]);
  assert.throws(() => plan('{ article(distinct_on: [author_id], order_by: [{id: desc}]) { id } }'), (e: ApiError) =>
    e.message === '"distinct_on" columns must match initial "order_by" columns' && e.path === '$.selectionSet.article.args');
  const nested = selectOf(plan('{ article(order_by: {author: {name: asc}}) { id } }', { role: 'user' }).fields[0]);
  assert.equal(nested.orderBy?.[0].target.kind, 'object_rel');
});

test('limit and offset: literals are numbers, errors as Hasura reports them', () => {
  const ir = selectOf(plan('{ article(limit: 2, offset: "1") { id } }').fields[0]);
  assert.equal(ir.limit, 2);
  assert.equal(ir.offset, 1);
  assert.throws(() => plan('{ article(limit: "3") { id } }'), (e: ApiError) => e.message === 'expecting Integer value for "limit"' && e.path === '$.selectionSet.article.args.limit');
  assert.throws(() => plan('{ article(limit: -1) { id } }'), (e: ApiError) => e.message === 'expected a non-negative 32-bit integer for type "Int", but found an integer');
  const p = plan('query ($l: Int) { article(limit: $l) { id } }', { variables: { l: 4 } });
  assert.deepEqual(selectOf(p.fields[0]).limit, { source: { kind: 'variable', name: 'l', path: [] }, pgType: 'int4' });
  assert.equal(p.checks.length, 1);
});

test('by-pk, aggregates, typename and introspection root fields', () => {
  const p = plan('{ author_by_pk(id: 3) { id } article_aggregate { aggregate { count sum { rating } max { title } } nodes { id } } __typename __schema { queryType { name } } }', { stringify: true });
  assert.deepEqual(p.fields.map((f) => f.kind), ['select_by_pk', 'aggregate', 'typename', 'introspection']);
  assert.deepEqual(selectOf(p.fields[0]).where, { kind: 'compare', column: { column: 'id', pgType: 'int4' }, op: '_eq', value: { source: { kind: 'value', value: 3 }, pgType: 'int4' } });
  const agg = aggOf(p.fields[1]);
  const ops = agg.fields[0];
  assert.ok(ops.kind === 'aggregate');
  assert.deepEqual(ops.ops[1], { alias: 'sum', kind: 'op', op: 'sum', columns: [{ alias: 'rating', column: 'rating', pgType: 'numeric', stringify: true }] });
  assert.deepEqual(p.fields[2], { alias: '__typename', kind: 'typename', value: 'query_root' });
});

test('with a permission limit, aggregates are not capped but nodes are', () => {
  const agg = aggOf(plan('{ author_aggregate { aggregate { count } nodes { id } } }', { role: 'user' }).fields[0]);
  assert.equal(agg.limit, undefined);
  assert.equal(agg.nodesLimit, 10);
  const nodesOnly = aggOf(plan('{ author_aggregate { nodes { id } } }', { role: 'user' }).fields[0]);
  assert.equal(nodesOnly.limit, 10);
});

test('columns: big numbers stringified on request, json paths parsed', () => {
  const ir = selectOf(plan('{ author { big } article { tags(path: "$.a[0][\'b c\']") } }', { stringify: true }).fields[0]);
  assert.deepEqual(ir.fields[0], { alias: 'big', kind: 'column', column: 'big', pgType: 'int8', stringify: true });
  const ir2 = selectOf(plan('{ article { tags(path: "$.a[0][\'b c\']") } }').fields[0]);
  assert.deepEqual(ir2.fields[0], { alias: 'tags', kind: 'column', column: 'tags', pgType: 'jsonb', jsonPath: ['a', '0', 'b c'] });
  assert.deepEqual(parseJsonPath('$'), []);
  assert.deepEqual(parseJsonPath('objs.[0].["你好"]'), ['objs', '0', '你好']);
  assert.deepEqual(parseJsonPath("translations['hello world!']"), ['translations', 'hello world!']);
  assert.deepEqual(parseJsonPath('.obj.c1'), ['obj', 'c1']);
});

test('integer literals for bigint columns keep every digit', () => {
  const w = selectOf(plan('{ author(where: {big: {_eq: 9223372036854775807}}) { id } }').fields[0]).where;
  assert.deepEqual((w as { value: unknown }).value, { source: { kind: 'value', value: '9223372036854775807' }, pgType: 'int8' });
});
