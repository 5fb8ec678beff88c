import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRecordOf, buildSchemaCache, buildSchemaCacheFrom, buildSchemaCacheFull, decodeMetadata } from '../../../src/metadata/index.js';
import type { Metadata } from '../../../src/metadata/index.js';
import { authorArticle, column, fn, snapshot, table } from './fixtures.js';

const md = (doc: unknown): Metadata => decodeMetadata({ version: 2, ...(doc as object) });

const relMetadata = () =>
  md({
    tables: [
      {
        table: { schema: 'public', name: 'author' },
        array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }],
        select_permissions: [{ role: 'user', permission: { columns: '*', filter: { id: 'X-Svc-User-Id' }, limit: 5 } }],
      },
      {
        table: 'article',
        object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
        select_permissions: [{ role: 'user', permission: { columns: ['id', 'title'], filter: { author: { id: { _eq: 'X-SVC-USER-ID' } } } } }],
      },
    ],
  });

test('a consistent build resolves tables, FK relationships both ways and permissions', () => {
  const cache = buildSchemaCache(relMetadata(), authorArticle());
  assert.deepEqual(cache.inconsistentObjects, []);
  const author = cache.tables.get('public.author')!;
  const article = cache.tables.get('public.article')!;
  assert.deepEqual(author.relationships.get('articles')!.join, { remoteTable: { schema: 'public', name: 'article' }, mapping: [{ local: 'id', remote: 'author_id' }] });
  assert.equal(author.relationships.get('articles')!.type, 'array');
  assert.deepEqual(article.relationships.get('author')!.join, { remoteTable: { schema: 'public', name: 'author' }, mapping: [{ local: 'author_id', remote: 'id' }] });
  const sel = author.permissions.get('user')!.select!;
  assert.deepEqual([...sel.columns], ['id', 'name', 'bio', 'meta']);
  assert.equal(sel.limit, 5);
  assert.deepEqual(sel.filter, { kind: 'compare', column: { column: 'id', pgType: 'int4' }, op: '_eq', value: { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'int4' } });
  const artSel = article.permissions.get('user')!.select!;
  assert.equal(artSel.filter.kind, 'exists_rel');
  assert.deepEqual(cache.roles, ['user']);
  assert.equal(author.primaryKeyConstraint, 'author_pkey');
});

test('a dropped table is inconsistent, and so is an array relationship pointing at it (Hasura reasons)', () => {
  const snap = authorArticle();
  snap.tables.delete('public.article');
  const { cache, inconsistent } = buildSchemaCacheFull(relMetadata(), snap);
  assert.deepEqual(cache.inconsistentObjects, [
    { type: 'table', definition: { schema: 'public', name: 'article' }, reason: 'no such table/view exists in postgres: "article"' },
    {
      type: 'array_relation',
      definition: {
        using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'article' }, column: 'author_id' } },
        name: 'articles',
        comment: null,
        table: { schema: 'public', name: 'author' },
      },
      reason: 'in table "author": in relationship "articles": table "article" does not exist',
    },
  ]);
  assert.deepEqual(inconsistent.map((i) => i.id.kind), ['table', 'relationship']);
  assert.equal(cache.tables.has('public.article'), false);
  assert.equal(cache.tables.get('public.author')!.relationships.size, 0);
  // the author permission does not use the relationship, so it survives
  assert.ok(cache.tables.get('public.author')!.permissions.get('user')!.select);
});

test('permissions for admin, unknown columns and bad filters are inconsistent with a contextual reason', () => {
  const m = md({
    tables: [
      {
        table: 'author',
        select_permissions: [
          { role: 'admin', permission: { columns: '*', filter: {} } },
          { role: 'a', permission: { columns: ['nope'], filter: {} } },
          { role: 'b', permission: { columns: '*', filter: { nope: { _eq: 1 } } } },
          { role: 'c', permission: { columns: '*', filter: { id: { _foo: 1 } } } },
        ],
      },
    ],
  });
  const reasons = buildSchemaCache(m, authorArticle()).inconsistentObjects.map((o) => o.reason);
  assert.deepEqual(reasons, [
    'in table "author": in permission for role "admin": cannot define permission for admin role',
    'in table "author": in permission for role "a": column "nope" does not exist',
    'in table "author": in permission for role "b": "nope" does not exist',
    'in table "author": in permission for role "c": unknown operator: _foo',
  ]);
});

