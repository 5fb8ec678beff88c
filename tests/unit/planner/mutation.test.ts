/**
 * Mutation planning from a hand-built schema cache: which mutation fields and arguments each role
 * gets, and how insert/update/delete permissions (columns, presets, check, filter, upsert) end
 * up in the IR.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getRoleSchema, validateRequest } from '../../../src/graphql/index.js';
import { planOperation, type StatementPlan } from '../../../src/planner/index.js';
import type { InsertIR, UpdateIR, DeleteIR, BoolExp } from '../../../src/ir/index.js';
import type { SchemaCache } from '../../../src/metadata/schemaCache/types.js';
import { makeCache, userIdFilter } from '../graphql/fixtures.js';
import { ENGINE_PARTS } from '../../../src/appState.js';

function cacheWithMutations(): SchemaCache {
  const sc = makeCache();
  const article = sc.tables.get('public.article')!;
  const author = sc.tables.get('public.author')!;
  const user = article.permissions.get('user')!;
  user.insert = {
    columns: new Set(['title', 'content', 'author_id', 'is_published']), check: userIdFilter('author_id'),
    set: { is_published: { kind: 'value', value: false } }, backendOnly: false,
  };
  user.update = { columns: new Set(['title', 'tags', 'rating']), filter: userIdFilter('author_id'), check: null, set: { content: { kind: 'session', name: 'x-svc-user-id' } } };
  user.delete = { filter: userIdFilter('author_id') };
  author.permissions.get('user')!.insert = { columns: new Set(['name']), check: { kind: 'true' }, set: {}, backendOnly: false };
  return sc;
}

const sc = cacheWithMutations();

function plan(query: string, role = 'user'): StatementPlan[] {
  const op = validateRequest(getRoleSchema(sc, role, ENGINE_PARTS.schema), { query });
  return planOperation(op, { cache: sc, role, stringifyNumericTypes: true, planners: ENGINE_PARTS.planners }).fields.map((f) => (f as { plan: StatementPlan }).plan);
}

test('a role gets the mutation fields and arguments of its permissions', () => {
  const root = getRoleSchema(sc, 'user', ENGINE_PARTS.schema).mutationRoot!;
  assert.deepEqual(Object.keys(root.getFields()).sort(), [
    'delete_article', 'delete_article_by_pk', 'insert_article', 'insert_article_one', 'insert_author', 'insert_author_one',
    'update_article', 'update_article_by_pk', 'update_article_many',
  ]);
  assert.deepEqual(root.getFields().insert_article.args.map((a) => a.name), ['objects', 'on_conflict']);
  assert.deepEqual(root.getFields().insert_author.args.map((a) => a.name), ['objects']);
  assert.deepEqual(root.getFields().update_article.args.map((a) => a.name).sort(),
    ['_append', '_delete_at_path', '_delete_elem', '_delete_key', '_inc', '_prepend', '_set', 'where']);
  assert.equal(getRoleSchema(sc, 'anon', ENGINE_PARTS.schema).mutationRoot, null);
  const admin = getRoleSchema(sc, 'admin', ENGINE_PARTS.schema).mutationRoot!;
  assert.ok(admin.getFields().update_author_by_pk && admin.getFields().delete_author);
});

test('insert: presets added to every row, the check, and the response', () => {
  const [p] = plan('mutation { insert_article(objects: [{title: "a", author_id: 1}]) { affected_rows returning { id big: rating } } }');
  const ir = p.ir as InsertIR;
  assert.equal(p.errorPath, '$.selectionSet.insert_article.args.objects');
  assert.deepEqual(ir.rows[0].columns.map((c) => [c.column, c.value.source]), [
    ['title', { kind: 'value', value: 'a' }], ['author_id', { kind: 'value', value: 1 }], ['is_published', { kind: 'value', value: false }],
  ]);
  assert.deepEqual(ir.check, userIdFilter('author_id'));
  assert.deepEqual(ir.output, {
    kind: 'response',
    fields: [
      { alias: 'affected_rows', kind: 'affected_rows' },
      { alias: 'returning', kind: 'returning', fields: [
        { alias: 'id', kind: 'column', column: 'id', pgType: 'int4' },
        { alias: 'big', kind: 'column', column: 'rating', pgType: 'numeric', stringify: true },
      ] },
    ],
  });
});

test('upsert: update_columns, the update filter AND the client where; empty update_columns is DO NOTHING', () => {
  const [p] = plan('mutation { insert_article(objects: [{title: "a"}], on_conflict: {constraint: article_pkey, update_columns: [title], where: {id: {_gt: 3}}}) { affected_rows } }');
  const oc = (p.ir as InsertIR).onConflict!;
  assert.equal(oc.action, 'update');
  if (oc.action !== 'update') return;
  assert.deepEqual(oc.columns, ['title']);
  assert.deepEqual((oc.where as { kind: string; items: BoolExp[] }).items[0], userIdFilter('author_id'));
  assert.deepEqual(oc.presets.map((x) => x.column), ['content']);
  const [n] = plan('mutation { insert_article(objects: [{title: "a"}], on_conflict: {constraint: article_pkey, update_columns: []}) { affected_rows } }');
  assert.deepEqual((n.ir as InsertIR).onConflict, { action: 'nothing', target: { kind: 'constraint', name: 'article_pkey' } });
});

test('update: filter AND where, operators and presets; delete_by_pk: filter AND key', () => {
  const [u] = plan('mutation { update_article(where: {title: {_eq: "x"}}, _set: {title: "y"}, _inc: {rating: 1.5}) { affected_rows } }');
  const ir = u.ir as UpdateIR;
  assert.deepEqual((ir.where as { items: BoolExp[] }).items[0], userIdFilter('author_id'));
  assert.deepEqual(ir.set.map((s) => [s.column, s.op.kind]), [['title', 'set'], ['rating', 'inc'], ['content', 'set']]);
  assert.deepEqual(ir.set[1].op, { kind: 'inc', value: { source: { kind: 'value', value: '1.5000' }, pgType: 'numeric' } });
  assert.deepEqual(ir.set[2].op, { kind: 'set', value: { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'text' } });
  const [d] = plan('mutation { delete_article_by_pk(id: 7) { id } }');
  const del = d.ir as DeleteIR;
  assert.deepEqual(del.where, { kind: 'and', items: [userIdFilter('author_id'), { kind: 'compare', column: { column: 'id', pgType: 'int4' }, op: '_eq', value: { source: { kind: 'value', value: 7 }, pgType: 'int4' } }] });
  assert.equal(del.output.kind, 'single');
});

test('an update without any operator is refused; one with empty operators changes nothing', () => {
  assert.throws(() => plan('mutation { update_article(where: {}) { affected_rows } }'), (e: Error & { code?: string }) => e.code === 'validation-failed');
  const [p] = plan('mutation { update_article(where: {}, _set: {}) { affected_rows returning { id } } }');
  assert.equal(p.constant, '{"affected_rows":0,"returning":[]}');
});

test('a column preset or outside the permission is not in the input type', () => {
  assert.throws(() => plan('mutation { insert_article(objects: [{title: "a", is_published: true}]) { affected_rows } }'),
    (e: Error & { code?: string }) => e.code === 'validation-failed');
});
