/**
 * Builds DbSnapshots for the pure schema-cache / boolExp tests: a small author/article schema
 * (article.author_id → author.id), plus functions to describe more tables tersely.
 */
import type { DbColumn, DbSnapshot, DbTable, DbFunction } from '../../../src/metadata/index.js';

let oid = 1000;

export function column(name: string, type = 'text', extra: Partial<DbColumn> = {}): DbColumn {
  return {
    name,
    position: 0,
    type,
    typeSchema: 'pg_catalog',
    typeKind: 'b',
    isArray: type.startsWith('_'),
    displayType: type === 'int4' ? 'integer' : type,
    nullable: true,
    hasDefault: false,
    isIdentity: false,
    isGenerated: false,
    comment: null,
    ...extra,
  };
}

export function table(name: string, columns: DbColumn[], extra: Partial<DbTable> = {}): DbTable {
  return {
    oid: oid++,
    schema: 'public',
    name,
    kind: 'table',
    comment: null,
    columns: columns.map((c, i) => ({ ...c, position: i + 1 })),
    primaryKey: { name: `${name}_pkey`, columns: ['id'] },
    uniqueConstraints: [],
    foreignKeys: [],
    insertable: true,
    updatable: true,
    deletable: true,
    ...extra,
  };
}

export function fn(name: string, extra: Partial<DbFunction> = {}): DbFunction {
  return {
    oid: oid++,
    schema: 'public',
    name,
    args: [],
    returnType: 'text',
    returnTypeSchema: 'pg_catalog',
    returnTypeKind: 'b',
    returnTable: null,
    returnsSet: false,
    volatility: 'STABLE',
    comment: null,
    kind: 'f',
    hasVariadic: false,
    ...extra,
  };
}

export function snapshot(tables: DbTable[], functions: DbFunction[] = []): DbSnapshot {
  const fns = new Map<string, DbFunction[]>();
  for (const f of functions) fns.set(`${f.schema}.${f.name}`, [...(fns.get(`${f.schema}.${f.name}`) ?? []), f]);
  return { tables: new Map(tables.map((t) => [`${t.schema}.${t.name}`, t])), functions: fns, enumValues: new Map() };
}

/** author(id, name, bio jsonb, meta json) and article(id, title, author_id → author.id, published_on). */
export function authorArticle(): DbSnapshot {
  const author = table('author', [column('id', 'int4', { nullable: false, hasDefault: true }), column('name'), column('bio', 'jsonb'), column('meta', 'json')]);
  const article = table(
    'article',
    [column('id', 'int4', { nullable: false, hasDefault: true }), column('title'), column('author_id', 'int4'), column('published_on', 'timestamp')],
    { foreignKeys: [{ name: 'article_author_id_fkey', oid: oid++, columns: ['author_id'], refTable: { schema: 'public', name: 'author' }, refColumns: ['id'] }] },
  );
  return snapshot([author, article]);
}
