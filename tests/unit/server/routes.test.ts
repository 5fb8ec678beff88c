import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildRouteTable } from '../../../src/server/routes.js';
import type { Handler } from '../../../src/server/index.js';

const h: Handler = async () => ({ status: 200, body: '' });
const all = { healthz: h, version: h, v1Query: h, v1Graphql: h, v1GraphqlExplain: h, v1alpha1Config: h, v1alpha1PgDump: h };

test('each API gates its endpoints; healthz and version are always served', () => {
  const t = buildRouteTable(all, new Set(['graphql']));
  assert.deepEqual([...t.keys()].sort(), ['/healthz', '/v1/graphql', '/v1/version', '/v1alpha1/graphql']);
  const m = buildRouteTable(all, new Set(['metadata', 'config', 'pgdump']));
  assert.deepEqual([...m.keys()].sort(), ['/healthz', '/v1/graphql/explain', '/v1/query', '/v1/version', '/v1alpha1/config', '/v1alpha1/pg_dump']);
});

test('a handler that is not exported is not routed', () => {
  const t = buildRouteTable({ healthz: h, v1Query: 'not a function' }, new Set(['graphql', 'metadata', 'config']));
  assert.deepEqual([...t.keys()], ['/healthz']);
});

test('methods are part of the route', () => {
  const t = buildRouteTable(all, new Set(['graphql', 'metadata', 'config']));
  assert.deepEqual([...t.get('/v1/query')!.keys()], ['POST']);
  assert.deepEqual([...t.get('/v1alpha1/config')!.keys()], ['GET']);
});
