/**
 * Joins across databases (Hasura v2's remote-source relationships), against the test Postgres
 * (`default`: artist, track) and a PG 15 cluster started here (`music`: album, with
 * pg_stat_statements): pg_create/update/delete_remote_relationship from either source (Hasura v2's
 * `to_source` and the older shape), round-tripped through export / replace; object and array
 * joins both ways, nested further hops, arguments and aggregates on the joined field, the target's
 * permission for a role, the join columns fetched but not answered; one statement per level on
 * the target (counted by pg_stat_statements), never one per row; a live query that follows writes
 * on either side; errors in Hasura's shape (a missing target column, a target source that is down);
 * an action's output type joined to the other source's table; the CLI's export and apply.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSystemPostgres, type SystemPostgres } from '../support/systemPostgres.js';
import { sqlOn } from '../support/standbyPostgres.js';
import { eventually } from '../support/eventReceiver.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliAgainst, dirContents } from '../support/cliInProcess.js';

let music: SystemPostgres;
let e: TestEngine;

before(async () => {
  music = await startSystemPostgres(['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all']);
  await sqlOn(music.url, `
    CREATE EXTENSION pg_stat_statements;
    CREATE TABLE album (id int PRIMARY KEY, artist_id int, title text NOT NULL, owner_id int NOT NULL, secret text);
    INSERT INTO album VALUES (10, 1, 'Blue', 1, 's1'), (11, 1, 'Red', 2, 's2'), (12, 2, 'Green', 1, 's3'), (13, NULL, 'Loose', 1, 's4');
  `);
  e = await startTestEngine({ adminSecret: 'secret', liveQueries: { batchSize: 100, refetchIntervalMs: 100, changePollIntervalMs: 50 } });
  await e.runSql(`
    CREATE TABLE artist (id int PRIMARY KEY, name text NOT NULL);
    INSERT INTO artist VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy');
    CREATE TABLE track (id int PRIMARY KEY, album_id int NOT NULL, name text NOT NULL);
    INSERT INTO track VALUES (100, 10, 'b1'), (101, 10, 'b2'), (102, 11, 'r1'), (103, 12, 'g1');
  `);
  const add = await metadata({ type: 'pg_add_source', args: { name: 'music', configuration: { connection_info: { database_url: music.url, pool_settings: { max_connections: 4 } } } } });
  assert.equal(add.status, 200, add.text);
  const track = await metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: 'artist' } },
      { type: 'pg_track_table', args: { source: 'default', table: 'track' } },
      { type: 'pg_create_select_permission', args: { source: 'default', table: 'artist', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'pg_create_select_permission', args: { source: 'default', table: 'track', role: 'user', permission: { columns: ['name'], filter: {} } } },
    ],
  });
  assert.equal(track.status, 200, track.text);
  const doc = await exportV3();
  doc.sources[1].tables = [{
    table: { schema: 'public', name: 'album' },
    select_permissions: [{ role: 'user', permission: { columns: ['id', 'artist_id', 'title'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } }, allow_aggregations: true } }],
  }];
  const replaced = await metadata({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
  assert.equal(replaced.status, 200, replaced.text);
});

after(async () => {
  await e?.stop();
  music?.stop();
});

const metadata = (body: unknown) => e.request('POST', '/v1/metadata', body);
const exportV3 = async () => (await metadata({ type: 'export_metadata', version: 2, args: {} })).body;
const asUser = (id: number) => ({ 'x-svc-admin-secret': 'secret', 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

/** The join statements the music database ran since the last reset, and their calls. */
async function joinCalls(): Promise<number> {
  const rows = await sqlOn(music.url, "SELECT coalesce(sum(calls), 0)::int AS n FROM pg_stat_statements WHERE query LIKE '%json_to_recordset%'") as Array<{ n: number }>;
  return rows[0].n;
}
const resetStatements = () => sqlOn(music.url, 'SELECT pg_stat_statements_reset()');

