import { test } from 'node:test';
import assert from 'node:assert/strict';
import { metadataFromV3, metadataToV3 } from '../../../src/metadataApi/index.js';
import { decodeMetadata, encodeMetadata } from '../../../src/metadata/index.js';

const replicas = [
  { database_url: { from_env: 'REPLICA_URL' }, pool_settings: { max_connections: 5, idle_timeout: 180 } },
  { database_url: 'postgres://app@standby/app', isolation_level: 'read-committed' },
];

test("read_replicas: the default source's configuration <-> the version-2 document's read_replicas, unchanged both ways", () => {
  const v3 = metadataToV3({ version: 2, tables: [], read_replicas: replicas });
  assert.deepEqual(v3.sources[0].configuration.read_replicas, replicas);
  assert.equal(v3.read_replicas, undefined);
  const v2 = metadataFromV3(v3) as Record<string, unknown>;
  assert.deepEqual(v2.read_replicas, replicas);
  // Through the decoder and the encoder (what the catalog stores and export prints) too.
  assert.deepEqual(encodeMetadata(decodeMetadata(v2)).read_replicas, replicas);
  assert.equal('read_replicas' in metadataToV3({ version: 2, tables: [] }).sources[0].configuration, false);
});

test('read_replicas: a URL that is not postgres://, an unknown key or a bad pool size is a parse error at its path', () => {
  const fail = (r: unknown, path: string) => assert.throws(() => decodeMetadata({ version: 2, tables: [], read_replicas: [r] }), (e: any) => e.code === 'parse-failed' && e.path === path);
  fail({ database_url: 'mysql://x' }, '$.read_replicas[0].database_url');
  fail({ database_url: { from_env: 'X' }, weight: 2 }, '$.read_replicas[0]');
  fail({ database_url: { from_env: 'X' }, pool_settings: { max_connections: 0 } }, '$.read_replicas[0].pool_settings.max_connections');
  fail({}, '$.read_replicas[0]');
});
