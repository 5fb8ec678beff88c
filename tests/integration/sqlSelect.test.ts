/**
 * compileSelect against a real Postgres: nested relationships, where operators, order_by
 * (columns, through object relationships, by array aggregates), distinct_on, limit/offset,
 * permission filters with session variables, computed fields, function sources, and the
 * row-object fallbacks (long aliases, wide selections).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { roleSession } from '../../src/core/index.js';
import type { BoolExp, OrderByItem, SelectField, SelectIR } from '../../src/ir/index.js';
import { compileRowJson, compileSelect, sql } from '../../src/sql/index.js';
import { TRUE, asc, cmp, col, desc, join, lit, openSqlTestDb, select, table, variable, type SqlTestDb } from './sqlHarness.js';

const SCHEMA = `
CREATE TABLE contact (id serial PRIMARY KEY, phone bigint);
CREATE TABLE author (
  id serial PRIMARY KEY, name text UNIQUE, first_name text, last_name text,
  is_registered boolean NOT NULL DEFAULT false, contact_id int REFERENCES contact(id));
CREATE TABLE article (
  id serial PRIMARY KEY, title text, content text, author_id int REFERENCES author(id),
  is_published boolean, tags jsonb, published_on timestamp);
CREATE TABLE employee (id serial PRIMARY KEY, name text NOT NULL UNIQUE, department text, salary int);
CREATE TABLE city (id serial PRIMARY KEY, name text, country text);

INSERT INTO contact (phone) VALUES (1234567890), (1234567891);
INSERT INTO author (name, first_name, last_name, is_registered, contact_id) VALUES
  ('Author 1', 'Roger', 'Chris', true, 2), ('Author 2', 'Daniel', NULL, false, 1), ('Author 3', 'Ann', 'Lee', true, NULL);
INSERT INTO article (title, content, author_id, is_published, tags) VALUES
  ('Article 1', 'Sample article content 1', 1, false, '{"lang": "en", "topics": ["sql"]}'),
  ('Article 2', 'Sample article content 2', 1, true, '{"lang": "fr", "topics": ["sql", "graphql"]}'),
  ('Article 3', 'Sample article content 3', 2, true, '{"lang": "en"}');
INSERT INTO employee (name, department, salary) VALUES
  ('Kai', 'Engineering', 2345), ('Zara', 'Services', 1234), ('Kelsy', 'Services', 2134), ('Damien', 'Product', 3124),
  ('Kamila', 'Engineering', 4325), ('Dara', 'Product', 1209), ('Rickard', 'Services', 2223);
INSERT INTO city (name, country) VALUES ('Durham', 'USA'), ('New York', 'USA'), ('Framlingham', 'UK'), ('New Orleans', 'USA');

CREATE FUNCTION author_full_name(a author) RETURNS text LANGUAGE sql STABLE AS
  $$ SELECT a.first_name || coalesce(' ' || a.last_name, '') $$;
CREATE FUNCTION author_get_articles(a author, search text) RETURNS SETOF article LANGUAGE sql STABLE AS
  $$ SELECT * FROM article WHERE author_id = a.id AND title ILIKE '%' || search || '%' $$;
CREATE FUNCTION search_articles(search text) RETURNS SETOF article LANGUAGE sql STABLE AS
  $$ SELECT * FROM article WHERE title ILIKE '%' || search || '%' $$;
CREATE FUNCTION author_session_role(a author, hasura_session json) RETURNS text LANGUAGE sql STABLE AS
  $$ SELECT hasura_session ->> 'x-svc-role' $$;
`;

const articleToAuthor = join('author', 'author_id', 'id');
const authorToArticles = join('article', 'id', 'author_id');
const titles = (rows: Array<{ title: string }>) => rows.map((r) => r.title);

let db: SqlTestDb;
before(async () => {
  db = await openSqlTestDb(SCHEMA);
});
after(async () => {
  await db?.close();
});

describe('relationships', () => {
  it('nests three levels: author → articles → author, ordered at each level', async () => {
    const ir = select('author', [
      col('id'),
      col('name', 'text'),
      {
        alias: 'articles',
        kind: 'array_rel',
        join: authorToArticles,
        select: select('article', [
          col('title', 'text'),
          { alias: 'writer', kind: 'object_rel', join: articleToAuthor, select: select('author', [col('name', 'text')]) },
        ], { orderBy: [desc('id')] }),
      },
    ], { orderBy: [asc('id')] });
    assert.deepEqual(await db.run(compileSelect(ir)), [
      { id: 1, name: 'Author 1', articles: [{ title: 'Article 2', writer: { name: 'Author 1' } }, { title: 'Article 1', writer: { name: 'Author 1' } }] },
      { id: 2, name: 'Author 2', articles: [{ title: 'Article 3', writer: { name: 'Author 2' } }] },
      { id: 3, name: 'Author 3', articles: [] },
    ]);
  });

  it('gives null for a missing object relationship and applies its filter', async () => {
    const ir = select('author', [
      col('id'),
      {
        alias: 'contact',
        kind: 'object_rel',
        join: join('contact', 'contact_id', 'id'),
        select: select('contact', [col('phone', 'int8')], { where: cmp('phone', '_gt', lit(1234567890, 'int8'), 'int8') }),
      },
    ], { orderBy: [asc('id')] });
    assert.deepEqual(await db.run(compileSelect(ir)), [
      { id: 1, contact: { phone: 1234567891 } },
      { id: 2, contact: null },
      { id: 3, contact: null },
    ]);
  });

  it('applies where, order_by, limit and offset inside an array relationship', async () => {
    const ir = select('author', [
      col('id'),
      {
        alias: 'articles',
        kind: 'array_rel',
        join: authorToArticles,
        select: select('article', [col('id')], { where: cmp('id', '_gt', lit(0, 'int4')), orderBy: [desc('id')], limit: 1, offset: 1 }),
      },
    ], { orderBy: [asc('id')], limit: 2 });
    assert.deepEqual(await db.run(compileSelect(ir)), [
      { id: 1, articles: [{ id: 1 }] },
      { id: 2, articles: [] },
    ]);
  });

  it('returns by_pk as an object, or null when no row matches', async () => {
    const ir = (id: number) => select('author', [col('name', 'text'), { alias: '__typename', kind: 'typename', name: 'author' }], { where: cmp('id', '_eq', lit(id, 'int4')) });
    assert.deepEqual(await db.run(compileSelect(ir(2), { single: true })), { name: 'Author 2', __typename: 'author' });
    assert.equal(await db.runText(compileSelect(ir(42), { single: true })), 'null');
  });
});

describe('where', () => {
  const titlesWhere = async (where: BoolExp, variables?: Record<string, unknown>) =>
    titles(await db.run(compileSelect(select('article', [col('title', 'text')], { where, orderBy: [asc('id')] })), variables));

  it('compares with each scalar operator', async () => {
    assert.deepEqual(await titlesWhere(cmp('id', '_eq', lit(2, 'int4'))), ['Article 2']);
    assert.deepEqual(await titlesWhere(cmp('id', '_neq', lit(2, 'int4'))), ['Article 1', 'Article 3']);
    assert.deepEqual(await titlesWhere(cmp('id', '_gt', lit(2, 'int4'))), ['Article 3']);
    assert.deepEqual(await titlesWhere(cmp('id', '_gte', lit(2, 'int4'))), ['Article 2', 'Article 3']);
    assert.deepEqual(await titlesWhere(cmp('id', '_lt', lit(2, 'int4'))), ['Article 1']);
    assert.deepEqual(await titlesWhere(cmp('id', '_lte', lit(2, 'int4'))), ['Article 1', 'Article 2']);
  });

  it('takes _in/_nin lists as one array parameter, including empty ones and variables', async () => {
    assert.deepEqual(await titlesWhere(cmp('id', '_in', lit([1, 3], '_int4'))), ['Article 1', 'Article 3']);
    assert.deepEqual(await titlesWhere(cmp('id', '_nin', lit([1, 3], '_int4'))), ['Article 2']);
    assert.deepEqual(await titlesWhere(cmp('id', '_in', lit([], '_int4'))), []);
    assert.deepEqual(await titlesWhere(cmp('id', '_nin', lit([], '_int4'))), ['Article 1', 'Article 2', 'Article 3']);
    assert.deepEqual(await titlesWhere(cmp('title', '_in', variable('ts', '_text'), 'text'), { ts: ['Article 2', 'x'] }), ['Article 2']);
  });

  it('matches text with like, ilike, similar and their negations', async () => {
    const cities = async (where: BoolExp) =>
      (await db.run(compileSelect(select('city', [col('name', 'text')], { where, orderBy: [asc('id')] })))).map((r: { name: string }) => r.name);
    assert.deepEqual(await cities(cmp('name', '_like', lit('New%', 'text'), 'text')), ['New York', 'New Orleans']);
    assert.deepEqual(await cities(cmp('name', '_nlike', lit('New%', 'text'), 'text')), ['Durham', 'Framlingham']);
    assert.deepEqual(await cities(cmp('name', '_ilike', lit('%HAM', 'text'), 'text')), ['Durham', 'Framlingham']);
    assert.deepEqual(await cities(cmp('name', '_nilike', lit('%HAM', 'text'), 'text')), ['New York', 'New Orleans']);
    assert.deepEqual(await cities(cmp('name', '_similar', lit('(Dur|Fram)%', 'text'), 'text')), ['Durham', 'Framlingham']);
    assert.deepEqual(await cities(cmp('name', '_nsimilar', lit('(Dur|Fram)%', 'text'), 'text')), ['New York', 'New Orleans']);
  });

  it('supports the jsonb operators', async () => {
    const j = (op: Parameters<typeof cmp>[1], value: unknown, pgType: string) => titlesWhere(cmp('tags', op, lit(value, pgType), 'jsonb'));
    assert.deepEqual(await j('_contains', { lang: 'en' }, 'jsonb'), ['Article 1', 'Article 3']);
    assert.deepEqual(await j('_contained_in', { lang: 'en', topics: ['sql'], x: 1 }, 'jsonb'), ['Article 1', 'Article 3']);
    assert.deepEqual(await j('_has_key', 'topics', 'text'), ['Article 1', 'Article 2']);
    assert.deepEqual(await j('_has_keys_any', ['nope', 'topics'], '_text'), ['Article 1', 'Article 2']);
    assert.deepEqual(await j('_has_keys_all', ['lang', 'topics'], '_text'), ['Article 1', 'Article 2']);
  });

  it('handles is_null, and/or/not, column comparisons and relationship traversal', async () => {
    const titleCol = { column: 'title', pgType: 'text' };
    assert.deepEqual(await titlesWhere({ kind: 'is_null', column: { column: 'published_on', pgType: 'timestamp' }, isNull: true }), ['Article 1', 'Article 2', 'Article 3']);
    assert.deepEqual(await titlesWhere({ kind: 'is_null', column: titleCol, isNull: variable('n', 'bool') }, { n: false }), ['Article 1', 'Article 2', 'Article 3']);
    assert.deepEqual(await titlesWhere({ kind: 'is_null', column: titleCol, isNull: variable('n', 'bool') }, { n: true }), []);
    assert.deepEqual(
      await titlesWhere({ kind: 'or', items: [cmp('id', '_eq', lit(1, 'int4')), { kind: 'not', item: cmp('is_published', '_eq', lit(false, 'bool'), 'bool') }] }),
      ['Article 1', 'Article 2', 'Article 3'],
    );
    assert.deepEqual(await titlesWhere({ kind: 'and', items: [cmp('id', '_gt', lit(1, 'int4')), cmp('id', '_lt', lit(3, 'int4'))] }), ['Article 2']);
    assert.deepEqual(await titlesWhere({ kind: 'or', items: [] }), []);
    assert.deepEqual(
      await titlesWhere({ kind: 'compare_column', column: { column: 'author_id', pgType: 'int4' }, op: '_ceq', other: { column: 'id', pgType: 'int4' } }),
      ['Article 1'],
    );
    // articles whose author is registered and has an article with id 3 … (none), or is registered
    const registered: BoolExp = { kind: 'exists_rel', rel: articleToAuthor, where: cmp('is_registered', '_eq', lit(true, 'bool'), 'bool') };
    assert.deepEqual(await titlesWhere(registered), ['Article 1', 'Article 2']);
    // nested traversal article → author → articles, with a root-table comparison: another article by the same author
    const sibling: BoolExp = {
      kind: 'exists_rel',
      rel: articleToAuthor,
      where: {
        kind: 'exists_rel',
        rel: authorToArticles,
        where: { kind: 'compare_column', column: { column: 'id', pgType: 'int4' }, op: '_cne', other: { column: 'id', pgType: 'int4' }, otherIsRoot: true },
      },
    };
    assert.deepEqual(await titlesWhere(sibling), ['Article 1', 'Article 2']);
  });

  it('binds session variables of permission filters', async () => {
    const ir = select('article', [col('id')], { where: cmp('author_id', '_eq', { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'int4' }), orderBy: [asc('id')] });
    assert.deepEqual(await db.run(compileSelect(ir), {}, roleSession('user', { 'x-svc-user-id': '1' })), [{ id: 1 }, { id: 2 }]);
    assert.deepEqual(await db.run(compileSelect(ir), {}, roleSession('user', { 'x-svc-user-id': '2' })), [{ id: 3 }]);
  });
});

describe('order_by', () => {
  const ids = async (orderBy: OrderByItem[], extra: Partial<SelectIR> = {}) =>
    (await db.run(compileSelect(select('article', [col('id')], { orderBy, ...extra })))).map((r: { id: number }) => r.id);

  it('orders by columns with directions and nulls placement', async () => {
    assert.deepEqual(await ids([desc('id')]), [3, 2, 1]);
    const authors = async (o: OrderByItem) => (await db.run(compileSelect(select('author', [col('id')], { orderBy: [o, asc('id')] })))).map((r: { id: number }) => r.id);
    assert.deepEqual(await authors(asc('last_name')), [1, 3, 2]);
    assert.deepEqual(await authors(asc('last_name', 'first')), [2, 1, 3]);
    assert.deepEqual(await authors(desc('last_name')), [2, 3, 1]);
    assert.deepEqual(await authors(desc('last_name', 'last')), [3, 1, 2]);
  });

  it('orders through object relationships (with their permission filters)', async () => {
    const byAuthorId: OrderByItem = { target: { kind: 'object_rel', join: articleToAuthor, filter: TRUE, target: { kind: 'column', column: 'id' } }, direction: 'desc' };
    assert.deepEqual(await ids([byAuthorId, asc('id')]), [3, 1, 2]);
    const byPhone: OrderByItem = {
      target: {
        kind: 'object_rel',
        join: articleToAuthor,
        filter: TRUE,
        target: { kind: 'object_rel', join: join('contact', 'contact_id', 'id'), filter: TRUE, target: { kind: 'column', column: 'phone' } },
      },
      direction: 'desc',
    };
    assert.deepEqual(await ids([byPhone, asc('id')]), [1, 2, 3]);
    // The author filter hides Author 1, so its articles sort as if it had no name (NULLS LAST for asc).
    const byName: OrderByItem = {
      target: { kind: 'object_rel', join: articleToAuthor, filter: cmp('id', '_neq', lit(1, 'int4')), target: { kind: 'column', column: 'name' } },
      direction: 'asc',
    };
    assert.deepEqual(await ids([byName, desc('id')], { limit: 2 }), [3, 2]);
    // Through an object relationship to an aggregate of its array relationship.
    const byAuthorArticleCount: OrderByItem = {
      target: { kind: 'object_rel', join: articleToAuthor, filter: TRUE, target: { kind: 'array_agg', join: authorToArticles, filter: TRUE, agg: { op: 'count' } } },
      direction: 'asc',
    };
    assert.deepEqual(await ids([byAuthorArticleCount, desc('id')]), [3, 2, 1]);
  });

  it('orders by array-relationship aggregates', async () => {
    const byCount = (filter: BoolExp): OrderByItem => ({ target: { kind: 'array_agg', join: authorToArticles, filter, agg: { op: 'count' } }, direction: 'desc' });
    const authors = async (o: OrderByItem[]) => (await db.run(compileSelect(select('author', [col('id')], { orderBy: o })))).map((r: { id: number }) => r.id);
    assert.deepEqual(await authors([byCount(TRUE), asc('id')]), [1, 2, 3]);
    assert.deepEqual(await authors([byCount(cmp('is_published', '_eq', lit(true, 'bool'), 'bool')), desc('id')]), [2, 1, 3]);
    const byMaxId: OrderByItem = { target: { kind: 'array_agg', join: authorToArticles, filter: TRUE, agg: { op: 'max', column: 'id' } }, direction: 'desc', nulls: 'last' };
    assert.deepEqual(await authors([byMaxId]), [2, 1, 3]);
  });

  it('keeps a relationship order inside nested array relationships', async () => {
    const ir = select('author', [
      col('id'),
      {
        alias: 'articles',
        kind: 'array_rel',
        join: authorToArticles,
        select: select('article', [col('id')], {
          orderBy: [{ target: { kind: 'object_rel', join: articleToAuthor, filter: TRUE, target: { kind: 'column', column: 'name' } }, direction: 'asc' }, desc('id')],
          limit: 5,
        }),
      },
    ], { where: cmp('id', '_eq', lit(1, 'int4')) });
    assert.deepEqual(await db.run(compileSelect(ir)), [{ id: 1, articles: [{ id: 2 }, { id: 1 }] }]);
  });

  it('picks one row per distinct_on group (Hasura employee cases)', async () => {
    const emp = async (orderBy: OrderByItem[]) =>
      db.run(compileSelect(select('employee', [col('id'), col('name', 'text'), col('department', 'text'), col('salary')], { distinctOn: ['department'], orderBy })));
    assert.deepEqual(await emp([desc('department'), asc('salary')]), [
      { id: 2, name: 'Zara', department: 'Services', salary: 1234 },
      { id: 6, name: 'Dara', department: 'Product', salary: 1209 },
      { id: 1, name: 'Kai', department: 'Engineering', salary: 2345 },
    ]);
    assert.deepEqual(await emp([asc('department'), desc('salary')]), [
      { id: 5, name: 'Kamila', department: 'Engineering', salary: 4325 },
      { id: 4, name: 'Damien', department: 'Product', salary: 3124 },
      { id: 7, name: 'Rickard', department: 'Services', salary: 2223 },
    ]);
    // Without order_by the distinct columns order the result.
    const depts = (await db.run(compileSelect(select('employee', [col('department', 'text')], { distinctOn: ['department'] })))).map((r: { department: string }) => r.department);
    assert.deepEqual(depts, ['Engineering', 'Product', 'Services']);
  });

  it('takes limit and offset as literals or parameters', async () => {
    assert.deepEqual(await ids([asc('id')], { limit: 1, offset: 1 }), [2]);
    const ir = select('article', [col('id')], { orderBy: [asc('id')], limit: variable('l', 'int4'), offset: variable('o', 'int4') });
    assert.deepEqual((await db.run(compileSelect(ir), { l: 2, o: 1 })).map((r: { id: number }) => r.id), [2, 3]);
    assert.deepEqual((await db.run(compileSelect(ir), { l: null, o: null })).map((r: { id: number }) => r.id), [1, 2, 3]);
  });
});

describe('computed fields and functions', () => {
  const fullName: SelectField = { alias: 'full_name', kind: 'computed_scalar', function: table('author_full_name'), pgType: 'text', tableArg: 0, args: [] };
  const getArticles = (search: string): SelectField => ({
    alias: 'get_articles',
    kind: 'computed_table',
    function: table('author_get_articles'),
    tableArg: 0,
    args: [{ value: lit(search, 'text') }],
    select: select('article', [col('id')], { orderBy: [desc('id')] }),
  });

  it('calls scalar and table computed fields with the row', async () => {
    const ir = select('author', [col('id'), fullName, getArticles('article')], { orderBy: [asc('id')] });
    assert.deepEqual(await db.run(compileSelect(ir)), [
      { id: 1, full_name: 'Roger Chris', get_articles: [{ id: 2 }, { id: 1 }] },
      { id: 2, full_name: 'Daniel', get_articles: [{ id: 3 }] },
      { id: 3, full_name: 'Ann Lee', get_articles: [] },
    ]);
  });

  it('keeps the row type when the order goes through a relationship', async () => {
    const byArticleCount: OrderByItem = { target: { kind: 'array_agg', join: authorToArticles, filter: TRUE, agg: { op: 'count' } }, direction: 'asc' };
    const ir = select('author', [col('id'), fullName], { orderBy: [byArticleCount, desc('id')], limit: 2 });
    assert.deepEqual(await db.run(compileSelect(ir)), [{ id: 3, full_name: 'Ann Lee' }, { id: 2, full_name: 'Daniel' }]);
  });

  it('passes the session to functions that take it', async () => {
    const role: SelectField = { alias: 'role', kind: 'computed_scalar', function: table('author_session_role'), pgType: 'text', tableArg: 0, sessionArg: 1, args: [] };
    const ir = select('author', [role], { where: cmp('id', '_eq', lit(1, 'int4')) });
    assert.deepEqual(await db.run(compileSelect(ir), {}, roleSession('editor', {})), [{ role: 'editor' }]);
  });

  it('reads root rows from a set-returning function', async () => {
    const ir: SelectIR = { ...select('article', [col('id')], { orderBy: [asc('id')] }), source: { function: table('search_articles'), args: [{ value: variable('s', 'text') }] } };
    assert.deepEqual(await db.run(compileSelect(ir), { s: '3' }), [{ id: 3 }]);
  });
});

describe('compileRowJson', () => {
  it('builds rows with relationships over a FROM it does not own (mutation returning)', async () => {
    const row = compileRowJson(
      [
        col('id'),
        { alias: 'author', kind: 'object_rel', join: articleToAuthor, select: select('author', [col('name', 'text')]) },
        {
          alias: 'siblings',
          kind: 'array_rel',
          join: join('article', 'author_id', 'author_id'),
          select: select('article', [col('id')], { orderBy: [asc('id')] }),
        },
      ],
      sql.ident('_svc_r'),
    );
    const f = sql`SELECT coalesce(json_agg(${row} ORDER BY "_svc_r"."id"), '[]') FROM "public"."article" AS "_svc_r" WHERE "_svc_r"."id" > 1`;
    assert.deepEqual(await db.run(f), [
      { id: 2, author: { name: 'Author 1' }, siblings: [{ id: 1 }, { id: 2 }] },
      { id: 3, author: { name: 'Author 2' }, siblings: [{ id: 3 }] },
    ]);
  });
});

describe('row objects', () => {
  it('falls back to json_build_object for aliases longer than 63 bytes', async () => {
    const long = 'a'.repeat(70);
    const text = await db.runText(compileSelect(select('author', [col('id'), col('name', 'text', long)], { where: cmp('id', '_eq', lit(1, 'int4')) })));
    assert.deepEqual(JSON.parse(text), [{ id: 1, [long]: 'Author 1' }]);
  });

  it('builds objects wider than 50 keys (with long aliases too)', async () => {
    const fields = Array.from({ length: 120 }, (_, i) => col('id', 'int4', `k${i}_${'x'.repeat(i === 7 ? 64 : 0)}`));
    const got = await db.run(compileSelect(select('author', fields, { where: cmp('id', '_eq', lit(2, 'int4')) }), { single: true }));
    assert.equal(Object.keys(got).length, 120);
    assert.deepEqual(Object.values(got), Array(120).fill(2));
    assert.deepEqual(Object.keys(got), fields.map((f) => f.alias));
  });
});