const albumsRel = {
  type: 'pg_create_remote_relationship',
  args: {
    source: 'default', table: 'artist', name: 'albums',
    definition: { to_source: { source: 'music', table: 'album', relationship_type: 'array', field_mapping: { id: 'artist_id' } } },
  },
};

test('pg_create_remote_relationship to another source\'s table: stored as given, exported in version 3, errors in Hasura\'s shape', async () => {
  const before = await exportV3();
  const badColumn = await metadata({ ...albumsRel, args: { ...albumsRel.args, definition: { to_source: { ...albumsRel.args.definition.to_source, field_mapping: { id: 'no_such' } } } } });
  assert.equal(badColumn.status, 400, badColumn.text);
  assert.equal(badColumn.body.path, '$.args');
  assert.match(badColumn.body.error, /no_such/);
  const badSource = await metadata({ ...albumsRel, args: { ...albumsRel.args, definition: { to_source: { ...albumsRel.args.definition.to_source, source: 'nope' } } } });
  assert.equal(badSource.status, 400, badSource.text);
  assert.match(badSource.body.error, /nope/);
  const badType = await metadata({ ...albumsRel, args: { ...albumsRel.args, definition: { to_source: { ...albumsRel.args.definition.to_source, relationship_type: 'many' } } } });
  assert.equal(badType.status, 400, badType.text);
  assert.equal(badType.body.code, 'parse-failed');
  assert.deepEqual(await exportV3(), before);

  const created = await metadata(albumsRel);
  assert.equal(created.status, 200, created.text);
  const again = await metadata(albumsRel);
  assert.equal(again.status, 400);
  assert.equal(again.body.code, 'already-exists');
  // From the other source's table back to default's (the table named as a bare string, as Hasura allows).
  const back = await metadata({
    type: 'pg_create_remote_relationship',
    args: { source: 'music', table: 'album', name: 'artist', definition: { to_source: { source: 'default', table: 'artist', relationship_type: 'object', field_mapping: { artist_id: 'id' } } } },
  });
  assert.equal(back.status, 200, back.text);
  const tracks = await metadata({
    type: 'pg_create_remote_relationship',
    args: { source: 'music', table: 'album', name: 'tracks', definition: { to_source: { source: 'default', table: { schema: 'public', name: 'track' }, relationship_type: 'array', field_mapping: { id: 'album_id' } } } },
  });
  assert.equal(tracks.status, 200, tracks.text);

  const doc = await exportV3();
  const artist = doc.sources[0].tables.find((t: any) => t.table.name === 'artist');
  assert.deepEqual(artist.remote_relationships, [{ name: 'albums', definition: albumsRel.args.definition }]);
  const album = doc.sources[1].tables[0];
  assert.deepEqual(album.remote_relationships.map((r: any) => r.name), ['artist', 'tracks']);
  assert.equal(album.remote_relationships[0].definition.to_source.table, 'artist');
  // Round trip: the exported document replaced gives the same export.
  const replaced = await metadata({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual(await exportV3(), doc);
});

test('an array join from default to the other source and an object join back, nested, with arguments, one statement per level', async () => {
  await resetStatements();
  const q = await e.graphql(`{
    artist(order_by: {id: asc}) {
      name
      albums(order_by: {id: asc}) { title artist { name } tracks(order_by: {id: asc}) { name } }
      top: albums(where: {title: {_neq: "Blue"}}, limit: 1) { title }
      albums_aggregate { aggregate { count } }
    }
  }`);
  assert.equal(q.status, 200, q.text);
  assert.deepEqual(q.body, {
    data: {
      artist: [
        {
          name: 'Ann',
          albums: [
            { title: 'Blue', artist: { name: 'Ann' }, tracks: [{ name: 'b1' }, { name: 'b2' }] },
            { title: 'Red', artist: { name: 'Ann' }, tracks: [{ name: 'r1' }] },
          ],
          top: [{ title: 'Red' }],
          albums_aggregate: { aggregate: { count: 2 } },
        },
        { name: 'Bo', albums: [{ title: 'Green', artist: { name: 'Bo' }, tracks: [{ name: 'g1' }] }], top: [{ title: 'Green' }], albums_aggregate: { aggregate: { count: 1 } } },
        { name: 'Cy', albums: [], top: [], albums_aggregate: { aggregate: { count: 0 } } },
      ],
    },
  });
  // The three joins of the first level to music in ONE statement, whatever the number of artists.
  assert.equal(await joinCalls(), 1);

  // From the other source: a null join key joins nothing; the object join answers null.
  const fromMusic = await e.graphql('{ album(order_by: {id: asc}) { title artist { name } } }');
  assert.deepEqual(fromMusic.body, {
    data: { album: [{ title: 'Blue', artist: { name: 'Ann' } }, { title: 'Red', artist: { name: 'Ann' } }, { title: 'Green', artist: { name: 'Bo' } }, { title: 'Loose', artist: null }] },
  });
});

test('the join columns are read though not selected, and left out of the answer; variables in the joined field\'s arguments', async () => {
  const q = await e.graphql('query ($t: String!) { artist(where: {name: {_eq: "Ann"}}) { name albums(where: {title: {_eq: $t}}) { title } } }', { t: 'Red' });
  assert.deepEqual(q.body, { data: { artist: [{ name: 'Ann', albums: [{ title: 'Red' }] }] } });
});

test('the target table\'s permission for the role: its filter and columns', async () => {
  const q = await e.graphql('{ artist(order_by: {id: asc}) { name albums(order_by: {id: asc}) { title } } }', undefined, asUser(1));
  assert.deepEqual(q.body, { data: { artist: [{ name: 'Ann', albums: [{ title: 'Blue' }] }, { name: 'Bo', albums: [{ title: 'Green' }] }, { name: 'Cy', albums: [] }] } });
  const two = await e.graphql('{ artist(where: {id: {_eq: 1}}) { albums { title } } }', undefined, asUser(2));
  assert.deepEqual(two.body, { data: { artist: [{ albums: [{ title: 'Red' }] }] } });
  const hidden = await e.graphql('{ artist { albums { secret } } }', undefined, asUser(1));
  assert.equal(hidden.body.errors?.[0]?.extensions?.code, 'validation-failed', hidden.text);
});

test('a live query joining both databases answers again when either side changes', async () => {
  const ws = await TestSocket.open(e.url, 'graphql-transport-ws');
  try {
    ws.send({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'secret' } } });
    assert.equal((await ws.next()).type, 'connection_ack');
    ws.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { artist(where: {id: {_eq: 2}}) { name albums(order_by: {id: asc}) { title } } }' } });
    const first = await ws.next();
    assert.deepEqual(first.payload?.data, { artist: [{ name: 'Bo', albums: [{ title: 'Green' }] }] }, JSON.stringify(first));
    // A write on the other source (the joined rows).
    await sqlOn(music.url, "INSERT INTO album VALUES (14, 2, 'Grey', 1, 's5')");
    const second = await ws.next();
    assert.deepEqual(second.payload?.data, { artist: [{ name: 'Bo', albums: [{ title: 'Green' }, { title: 'Grey' }] }] }, JSON.stringify(second));
    // A write on default (the root rows).
    await e.runSql("UPDATE artist SET name = 'Bob' WHERE id = 2");
    const third = await ws.next();
    assert.deepEqual(third.payload?.data, { artist: [{ name: 'Bob', albums: [{ title: 'Green' }, { title: 'Grey' }] }] }, JSON.stringify(third));
  } finally {
    ws.ws.close();
    await sqlOn(music.url, 'DELETE FROM album WHERE id = 14');
    await e.runSql("UPDATE artist SET name = 'Bo' WHERE id = 2");
  }
});

