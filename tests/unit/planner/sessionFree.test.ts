/**
 * `mutationReadsNoSession`: true only for a table whose writes are session-free and a statement that
 * reads nothing but that table's columns; each way a statement reads more keeps the session set.
 * (The database side, and the engine end to end, are in tests/integration/mutationSessionFree.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BoolExp, DeleteIR, InsertIR, MutationOutputIR, SelectField, UpdateIR } from '../../../src/ir/index.js';
import { mutationReadsNoSession } from '../../../src/planner/sessionFree.js';
import { column, table, userIdFilter } from '../graphql/fixtures.js';

const note = { schema: 'public', name: 'note' };
const free = table('note', [column('id', 'int4'), column('owner', 'int4')], { sessionFreeWrites: true });
const notFree = table('note', [column('id', 'int4'), column('owner', 'int4')], { sessionFreeWrites: false });
const unknown = table('note', [column('id', 'int4'), column('owner', 'int4')]);

const idField: SelectField = { alias: 'id', kind: 'column', column: 'id', pgType: 'int4' };
const single = (fields: SelectField[] = [idField]): MutationOutputIR => ({ kind: 'single', fields });
const viaRel: BoolExp = { kind: 'exists_rel', rel: { remoteTable: { schema: 'public', name: 'team' }, mapping: [{ local: 'owner', remote: 'id' }] }, where: { kind: 'true' } };
const computed: BoolExp = {
  kind: 'compare', op: '_eq', value: { source: { kind: 'value', value: 'x' }, pgType: 'text' },
  column: { column: 'seen_by', pgType: 'text', computed: { function: { schema: 'public', name: 'seen_by' }, tableArg: 0 } },
};
const hiddenByRel: BoolExp = { kind: 'compare', op: '_eq', value: { source: { kind: 'value', value: 1 }, pgType: 'int4' }, column: { column: 'owner', pgType: 'int4', visibleIf: viaRel } };

const insert = (over: Partial<InsertIR> = {}): InsertIR => ({
  kind: 'insert', table: note, check: userIdFilter('owner'), output: single(),
  rows: [{ columns: [{ column: 'owner', value: { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'int4' } }], objectRelationships: [], arrayRelationships: [] }],
  ...over,
});
const update = (over: Partial<UpdateIR> = {}): UpdateIR => ({ kind: 'update', table: note, where: userIdFilter('owner'), set: [{ column: 'owner', op: { kind: 'inc', value: { source: { kind: 'value', value: 1 }, pgType: 'int4' } } }], output: single(), ...over });
const del = (over: Partial<DeleteIR> = {}): DeleteIR => ({ kind: 'delete', table: note, where: userIdFilter('owner'), output: single(), ...over });

test('a session-free table and columns only: no session (session variables as values do not count)', () => {
  assert.equal(mutationReadsNoSession(insert(), free), true);
  assert.equal(mutationReadsNoSession(update({ check: { kind: 'and', items: [userIdFilter('owner'), { kind: 'not', item: { kind: 'true' } }] } }), free), true);
  assert.equal(mutationReadsNoSession(del({ output: { kind: 'response', fields: [{ alias: 'affected_rows', kind: 'affected_rows' }, { alias: 'returning', kind: 'returning', fields: [idField, { alias: '__typename', kind: 'typename', name: 'note' }] }] } }), free), true);
  assert.equal(mutationReadsNoSession(insert({ onConflict: { action: 'update', target: { kind: 'columns', columns: ['id'] }, columns: ['owner'], presets: [], where: userIdFilter('owner') } }), free), true);
});

test('a table that may run code reading the session (or not known to be free): set', () => {
  assert.equal(mutationReadsNoSession(insert(), notFree), false);
  assert.equal(mutationReadsNoSession(insert(), unknown), false);
});

test('a statement reading more than the row\'s columns: set', () => {
  assert.equal(mutationReadsNoSession(insert({ check: viaRel }), free), false, 'check through a relationship');
  assert.equal(mutationReadsNoSession(insert({ updateCheck: computed }), free), false, 'upsert check with a computed field');
  assert.equal(mutationReadsNoSession(insert({ onConflict: { action: 'update', target: { kind: 'columns', columns: ['id'] }, columns: ['owner'], presets: [], where: viaRel } }), free), false, 'conflict where through a relationship');
  assert.equal(mutationReadsNoSession(update({ where: { kind: 'or', items: [userIdFilter('owner'), computed] } }), free), false, 'where with a computed field');
  assert.equal(mutationReadsNoSession(update({ check: hiddenByRel }), free), false, 'a column hidden by a condition through a relationship');
  assert.equal(mutationReadsNoSession(del({ where: { kind: 'exists_fn', call: { function: { schema: 'public', name: 'f' }, tableArg: 0 }, where: { kind: 'true' } } }), free), false);
  assert.equal(mutationReadsNoSession(del({ where: { kind: 'compare_column', op: '_ceq', column: { column: 'id', pgType: 'int4' }, other: computed.kind === 'compare' ? computed.column : { column: 'id', pgType: 'int4' } } }), free), false);
  const rel: SelectField = { alias: 'team', kind: 'object_rel', join: { remoteTable: { schema: 'public', name: 'team' }, mapping: [] }, select: { table: { schema: 'public', name: 'team' }, fields: [], where: { kind: 'true' } } as never };
  assert.equal(mutationReadsNoSession(insert({ output: single([idField, rel]) }), free), false, 'a relationship in the returning fields');
  assert.equal(mutationReadsNoSession(insert({ output: single([{ ...idField, visibleIf: viaRel }]) }), free), false, 'a returned column hidden through a relationship');
  const nested = insert();
  nested.rows[0]!.arrayRelationships.push({ name: 'items', join: { remoteTable: { schema: 'public', name: 'item' }, mapping: [] }, insert: insert() });
  assert.equal(mutationReadsNoSession(nested, free), false, 'a nested insert');
});
