/**
 * Allow-list normalisation and matching (metadata/schemaCache/allowlist.ts) and the decoders of
 * query collections (metadata/model/decodeQueryCollection.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import {
  assertQueryCollectionsValid,
  buildAllowlist,
  decodeMetadata,
  decodeQueryCollection,
  encodeMetadata,
  normalizeAllowlistQuery,
} from '../../../src/metadata/index.js';
import type { Metadata } from '../../../src/metadata/index.js';

const norm = normalizeAllowlistQuery;
const fails = (code: string, message: string, path: string) => (e: unknown) =>
  e instanceof ApiError && e.code === code && e.message === message && e.path === path;

test('formatting, commas and comments do not change the normalised text', () => {
  const a = norm('query {\n  user{\n    id\n    name\n  }\n}\n');
  assert.ok(a);
  assert.equal(norm('query { user { id name } }'), a);
  assert.equal(norm('query{user{id,name}}  # trailing comment'), a);
  assert.equal(norm('\n\n  query   {  user  {  id\n\n name } }'), a);
});

test('__typename fields are stripped at every depth, aliased or not', () => {
  const plain = norm('query { user { id posts { title } } }');
  assert.equal(norm('query { user { id __typename posts { __typename title } } __typename }'), plain);
  assert.equal(norm('query { user { id t: __typename posts { title } } }'), plain);
  // Inside inline fragments Hasura keeps them (its stripTypenames does not descend there).
  assert.notEqual(norm('query { user { ... on user { __typename id } } }'), norm('query { user { ... on user { id } } }'));
});

test('differences that matter: fields, their order, arguments, names, variables', () => {
  const base = norm('query q($id: Int!) { user(where: {id: {_eq: $id}}) { id name } }');
  assert.notEqual(norm('query q($id: Int!) { user(where: {id: {_eq: $id}}) { name id } }'), base);
  assert.notEqual(norm('query q($id: Int!) { user(where: {id: {_eq: 1}}) { id name } }'), base);
  assert.notEqual(norm('query r($id: Int!) { user(where: {id: {_eq: $id}}) { id name } }'), base);
  assert.notEqual(norm('query q($id: Int) { user(where: {id: {_eq: $id}}) { id name } }'), base);
  assert.notEqual(norm('query q($id: Int!) { user(where: {id: {_eq: $id}}) { id } }'), base);
  // Hasura's AST keeps the shorthand `{ ... }` apart from `query { ... }`.
  assert.notEqual(norm('{ user { id } }'), norm('query { user { id } }'));
  assert.equal(norm('{user{id}}'), norm('{ user { id __typename } }'));
});

test('text that is not GraphQL has no normal form', () => {
  assert.equal(norm('query { user { id '), undefined);
  assert.equal(norm('not graphql'), undefined);
});

const md = (over: Partial<Metadata>): Metadata => ({ version: 2, tables: [], ...over });

test('buildAllowlist holds the queries of allow-listed collections only', () => {
  const allowed = buildAllowlist(md({
    query_collections: [
      { name: 'c1', definition: { queries: [{ name: 'q1', query: 'query { user { id __typename } }' }] } },
      { name: 'c2', definition: { queries: [{ name: 'q2', query: 'query { secret { id } }' }] } },
    ],
    allowlist: [{ collection: 'c1' }],
  }));
  assert.equal(allowed.size, 1);
  assert.ok(allowed.has(norm('query {\n user {\n id\n }\n}')!));
  assert.ok(!allowed.has(norm('query { secret { id } }')!));
  assert.equal(buildAllowlist(md({ query_collections: [{ name: 'c1', definition: { queries: [{ name: 'q', query: '{ a }' }] } }] })).size, 0);
});

test('a collection decodes to name, definition, comment (kept in export order)', () => {
  const c = decodeQueryCollection({ comment: 'hi', definition: { queries: [{ query: '{ a }', name: 'q' }] }, name: 'c' }, '$');
  assert.deepEqual(Object.keys(c), ['name', 'definition', 'comment']);
  assert.deepEqual(c, { name: 'c', definition: { queries: [{ name: 'q', query: '{ a }' }] }, comment: 'hi' });
  assert.deepEqual(decodeQueryCollection({ name: 'c', definition: { queries: [] }, comment: null }, '$'), { name: 'c', definition: { queries: [] } });
});

test('collection decoding errors: missing keys, empty names, queries that do not parse', () => {
  assert.throws(() => decodeQueryCollection({ definition: { queries: [] } }, '$'), fails('parse-failed', 'key "name" not found', '$'));
  assert.throws(() => decodeQueryCollection({ name: '', definition: { queries: [] } }, '$'), fails('parse-failed', 'empty string not allowed', '$.name'));
  assert.throws(() => decodeQueryCollection({ name: 'c', definition: {} }, '$'), fails('parse-failed', 'key "queries" not found', '$.definition'));
  assert.throws(
    () => decodeQueryCollection({ name: 'c', definition: { queries: [{ name: 'q', query: 'query {' }] } }, '$'),
    fails('parse-failed', 'parsing the graphql query failed', '$.definition.queries[0].query'),
  );
  assert.throws(
    () => decodeQueryCollection({ name: 'c', definition: { queries: [{ name: 'q', query: 3 }] } }, '$'),
    fails('parse-failed', 'expecting a string for query', '$.definition.queries[0].query'),
  );
});

test('metadata documents keep query_collections and allowlist through decode/encode', () => {
  const doc = {
    version: 2,
    tables: [],
    query_collections: [{ name: 'c1', definition: { queries: [{ name: 'q1', query: 'query { user { id } }' }] }, comment: 'x' }],
    allowlist: [{ collection: 'c1' }],
  };
  assert.deepEqual(encodeMetadata(decodeMetadata(doc)), doc);
  assert.throws(() => decodeMetadata({ ...doc, allowlist: [{}] }), fails('parse-failed', 'key "collection" not found', '$.allowlist[0]'));
});

test('replace_metadata checks: duplicate collections, duplicate allow-list entries and query names, unknown collections', () => {
  const c = (name: string, queries = [{ name: 'q', query: '{ a }' }]) => ({ name, definition: { queries } });
  assert.throws(() => assertQueryCollectionsValid(md({ query_collections: [c('a'), c('a')] })),
    fails('already-exists', 'multiple declarations exist for the following query collections: a', '$.args.query_collections'));
  assert.throws(() => assertQueryCollectionsValid(md({ query_collections: [c('a')], allowlist: [{ collection: 'a' }, { collection: 'a' }] })),
    fails('already-exists', 'multiple declarations exist for the following allow list: a', '$.args.allowlist'));
  assert.throws(() => assertQueryCollectionsValid(md({ query_collections: [c('a', [{ name: 'q', query: '{ a }' }, { name: 'q', query: '{ b }' }])] })),
    fails('not-supported', 'found duplicate query names "q"', '$.args.query_collections[0].definition.queries'));
  assert.throws(() => assertQueryCollectionsValid(md({ query_collections: [c('a')], allowlist: [{ collection: 'b' }] })),
    fails('not-exists', 'query collection with name "b" does not exists', '$.args.allowlist[0].collection'));
  assertQueryCollectionsValid(md({ query_collections: [c('a')], allowlist: [{ collection: 'a' }] }));
});