test('pg_update_remote_relationship, the older shape, pg_delete_remote_relationship; the relationship field follows', async () => {
  const updated = await metadata({
    type: 'pg_update_remote_relationship',
    args: { ...albumsRel.args, definition: { to_source: { ...albumsRel.args.definition.to_source, relationship_type: 'object' } } },
  });
  assert.equal(updated.status, 200, updated.text);
  const one = await e.graphql('{ artist(where: {id: {_eq: 2}}) { albums { title } } }');
  assert.deepEqual(one.body, { data: { artist: [{ albums: { title: 'Green' } }] } });
  const missing = await metadata({ type: 'pg_update_remote_relationship', args: { ...albumsRel.args, name: 'nope' } });
  assert.equal(missing.status, 400);
  assert.equal(missing.body.code, 'not-exists');
  const noSource = await metadata({ ...albumsRel, args: { ...albumsRel.args, source: 'nope', name: 'x' } });
  assert.equal(noSource.status, 400);
  assert.equal(noSource.body.code, 'not-exists');
  // v1.3's shape on /v1/query still names a remote schema (none here): refused, nothing stored.
  const before = await exportV3();
  const legacy = await e.query({ type: 'create_remote_relationship', args: { name: 'r', table: 'artist', hasura_fields: ['id'], remote_schema: 'none', remote_field: { f: { arguments: { id: '$id' } } } } });
  assert.equal(legacy.status, 400, legacy.text);
  assert.match(legacy.body.error, /none/);
  assert.deepEqual(await exportV3(), before);
  const deleted = await metadata({ type: 'pg_delete_remote_relationship', args: { source: 'default', table: 'artist', name: 'albums' } });
  assert.equal(deleted.status, 200, deleted.text);
  const gone = await e.graphql('{ artist { albums { title } } }');
  assert.equal(gone.body.errors?.[0]?.extensions?.code, 'validation-failed');
  const again = await metadata(albumsRel);
  assert.equal(again.status, 200, again.text);
});

