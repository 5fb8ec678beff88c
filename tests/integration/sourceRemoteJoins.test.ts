/**
 * Remote schemas joined with a database beside `default`, and joins reached from inside an action's
 * nested output objects. Real parts: the test Postgres (`default`: artist), a PG 15 cluster started
 * here (`music`: album, with pg_stat_statements), a real GraphQL server (labels) and a real action
 * handler. What holds: a relationship from the other source's table to the remote schema
 * (`pg_create_remote_relationship` with `source: music` and `to_remote_schema`), stored, exported
 * and replaced as given, with the role's columns and filter, the client's arguments, one remote
 * request per level; a failed operation changes nothing; the remote kept while the other source's
 * relationship uses it. An action's nested output objects: their relationships to either source's
 * tables and the remote relationships of the tables they reach, joined one statement per source per
 * level and one remote request per level.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSystemPostgres, type SystemPostgres } from '../support/systemPostgres.js';
import { sqlOn } from '../support/standbyPostgres.js';
import { startRemoteGraphqlServer, type RemoteGraphqlServer } from '../support/remoteGraphqlServer.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliAgainst, dirContents } from '../support/cliInProcess.js';

let music: SystemPostgres;
let labels: RemoteGraphqlServer;
let handler: Server;
let e: TestEngine;

const LABEL_SDL = `type Query { label(id: Int!, upper: Boolean): Label labels: [Label!]! find(id: Int!): Found }
  type Label { id: Int! name: String! artist_id: Int }
  type Other { id: Int! }
  union Found = Label | Other`;
const labelName = (id: number, upper?: boolean | null) => (upper ? `LABEL ${id}` : `label ${id}`);
const LABEL_ARTIST: Record<number, number | null> = { 7: 3, 8: 1, 9: null };
const label = (id: number, upper?: boolean | null) => ({ __typename: 'Label', id, name: labelName(id, upper), artist_id: LABEL_ARTIST[id] ?? null });

before(async () => {
  music = await startSystemPostgres(['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all']);
  await sqlOn(music.url, `
    CREATE EXTENSION pg_stat_statements;
    CREATE TABLE album (id int PRIMARY KEY, artist_id int, title text NOT NULL, owner_id int NOT NULL, label_id int);
    INSERT INTO album VALUES (10, 1, 'Blue', 1, 7), (11, 1, 'Red', 2, 8), (12, 2, 'Green', 1, 7), (13, NULL, 'Loose', 1, NULL);
  `);
  labels = await startRemoteGraphqlServer(LABEL_SDL, {
    label: ({ id, upper }: { id: number; upper?: boolean | null }) => (id === 9 ? null : label(id, upper)),
    labels: () => [7, 8, 9].map((id) => label(id)),
    find: ({ id }: { id: number }) => (id > 100 ? { __typename: 'Other', id } : label(id)),
  });
  // The action handler: `nest(ids)` answers a nested object and a list of them, one per artist id.
  handler = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const ids = JSON.parse(Buffer.concat(chunks).toString()).input.ids as number[];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ tag: 'n', inner: { artist_id: ids[0], deeper: { artist_id: ids[0] } }, items: ids.map((id) => ({ artist_id: id, deeper: { artist_id: id } })) }));
    });
  });
  await new Promise<void>((r) => handler.listen(0, '127.0.0.1', () => r()));
  e = await startTestEngine({ adminSecret: 'secret' });
  await e.runSql(`
    CREATE TABLE artist (id int PRIMARY KEY, name text NOT NULL, label_id int);
    INSERT INTO artist VALUES (1, 'Ann', 8), (2, 'Bo', 9), (3, 'Cy', 7);
  `);
  const add = await metadata({ type: 'pg_add_source', args: { name: 'music', configuration: { connection_info: { database_url: music.url } } } });
  assert.equal(add.status, 200, add.text);
  const setup = await metadata({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: 'artist' } },
      { type: 'pg_track_table', args: { source: 'music', table: 'album' } },
      { type: 'pg_create_select_permission', args: { source: 'default', table: 'artist', role: 'user', permission: { columns: ['id', 'name', 'label_id'], filter: {} } } },
      { type: 'pg_create_select_permission', args: { source: 'music', table: 'album', role: 'user', permission: { columns: ['id', 'title', 'artist_id', 'label_id'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'pg_create_select_permission', args: { source: 'music', table: 'album', role: 'guest', permission: { columns: ['id', 'title'], filter: {} } } },
      { type: 'add_remote_schema', args: { name: 'labels', definition: { url: labels.url } } },
      { type: 'pg_create_remote_relationship', args: { source: 'default', table: 'artist', name: 'label', definition: { to_remote_schema: { remote_schema: 'labels', lhs_fields: ['label_id'], remote_field: { label: { arguments: { id: '$label_id' } } } } } } },
    ],
  });
  assert.equal(setup.status, 200, setup.text);
});

after(async () => {
  await e?.stop();
  await labels?.stop();
  if (handler) {
    handler.closeAllConnections();
    await new Promise<void>((r) => handler.close(() => r()));
  }
  music?.stop();
});

const metadata = (body: unknown) => e.request('POST', '/v1/metadata', body);
const exportV3 = async () => (await metadata({ type: 'export_metadata', version: 2, args: {} })).body;
const asUser = (id: number, role = 'user') => ({ 'x-svc-admin-secret': 'secret', 'x-svc-role': role, 'x-svc-user-id': String(id) });

/** The join statements the music database ran since the last reset, and their calls. */
async function joinCalls(): Promise<number> {
  const rows = await sqlOn(music.url, "SELECT coalesce(sum(calls), 0)::int AS n FROM pg_stat_statements WHERE query LIKE '%json_to_recordset%'") as Array<{ n: number }>;
  return rows[0].n;
}
const resetStatements = () => sqlOn(music.url, 'SELECT pg_stat_statements_reset()');

