/**
 * Equal permissions are shared objects: a decoded document holds one object per distinct permission
 * (decodeMetadata), and a build one resolved permission per distinct permission of a table, whatever the
 * number of roles having it. Sharing must never let an edit of one place show in another: operations
 * edit copy-on-write drafts, and a changed role's permission is resolved again on its own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRecordOf, buildSchemaCache, buildSchemaCacheFrom, buildSchemaCacheFull, decodeMetadata, decodeStoredSliced, encodeMetadata } from '../../../src/metadata/index.js';
import type { Metadata } from '../../../src/metadata/index.js';
import { draftOf, finishDraft } from '../../../src/lib/index.js';
import { authorArticle } from './fixtures.js';

const own = { columns: ['id', 'title'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } };
const doc = () => ({
  version: 2,
  tables: ['author', 'article'].map((name) => ({
    table: { schema: 'public', name },
    select_permissions: [
      { role: 'a', permission: name === 'author' ? { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } : own },
      { role: 'b', permission: name === 'author' ? { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } : own },
      { role: 'c', permission: { columns: ['id'], filter: {} } },
    ],
  })),
});

test('a decoded document holds one object per distinct permission, and encodes as before', () => {
  const md = decodeMetadata(doc());
  const [author, article] = md.tables.map((t) => t.select_permissions!);
  assert.equal(author![0]!.permission, author![1]!.permission, 'roles a and b of one table');
  assert.equal(author![2]!.permission, article![2]!.permission, 'role c of two tables');
  assert.notEqual(author![0]!.permission, author![2]!.permission);
  assert.notEqual(author![0]!.permission, article![0]!.permission);
  assert.deepEqual(author![2]!.permission, { columns: ['id'], filter: {}, allow_aggregations: false, computed_fields: [] });
  // Two decodes of the same text share nothing with each other.
  assert.notEqual(decodeMetadata(doc()).tables[0]!.select_permissions![2]!.permission, author![2]!.permission);
  assert.deepEqual(encodeMetadata(md), encodeMetadata(decodeMetadata(JSON.parse(JSON.stringify(doc())))));
});

test('a document decoded a slice per turn shares its equal permissions as one decoded at once', async () => {
  const md = await decodeStoredSliced(JSON.stringify(doc()));
  const [author, article] = md.tables.map((t) => t.select_permissions!);
  assert.equal(author![0]!.permission, author![1]!.permission, 'roles a and b of one table');
  assert.equal(author![2]!.permission, article![2]!.permission, 'role c of two tables');
  assert.notEqual(author![0]!.permission, article![0]!.permission);
  assert.deepEqual(encodeMetadata(md), encodeMetadata(decodeMetadata(doc())));
});

test('an edit of a shared permission in a draft changes that place only', () => {
  const md = decodeMetadata(doc());
  const before = JSON.stringify(md);
  const draft = draftOf(md);
  const perm = draft.tables[0]!.select_permissions![2]!.permission as { columns: string[] };
  perm.columns.push('name');
  const next = finishDraft(draft);
  assert.deepEqual(next.tables[0]!.select_permissions![2]!.permission.columns, ['id', 'name']);
  assert.deepEqual(next.tables[1]!.select_permissions![2]!.permission.columns, ['id'], 'the other table keeps its permission');
  assert.equal(JSON.stringify(md), before, 'the decoded document is not written');
});

const resolved = (md: Metadata) => {
  const cache = buildSchemaCache(md, authorArticle());
  assert.deepEqual(cache.inconsistentObjects, []);
  return cache;
};

test('roles with equal permissions on a table share the resolved permission; each role keeps its own edges', () => {
  const md = decodeMetadata(doc());
  const { cache, dependencies } = buildSchemaCacheFull(md, authorArticle());
  const author = cache.tables.get('public.author')!;
  assert.equal(author.permissions.get('a')!.select, author.permissions.get('b')!.select);
  assert.notEqual(author.permissions.get('a')!.select, author.permissions.get('c')!.select);
  assert.deepEqual([...author.permissions.get('c')!.select!.columns], ['id']);
  // The same as a build of permissions that are equal but not shared (each role's resolved on its own).
  const unshared = JSON.parse(JSON.stringify(doc())) as { tables: Array<{ select_permissions: Array<{ permission: Record<string, unknown> }> }> };
  unshared.tables[0]!.select_permissions[1]!.permission = { ...unshared.tables[0]!.select_permissions[1]!.permission, filter: { _and: [{ id: { _eq: 'X-Svc-User-Id' } }] } };
  const other = resolved(decodeMetadata(unshared)).tables.get('public.author')!;
  assert.notEqual(other.permissions.get('a')!.select, other.permissions.get('b')!.select);
  assert.deepEqual([...other.permissions.get('b')!.select!.columns], [...author.permissions.get('b')!.select!.columns]);
  // Every role's permission has its edges (what a column drop cascades to).
  const onName = (role: string) => dependencies.some((d) => d.dependent.kind === 'permission' && d.dependent.role === role && d.dependent.table.name === 'author' && d.on.kind === 'column' && d.on.column === 'name');
  assert.deepEqual(['a', 'b', 'c'].map(onName), [true, true, false]);
});

test('a change of one role of a shared permission is resolved again for that role only (incremental = full)', () => {
  const md = decodeMetadata(doc());
  const before = buildSchemaCacheFull(md, authorArticle());
  const draft = draftOf(md);
  (draft.tables[0]!.select_permissions![1]!.permission as { columns: string[] }).columns = ['id'];
  const next = finishDraft(draft);
  const inc = buildSchemaCacheFrom(buildRecordOf(before.cache), next, authorArticle());
  const full = buildSchemaCacheFull(next, authorArticle());
  const author = inc.cache.tables.get('public.author')!;
  assert.deepEqual([...author.permissions.get('a')!.select!.columns], ['id', 'name']);
  assert.deepEqual([...author.permissions.get('b')!.select!.columns], ['id']);
  const text = (r: typeof inc) => JSON.stringify([...r.cache.tables].map(([k, t]) => [k, [...t.permissions].map(([role, p]) => [role, p.select && { ...p.select, columns: [...p.select.columns] }])]));
  assert.equal(text(inc), text(full));
  assert.equal(
    JSON.stringify(inc.dependencies.filter((d) => d.dependent.kind === 'permission')),
    JSON.stringify(full.dependencies.filter((d) => d.dependent.kind === 'permission')),
  );
});
