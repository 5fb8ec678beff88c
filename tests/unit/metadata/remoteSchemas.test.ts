/**
 * Remote schemas in the pure schema-cache build (metadata/schemaCache/buildRemoteSchemas.ts) and the
 * remote-schema decoders (metadata/model/decodeRemoteSchema.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildSchema, introspectionFromSchema } from 'graphql';
import { ApiError } from '../../../src/core/index.js';
import { buildSchemaCacheFull, decodeRemoteSchema } from '../../../src/metadata/index.js';
import type { Metadata, RemoteIntrospection } from '../../../src/metadata/index.js';
import { authorArticle } from './fixtures.js';

const intro = introspectionFromSchema(buildSchema('type Query { user(id: Int!): User users(ids: [Int]): [User] } type User { id: Int name: String }'));
const def = { url: 'http://127.0.0.1:1/graphql' };
const ok = (): RemoteIntrospection => ({ definitionKey: JSON.stringify(def), result: { ok: true, introspection: intro } });

const md = (rels: unknown[] = []): Metadata => ({
  version: 2,
  tables: [{ table: { schema: 'public', name: 'author' }, remote_relationships: rels }],
  remote_schemas: [{ name: 'r', definition: def }],
});
const rel = (remote_field: unknown, hasura_fields = ['id']) => ({ name: 'acct', definition: { hasura_fields, remote_schema: 'r', remote_field } });

test('definition: exactly one of url / url_from_env, defaults', () => {
  assert.deepEqual(decodeRemoteSchema({ name: 'a', definition: { url: 'http://x' } }, '$'), { name: 'a', definition: { url: 'http://x', forward_client_headers: false } });
  for (const d of [{}, { url: 'http://x', url_from_env: 'X' }]) {
    assert.throws(() => decodeRemoteSchema({ name: 'a', definition: d }, '$'), (e) => e instanceof ApiError && e.code === 'invalid-params');
  }
  assert.throws(() => decodeRemoteSchema({ name: 'a', definition: { url: 'http://x', timeout_seconds: 0 } }, '$'), ApiError);
});

test('an unreachable remote is inconsistent; the tables still build', () => {
  const r = buildSchemaCacheFull(md(), authorArticle(), undefined, new Map([['r', { definitionKey: '', result: { ok: false, message: 'connection refused' } }]]));
  assert.equal(r.cache.remoteSchemas?.size, 0);
  assert.deepEqual(r.cache.inconsistentObjects.map((o) => [o.type, o.reason]), [['remote_schema', 'Inconsistent object: connection refused']]);
  assert.ok(r.cache.tables.has('public.author'));
});

test('remote relationships resolve against the remote; bad ones are inconsistent with a reason', () => {
  const good = buildSchemaCacheFull(md([rel({ user: { arguments: { id: '$id' } } })]), authorArticle(), undefined, new Map([['r', ok()]]));
  assert.deepEqual(good.cache.inconsistentObjects, []);
  assert.deepEqual(good.cache.tables.get('public.author')?.remoteRelationships?.get('acct')?.path, [{ name: 'user', arguments: { id: '$id' } }]);
  assert.ok(good.dependencies.some((d) => d.on.kind === 'column' && d.on.column === 'id' && d.dependent.kind === 'remote_relationship'));
  const bad: Array<[unknown, string[], RegExp]> = [
    [{ nope: { arguments: {} } }, ['id'], /field "nope" not found/],
    [{ user: { arguments: { idd: '$id' } } }, ['id'], /argument "idd" not found/],
    [{ user: { arguments: { id: 'x' } } }, ['id'], /expected a value of type Int!/],
    [{ user: { arguments: { id: '$name' } } }, ['id'], /not one of hasura_fields/],
    [{ user: { arguments: { id: '$id' } } }, ['nosuch'], /no such column/],
    [{ users: { arguments: { ids: [['$id']] } } }, ['id'], /found a list/],
  ];
  for (const [field, fields, reason] of bad) {
    const r = buildSchemaCacheFull(md([rel(field, fields)]), authorArticle(), undefined, new Map([['r', ok()]]));
    assert.equal(r.cache.inconsistentObjects.length, 1, JSON.stringify(field));
    assert.match(r.cache.inconsistentObjects[0].reason, reason);
  }
});