test('an object relationship on a column without a foreign key is inconsistent', () => {
  const m = md({ tables: [{ table: 'author' }, { table: 'article', object_relationships: [{ name: 'pub', using: { foreign_key_constraint_on: 'published_on' } }] }] });
  const [o] = buildSchemaCache(m, authorArticle()).inconsistentObjects;
  assert.equal(o.type, 'object_relation');
  assert.equal(o.reason, 'in table "article": in relationship "pub": no foreign constraint exists on the given column');
});

test('manual relationships map columns; names clashing with columns are reported as Hasura does', () => {
  const m = md({
    tables: [
      { table: 'author', configuration: { custom_column_names: { name: 'writer' } } },
      {
        table: 'article',
        object_relationships: [
          { name: 'writer_of', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } } },
          { name: 'title', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } } },
        ],
      },
    ],
  });
  const cache = buildSchemaCache(m, authorArticle());
  assert.deepEqual(cache.tables.get('public.article')!.relationships.get('writer_of')!.join.mapping, [{ local: 'author_id', remote: 'id' }]);
  assert.deepEqual(cache.inconsistentObjects.map((o) => o.reason), ['field definition conflicts with postgres column']);
  assert.equal(cache.tables.get('public.author')!.columnsByName.get('name')!.gqlName, 'writer');
});

test('enum tables: values are attached and FK columns reference them; a bad enum table is inconsistent', () => {
  const snap = snapshot([
    table('colors', [column('value'), column('comment')], { primaryKey: { name: 'colors_pkey', columns: ['value'] } }),
    table('users', [column('id', 'int4'), column('favorite_color')], {
      foreignKeys: [{ name: 'users_color_fkey', oid: 1, columns: ['favorite_color'], refTable: { schema: 'public', name: 'colors' }, refColumns: ['value'] }],
    }),
  ]);
  snap.enumValues.set('public.colors', { ok: true, values: [{ value: 'red', comment: 'Red' }] });
  const cache = buildSchemaCache(md({ tables: [{ table: 'colors', is_enum: true }, { table: 'users' }] }), snap);
  assert.deepEqual(cache.tables.get('public.colors')!.enumValues, [{ value: 'red', comment: 'Red' }]);
  assert.deepEqual(cache.tables.get('public.users')!.columnsByName.get('favorite_color')!.enumTable, { schema: 'public', name: 'colors' });

  snap.enumValues.set('public.colors', { ok: false, reason: 'the table "colors" cannot be used as an enum because the table must have at least one row' });
  const bad = buildSchemaCache(md({ tables: [{ table: 'colors', is_enum: true }] }), snap);
  assert.deepEqual(bad.inconsistentObjects.map((o) => [o.type, o.reason]), [['table', 'the table "colors" cannot be used as an enum because the table must have at least one row']]);
});

