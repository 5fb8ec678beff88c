import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CohortIndex, canonicalImage, canonicalParam } from '../../../src/subscriptions/narrowing.js';
import { liveKeyOf } from '../../../src/planner/liveKey.js';
import type { RootFieldPlan } from '../../../src/planner/index.js';
import type { BoolExp, SelectIR } from '../../../src/ir/index.js';
import type { Param } from '../../../src/sql/index.js';

test('key values compare as Postgres compares them', () => {
  assert.equal(canonicalParam(' +0042', 'int'), '42');
  assert.equal(canonicalImage(42, 'int'), '42');
  assert.equal(canonicalParam('4.0', 'int'), undefined, 'not an integer literal: no key, the cohort reruns on every change');
  assert.equal(canonicalImage(2 ** 53, 'int'), undefined, 'an int8 JSON cannot carry exactly: undecidable');
  assert.equal(canonicalParam('{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}', 'uuid'), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
  assert.equal(canonicalParam('a0eebc999c0b4ef8bb6d6bb9bd380a11', 'uuid'), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
  assert.equal(canonicalParam('Ab ', 'text'), 'Ab ');
  assert.equal(canonicalImage(null, 'text'), null);
  assert.equal(canonicalParam(null, 'text'), undefined);
});

test('the index names the cohorts whose value an image holds; the others only when undecidable', () => {
  const idx = new CohortIndex<{ varsJson: string }>({ table: { schema: 'public', name: 't' }, column: 'id', kind: 'int', param: 1 });
  const a = { varsJson: '["x","1"]' };
  const b = { varsJson: '["x","2"]' };
  const n = { varsJson: '["x",null]' };
  for (const c of [a, b, n]) idx.add(c);
  assert.deepEqual(idx.concerned([{ id: 1 }]), new Set([n, a]));
  assert.deepEqual(idx.concerned([{ id: 3 }, { id: null }]), new Set([n]));
  assert.deepEqual(idx.concerned([{ id: 1 }, { id: 2 }]), new Set([n, a, b]));
  assert.equal(idx.concerned([{ other: 1 }]), undefined, 'an image without the column: every cohort');
  idx.delete(a);
  assert.deepEqual(idx.concerned([{ id: 1 }]), new Set([n]));
});

const T = { schema: 'public', name: 'item' };
const idParam: Param = { source: { kind: 'variable', name: 'id' }, pgType: 'int4' };
const eqId: BoolExp = { kind: 'compare', column: { column: 'id', pgType: 'int4' }, op: '_eq', value: { source: { kind: 'variable', name: 'id' }, pgType: 'int4' } };
const select = (where: BoolExp, fields: SelectIR['fields'] = []): RootFieldPlan => ({ alias: 'item', kind: 'select', ir: { table: T, fields, where } });

test('a root filter holding column = value is a key; self-reads, functions and disjunctions are not', () => {
  assert.deepEqual(liveKeyOf(select(eqId), [idParam]), { table: T, column: 'id', kind: 'int', param: 0 });
  const owner: BoolExp = { kind: 'compare', column: { column: 'owner', pgType: 'text' }, op: '_eq', value: { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'text' } };
  assert.deepEqual(liveKeyOf(select({ kind: 'and', items: [{ kind: 'true' }, owner] }), [{ source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'text' }]),
    { table: T, column: 'owner', kind: 'text', param: 0 });
  assert.equal(liveKeyOf(select({ kind: 'or', items: [eqId, eqId] }), [idParam]), undefined);
  const selfRel: SelectIR['fields'] = [{ alias: 'parent', kind: 'object_rel', join: { remoteTable: T, mapping: [{ local: 'parent_id', remote: 'id' }] }, select: { table: T, fields: [], where: { kind: 'true' } } }];
  assert.equal(liveKeyOf(select(eqId, selfRel), [idParam]), undefined, 'a self-relationship reads other rows of the root table');
  const otherRel: SelectIR['fields'] = [{ alias: 'tags', kind: 'object_rel', join: { remoteTable: { schema: 'public', name: 'tag' }, mapping: [{ local: 'id', remote: 'item_id' }] }, select: { table: { schema: 'public', name: 'tag' }, fields: [], where: { kind: 'true' } } }];
  assert.ok(liveKeyOf(select(eqId, otherRel), [idParam]), 'another table: its changes rerun everything, the root table still narrows');
  const jsonEq: BoolExp = { kind: 'compare', column: { column: 'doc', pgType: 'jsonb' }, op: '_eq', value: { source: { kind: 'variable', name: 'd' }, pgType: 'jsonb' } };
  assert.equal(liveKeyOf(select(jsonEq), [{ source: { kind: 'variable', name: 'd' }, pgType: 'jsonb' }]), undefined, 'jsonb equality is not text equality');
  assert.equal(liveKeyOf({ alias: 'x', kind: 'select', ir: { table: T, fields: [], where: eqId, source: { function: T, args: [] } } }, [idParam]), undefined, 'a function source');
});
