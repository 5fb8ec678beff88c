/**
 * assertQueryAllowed (graphql/request/allowlist.ts): the allow-list check a request goes through
 * before validation — off unless enabled, never for admin, Hasura's error otherwise.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError, adminSession, roleSession } from '../../../src/core/index.js';
import { loadConfig, type ServerConfig } from '../../../src/config/index.js';
import { buildAllowlist, type Metadata, type SchemaCache } from '../../../src/metadata/index.js';
import { assertQueryAllowed, isQueryAllowed } from '../../../src/graphql/index.js';

const metadata: Metadata = {
  version: 2,
  tables: [],
  query_collections: [{ name: 'c1', definition: { queries: [{ name: 'q1', query: 'query {\n  user {\n    id\n    name\n  }\n}\n' }] } }],
  allowlist: [{ collection: 'c1' }],
};
const cacheOf = (md: Metadata, precomputed = true): SchemaCache => ({
  metadata: md, tables: new Map(), functions: new Map(), roles: [], inconsistentObjects: [],
  ...(precomputed ? { allowlist: buildAllowlist(md) } : {}),
});
const on: ServerConfig = { ...loadConfig([], {}), enableAllowlist: true };
const off: ServerConfig = { ...loadConfig([], {}), enableAllowlist: false };
const user = roleSession('user', {});
const refused = (e: unknown) =>
  e instanceof ApiError && e.code === 'validation-failed' && e.message === 'query is not allowed' && e.path === '$'
  && JSON.stringify(e.internal) === JSON.stringify({ message: 'query is not in any of the allowlists' });

test('an allowed query passes however it is formatted, and with __typename added', () => {
  const cache = cacheOf(metadata);
  assertQueryAllowed(cache, on, user, 'query { user { id name } }');
  assertQueryAllowed(cache, on, user, 'query{user{id,name,__typename}}');
  assert.equal(isQueryAllowed(cache, 'query { user { id name } }'), true);
});

test('a query not on the list is refused with Hasura\'s error', () => {
  const cache = cacheOf(metadata);
  assert.throws(() => assertQueryAllowed(cache, on, user, 'query { user { id } }'), refused);
  assert.throws(() => assertQueryAllowed(cache, on, user, 'query { user { name id } }'), refused);
  // Memoised answers stay right on repeated calls.
  assert.throws(() => assertQueryAllowed(cache, on, user, 'query { user { id } }'), refused);
  assert.equal(isQueryAllowed(cache, 'query { user { id } }'), false);
});

test('admin and a disabled allow-list are never refused', () => {
  const cache = cacheOf(metadata);
  assertQueryAllowed(cache, on, adminSession(), 'query { anything }');
  assertQueryAllowed(cache, off, user, 'query { anything }');
});

test('a query that does not parse fails with the parse error, not the allow-list error', () => {
  assert.throws(
    () => assertQueryAllowed(cacheOf(metadata), on, user, 'query { user {'),
    (e: unknown) => e instanceof ApiError && e.code === 'validation-failed' && e.message === 'not a valid graphql query',
  );
});

test('a cache without a precomputed set builds it from its metadata', () => {
  const cache = cacheOf(metadata, false);
  assertQueryAllowed(cache, on, user, 'query { user { id name } }');
  assert.throws(() => assertQueryAllowed(cache, on, user, 'query { user { id } }'), refused);
});

test('each schema cache answers from its own allow-list', () => {
  const empty = cacheOf({ ...metadata, allowlist: [] });
  assert.throws(() => assertQueryAllowed(empty, on, user, 'query { user { id name } }'), refused);
  assertQueryAllowed(cacheOf(metadata), on, user, 'query { user { id name } }');
});
