/**
 * Computed fields inside permission filters, as Hasura v2 allows them: a scalar computed field
 * (with or without the session argument) compared in select / update / delete filters and insert /
 * update checks, a SETOF-table one taking that table's expression; one with input arguments refused
 * with Hasura's message; the permission depends on the computed field; a v1 DML `where` keeps v1.3's
 * refusal.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
const user = (id: number) => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

before(async () => {
  e = await startTestEngine();
  await e.runSql(`CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL);
    CREATE TABLE article (id int PRIMARY KEY, author_id int NOT NULL REFERENCES author(id), body text NOT NULL, published boolean NOT NULL);
    CREATE FUNCTION article_words(a article) RETURNS int LANGUAGE sql STABLE AS $$ SELECT array_length(regexp_split_to_array(a.body, '\\s+'), 1) $$;
    CREATE FUNCTION article_mine(a article, s json) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT a.author_id = (s->>'x-svc-user-id')::int $$;
    CREATE FUNCTION author_published(au author) RETURNS SETOF article LANGUAGE sql STABLE AS $$ SELECT * FROM article WHERE author_id = au.id AND published $$;
    CREATE FUNCTION article_has_word(a article, w text) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT position(w in a.body) > 0 $$;
    INSERT INTO author VALUES (1, 'ann'), (2, 'bob'), (3, 'cy');
    INSERT INTO article VALUES (1, 1, 'one two three', true), (2, 1, 'short', false), (3, 2, 'a b', false), (4, 2, 'w x y z', false);`);
  for (const q of [
    { type: 'track_table', args: 'author' },
    { type: 'track_table', args: 'article' },
    { type: 'add_computed_field', args: { table: 'article', name: 'words', definition: { function: 'article_words' } } },
    { type: 'add_computed_field', args: { table: 'article', name: 'mine', definition: { function: 'article_mine', session_argument: 's' } } },
    { type: 'add_computed_field', args: { table: 'article', name: 'has_word', definition: { function: 'article_has_word' } } },
    { type: 'add_computed_field', args: { table: 'author', name: 'published_articles', definition: { function: 'author_published' } } },
    { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'body'], filter: { _or: [{ mine: { _eq: true } }, { words: { _gte: 3 } }] } } } },
    { type: 'create_update_permission', args: { table: 'article', role: 'user', permission: { columns: ['body'], filter: { mine: true }, check: { words: { _lte: 5 } } } } },
    { type: 'create_delete_permission', args: { table: 'article', role: 'user', permission: { filter: { _and: [{ mine: { _eq: true } }, { words: { _lte: 2 } }] } } } },
    { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['name'], filter: { published_articles: { words: { _gt: 1 } } } } } },
  ]) {
    const r = await e.query(q);
    assert.equal(r.status, 200, `${JSON.stringify(q)}: ${r.text}`);
  }
});
after(() => e?.stop());

test('select: a scalar computed field with the session argument and one without, in one filter', async () => {
  const ids = async (userId: number) => (await e.graphql('{ article(order_by: {id: asc}) { id } }', undefined, user(userId))).body.data.article.map((a: { id: number }) => a.id);
  assert.deepEqual(await ids(1), [1, 2, 4]); // own 1 and 2, and 4 (four words)
  assert.deepEqual(await ids(2), [1, 3, 4]);
  assert.deepEqual(await ids(3), [1, 4]);
  const agg = await e.graphql('{ author(order_by: {name: asc}) { name } }', undefined, user(3));
  assert.deepEqual(agg.body, { data: { author: [{ name: 'ann' }] } }, 'a SETOF-table computed field filters by the rows it returns');
});

test('update: the filter and the check both read computed fields', async () => {
  const other = await e.graphql('mutation { update_article(where: {id: {_eq: 3}}, _set: {body: "x"}) { affected_rows } }', undefined, user(1));
  assert.deepEqual(other.body, { data: { update_article: { affected_rows: 0 } } });
  const own = await e.graphql('mutation { update_article(where: {id: {_eq: 2}}, _set: {body: "now two"}) { affected_rows } }', undefined, user(1));
  assert.deepEqual(own.body, { data: { update_article: { affected_rows: 1 } } });
  const tooLong = await e.graphql('mutation { update_article(where: {id: {_eq: 2}}, _set: {body: "a b c d e f"}) { affected_rows } }', undefined, user(1));
  assert.equal(tooLong.body.errors?.[0]?.extensions?.code, 'permission-error', tooLong.text);
  const [row] = await e.runSql(`SELECT body FROM article WHERE id = 2`).then((r) => r.result.slice(1));
  assert.deepEqual(row, ['now two'], 'the failed check left the row as it was');
});

test('delete: only rows the computed fields allow', async () => {
  const r = await e.graphql('mutation { delete_article(where: {}) { returning { id } } }', undefined, user(2));
  assert.deepEqual(r.body, { data: { delete_article: { returning: [{ id: 3 }] } } });
  const left = await e.runSql('SELECT id FROM article ORDER BY id');
  assert.deepEqual(left.result.slice(1).map((x: string[]) => x[0]), ['1', '2', '4']);
});

test('a computed field with input arguments is refused with Hasura\'s message; the permission depends on the field', async () => {
  const bad = await e.query({ type: 'create_select_permission', args: { table: 'article', role: 'guest', permission: { columns: ['id'], filter: { has_word: { _eq: true } } } } });
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.body.error, /Computed columns with input arguments can not be part of the where clause/);
  const drop = await e.query({ type: 'drop_computed_field', args: { table: 'article', name: 'words' } });
  assert.equal(drop.status, 400, drop.text);
  assert.equal(drop.body.code, 'dependency-error', drop.text);
  assert.match(drop.body.error, /permission/);
});

test('exported and restored by replace_metadata; a v1 DML where keeps the v1.3 refusal', async () => {
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  const article = md.tables.find((t: { table: { name: string } }) => t.table.name === 'article');
  assert.deepEqual(article.select_permissions[0].permission.filter, { _or: [{ mine: { _eq: true } }, { words: { _gte: 3 } }] });
  const replaced = await e.query({ type: 'replace_metadata', args: md });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual((await e.graphql('{ article(order_by: {id: asc}) { id } }', undefined, user(3))).body.data.article, [{ id: 1 }, { id: 4 }]);
  const dml = await e.query({ type: 'select', args: { table: 'article', columns: ['id'], where: { words: { _gt: 1 } } } });
  assert.equal(dml.status, 400, dml.text);
  assert.match(dml.body.error, /Computed columns can not be part of the where clause/);
});

test('computed fields in a mutation\'s answer receive the mutated row as a row of the table', async () => {
  const inserted = await e.graphql('mutation { insert_article_one(object: {id: 10, author_id: 3, body: "x y z w", published: true}) { id words has_word(args: {w: "z"}) } }');
  assert.deepEqual(inserted.body, { data: { insert_article_one: { id: 10, words: 4, has_word: true } } });
  const updated = await e.graphql(`mutation {
    update_article(where: {id: {_eq: 10}}, _set: {body: "x y"}) { returning { words mine: has_word(args: {w: "q"}) } }
    update_author_by_pk(pk_columns: {id: 3}, _set: {name: "cy"}) { name published_articles { id words } }
  }`);
  assert.deepEqual(updated.body, { data: {
    update_article: { returning: [{ words: 2, mine: false }] },
    update_author_by_pk: { name: 'cy', published_articles: [{ id: 10, words: 2 }] },
  } });
  const deleted = await e.graphql('mutation { delete_article_by_pk(id: 10) { id words } }');
  assert.deepEqual(deleted.body, { data: { delete_article_by_pk: { id: 10, words: 2 } } });
});
