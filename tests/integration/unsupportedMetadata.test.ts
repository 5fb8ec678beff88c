/**
 * replace_metadata never stores what the engine does not act on: actions, custom types, remote
 * schemas and remote relationships of tables, and unknown keys are
 * refused with 400 not-supported naming every one, and the metadata stays as it was. Empty
 * sections (as Hasura's exports carry them) are accepted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
before(async () => {
  e = await startTestEngine();
  await e.runSql('CREATE TABLE author (id serial PRIMARY KEY, name text)');
  const r = await e.query({ type: 'track_table', args: { table: 'author' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
});
after(() => e?.stop());

const exported = async () => (await e.query({ type: 'export_metadata', args: {} })).body;

test('each unsupported section is refused by name; the metadata is unchanged', async () => {
  const before = await exported();
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ actions: [{ name: 'login', definition: { handler: 'http://127.0.0.1:1/login', kind: 'synchronous' } }] }, 'actions (actions)'],
    [{ custom_types: { objects: [{ name: 'LoginResponse', fields: [{ name: 'token', type: 'String!' }] }] } }, 'custom_types (custom types (of actions))'],
    [{ remote_schemas: [{ name: 'rs', definition: { url: 'http://127.0.0.1:1/graphql' } }] }, 'remote_schemas (remote schemas)'],
    [{ sources: [{ name: 'default' }] }, 'sources (unknown key)'],
  ];
  for (const [extra, named] of cases) {
    const r = await e.query({ type: 'replace_metadata', args: { version: 2, tables: [{ table: 'author' }], ...extra } });
    assert.equal(r.status, 400, named);
    assert.equal(r.body.code, 'not-supported', named);
    assert.equal(r.body.path, '$.args', named);
    assert.match(r.body.error, new RegExp(named.replace(/[()]/g, '\\$&')), named);
  }
  const rel = { name: 'r', definition: { remote_schema: 'x', hasura_fields: ['id'], remote_field: { f: { arguments: {} } } } };
  const r = await e.query({ type: 'replace_metadata', args: { version: 2, tables: [{ table: 'author', remote_relationships: [rel] }], actions: [{ name: 'a', definition: {} }] } });
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'this engine does not support yet, so refuses to store: actions (actions), tables[0].remote_relationships (remote relationships)');
  assert.deepEqual(await exported(), before, 'nothing was stored');
});

test('empty sections and legacy keys from Hasura exports are accepted', async () => {
  const r = await e.query({
    type: 'replace_metadata',
    args: {
      version: 2,
      tables: [{ table: 'author', event_triggers: [], remote_relationships: [] }],
      actions: [],
      remote_schemas: [],
      cron_triggers: [],
      custom_types: { objects: [], input_objects: [], scalars: [], enums: [] },
      query_templates: [],
    },
  });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body, { message: 'success' });
});
