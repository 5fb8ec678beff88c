import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joinedReads } from '../../../src/subscriptions/joinedReads.js';
import { compile, sql } from '../../../src/sql/index.js';
import type { RemoteJoinPlan } from '../../../src/planner/index.js';

/** A relationship to `source`'s table whose statement reads `table`; `inner`: the target rows' own fields. */
const sourceRel = (alias: string, source: string, table: string, inner: unknown[] = []) => ({
  alias, kind: 'remote_rel_keys', columns: [],
  join: {
    kind: 'source', rel: { source }, keysVariable: `$keys_${alias}`, path: alias,
    statement: sql`SELECT * FROM ${sql.ident('public', table)} WHERE id = ${sql.param(sql.variable(`keys_${alias}`), 'json')}`,
    node: { kind: 'array', ir: { fields: inner } },
  },
});

test('a joined live query reads its root statement and every relationship statement, nested ones included, each once', () => {
  const plan = {
    text: 'SELECT root', params: [],
    shape: { kind: 'select', ir: { fields: [
      { alias: 'name', kind: 'column', column: 'name', pgType: 'text' },
      sourceRel('books', 'shop', 'book', [sourceRel('reviews', 'archive', 'review')]),
      { alias: 'self', kind: 'object_rel', join: {}, select: { fields: [sourceRel('books', 'shop', 'book')] } },
    ] } },
    op: {},
  } as unknown as RemoteJoinPlan;
  const reads = joinedReads(plan, undefined);
  assert.equal(reads.remote, false);
  const book = compile(sql`SELECT * FROM ${sql.ident('public', 'book')} WHERE id = ${sql.param(sql.variable('keys_books'), 'json')}`).text;
  assert.deepEqual(reads.statements.map((s) => s.source), ['default', 'shop', 'archive']);
  assert.deepEqual(reads.statements[0], { source: 'default', text: 'SELECT root' });
  assert.equal(reads.statements[1]!.text, book);
  assert.match(reads.statements[2]!.text, /"public"\."review"/);
});

test('a relationship to a remote schema is a read no change counter covers', () => {
  const plan = {
    text: 'SELECT root', params: [],
    shape: { kind: 'aggregate', ir: { fields: [{ alias: 'nodes', kind: 'nodes', fields: [{ alias: 'r', kind: 'remote_rel_keys', columns: [], join: { rel: {}, nodes: [], path: 'r' } }] }] } },
    op: {},
  } as unknown as RemoteJoinPlan;
  const reads = joinedReads(plan, 'shop');
  assert.equal(reads.remote, true);
  assert.deepEqual(reads.statements, [{ source: 'shop', text: 'SELECT root' }]);
});