const albumLabel = {
  type: 'pg_create_remote_relationship',
  args: {
    source: 'music', table: 'album', name: 'label',
    definition: { to_remote_schema: { remote_schema: 'labels', lhs_fields: ['label_id'], remote_field: { label: { arguments: { id: '$label_id' } } } } },
  },
};

test('pg_create_remote_relationship from another source\'s table to a remote schema: errors in Hasura\'s shape change nothing; stored, exported, replaced', async () => {
  const before = await exportV3();
  const badField = await metadata({ ...albumLabel, args: { ...albumLabel.args, definition: { to_remote_schema: { ...albumLabel.args.definition.to_remote_schema, remote_field: { nope: { arguments: { id: '$label_id' } } } } } } });
  assert.equal(badField.status, 400, badField.text);
  assert.equal(typeof badField.body.code, 'string');
  assert.equal(badField.body.path, '$.args');
  assert.match(badField.body.error, /nope/);
  const badColumn = await metadata({ ...albumLabel, args: { ...albumLabel.args, definition: { to_remote_schema: { ...albumLabel.args.definition.to_remote_schema, lhs_fields: ['no_such'] } } } });
  assert.equal(badColumn.status, 400, badColumn.text);
  assert.match(badColumn.body.error, /no_such/);
  const badTable = await metadata({ ...albumLabel, args: { ...albumLabel.args, table: 'nope' } });
  assert.equal(badTable.status, 400, badTable.text);
  assert.equal(badTable.body.code, 'not-exists');
  assert.deepEqual(await exportV3(), before);

  const created = await metadata(albumLabel);
  assert.equal(created.status, 200, created.text);
  const again = await metadata(albumLabel);
  assert.equal(again.status, 400);
  assert.equal(again.body.code, 'already-exists');

  const doc = await exportV3();
  const album = doc.sources.find((s: any) => s.name === 'music').tables[0];
  assert.deepEqual(album.remote_relationships, [{ name: 'label', definition: albumLabel.args.definition }]);
  const replaced = await metadata({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual(await exportV3(), doc);
  const inconsistent = await metadata({ type: 'get_inconsistent_metadata', args: {} });
  assert.deepEqual(inconsistent.body.inconsistent_objects, []);
});

test('the other source\'s rows joined to the remote: one request for every row, the client\'s arguments, null join values', async () => {
  const sent = labels.queries().length;
  const q = await e.graphql('{ album(order_by: {id: asc}) { title label { id name } shout: label(upper: true) { name } } }');
  assert.equal(q.status, 200, q.text);
  assert.deepEqual(q.body, {
    data: {
      album: [
        { title: 'Blue', label: { id: 7, name: 'label 7' }, shout: { name: 'LABEL 7' } },
        { title: 'Red', label: { id: 8, name: 'label 8' }, shout: { name: 'LABEL 8' } },
        { title: 'Green', label: { id: 7, name: 'label 7' }, shout: { name: 'LABEL 7' } },
        { title: 'Loose', label: null, shout: null },
      ],
    },
  });
  // Two relationship fields of one level: one request each (Hasura's batching), not one per row.
  assert.equal(labels.queries().length - sent, 2);
  // The label_id column itself is not in the answer (it was not selected).
  assert.ok(!q.text.includes('label_id'));
});

test('the role\'s permission on the other source\'s table: its filter before the join, the field only with the join columns', async () => {
  const q = await e.graphql('{ album(order_by: {id: asc}) { title label { name } } }', undefined, asUser(1));
  assert.deepEqual(q.body, { data: { album: [{ title: 'Blue', label: { name: 'label 7' } }, { title: 'Green', label: { name: 'label 7' } }, { title: 'Loose', label: null }] } });
  const guest = await e.graphql('{ album { title label { name } } }', undefined, asUser(1, 'guest'));
  assert.equal(guest.body.errors?.[0]?.extensions?.code, 'validation-failed', guest.text);
  assert.match(guest.body.errors[0].message, /label/);
});

test('the remote stays while the other source\'s relationship uses it; deleting the relationship frees it', async () => {
  const before = await exportV3();
  const removed = await metadata({ type: 'remove_remote_schema', args: { name: 'labels' } });
  assert.equal(removed.status, 400, removed.text);
  assert.equal(removed.body.code, 'dependency-error');
  assert.match(removed.body.error, /music\.album\.label/);
  assert.deepEqual(await exportV3(), before);
  const dropped = await metadata({ type: 'pg_delete_remote_relationship', args: { source: 'music', table: 'album', name: 'label' } });
  assert.equal(dropped.status, 200, dropped.text);
  const gone = await e.graphql('{ album { label { name } } }');
  assert.equal(gone.body.errors?.[0]?.extensions?.code, 'validation-failed', gone.text);
  const back = await metadata(albumLabel);
  assert.equal(back.status, 200, back.text);
});

test('an action\'s nested output objects: their relationships to both sources and the remote relationships of the tables reached, batched per level', async () => {
  const handlerUrl = `http://127.0.0.1:${(handler.address() as AddressInfo).port}/nest`;
  const r = await metadata({
    type: 'bulk',
    args: [
      {
        type: 'set_custom_types',
        args: {
          objects: [
            { name: 'Nest', fields: [{ name: 'tag', type: 'String' }, { name: 'inner', type: 'Inner' }, { name: 'items', type: '[Inner!]' }] },
            {
              name: 'Inner',
              fields: [{ name: 'artist_id', type: 'Int!' }, { name: 'deeper', type: 'Inner' }],
              relationships: [
                { name: 'artist', type: 'object', remote_table: 'artist', field_mapping: { artist_id: 'id' } },
                { name: 'albums', type: 'array', source: 'music', remote_table: 'album', field_mapping: { artist_id: 'artist_id' } },
              ],
            },
          ],
        },
      },
      { type: 'create_action', args: { name: 'nest', definition: { kind: 'synchronous', type: 'query', arguments: [{ name: 'ids', type: '[Int!]!' }], output_type: 'Nest', handler: handlerUrl } } },
      { type: 'create_action_permission', args: { action: 'nest', role: 'user' } },
    ],
  });
  assert.equal(r.status, 200, r.text);

  await resetStatements();
  const sent = labels.queries().length;
  const q = await e.graphql(`{
    nest(ids: [1, 2]) {
      tag
      inner {
        artist_id
        artist { name label { name } }
        albums(order_by: {id: asc}) { title label { name } }
        deeper { albums(order_by: {id: asc}) { title } }
      }
      items { artist_id albums(order_by: {id: asc}) { title } artist { label { id } } }
    }
  }`);
  assert.equal(q.status, 200, q.text);
  assert.deepEqual(q.body, {
    data: {
      nest: {
        tag: 'n',
        inner: {
          artist_id: 1,
          artist: { name: 'Ann', label: { name: 'label 8' } },
          albums: [{ title: 'Blue', label: { name: 'label 7' } }, { title: 'Red', label: { name: 'label 8' } }],
          deeper: { albums: [{ title: 'Blue' }, { title: 'Red' }] },
        },
        items: [
          { artist_id: 1, albums: [{ title: 'Blue' }, { title: 'Red' }], artist: { label: { id: 8 } } },
          { artist_id: 2, albums: [{ title: 'Green' }], artist: { label: null } },
        ],
      },
    },
  });
  // The three album joins (inner, inner.deeper, items) in ONE statement on music.
  assert.equal(await joinCalls(), 1);
  // artist.label (two places, one relationship of the first level... two fields) and album.label (the next level).
  assert.equal(labels.queries().length - sent, 3);

  // The role's permission on the nested relationships' tables.
  const asOne = await e.graphql('{ nest(ids: [1]) { inner { albums(order_by: {id: asc}) { title } } items { deeper { albums { title } } } } }', undefined, asUser(1));
  assert.deepEqual(asOne.body, { data: { nest: { inner: { albums: [{ title: 'Blue' }] }, items: [{ deeper: { albums: [{ title: 'Blue' }] } }] } } });
});

const labelAlbums = {
  type: 'create_remote_schema_remote_relationship',
  args: {
    remote_schema: 'labels', type_name: 'Label', name: 'albums',
    definition: { to_source: { source: 'music', table: 'album', relationship_type: 'array', field_mapping: { id: 'label_id' } } },
  },
};
const labelArtist = {
  type: 'create_remote_schema_remote_relationship',
  args: {
    remote_schema: 'labels', type_name: 'Label', name: 'artist',
    definition: { to_source: { source: 'default', table: 'artist', relationship_type: 'object', field_mapping: { artist_id: 'id' } } },
  },
};
const withToSource = (over: Record<string, unknown>) => ({ ...labelAlbums, args: { ...labelAlbums.args, definition: { to_source: { ...labelAlbums.args.definition.to_source, ...over } } } });

test('create_remote_schema_remote_relationship: errors in Hasura\'s shape change nothing; stored as Hasura v2 keeps it, exported, replaced', async () => {
  const before = await exportV3();
  const cases: Array<[unknown, RegExp]> = [
    [{ ...labelAlbums, args: { ...labelAlbums.args, type_name: 'Nope' } }, /Nope/],
    [{ ...labelAlbums, args: { ...labelAlbums.args, name: 'name' } }, /name/],
    [withToSource({ field_mapping: { nope: 'label_id' } }), /nope/],
    [withToSource({ field_mapping: { id: 'no_such' } }), /no_such/],
    [withToSource({ table: 'nope' }), /nope/],
    [withToSource({ source: 'nowhere' }), /nowhere/],
  ];
  for (const [body, message] of cases) {
    const r = await metadata(body);
    assert.equal(r.status, 400, r.text);
    assert.equal(typeof r.body.code, 'string');
    assert.equal(typeof r.body.path, 'string');
    assert.match(r.body.error, message);
  }
  const noRemote = await metadata({ ...labelAlbums, args: { ...labelAlbums.args, remote_schema: 'nope' } });
  assert.equal(noRemote.status, 400, noRemote.text);
  assert.equal(noRemote.body.code, 'not-exists');
  const toRemote = await metadata({
    type: 'create_remote_schema_remote_relationship',
    args: { remote_schema: 'labels', type_name: 'Label', name: 'again', definition: { to_remote_schema: { remote_schema: 'labels', lhs_fields: ['id'], remote_field: { label: { arguments: { id: '$id' } } } } } },
  });
  assert.equal(toRemote.status, 400, toRemote.text);
  assert.equal(toRemote.body.code, 'not-supported');
  assert.deepEqual(await exportV3(), before);

  for (const body of [labelAlbums, labelArtist]) {
    const r = await metadata(body);
    assert.equal(r.status, 200, r.text);
  }
  const again = await metadata(labelAlbums);
  assert.equal(again.status, 400);
  assert.equal(again.body.code, 'already-exists');
  const doc = await exportV3();
  const rs = doc.remote_schemas.find((r: any) => r.name === 'labels');
  assert.deepEqual(rs.remote_relationships, [{ type_name: 'Label', relationships: [{ name: 'albums', definition: labelAlbums.args.definition }, { name: 'artist', definition: labelArtist.args.definition }] }]);
  const replaced = await metadata({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual(await exportV3(), doc);
  assert.deepEqual((await metadata({ type: 'get_inconsistent_metadata', args: {} })).body.inconsistent_objects, []);
});

test('a remote root field\'s answer joined to both sources\' tables: the join fields fetched though not selected, one statement per source per level, nested further', async () => {
  await resetStatements();
  const sent = labels.queries().length;
  const q = await e.graphql(`{
    labels {
      name
      albums(order_by: {id: asc}) { title label { name } }
      artist { name label { id } }
      few: albums(where: {title: {_neq: "Blue"}}, limit: 1) { title }
    }
  }`);
  assert.equal(q.status, 200, q.text);
  assert.deepEqual(q.body, {
    data: {
      labels: [
        { name: 'label 7', albums: [{ title: 'Blue', label: { name: 'label 7' } }, { title: 'Green', label: { name: 'label 7' } }], artist: { name: 'Cy', label: { id: 7 } }, few: [{ title: 'Green' }] },
        { name: 'label 8', albums: [{ title: 'Red', label: { name: 'label 8' } }], artist: { name: 'Ann', label: { id: 8 } }, few: [{ title: 'Red' }] },
        { name: 'label 9', albums: [], artist: null, few: [] },
      ],
    },
  });
  // What the remote was sent: the join fields under their own aliases, never the relationship fields.
  const root = labels.queries()[sent].body.query;
  assert.match(root, /__svc_j\d+_id: id/);
  assert.match(root, /__svc_j\d+_artist_id: artist_id/);
  assert.doesNotMatch(root, /albums|few/);
  assert.ok(!q.text.includes('__svc') && !q.text.includes('artist_id'));
  // The two album joins of the first level in ONE statement on music, whatever the number of labels.
  assert.equal(await joinCalls(), 1);
  // The root field, then the next level's remote relationships (album.label, artist.label): one request each.
  assert.equal(labels.queries().length - sent, 3);
});

test('a remote type\'s relationship: the target\'s permission for the role, fragments, unions, variables, skipped fields', async () => {
  const asOne = await e.graphql('{ labels { name albums(order_by: {id: asc}) { title } } }', undefined, asUser(1));
  assert.deepEqual(asOne.body, { data: { labels: [{ name: 'label 7', albums: [{ title: 'Blue' }, { title: 'Green' }] }, { name: 'label 8', albums: [] }, { name: 'label 9', albums: [] }] } });
  const hidden = await e.graphql('{ labels { albums { owner_id } } }', undefined, asUser(1));
  assert.equal(hidden.body.errors?.[0]?.extensions?.code, 'validation-failed', hidden.text);
  const guestSees = await e.graphql('{ labels { artist { name } } }', undefined, asUser(1, 'guest'));
  assert.equal(guestSees.body.errors?.[0]?.extensions?.code, 'validation-failed', guestSees.text);

  const frag = await e.graphql(
    'query ($t: String!, $skip: Boolean!) { one: label(id: 8) { ...L } found: find(id: 7) { ... on Label { name artist @skip(if: $skip) { name } } ... on Other { id } } other: find(id: 101) { ... on Other { id } } } fragment L on Label { albums(where: {title: {_eq: $t}}) { title } }',
    { t: 'Red', skip: false },
  );
  assert.equal(frag.status, 200, frag.text);
  assert.deepEqual(frag.body, { data: { one: { albums: [{ title: 'Red' }] }, found: { name: 'label 7', artist: { name: 'Cy' } }, other: { id: 101 } } });
  const skipped = await e.graphql('query ($skip: Boolean!) { label(id: 7) { artist @skip(if: $skip) { name } } }', { skip: true });
  assert.deepEqual(skipped.body, { data: { label: {} } });
  const badArg = await e.graphql('{ labels { albums(where: {nope: {_eq: 1}}) { title } } }');
  assert.equal(badArg.body.errors?.[0]?.extensions?.code, 'validation-failed', badArg.text);
  assert.match(badArg.body.errors[0].extensions.path, /albums/);
});

test('the CLI: remote_schemas.yaml carries the types\' relationships; apply puts them back; deleting one frees the name', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-srcremote-'));
  try {
    const env = { SVC_GRAPHQL_ADMIN_SECRET: 'secret' };
    const exported = await cliAgainst(e.url, 'metadata', ['export', '--dir', dir], env);
    assert.equal(exported.code, 0, exported.err);
    const files = await dirContents(dir);
    const yaml = files['remote_schemas.yaml'] ?? '';
    assert.match(yaml, /remote_relationships:[\s\S]*to_source:[\s\S]*source: music/, Object.keys(files).join(', '));
    assert.match(yaml, /type_name: Label/);
    const before = await exportV3();
    const dropped = await metadata({ type: 'delete_remote_schema_remote_relationship', args: { remote_schema: 'labels', type_name: 'Label', name: 'albums' } });
    assert.equal(dropped.status, 200, dropped.text);
    const gone = await e.graphql('{ labels { albums { title } } }');
    assert.equal(gone.body.errors?.[0]?.extensions?.code, 'validation-failed', gone.text);
    const missing = await metadata({ type: 'delete_remote_schema_remote_relationship', args: { remote_schema: 'labels', type_name: 'Label', name: 'albums' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'not-exists');
    const applied = await cliAgainst(e.url, 'metadata', ['apply', '--dir', dir], env);
    assert.equal(applied.code, 0, applied.err);
    // (The custom types come back through actions.graphql, in the SDL's order: compared elsewhere.)
    const after = await exportV3();
    assert.deepEqual(after.remote_schemas, before.remote_schemas);
    assert.deepEqual(after.sources, before.sources);
    const back = await e.graphql('{ label(id: 8) { albums { title } } }');
    assert.deepEqual(back.body, { data: { label: { albums: [{ title: 'Red' }] } } });
    const updated = await metadata({ ...labelAlbums, type: 'update_remote_schema_remote_relationship', args: { ...labelAlbums.args, definition: { to_source: { ...labelAlbums.args.definition.to_source, relationship_type: 'object' } } } });
    assert.equal(updated.status, 200, updated.text);
    const one = await e.graphql('{ label(id: 8) { albums { title } } }');
    assert.deepEqual(one.body, { data: { label: { albums: { title: 'Red' } } } });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a target table a remote type\'s relationship uses: untracking it is refused and changes nothing', async () => {
  const before = await exportV3();
  const r = await metadata({ type: 'pg_untrack_table', args: { source: 'music', table: 'album' } });
  assert.equal(r.status, 400, r.text);
  // Hasura's withNewInconsistentObjsCheck: the relationship would become inconsistent.
  assert.equal(r.body.code, 'unexpected');
  assert.match(r.body.error, /cannot continue due to new inconsistent metadata/);
  assert.deepEqual(await exportV3(), before);
  const still = await e.graphql('{ label(id: 8) { albums { title } } }');
  assert.deepEqual(still.body, { data: { label: { albums: { title: 'Red' } } } });
});
