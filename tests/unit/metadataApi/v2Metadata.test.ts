import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HASURA_V2_NOT_SUPPORTED, isOpType, metadataFromV3, metadataToV3, translateV2Metadata } from '../../../src/metadataApi/index.js';
import { ApiError } from '../../../src/core/index.js';
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

test("every command of Hasura v2's /v1/metadata is served or refused as not-supported with what to do; unknown ones are parse-failed", () => {
  const refused = (type: string) => {
    try {
      translateV2Metadata({ type, args: {} });
    } catch (e) {
      assert.ok(e instanceof ApiError);
      return { code: e.code, message: e.message, path: e.path };
    }
    return undefined;
  };
  for (const [name, reason] of Object.entries(HASURA_V2_NOT_SUPPORTED)) {
    assert.ok(!isOpType(name), `${name} is served: it must not be listed as not supported`);
    assert.deepEqual(refused(name), { code: 'not-supported', message: reason, path: '$' }, name);
    assert.ok(/: /.test(reason), `${name}: the reason names what to do`);
  }
  for (const name of ['pg_list_source_kinds', 'pg_get_event_logs', 'pg_suggest_relationships']) assert.equal(refused(name)?.code, 'not-supported', name);
  assert.deepEqual(refused('mssql_track_table'), {
    code: 'not-supported', path: '$', message: '"mssql_track_table" is a command for a mssql source: this engine serves Postgres sources only; use "pg_track_table"',
  });
  assert.deepEqual(refused('frobnicate'), { code: 'parse-failed', message: 'unknown metadata command "frobnicate"', path: '$' });
  // inside a bulk, at the item's path
  assert.deepEqual(
    (() => { try { translateV2Metadata({ type: 'bulk', args: [{ type: 'pg_track_table', args: { table: 't' } }, { type: 'get_cron_triggers', args: {} }] }); } catch (e) { return (e as ApiError).path; } })(),
    '$.args[1]',
  );
});

test("pg_set_table_customization: column_config's custom_name is a custom column name; a table custom_name is not supported, not ignored", () => {
  assert.deepEqual(
    translateV2Metadata({ type: 'pg_set_table_customization', args: { source: 'default', table: 't', configuration: { custom_root_fields: { select: 'items' }, column_config: { created_at: { custom_name: 'createdAt' } }, custom_column_names: { id: 'key' } } } }),
    { type: 'set_table_custom_fields', args: { table: 't', custom_root_fields: { select: 'items' }, custom_column_names: { id: 'key', created_at: 'createdAt' } } },
  );
  assert.throws(() => translateV2Metadata({ type: 'pg_set_table_customization', args: { table: 't', configuration: { custom_name: 'Item' } } }),
    (e: ApiError) => e.code === 'not-supported' && e.path === '$.args.configuration.custom_name');
});
