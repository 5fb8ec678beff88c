/**
 * Hand-built schema caches for unit tests of the schema builder, the validator and the planner:
 * author(id, name, createdAt, remarks) ⇄ article(id, title, content, author_id, is_published, tags jsonb, rating numeric),
 * with a `user` role (filtered, limited, no `remarks`), an `anon` role without aggregations, and a
 * `nobody` role with no permissions at all.
 */
import type { BoolExp } from '../../../src/ir/index.js';
import type { ColumnInfo, RelationshipInfo, SchemaCache, SelectPermInfo, TableInfo } from '../../../src/metadata/schemaCache/types.js';

export function column(name: string, pgType: string, opts: Partial<ColumnInfo> = {}): ColumnInfo {
  return {
    name, gqlName: name, pgType, pgTypeSchema: 'pg_catalog', typeKind: 'b', isArray: pgType.startsWith('_'),
    nullable: true, hasDefault: false, isGenerated: false, isIdentity: false, position: 0, description: null, ...opts,
  };
}

export function table(name: string, columns: ColumnInfo[], opts: Partial<TableInfo> = {}): TableInfo {
  columns.forEach((c, i) => { c.position = i + 1; });
  return {
    name: { schema: 'public', name }, gqlName: name, kind: 'table', description: null, columns,
    columnsByName: new Map(columns.map((c) => [c.name, c])), primaryKey: ['id'], uniqueConstraints: [],
    primaryKeyConstraint: `${name}_pkey`, foreignKeys: [], relationships: new Map(), computedFields: new Map(),
    permissions: new Map(), isEnum: false, customRootFields: {}, customColumnNames: {},
    mutability: { insertable: true, updatable: true, deletable: true }, ...opts,
  };
}

export function selectPerm(columns: string[], filter: BoolExp = { kind: 'true' }, opts: Partial<SelectPermInfo> = {}): SelectPermInfo {
  return { columns: new Set(columns), computedFields: new Set(), filter, limit: null, allowAggregations: false, ...opts };
}

export const userIdFilter = (col: string): BoolExp => ({
  kind: 'compare', column: { column: col, pgType: 'int4' }, op: '_eq',
  value: { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'int4' },
});

export function makeCache(): SchemaCache {
  const author = table('author', [
    column('id', 'int4', { nullable: false, hasDefault: true }),
    column('name', 'text', { description: 'the name' }),
    column('createdAt', 'timestamptz'),
    column('remarks', 'text'),
    column('big', 'int8'),
  ], { description: null });
  const article = table('article', [
    column('id', 'int4', { nullable: false, hasDefault: true }),
    column('title', 'text'),
    column('content', 'text'),
    column('author_id', 'int4', { nullable: false }),
    column('is_published', 'bool'),
    column('tags', 'jsonb'),
    column('rating', 'numeric'),
  ]);
  article.foreignKeys.push({ name: 'article_author_id_fkey', columns: ['author_id'], refTable: author.name, refColumns: ['id'] });
  const articleAuthor: RelationshipInfo = {
    name: 'author', type: 'object', comment: null, insertOrder: 'before_parent',
    join: { remoteTable: author.name, mapping: [{ local: 'author_id', remote: 'id' }] },
  };
  const authorArticles: RelationshipInfo = {
    name: 'articles', type: 'array', comment: null, insertOrder: 'after_parent',
    join: { remoteTable: article.name, mapping: [{ local: 'id', remote: 'author_id' }] },
  };
  article.relationships.set('author', articleAuthor);
  author.relationships.set('articles', authorArticles);

  author.permissions.set('user', { select: selectPerm(['id', 'name', 'createdAt', 'big'], { kind: 'true' }, { limit: 10, allowAggregations: true }) });
  article.permissions.set('user', {
    select: selectPerm(['id', 'title', 'content', 'author_id', 'is_published', 'tags', 'rating'], {
      kind: 'or', items: [userIdFilter('author_id'), { kind: 'compare', column: { column: 'is_published', pgType: 'bool' }, op: '_eq', value: { source: { kind: 'value', value: true }, pgType: 'bool' } }],
    }, { allowAggregations: true }),
  });
  article.permissions.set('anon', { select: selectPerm(['id', 'title']) });

  return {
    metadata: { version: 2, tables: [] },
    tables: new Map([['public.author', author], ['public.article', article]]),
    functions: new Map(),
    roles: ['user', 'anon'],
    inconsistentObjects: [],
  };
}