test('the target source down: the joining field errors in Hasura\'s shape, the relationship is reported inconsistent; back without a restart', async () => {
  music.halt();
  try {
    const down = await e.graphql('{ artist { name albums { title } } }');
    assert.equal(down.status, 200);
    assert.equal(down.body.errors?.length, 1, down.text);
    assert.equal(typeof down.body.errors[0].message, 'string');
    assert.ok(down.body.errors[0].extensions?.code, down.text);
    const plain = await e.graphql('{ artist(limit: 1) { name } }');
    assert.deepEqual(plain.body, { data: { artist: [{ name: 'Ann' }] } });
    const reload = await metadata({ type: 'reload_metadata', args: {} });
    assert.equal(reload.status, 200, reload.text);
    const inconsistent = await metadata({ type: 'get_inconsistent_metadata', args: {} });
    assert.deepEqual(inconsistent.body.inconsistent_objects.map((o: any) => o.type).sort(), ['remote_relationship', 'source']);
  } finally {
    music.start();
  }
  await eventually(async () => {
    await metadata({ type: 'reload_metadata', args: {} });
    return (await metadata({ type: 'get_inconsistent_metadata', args: {} })).body;
  }, (b) => b?.is_consistent === true, 10_000, 'reload');
  const back = await e.graphql('{ artist(where: {id: {_eq: 2}}) { albums { title } } }');
  assert.deepEqual(back.body, { data: { artist: [{ albums: [{ title: 'Green' }] }] } });
});