test('computed fields and tracked functions are validated against the function signature', () => {
  const snap = authorArticle();
  const rowArg = { name: 'author_row', type: 'author', typeSchema: 'public', typeKind: 'c', hasDefault: false };
  snap.functions.set('public.full_name', [fn('full_name', { args: [rowArg] })]);
  snap.functions.set('public.vol', [fn('vol', { args: [rowArg], volatility: 'VOLATILE' })]);
  snap.functions.set('public.search', [
    fn('search', { args: [{ name: 's', type: 'text', typeSchema: 'pg_catalog', typeKind: 'b', hasDefault: false }], returnsSet: true, returnTypeKind: 'c', returnType: 'article', returnTypeSchema: 'public', returnTable: { schema: 'public', name: 'article' } }),
  ]);
  const m = md({
    tables: [
      { table: 'author', computed_fields: [{ name: 'full_name', definition: { function: 'full_name' } }, { name: 'v', definition: { function: 'vol', table_argument: 'x' } }] },
      { table: 'article' },
    ],
    functions: [{ function: { schema: 'public', name: 'search' } }],
  });
  const cache = buildSchemaCache(m, snap);
  const cf = cache.tables.get('public.author')!.computedFields.get('full_name')!;
  assert.deepEqual(cf.returns, { kind: 'scalar', pgType: 'text' });
  assert.equal(cf.tableArgIndex, 0);
  assert.deepEqual(cache.functions.get('public.search')!.returnTable, { schema: 'public', name: 'article' });
  assert.deepEqual(cache.inconsistentObjects.map((o) => o.reason), [
    'in table "author": in computed field "v": the computed field "v" cannot be added to table "author" for the following reasons:\n' +
      '  • the function "vol" is of type VOLATILE; cannot be added as a computed field\n' +
      '  • "x" is not an input argument of "vol" function\n',
  ]);
});

test('a build after a permission-only change reuses the other tables and equals a full build', () => {
  const snap = authorArticle();
  const before = buildSchemaCacheFull(relMetadata(), snap);
  const prior = buildRecordOf(before.cache);
  assert.ok(prior);
  const changed = relMetadata();
  changed.tables[1].select_permissions = [
    ...(changed.tables[1].select_permissions ?? []),
    { role: 'editor', permission: { columns: ['id'], filter: { author: { name: { _eq: 'x' } } } } },
  ] as typeof changed.tables[1]['select_permissions'];
  const inc = buildSchemaCacheFrom(prior, changed, snap);
  const full = buildSchemaCacheFull(changed, snap);
  assert.equal(inc.cache.tables.get('public.author'), before.cache.tables.get('public.author'), 'the unchanged table is reused');
  assert.notEqual(inc.cache.tables.get('public.article'), before.cache.tables.get('public.article'));
  assert.deepEqual(inc.cache.tables, full.cache.tables);
  assert.deepEqual(inc.dependencies, full.dependencies);
  assert.deepEqual(inc.inconsistent, full.inconsistent);
  assert.deepEqual(inc.cache.roles, ['editor', 'user']);
  assert.deepEqual(inc.cache.roles, full.cache.roles);
  // the prior cache is left as it was
  assert.deepEqual([...before.cache.tables.get('public.article')!.permissions.keys()], ['user']);

  // a permission that does not fit the database: the same inconsistency as a full build
  const bad = relMetadata();
  bad.tables[0].select_permissions = [{ role: 'user', permission: { columns: ['nope'], filter: {} } }] as typeof bad.tables[0]['select_permissions'];
  const incBad = buildSchemaCacheFrom(prior, bad, snap);
  const fullBad = buildSchemaCacheFull(bad, snap);
  assert.equal(incBad.inconsistent.length, 1);
  assert.deepEqual(incBad.inconsistent, fullBad.inconsistent);
  assert.deepEqual(incBad.cache.tables, fullBad.cache.tables);
  assert.deepEqual(incBad.dependencies, fullBad.dependencies);

  // more than permissions changed (a relationship): a full build
  const rel = relMetadata();
  rel.tables[1].object_relationships = [];
  const incRel = buildSchemaCacheFrom(prior, rel, snap);
  assert.notEqual(incRel.cache.tables.get('public.author'), before.cache.tables.get('public.author'));
  assert.deepEqual(incRel.cache.tables, buildSchemaCacheFull(rel, snap).cache.tables);
  // another snapshot object: a full build
  const other = buildSchemaCacheFrom(prior, changed, authorArticle());
  assert.notEqual(other.cache.tables.get('public.author'), before.cache.tables.get('public.author'));
});
