/** Relationships suggested from foreign keys (console/src/schema/relationshipSuggestions.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { suggestRelationships } from '../../../console/src/schema/relationshipSuggestions.js';

const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };
const fks = [
  { constraint: 'article_author_id_fkey', from: article, to: author, columns: ['author_id'], refColumns: ['id'] },
  { constraint: 'article_pair_fkey', from: article, to: author, columns: ['a', 'b'], refColumns: ['x', 'y'] },
];
const tracked = new Set(['public.author', 'public.article']);

test('an object relationship on the referencing table, named after the column; several columns make a manual configuration', () => {
  const s = suggestRelationships(article, { table: article }, fks, tracked, ['id', 'author_id']);
  assert.deepEqual(s.map((x) => [x.kind, x.name, x.using]), [
    ['object', 'author', { foreign_key_constraint_on: 'author_id' }],
    ['object', 'author2', { manual_configuration: { remote_table: author, column_mapping: { a: 'x', b: 'y' } } }],
  ]);
});

test('an array relationship on the referenced table; keys already used and untracked tables are left out', () => {
  const entry = { table: author, array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: article, column: 'author_id' } } }] };
  const s = suggestRelationships(author, entry, fks, tracked);
  assert.deepEqual(s.map((x) => [x.kind, x.name, x.constraint]), [['array', 'articles2', 'article_pair_fkey']]);
  assert.deepEqual(s[0].using, { manual_configuration: { remote_table: article, column_mapping: { x: 'a', y: 'b' } } });
  assert.deepEqual(suggestRelationships(author, { table: author }, fks, new Set(['public.author'])), []);
});

test('a name taken by a column gets a number', () => {
  const s = suggestRelationships(article, { table: article }, fks.slice(0, 1), tracked, ['author']);
  assert.equal(s[0].name, 'author2');
});
