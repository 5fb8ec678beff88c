/**
 * replace_metadata never stores what the engine does not act on: every section still on the list of
 * metadata/model/unsupportedMetadata.ts, and unknown keys, are refused with 400 not-supported naming every one, and the metadata stays as it was. Empty
 * sections (as Hasura's exports carry them) are accepted.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { UNSUPPORTED_METADATA_KEYS } from '../../src/metadata/index.js';

let e: TestEngine;
before(async () => {
  e = await startTestEngine();
  await e.runSql('CREATE TABLE author (id serial PRIMARY KEY, name text)');
  const r = await e.query({ type: 'track_table', args: { table: 'author' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
});
after(() => e?.stop());

const exported = async () => (await e.query({ type: 'export_metadata', args: {} })).body;

/** A non-empty sample of every section that may be on the not-yet-supported list. */
const SAMPLES: Record<string, unknown> = {
  actions: [{ name: 'login', definition: { handler: 'http://127.0.0.1:1/login', kind: 'synchronous' } }],
  custom_types: { objects: [{ name: 'LoginResponse', fields: [{ name: 'token', type: 'String!' }] }] },
  remote_schemas: [{ name: 'rs', definition: { url: 'http://127.0.0.1:1/graphql' } }],
  cron_triggers: [{ name: 'c', webhook: 'http://127.0.0.1:1', schedule: '* * * * *' }],
};

test('each unsupported section (and unknown keys) is refused by name; the metadata is unchanged', async () => {
  const before = await exported();
  // Driven by the one list: what is still on it must be refused; what has landed is not this test's business.
  const cases: Array<[Record<string, unknown>, string]> = Object.entries(UNSUPPORTED_METADATA_KEYS)
    .map(([key, what]): [Record<string, unknown>, string] => [{ [key]: SAMPLES[key] ?? [{ name: 'x' }] }, `${key} (${what})`]);
  cases.push([{ unknown_section: [{ name: 'default' }] }, 'unknown_section (unknown key)']);
  for (const [extra, named] of cases) {
    const r = await e.query({ type: 'replace_metadata', args: { version: 2, tables: [{ table: 'author' }], ...extra } });
    assert.equal(r.status, 400, named);
    assert.equal(r.body.code, 'not-supported', named);
    assert.equal(r.body.path, '$.args', named);
    assert.match(r.body.error, new RegExp(named.replace(/[()]/g, '\\$&')), named);
  }
  const r = await e.query({ type: 'replace_metadata', args: { version: 2, tables: [{ table: 'author' }], unknown_section: [{ name: 'default' }], backend_configs: { dataconnector: { x: { uri: 'http://127.0.0.1:9' } } } } });
  assert.equal(r.status, 400);
  assert.equal(r.body.error, 'this engine does not support yet, so refuses to store: unknown_section (unknown key), backend_configs (unknown key)');
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
