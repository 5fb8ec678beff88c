/**
 * The sources beside `default` in the metadata document (model/decodeSources.ts, metadata/sources.ts):
 * decoding with Hasura's connection forms and precise error paths, the version-3 round trip, and each
 * source built by the same build as `default` (its tables marked with their source, an unreadable
 * source an inconsistent object).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { attachSources, buildSchemaCacheFull, decodeMetadata, encodeMetadata, sourceView, type DbSnapshot } from '../../../src/metadata/index.js';
import { column, snapshot, table } from './fixtures.js';
import { metadataFromV3, metadataToV3 } from '../../../src/metadataApi/index.js';
import { sourceUrl } from '../../../src/execution/index.js';

const refused = (doc: unknown) => {
  try {
    decodeMetadata(doc, '$.args');
  } catch (e) {
    assert.ok(e instanceof ApiError);
    return { code: e.code, path: e.path, message: e.message };
  }
  return undefined;
};
const conn = (database_url: unknown) => ({ connection_info: { database_url } });

test('sources decode in every connection form; bad ones are refused at their path', () => {
  const md = decodeMetadata({
    version: 2,
    tables: [],
    sources: [
      { name: 'a', kind: 'postgres', configuration: conn('postgres://u@h/db'), tables: [{ table: 'x' }] },
      { name: 'b', configuration: { connection_info: { database_url: { from_env: 'B_URL' }, pool_settings: { max_connections: 3 }, isolation_level: 'serializable', use_prepared_statements: true } }, tables: [] },
      { name: 'c', configuration: conn({ connection_parameters: { host: 'db.example', port: 6432, username: 'app', password: 'p@ss', database: 'main' } }), tables: [], customization: { root_fields: { prefix: 'c_' } } },
    ],
  });
  assert.deepEqual(md.sources?.map((s) => s.name), ['a', 'b', 'c']);
  assert.deepEqual(md.sources?.[0]?.tables.map((t) => t.table), [{ schema: 'public', name: 'x' }]);
  assert.equal(sourceUrl(md.sources![1]!.configuration.connection_info, { B_URL: 'postgres://b/b' }), 'postgres://b/b');
  assert.equal(sourceUrl(md.sources![2]!.configuration.connection_info), 'postgres://app:p%40ss@db.example:6432/main');
  assert.throws(() => sourceUrl(md.sources![1]!.configuration.connection_info, {}), (e: unknown) => e instanceof ApiError && e.code === 'not-exists' && /B_URL/.test(e.message));
  // Encoded as given (a round trip keeps the document).
  assert.deepEqual(decodeMetadata(encodeMetadata(md)), md);

  assert.equal(refused({ tables: [], sources: [{ name: 'default', configuration: conn('postgres://h/d'), tables: [] }] })?.path, '$.args.sources[0].name');
  assert.deepEqual(refused({ tables: [], sources: [{ name: 'a', configuration: conn('mysql://h/d'), tables: [] }] }), { code: 'parse-failed', path: '$.args.sources[0].configuration.connection_info.database_url', message: 'expected a postgres:// or postgresql:// URL' });
  assert.equal(refused({ tables: [], sources: [{ name: 'a', kind: 'mssql', configuration: conn('postgres://h/d'), tables: [] }] })?.path, '$.args.sources[0].kind');
  assert.equal(refused({ tables: [], sources: [{ name: 'a', configuration: { connection_info: { database_url: 'postgres://h/d', isolation_level: 'chaos' } }, tables: [] }] })?.path, '$.args.sources[0].configuration.connection_info.isolation_level');
  assert.equal(refused({ tables: [], sources: [{ name: 'a', configuration: conn('postgres://h/d'), tables: [] }, { name: 'a', configuration: conn('postgres://h/e'), tables: [] }] })?.code, 'parse-failed');
  // Read replicas of a source: kept as given (a round trip keeps them); a bad one refused at its path.
  const withReplicas = decodeMetadata({ version: 2, tables: [], sources: [{ name: 'a', configuration: { ...conn('postgres://h/d'), read_replicas: [{ database_url: 'postgres://r/d', pool_settings: { max_connections: 4 } }, { database_url: { from_env: 'R2' } }] }, tables: [] }] });
  assert.deepEqual(withReplicas.sources?.[0]?.configuration.read_replicas, [{ database_url: 'postgres://r/d', pool_settings: { max_connections: 4 } }, { database_url: { from_env: 'R2' } }]);
  assert.deepEqual(decodeMetadata(encodeMetadata(withReplicas)), withReplicas);
  const badReplica = refused({ tables: [], sources: [{ name: 'a', configuration: { ...conn('postgres://h/d'), read_replicas: [{ database_url: 'mysql://r/d' }] }, tables: [] }] });
  assert.deepEqual([badReplica?.code, badReplica?.path], ['parse-failed', '$.args.sources[0].configuration.read_replicas[0].database_url']);
  // Event triggers on a source are served (in that source's database): decoded and kept.
  const withTrigger = { tables: [], sources: [{ name: 'a', configuration: conn('postgres://h/d'), tables: [{ table: 't', event_triggers: [{ name: 'e', definition: { enable_manual: true }, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://h/x' }] }] }] };
  assert.equal(refused(withTrigger), undefined);
  assert.deepEqual(decodeMetadata({ version: 2, ...withTrigger }).sources?.[0]?.tables[0]?.event_triggers?.map((t) => t.name), ['e']);
  // A root-field namespace and a naming convention of the source's own: kept (a round trip keeps them); a bad name refused at its path.
  const customized = { tables: [], sources: [{ name: 'a', configuration: conn('postgres://h/d'), tables: [], customization: { root_fields: { namespace: 'a', prefix: 'p_' }, naming_convention: 'graphql-default' } }] };
  assert.equal(refused(customized), undefined);
  const withNamespace = decodeMetadata({ version: 2, ...customized });
  assert.deepEqual(withNamespace.sources?.[0]?.customization, { naming_convention: 'graphql-default', root_fields: { namespace: 'a', prefix: 'p_' } });
  assert.deepEqual(decodeMetadata(encodeMetadata(withNamespace)), withNamespace);
  const namespace = refused({ tables: [], sources: [{ name: 'a', configuration: conn('postgres://h/d'), tables: [], customization: { root_fields: { namespace: 'a b' } } }] });
  assert.deepEqual([namespace?.code, namespace?.path], ['parse-failed', '$.args.sources[0].customization.root_fields.namespace']);
});

test('version 3: every Postgres source kept, default first', () => {
  const v3 = {
    version: 3,
    sources: [
      { name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'a' } }], configuration: conn({ from_env: 'SVC_GRAPHQL_DATABASE_URL' }) },
      { name: 'other', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'b' } }], configuration: conn('postgres://h/o') },
    ],
  };
  const internal = decodeMetadata(metadataFromV3(v3));
  assert.deepEqual(internal.tables.map((t) => t.table.name), ['a']);
  assert.deepEqual(internal.sources?.map((s) => [s.name, s.tables.map((t) => t.table.name)]), [['other', ['b']]]);
  const back = metadataToV3(encodeMetadata(internal));
  assert.deepEqual(back.sources.map((s: { name: string }) => s.name), ['default', 'other']);
  assert.deepEqual(back.sources[1], { name: 'other', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'b' } }], configuration: conn('postgres://h/o') });
});

const snapshotWith = (name: string): DbSnapshot => snapshot([table(name, [column('id', 'int4')])]);

test('each source is built as default is: its tables marked, an unreadable one inconsistent', () => {
  const md = decodeMetadata({
    version: 2,
    tables: [{ table: 'a' }],
    sources: [
      { name: 'up', configuration: conn('postgres://h/up'), tables: [{ table: 'b' }] },
      { name: 'down', configuration: conn('postgres://h/down'), tables: [{ table: 'c' }] },
    ],
  });
  assert.deepEqual(sourceView(md, 'up')?.tables.map((t) => t.table.name), ['b']);
  const built = attachSources(buildSchemaCacheFull(md, snapshotWith('a')), md, new Map([
    ['up', { ok: true as const, snapshot: snapshotWith('b') }],
    ['down', { ok: false as const, reason: 'cannot connect to Postgres at h:5432: connection refused' }],
  ]));
  assert.deepEqual([...built.cache.tables.keys()], ['public.a']);
  assert.equal(built.cache.tables.get('public.a')?.source, undefined);
  assert.deepEqual([...(built.cache.sources?.keys() ?? [])], ['up']);
  assert.equal(built.cache.sources?.get('up')?.tables.get('public.b')?.source, 'up');
  assert.deepEqual(built.cache.inconsistentObjects.map((o) => [o.type, o.reason]), [['source', 'Inconsistent object: cannot connect to Postgres at h:5432: connection refused']]);
});
