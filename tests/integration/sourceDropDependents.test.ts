/**
 * `pg_drop_source` of a source that another source's tables join to (`to_source` remote
 * relationships): refused without `cascade` with Hasura's dependency error, nothing changed; with
 * `cascade`, those relationships go with the source and the metadata left is consistent.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createTestDatabase, sqlOn, startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
let db: { url: string; drop(): Promise<void> };

before(async () => {
  e = await startTestEngine();
  db = await createTestDatabase('dropdeps');
  await sqlOn(db.url, 'CREATE TABLE album (id int PRIMARY KEY, artist_id int)');
  await e.runSql('CREATE TABLE artist (id int PRIMARY KEY)');
  const r = await e.request('POST', '/v1/metadata', { type: 'bulk', args: [
    { type: 'pg_add_source', args: { name: 'archive', configuration: { connection_info: { database_url: db.url } } } },
    { type: 'pg_track_table', args: { source: 'archive', table: 'album' } },
    { type: 'pg_track_table', args: { source: 'default', table: 'artist' } },
    { type: 'pg_create_remote_relationship', args: { source: 'default', table: 'artist', name: 'albums', definition: { to_source: { source: 'archive', table: 'album', relationship_type: 'array', field_mapping: { id: 'artist_id' } } } } },
  ] });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await e?.stop();
  await db?.drop();
});

const exported = async () => (await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body;

test('without cascade: refused, naming the relationship that joins to it; nothing changed', async () => {
  const before = await exported();
  const r = await e.request('POST', '/v1/metadata', { type: 'pg_drop_source', args: { name: 'archive' } });
  assert.equal(r.status, 400, r.text);
  assert.deepEqual(r.body, { code: 'dependency-error', error: 'cannot drop due to the following dependent objects: remote_relationship albums in table public.artist of source default', path: '$.args' });
  assert.deepEqual(await exported(), before);
});

test('with cascade: the source and the relationships to it go; the metadata is consistent', async () => {
  const r = await e.request('POST', '/v1/metadata', { type: 'pg_drop_source', args: { name: 'archive', cascade: true } });
  assert.equal(r.status, 200, r.text);
  const md = await exported();
  assert.deepEqual(md.sources.map((s: any) => s.name), ['default']);
  assert.equal(md.sources[0].tables[0].remote_relationships, undefined);
  const inc = await e.request('POST', '/v1/metadata', { type: 'get_inconsistent_metadata', args: {} });
  assert.deepEqual(inc.body, { is_consistent: true, inconsistent_objects: [] });
});
