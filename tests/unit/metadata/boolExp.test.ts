import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { buildSchemaCache, decodeMetadata, parseBoolExp } from '../../../src/metadata/index.js';
import type { BoolExpMode, SchemaCache } from '../../../src/metadata/index.js';
import { authorArticle } from './fixtures.js';

const cache: SchemaCache = buildSchemaCache(
  decodeMetadata({
    version: 2,
    tables: [
      { table: 'author', array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } }] },
      { table: 'article', object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }] },
    ],
  }),
  authorArticle(),
);
const author = cache.tables.get('public.author')!;
const parse = (json: unknown, mode: BoolExpMode = 'permission', t = author) => parseBoolExp(json, t, { tables: cache.tables, mode }).exp;
const idCol = { column: 'id', pgType: 'int4' };
const lit = (value: unknown, pgType: string) => ({ source: { kind: 'value', value }, pgType });
const fails = (code: string, message: string, path?: string) => (e: unknown) =>
  e instanceof ApiError && e.code === code && e.message === message && (path === undefined || e.path === path);

test('a bare value is an implicit _eq; session variables are references only in permissions', () => {
  assert.deepEqual(parse({ id: 'X-Svc-User-Id' }), { kind: 'compare', column: idCol, op: '_eq', value: { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'int4' } });
  assert.deepEqual(parse({ id: 'X-Svc-User-Id' }, 'dml'), { kind: 'compare', column: idCol, op: '_eq', value: lit('X-Svc-User-Id', 'int4') });
  assert.deepEqual(parse({ id: 3 }, 'dml'), { kind: 'compare', column: idCol, op: '_eq', value: lit(3, 'int4') });
});

test('operators in both spellings, _in typed as an array, json key operators, _is_null', () => {
  assert.deepEqual(parse({ id: { $gt: 1, _lte: 5 } }), {
    kind: 'and',
    items: [
      { kind: 'compare', column: idCol, op: '_gt', value: lit(1, 'int4') },
      { kind: 'compare', column: idCol, op: '_lte', value: lit(5, 'int4') },
    ],
  });
  assert.deepEqual(parse({ id: { _ne: 2 } }), { kind: 'compare', column: idCol, op: '_neq', value: lit(2, 'int4') });
  assert.deepEqual(parse({ id: { _in: [1, 2] } }), { kind: 'compare', column: idCol, op: '_in', value: lit([1, 2], '_int4') });
  assert.deepEqual(parse({ name: { _nin: 'X-Svc-Names' } }).kind === 'compare' && (parse({ name: { _nin: 'X-Svc-Names' } }) as { value: unknown }).value, {
    source: { kind: 'session', name: 'x-svc-names' },
    pgType: '_text',
  });
  assert.deepEqual(parse({ bio: { _has_keys_any: ['a', 'b'] } }), { kind: 'compare', column: { column: 'bio', pgType: 'jsonb' }, op: '_has_keys_any', value: lit(['a', 'b'], '_text') });
  assert.deepEqual(parse({ bio: { $has_key: 'X-Svc-Key' } }), { kind: 'compare', column: { column: 'bio', pgType: 'jsonb' }, op: '_has_key', value: { source: { kind: 'session', name: 'x-svc-key' }, pgType: 'text' } });
  assert.deepEqual(parse({ name: { _is_null: true } }), { kind: 'is_null', column: { column: 'name', pgType: 'text' }, isNull: true });
});

test('_and/_or/_not, relationships become exists_rel, _exists has no join columns', () => {
  const article = cache.tables.get('public.article')!;
  assert.deepEqual(parse({ _or: [{ id: 1 }, { _not: { name: 'x' } }] }, 'dml'), {
    kind: 'or',
    items: [
      { kind: 'compare', column: idCol, op: '_eq', value: lit(1, 'int4') },
      { kind: 'not', item: { kind: 'compare', column: { column: 'name', pgType: 'text' }, op: '_eq', value: lit('x', 'text') } },
    ],
  });
  const rel = parse({ author: { name: { _eq: 'A' } } }, 'dml', article);
  assert.deepEqual(rel, {
    kind: 'exists_rel',
    rel: { remoteTable: { schema: 'public', name: 'author' }, mapping: [{ local: 'author_id', remote: 'id' }] },
    where: { kind: 'compare', column: { column: 'name', pgType: 'text' }, op: '_eq', value: lit('A', 'text') },
  });
  assert.deepEqual(parse({ _exists: { _table: 'article', _where: { id: 'X-Svc-Id' } } }), {
    kind: 'exists_rel',
    rel: { remoteTable: { schema: 'public', name: 'article' }, mapping: [] },
    where: { kind: 'compare', column: idCol, op: '_eq', value: { source: { kind: 'session', name: 'x-svc-id' }, pgType: 'int4' } },
  });
  assert.deepEqual(parse({}), { kind: 'true' });
});

test('column comparison operators, including the root table reference', () => {
  assert.deepEqual(parse({ id: { _ceq: 'id' } }), { kind: 'compare_column', column: idCol, op: '_ceq', other: idCol });
  const article = cache.tables.get('public.article')!;
  assert.deepEqual(parse({ author: { id: { $cgt: ['$', 'author_id'] } } }, 'permission', article), {
    kind: 'exists_rel',
    rel: { remoteTable: { schema: 'public', name: 'author' }, mapping: [{ local: 'author_id', remote: 'id' }] },
    where: { kind: 'compare_column', column: idCol, op: '_cgt', other: { column: 'author_id', pgType: 'int4' }, otherIsRoot: true },
  });
  assert.throws(() => parse({ id: { _ceq: 1 } }), fails('unexpected-payload', 'expecting a string for column operator'));
});

test('errors carry Hasura messages and the JSON path', () => {
  assert.throws(() => parse({ nope: 1 }, 'dml'), fails('not-exists', '"nope" does not exist', '$.nope'));
  assert.throws(() => parse({ id: { _foo: 1 } }), fails('unexpected-payload', 'unknown operator: _foo', '$.id._foo'));
  assert.throws(() => parse({ meta: { _eq: {} } }), fails('unexpected-payload', 'JSON column can not be part of where clause', '$.meta'));
  assert.throws(() => parse({ id: { _like: 'a%' } }), fails('unexpected-payload', '"id" is of type "int4"; this operator works only on columns of type "varchar"/"text"/"citext"/"bpchar"/"name"'));
  assert.throws(() => parse({ _and: {} }), fails('parse-failed', 'expected Array, encountered Object', '$._and'));
  assert.throws(() => parse({ articles: { title: { _eq: 1 } }, id: { _in: 3 } }, 'dml'), fails('parse-failed', 'expected Array, encountered Number', '$.id._in'));
  assert.throws(() => parse({ _exists: { _table: 'nope', _where: {} } }), fails('not-exists', 'table "nope" does not exist', '$._exists._table'));
});

test('dependencies name the columns, relationships and tables the expression uses', () => {
  const article = cache.tables.get('public.article')!;
  const { dependencies } = parseBoolExp({ author: { name: 'x' }, title: 't' }, article, { tables: cache.tables, mode: 'dml' });
  assert.deepEqual(dependencies, [
    { kind: 'relationship', table: { schema: 'public', name: 'article' }, name: 'author' },
    { kind: 'column', table: { schema: 'public', name: 'author' }, column: 'name' },
    { kind: 'column', table: { schema: 'public', name: 'article' }, column: 'title' },
  ]);
});
