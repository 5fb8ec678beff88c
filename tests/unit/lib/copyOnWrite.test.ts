import { test } from 'node:test';
import assert from 'node:assert/strict';
import { draftOf, finishDraft, isDraft } from '../../../src/lib/index.js';

type Doc = { version: number; tables: Array<Record<string, any>> };
const doc = (): Doc => ({
  version: 3,
  tables: [
    { table: { name: 'a' }, select_permissions: [{ role: 'r', permission: { columns: ['x'] } }] },
    { table: { name: 'b' } },
    { table: { name: 'c' }, object_relationships: [] },
  ],
});

test('an edit copies only the path to it; the base is never written', () => {
  const base = doc();
  const text = JSON.stringify(base);
  const d = draftOf(base);
  assert.ok(isDraft(d) && isDraft(d.tables[0]) && !isDraft(base));
  d.tables[0].select_permissions.push({ role: 's', permission: { columns: [] } });
  d.tables[2].object_relationships.push({ name: 'x' });
  const f = finishDraft(d);
  assert.equal(JSON.stringify(base), text);
  assert.equal(f.tables[1], base.tables[1]);
  assert.notEqual(f.tables[0], base.tables[0]);
  assert.equal(f.tables[0].table, base.tables[0].table);
  assert.equal(f.tables[0].select_permissions[0], base.tables[0].select_permissions[0]);
  assert.deepEqual(f.tables[0].select_permissions.map((p: { role: string }) => p.role), ['r', 's']);
  assert.ok(!isDraft(f) && !isDraft(f.tables[0]) && !isDraft(f.tables[0].select_permissions[1]));
  assert.equal(finishDraft(d), f, 'finished twice: the same object');
  // An unedited draft finishes as its base.
  assert.equal(finishDraft(draftOf(base)), base);
});

test('drafts stored in new values, array methods, delete and writes after a finish', () => {
  const base = doc();
  const text = JSON.stringify(base);
  const d = draftOf(base);
  d.tables = d.tables.filter((t) => t.table.name !== 'a');
  d.tables.push({ ...d.tables[0], table: { name: 'z' } });
  d.tables.sort((x, y) => y.table.name.localeCompare(x.table.name));
  delete d.tables[1].object_relationships;
  assert.ok(Array.isArray(d.tables));
  const f1 = finishDraft(d);
  const f1Text = JSON.stringify(f1);
  assert.equal(f1Text, '{"version":3,"tables":[{"table":{"name":"z"}},{"table":{"name":"c"}},{"table":{"name":"b"}}]}');
  assert.equal(f1.tables[2], base.tables[1], 'a moved, unedited table is the base object');
  assert.doesNotThrow(() => structuredClone(f1));
  d.tables[2].note = 'later';
  d.tables.splice(0, 1);
  const f2 = finishDraft(d);
  assert.equal(JSON.stringify(f1), f1Text, 'a finished value does not change with later writes');
  assert.equal(JSON.stringify(f2), '{"version":3,"tables":[{"table":{"name":"c"}},{"table":{"name":"b"},"note":"later"}]}');
  assert.equal(JSON.stringify(base), text);
});
