import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { assertInheritedRoles, buildSchemaCacheFull, decodeInheritedRole, decodeMetadata } from '../../../src/metadata/index.js';
import type { Metadata } from '../../../src/metadata/index.js';
import { authorArticle } from './fixtures.js';

const md = (doc: unknown): Metadata => decodeMetadata({ version: 2, ...(doc as object) });
const sel = (role: string, columns: string[], filter: Record<string, unknown>, extra: object = {}) => ({ role, permission: { columns, filter, ...extra } });

const doc = (inherited: unknown[], authorPerms: object = {}) => md({
  tables: [
    {
      table: 'author',
      select_permissions: [
        sel('user', ['id', 'name'], { id: { _eq: 'X-Svc-User-Id' } }, { limit: 5 }),
        sel('anon', ['id'], {}, { limit: 10, allow_aggregations: true }),
      ],
      ...authorPerms,
    },
    { table: 'article', select_permissions: [sel('user', ['id', 'title'], {})] },
  ],
  inherited_roles: inherited,
});

test('select: OR of filters, conditions on columns only some members grant, max limit, any aggregation', () => {
  const { cache, inconsistent } = buildSchemaCacheFull(doc([{ role_name: 'both', role_set: ['user', 'anon'] }]), authorArticle());
  assert.deepEqual(inconsistent, []);
  const p = cache.tables.get('public.author')!.permissions.get('both')!.select!;
  assert.deepEqual([...p.columns].sort(), ['id', 'name']);
  assert.equal(p.filter.kind, 'true', 'anon\'s filter lets every row through');
  assert.deepEqual([...(p.columnConditions?.keys() ?? [])], ['name'], 'id is granted by both, name by user only');
  assert.equal(p.columnConditions!.get('name')!.kind, 'compare', 'name shows where user\'s filter holds');
  assert.deepEqual([p.limit, p.allowAggregations], [10, true]);
  const article = cache.tables.get('public.article')!.permissions.get('both')!.select!;
  assert.equal(article.columnConditions, undefined, 'the one member with a select permission grants every column: nothing conditional');
  assert.deepEqual(cache.inheritedRoles, new Map([['both', ['user', 'anon']]]));
  assert.ok(cache.roles.includes('both'));
});

test('an own permission overrides; nested inherited roles resolve parents first; conflicts and unknown roles are inconsistent', () => {
  const own = doc([{ role_name: 'both', role_set: ['user', 'anon'] }, { role_name: 'top', role_set: ['both'] }], {
    insert_permissions: [{ role: 'user', permission: { check: {} } }, { role: 'anon', permission: { check: { id: { _gt: 0 } } } }],
  });
  own.tables[0]!.select_permissions!.push(sel('both', ['id'], { id: { _eq: 1 } }));
  const { cache, inconsistent } = buildSchemaCacheFull(own, authorArticle());
  const author = cache.tables.get('public.author')!;
  assert.equal(author.permissions.get('both')!.select!.columnConditions, undefined, 'the explicit permission wins');
  assert.deepEqual([...author.permissions.get('top')!.select!.columns], ['id'], 'top inherits both\'s explicit permission');
  assert.equal(author.permissions.get('both')!.insert, undefined);
  assert.deepEqual(inconsistent.map((i) => [i.id, i.object.reason]), [
    [{ kind: 'inherited_role', name: 'both' }, 'Could not inherit permission for the role "both" for the entity: "insert permission, table: author"'],
  ]);

  const unknown = buildSchemaCacheFull(doc([{ role_name: 'x', role_set: ['user', 'ghost'] }]), authorArticle());
  assert.equal(unknown.inconsistent[0]!.object.reason, 'the following parent role(s) are not found: ghost which are required to construct the inherited role: "x"');
  assert.equal(unknown.cache.tables.get('public.author')!.permissions.get('x'), undefined);
});

test('role sets: decoded without duplicates; self-membership and cycles refused before any build', () => {
  assert.deepEqual(decodeInheritedRole({ role_name: 'r', role_set: ['a', 'b', 'a'] }, '$'), { role_name: 'r', role_set: ['a', 'b'] });
  assert.throws(() => decodeInheritedRole({ role_name: '', role_set: [] }, '$'), (e: unknown) => e instanceof ApiError && e.path === '$.role_name');
  const fails = (code: string, message: string) => (e: unknown) => e instanceof ApiError && e.code === code && e.message === message;
  assert.throws(() => assertInheritedRoles(md({ tables: [], inherited_roles: [{ role_name: 'a', role_set: ['a'] }] })), fails('invalid-params', 'an inherited role name cannot be in the role combination'));
  assert.throws(
    () => assertInheritedRoles(md({ tables: [], inherited_roles: [{ role_name: 'a', role_set: ['b'] }, { role_name: 'b', role_set: ['c'] }, { role_name: 'c', role_set: ['a', 'u'] }] })),
    fails('cyclic-dependency', 'found cycle(s) in roles: ["a","b","c","a"]'),
  );
  assertInheritedRoles(md({ tables: [], inherited_roles: [{ role_name: 'a', role_set: ['b', 'u'] }, { role_name: 'b', role_set: ['u'] }] }));
});
