/** The diagram's model (console/src/schema/erdLayout.ts): grid per schema, one edge per related pair, clipping. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boxHeight, buildErd, exitPoint, intersects, MAX_ROWS } from '../../../console/src/schema/erdLayout.js';

const fk = (from: string, col: string, to: string) => ({ constraint: `${from}_${col}_fkey`, from: { schema: 'public', name: from }, to: { schema: 'public', name: to }, columns: [col], refColumns: ['id'] });

test('tables of a schema in a grid, schemas one under the other, boxes sized by their columns (capped)', () => {
  const cols = new Map([['public.a', [{ name: 'id', type: 'integer' }]], ['s2.b', Array.from({ length: 40 }, (_, i) => ({ name: `c${i}`, type: 'text' }))]]);
  const m = buildErd([{ table: 'a' }, { table: { schema: 's2', name: 'b' } }], cols, []);
  assert.deepEqual(m.schemas.map((s) => s.name), ['public', 's2']);
  const a = m.byKey.get('public.a')!;
  const b = m.byKey.get('s2.b')!;
  assert.equal(a.h, boxHeight(1));
  assert.equal(b.h, boxHeight(MAX_ROWS + 1), 'a long table is cut at MAX_ROWS plus a "more" line');
  assert.ok(b.y > a.y + a.h, 's2 is below public');
});

test('object and array relationships of one foreign key make one edge, labelled with both names; manual ones count too', () => {
  const tables = [
    { table: 'author', array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }] },
    { table: 'article', object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }, { name: 'editor', using: { manual_configuration: { remote_table: 'person', column_mapping: { editor_id: 'id' } } } }] },
    { table: 'person', remote_relationships: [{ name: 'remote', definition: {} }] },
  ];
  const m = buildErd(tables, new Map(), [fk('article', 'author_id', 'author')]);
  assert.deepEqual(m.edges.sort((x, y) => x.to.localeCompare(y.to)), [
    { from: 'public.article', to: 'public.author', label: 'articles, author' },
    { from: 'public.article', to: 'public.person', label: 'editor' },
  ]);
});

test('edges stop at the box border; the viewport test', () => {
  const box = { key: 'k', ref: { schema: 'public', name: 'k' }, columns: [], x: 0, y: 0, w: 100, h: 50 };
  assert.deepEqual(exitPoint(box, { x: 500, y: 25 }), { x: 100, y: 25 });
  assert.deepEqual(exitPoint(box, { x: 50, y: -300 }), { x: 50, y: 0 });
  assert.equal(intersects({ x: 0, y: 0, w: 10, h: 10 }, 5, 5, 10, 10), true);
  assert.equal(intersects({ x: 0, y: 0, w: 10, h: 10 }, 11, 0, 10, 10), false);
});