test('an action\'s output type with a relationship to the other source\'s table: joined in one statement on that source, its permission applied', async () => {
  // The handler answers the artist ids it is asked for.
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify((body.input.ids as number[]).map((id) => ({ artist_id: id }))));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  try {
    const handler = `http://127.0.0.1:${(server.address() as AddressInfo).port}/pick`;
    const r = await metadata({
      type: 'bulk',
      args: [
        { type: 'set_custom_types', args: { objects: [{ name: 'Pick', fields: [{ name: 'artist_id', type: 'Int!' }], relationships: [{ name: 'albums', type: 'array', source: 'music', remote_table: 'album', field_mapping: { artist_id: 'artist_id' } }] }] } },
        { type: 'create_action', args: { name: 'pick', definition: { kind: 'synchronous', type: 'query', arguments: [{ name: 'ids', type: '[Int!]!' }], output_type: '[Pick!]!', handler } } },
        { type: 'create_action_permission', args: { action: 'pick', role: 'user' } },
      ],
    });
    assert.equal(r.status, 200, r.text);
    const exported = await exportV3();
    assert.equal(exported.custom_types.objects[0].relationships[0].source, 'music');
    await resetStatements();
    const q = await e.graphql('{ pick(ids: [2, 1, 3]) { artist_id albums(order_by: {id: asc}) { title } } }');
    assert.deepEqual(q.body, { data: { pick: [{ artist_id: 2, albums: [{ title: 'Green' }] }, { artist_id: 1, albums: [{ title: 'Blue' }, { title: 'Red' }] }, { artist_id: 3, albums: [] }] } });
    assert.equal(await joinCalls(), 1);
    const asTwo = await e.graphql('{ pick(ids: [1]) { albums { title } } }', undefined, asUser(2));
    assert.deepEqual(asTwo.body, { data: { pick: [{ albums: [{ title: 'Red' }] }] } });
    // A relationship to a table the other source does not have: refused, nothing stored.
    const before = await exportV3();
    const bad = await metadata({ type: 'set_custom_types', args: { objects: [{ name: 'Pick', fields: [{ name: 'artist_id', type: 'Int!' }], relationships: [{ name: 'albums', type: 'array', source: 'music', remote_table: 'nope', field_mapping: { artist_id: 'artist_id' } }] }] } });
    assert.equal(bad.status, 400, bad.text);
    assert.match(bad.body.error, /nope/);
    assert.deepEqual(await exportV3(), before);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('the CLI: metadata export writes the relationships with each source\'s tables, apply puts them back', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-srcjoins-'));
  try {
    const env = { SVC_GRAPHQL_ADMIN_SECRET: 'secret' };
    // The v2 layout holds one database: asked for, it is refused, and nothing is written.
    const v2 = await cliAgainst(e.url, 'metadata', ['export', '--dir', dir, '--format', 'v2'], env);
    assert.equal(v2.code, 1);
    assert.match(v2.err, /--format v2 holds the "default" database only, and the metadata has the source "music": use --format v3/);
    assert.deepEqual(await dirContents(dir), {});
    // With no --format, metadata of several databases is written in Hasura v2's config-v3 layout: a
    // folder per database, a file per table.
    const exported = await cliAgainst(e.url, 'metadata', ['export', '--dir', dir], env);
    assert.equal(exported.code, 0, exported.err);
    const files = await dirContents(dir);
    const tableFile = (db: string, name: string) => Object.entries(files).find(([path]) => path.startsWith(`databases/${db}/tables/`) && path.endsWith(`_${name}.yaml`))?.[1] ?? '';
    assert.match(tableFile('default', 'artist'), /to_source:[\s\S]*source: music/, Object.keys(files).join(', '));
    assert.match(tableFile('music', 'album'), /to_source:[\s\S]*source: default/, Object.keys(files).join(', '));
    const before = await exportV3();
    const dropped = await metadata({ type: 'pg_delete_remote_relationship', args: { source: 'music', table: 'album', name: 'artist' } });
    assert.equal(dropped.status, 200, dropped.text);
    const applied = await cliAgainst(e.url, 'metadata', ['apply', '--dir', dir], env);
    assert.equal(applied.code, 0, applied.err);
    assert.deepEqual((await exportV3()).sources, before.sources);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
