/**
 * Relationships to a source's table (metadata/sourceRelationships.ts, model/decodeRemoteSchema.ts):
 * Hasura's definition shapes decoded (to_source kept as written, to_remote_schema and the older shape
 * read as one), bad to_source definitions refused at their path, and resolution once every source is
 * built: each cache gets its consistent relationships and every source's cache; a missing target
 * column, table or source is the inconsistent object `remote_relationship`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { attachSources, buildSchemaCacheFull, decodeMetadata, decodeRemoteRelationshipDef, toRemoteSchema, toSource } from '../../../src/metadata/index.js';
import { column, snapshot, table } from './fixtures.js';

const conn = { connection_info: { database_url: 'postgres://h/music' } };
const toMusic = (mapping: Record<string, string>, target: unknown = 'album') => ({ to_source: { source: 'music', table: target, relationship_type: 'array', field_mapping: mapping } });

test('the definition shapes: to_source kept as written, to_remote_schema and the older shape read alike', () => {
  const src = decodeRemoteRelationshipDef({ name: 'albums', definition: toMusic({ id: 'artist_id' }) }, '$.args');
  assert.deepEqual(src.definition, toMusic({ id: 'artist_id' }));
  assert.deepEqual(toSource(src), { source: 'music', table: { schema: 'public', name: 'album' }, relationship_type: 'array', field_mapping: { id: 'artist_id' } });
  assert.equal(toRemoteSchema(src), undefined);
  const field = { message: { arguments: { id: '$id' } } };
  const v2 = decodeRemoteRelationshipDef({ name: 'm', definition: { to_remote_schema: { lhs_fields: ['id'], remote_schema: 'r', remote_field: field } } }, '$.args');
  const older = decodeRemoteRelationshipDef({ name: 'm', definition: { hasura_fields: ['id'], remote_schema: 'r', remote_field: field } }, '$.args');
  const v13 = decodeRemoteRelationshipDef({ name: 'm', hasura_fields: ['id'], remote_schema: 'r', remote_field: field }, '$.args');
  for (const d of [v2, older, v13]) assert.deepEqual(toRemoteSchema(d), { hasura_fields: ['id'], remote_schema: 'r', remote_field: field });
  assert.equal(toSource(v2), undefined);
});

test('bad to_source definitions are refused at their path', () => {
  const refused = (definition: unknown) => {
    try {
      decodeRemoteRelationshipDef({ name: 'x', definition }, '$.args');
    } catch (e) {
      assert.ok(e instanceof ApiError);
      return [e.code, e.path];
    }
    return undefined;
  };
  assert.deepEqual(refused({ to_source: { ...toMusic({ id: 'a' }).to_source, relationship_type: 'many' } }), ['parse-failed', '$.args.definition.to_source.relationship_type']);
  assert.deepEqual(refused({ to_source: { ...toMusic({}).to_source } }), ['parse-failed', '$.args.definition.to_source.field_mapping']);
  assert.deepEqual(refused({ to_source: { table: 'a', relationship_type: 'object', field_mapping: { a: 'b' } } }), ['parse-failed', '$.args.definition.to_source']);
  assert.deepEqual(refused({ to_source: toMusic({ a: 'b' }).to_source, to_remote_schema: {} }), ['parse-failed', '$.args.definition']);
  // In a metadata document, at the relationship's place.
  try {
    decodeMetadata({ version: 2, tables: [{ table: 'artist', remote_relationships: [{ name: 'a', definition: { to_source: { source: 'music' } } }] }] }, '$.args');
    assert.fail('accepted');
  } catch (e) {
    assert.ok(e instanceof ApiError);
    assert.match(e.path, /^\$\.args\.tables\[0\]\.remote_relationships\[0\]\.definition\.to_source/);
  }
});

test('resolved once every source is built: consistent ones on their cache, bad ones inconsistent', () => {
  const md = decodeMetadata({
    version: 2,
    tables: [{
      table: 'artist',
      remote_relationships: [
        { name: 'albums', definition: toMusic({ id: 'artist_id' }) },
        { name: 'bad_column', definition: toMusic({ id: 'nope' }) },
        { name: 'bad_table', definition: toMusic({ id: 'id' }, { schema: 'public', name: 'nope' }) },
        { name: 'id', definition: toMusic({ id: 'artist_id' }) },
      ],
    }],
    sources: [{
      name: 'music', configuration: conn,
      tables: [{ table: 'album', remote_relationships: [{ name: 'artist', definition: { to_source: { source: 'default', table: 'artist', relationship_type: 'object', field_mapping: { artist_id: 'id' } } } }] }],
    }],
  });
  const built = attachSources(
    buildSchemaCacheFull(md, snapshot([table('artist', [column('id', 'int4')])])), md,
    new Map([['music', { ok: true as const, snapshot: snapshot([table('album', [column('id', 'int4'), column('artist_id', 'int4')])]) }]]),
  );
  const music = built.cache.sources?.get('music');
  assert.deepEqual([...(built.cache.sourceRelationships?.get('public.artist')?.values() ?? [])], [
    { name: 'albums', source: 'music', target: { schema: 'public', name: 'album' }, type: 'array', mapping: [{ local: 'id', remote: 'artist_id' }] },
  ]);
  assert.deepEqual(music?.sourceRelationships?.get('public.album')?.get('artist')?.mapping, [{ local: 'artist_id', remote: 'id' }]);
  // Every cache reaches every source's, the default's and its own included.
  assert.equal(music?.sourceCaches?.get('default'), built.cache);
  assert.equal(built.cache.sourceCaches?.get('music'), music);
  assert.deepEqual(built.inconsistent.map((i) => i.object.reason), [
    'Inconsistent object: in table "artist": in remote relationship "bad_column": column "nope" does not exist in table "album" of source "music"',
    'Inconsistent object: in table "artist": in remote relationship "bad_table": table "nope" does not exist in source "music"',
    'Inconsistent object: in table "artist": in remote relationship "id": field with name "id" already exists in table "artist"',
  ]);
  assert.deepEqual(built.cache.inconsistentObjects.map((o) => o.type), ['remote_relationship', 'remote_relationship', 'remote_relationship']);
});
