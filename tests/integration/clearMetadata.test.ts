/**
 * clear_metadata (Hasura v1.3 `runClearMetadata` / `clearUserMetadata`): every user metadata
 * object goes — tables, relationships, permissions, computed fields, functions, query collections
 * and the allow-list — leaving the empty v2 document and an empty GraphQL schema, while the
 * Postgres tables, functions and rows themselves stay untouched.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
before(async () => {
  e = await startTestEngine();
  await e.runSql(`
    CREATE TABLE author (id int PRIMARY KEY, name text);
    CREATE TABLE article (id int PRIMARY KEY, title text, author_id int REFERENCES author (id));
    INSERT INTO author VALUES (1, 'A1');
    INSERT INTO article VALUES (1, 'T1', 1);
    CREATE FUNCTION search_articles(q text) RETURNS SETOF article AS $$ SELECT * FROM article WHERE title ILIKE '%' || q || '%' $$ LANGUAGE sql STABLE;
    CREATE FUNCTION author_upper(a author) RETURNS text AS $$ SELECT upper(a.name) $$ LANGUAGE sql STABLE;
  `);
});
after(() => e?.stop());

const ok = { message: 'success' };
const queryRootFields = async () => {
  const r = await e.graphql('{ __schema { queryType { fields { name } } } }');
  return (r.body.data.__schema.queryType.fields as Array<{ name: string }>).map((f) => f.name).sort();
};

test('clear_metadata removes every metadata object but keeps the database objects', async () => {
  const setup = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'author' } },
      { type: 'track_table', args: { table: 'article' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'add_computed_field', args: { table: 'author', name: 'upper_name', definition: { function: 'author_upper' } } },
      { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: '*', filter: {} } } },
      { type: 'create_insert_permission', args: { table: 'article', role: 'user', permission: { columns: ['title'], check: {} } } },
      { type: 'track_function', args: { name: 'search_articles' } },
      { type: 'create_query_collection', args: { name: 'allowed', definition: { queries: [{ name: 'q1', query: '{ article { id } }' }] } } },
      { type: 'add_collection_to_allowlist', args: { collection: 'allowed' } },
    ],
  });
  assert.equal(setup.status, 200, setup.text);
  const before = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.equal(before.tables.length, 2);
  assert.equal(before.functions.length, 1);
  assert.equal(before.query_collections.length, 1);
  assert.equal(before.allowlist.length, 1);
  assert.ok((await queryRootFields()).includes('search_articles'));

  assert.deepEqual((await e.query({ type: 'clear_metadata', args: {} })).body, ok);

  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, { version: 2, tables: [] });
  const fields = await queryRootFields();
  for (const gone of ['author', 'article', 'article_by_pk', 'author_aggregate', 'search_articles']) assert.ok(!fields.includes(gone), `${gone} still in the schema`);
  assert.equal((await e.graphql('{ article { id } }')).body.errors[0].extensions.code, 'validation-failed');
  const asUser = await e.graphql('{ __schema { queryType { fields { name } } } }', undefined, { 'x-svc-role': 'user' });
  assert.ok(!(asUser.body.data.__schema.queryType.fields as Array<{ name: string }>).some((f) => f.name === 'article'));
  assert.deepEqual((await e.query({ type: 'get_inconsistent_metadata', args: {} })).body, { is_consistent: true, inconsistent_objects: [] });

  // The database is untouched: tables, rows and functions are still there and can be tracked again.
  const rows = await e.runSql(`SELECT (SELECT count(*) FROM author) AS authors, (SELECT count(*) FROM article) AS articles, to_regproc('public.search_articles') IS NOT NULL AS fn`);
  assert.deepEqual(rows.result, [['authors', 'articles', 'fn'], ['1', '1', 't']]);
  assert.equal((await e.query({ type: 'track_table', args: { table: 'article' } })).status, 200);
  assert.deepEqual((await e.graphql('{ article { id title } }')).body, { data: { article: [{ id: 1, title: 'T1' }] } });

  // Clearing again is fine (idempotent).
  assert.deepEqual((await e.query({ type: 'clear_metadata', args: {} })).body, ok);
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, { version: 2, tables: [] });
});
