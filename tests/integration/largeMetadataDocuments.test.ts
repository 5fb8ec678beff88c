/**
 * Whole documents of hundreds of tables through the engine (the bodies large enough for the sliced
 * paths: metadataApi/decodeBody.ts, metadataApi/exportedMetadata.ts, metadata/catalog/storedDocument.ts).
 * A replace_metadata of a large body is decoded on the main thread (not by the worker) and stored; the
 * export of it is the same text again; a body broken half-way (a table that does not decode, a table that
 * is inconsistent, JSON cut in the middle) answers Hasura's error and changes nothing (the export and the
 * resource_version are the same after it); /v1/metadata's version-3 form; reload_metadata of the large
 * stored document; a role's first mutation afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { offThreadDecodeCounts, OFF_THREAD_MIN_BYTES } from '../../src/metadataApi/index.js';
import { storedDocumentThreadCounts } from '../../src/metadata/index.js';

const TABLES = 400;
const ROLES = ['r1', 'r2', 'r3', 'r4', 'r5'];
const SECRET = 'large-docs-secret';
const ADMIN = { 'x-svc-admin-secret': SECRET, 'content-type': 'application/json' };
const name = (i: number) => `t${String(i).padStart(4, '0')}`;

function document(): { version: 2; tables: Array<Record<string, any>> } {
  return {
    version: 2,
    tables: Array.from({ length: TABLES }, (_, i) => ({
      table: { schema: 'public', name: name(i) },
      ...(i > 0 ? { object_relationships: [{ name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } }] } : {}),
      insert_permissions: ROLES.map((role) => ({ role, permission: { check: { owner_id: { _eq: 'X-Svc-User-Id' } }, columns: ['label', 'owner_id'], set: {} } })),
      select_permissions: ROLES.map((role) => ({ role, permission: { columns: ['id', 'label', 'owner_id'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } }, allow_aggregations: role === 'r2' } })),
      update_permissions: ROLES.map((role) => ({ role, permission: { columns: ['label'], filter: { owner_id: { _eq: 'X-Svc-User-Id' } }, check: null } })),
    })),
  };
}

async function state(e: TestEngine): Promise<{ exported: string; version: number }> {
  const exported = await e.request('POST', '/v1/query', JSON.stringify({ type: 'export_metadata', args: {} }), ADMIN);
  assert.equal(exported.status, 200);
  const rows = await e.runSql('SELECT resource_version FROM hdb_catalog.hdb_metadata');
  return { exported: exported.text, version: Number(rows.result[1][0]) };
}

test('large whole documents: replaced, exported, refused half-way without a change, reloaded', async (t) => {
  const e = await startTestEngine({ adminSecret: SECRET });
  t.after(() => e.stop());
  const ddl = Array.from({ length: TABLES }, (_, i) =>
    `CREATE TABLE ${name(i)} (id serial PRIMARY KEY, label text, owner_id int${i > 0 ? `, parent_id int REFERENCES ${name(i - 1)}(id)` : ''});`).join('\n');
  await e.runSql(ddl);

  // A large replace_metadata: decoded on the main thread in slices, not by the worker.
  const body = JSON.stringify({ type: 'replace_metadata', args: document() });
  assert.ok(body.length >= OFF_THREAD_MIN_BYTES, `${body.length} bytes`);
  const workerBefore = offThreadDecodeCounts();
  const replaced = await e.request('POST', '/v1/query', body, ADMIN);
  assert.equal(replaced.status, 200, replaced.text.slice(0, 300));
  assert.deepEqual(offThreadDecodeCounts(), workerBefore, 'not decoded by the worker thread');

  const first = await state(e);
  const exported = JSON.parse(first.exported);
  assert.equal(exported.tables.length, TABLES);
  assert.deepEqual(exported.tables[399].select_permissions.map((p: { role: string }) => p.role), ROLES);
  // The export replaced again (its own text) gives the same export.
  assert.equal((await e.request('POST', '/v1/query', JSON.stringify({ type: 'replace_metadata', args: exported }), ADMIN)).status, 200);
  const second = await state(e);
  assert.equal(second.exported, first.exported);
  assert.ok(second.version > first.version);

  // Refused half-way: the error Hasura gives, nothing changed.
  const undecodable = document();
  undecodable.tables[200].select_permissions[2].permission.columns = 'id';
  const inconsistent = document();
  inconsistent.tables[250].update_permissions[0].permission.columns = ['no_such_column'];
  const cases: Array<[string, string, (b: any) => void]> = [
    ['a table that does not decode', JSON.stringify({ type: 'replace_metadata', args: undecodable }), (b) => {
      assert.equal(b.code, 'parse-failed');
      assert.match(b.path, /tables\[200\]\.select_permissions\[2\]/);
    }],
    ['an inconsistent table', JSON.stringify({ type: 'replace_metadata', args: { allow_inconsistent_metadata: false, metadata: inconsistent } }), (b) => {
      assert.equal(b.code, 'unexpected');
      assert.equal(b.error, 'cannot continue due to inconsistent metadata');
    }],
    ['JSON cut half-way', body.slice(0, Math.floor(body.length / 2)), (b) => assert.equal(b.code, 'invalid-json')],
    ['a stray token half-way', body.replace('"t0200"', '"t0200" 1'), (b) => assert.equal(b.code, 'invalid-json')],
  ];
  for (const [what, text, check] of cases) {
    const r = await e.request('POST', '/v1/query', text, ADMIN);
    assert.equal(r.status, 400, `${what}: ${r.text.slice(0, 300)}`);
    for (const key of ['code', 'error', 'path']) assert.equal(typeof r.body[key], 'string', `${what}: ${key}`);
    check(r.body);
    assert.deepEqual(await state(e), second, `${what}: nothing changed`);
  }

  // /v1/metadata: the version-3 form, replaced and exported.
  const v3 = await e.request('POST', '/v1/metadata', JSON.stringify({ type: 'export_metadata', args: {} }), ADMIN);
  assert.equal(v3.status, 200);
  assert.equal(v3.body.version, 3);
  assert.equal(v3.body.sources[0].tables.length, TABLES);
  const v3Replace = await e.request('POST', '/v1/metadata', JSON.stringify({ type: 'replace_metadata', args: { allow_inconsistent_metadata: false, metadata: v3.body } }), ADMIN);
  assert.equal(v3Replace.status, 200, v3Replace.text.slice(0, 300));
  assert.deepEqual(v3Replace.body, { is_consistent: true, inconsistent_objects: [] });
  assert.equal((await state(e)).exported, first.exported);

  // reload_metadata reads the large stored document back, on the main thread in slices.
  const storedBefore = storedDocumentThreadCounts();
  assert.equal((await e.query({ type: 'reload_metadata', args: {} }, ADMIN)).status, 200);
  assert.deepEqual(storedDocumentThreadCounts(), storedBefore, 'not decoded by the worker thread');
  assert.equal((await state(e)).exported, first.exported);

  // A role's first mutation and query after all this.
  const r1 = { 'x-svc-role': 'r1', 'x-svc-user-id': '7', 'x-svc-admin-secret': SECRET };
  const ins = await e.graphql('mutation { insert_t0399_one(object: { label: "x", owner_id: 7 }) { id label } }', undefined, r1);
  assert.deepEqual(ins.body, { data: { insert_t0399_one: { id: 1, label: 'x' } } });
  const denied = await e.graphql('mutation { insert_t0399_one(object: { label: "y", owner_id: 8 }) { id } }', undefined, r1);
  assert.equal(denied.body.errors?.[0]?.extensions?.code, 'permission-error');
  assert.deepEqual((await e.graphql('{ t0399 { label } }', undefined, r1)).body, { data: { t0399: [{ label: 'x' }] } });
});
