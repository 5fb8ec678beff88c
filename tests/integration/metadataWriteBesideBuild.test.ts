/**
 * A metadata request's last operation sends the new stored document's write on its transaction's connection
 * before the engine builds the new schema cache (Postgres validates and compresses the text while the engine
 * builds); the request commits only when both are done. What must hold: a request refused by its build, or
 * rolled back and run again because the catalogs changed under it, leaves the stored row as one committed
 * change would (or as it was), and another engine on the database sees each committed change. A large document
 * is written with lz4 where the server offers it.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestEngine, type TestEngine } from './harness.js';

let a: TestEngine;
let b: TestEngine;

async function sql<T = Record<string, unknown>>(text: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: a.databaseUrl });
  await c.connect();
  try {
    return (await c.query(text)).rows as T[];
  } finally {
    await c.end();
  }
}

/** The stored row: its document's text and resource_version. */
async function stored(): Promise<{ text: string; version: number }> {
  const [row] = await sql<{ text: string; version: number }>('SELECT metadata::text AS text, resource_version AS version FROM hdb_catalog.hdb_metadata WHERE id = 1');
  return { text: row.text, version: Number(row.version) };
}

const ok = async (body: unknown) => {
  const r = await a.query(body);
  assert.equal(r.status, 200, r.text);
  return r.body;
};

/** Polls `probe` until `accept` holds (failing with the last value after `timeoutMs`). */
async function eventually<T>(probe: () => Promise<T>, accept: (v: T) => boolean, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (accept(v)) return v;
    if (Date.now() > deadline) assert.fail(`not converged after ${timeoutMs} ms: ${JSON.stringify(v).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Tables of the stored document that have a select permission for `role`. */
const selectableBy = (text: string, role: string): string[] =>
  (JSON.parse(text).tables as Array<{ table: { name: string }; select_permissions?: Array<{ role: string }> }>)
    .filter((t) => t.select_permissions?.some((p) => p.role === role))
    .map((t) => t.table.name)
    .sort();

before(async () => {
  a = await startTestEngine({ adminSecret: 'adm' });
  // 260 tables (the stored text encoded a slice of tables per turn) and a query collection making the document
  // large enough (over 256 KiB) to be written with lz4.
  const names = Array.from({ length: 260 }, (_, i) => `w${String(i).padStart(3, '0')}`);
  await a.runSql(names.map((n) => `CREATE TABLE ${n} (id serial PRIMARY KEY, label text);`).join('\n'));
  await ok({ type: 'bulk', args: names.map((name) => ({ type: 'track_table', args: { schema: 'public', name } })) });
  const padding = `# ${'x'.repeat(300 * 1024)}\n{ __typename }`;
  await ok({ type: 'create_query_collection', args: { name: 'big', definition: { queries: [{ name: 'padded', query: padding }] } } });
  b = await startTestEngine({ adminSecret: 'adm', databaseUrl: a.databaseUrl });
});
after(async () => {
  await b?.stop();
  await a?.stop();
});

test('an operation its build refuses leaves the stored document and its version as they were', async () => {
  const was = await stored();
  // A filter on a column the table lacks: the build makes the permission inconsistent, so it is refused.
  const r = await a.query({ type: 'create_select_permission', args: { table: 'w001', role: 'user', permission: { columns: ['id'], filter: { nope: { _eq: 1 } } } } });
  assert.equal(r.status, 400, r.text);
  assert.deepEqual(await stored(), was);
  // The same as the last operation of a bulk whose first operation was fine: nothing of either stays.
  const bulk = await a.query({ type: 'bulk', args: [
    { type: 'create_select_permission', args: { table: 'w002', role: 'user', permission: { columns: ['id'], filter: {} } } },
    { type: 'create_select_permission', args: { table: 'w003', role: 'user', permission: { columns: ['id'], filter: { nope: { _eq: 1 } } } } },
  ] });
  assert.equal(bulk.status, 400, bulk.text);
  assert.deepEqual(await stored(), was);
  const g = await a.graphql('{ w002 { id } }', undefined, { 'x-svc-admin-secret': 'adm', 'x-svc-role': 'user' });
  assert.equal(g.body.errors?.[0]?.extensions?.code, 'validation-failed', g.text);
});

test('a request run again after DDL made outside the engine writes its document once, and the other engine serves it', async () => {
  const was = await stored();
  // The catalogs change under the live build: the first attempt (document written beside its build) is rolled
  // back when the fingerprint answers, and the request runs again on a snapshot read for it.
  await sql('CREATE TABLE outside_made (id int PRIMARY KEY)');
  await ok({ type: 'create_select_permission', args: { table: 'w010', role: 'user', permission: { columns: ['id', 'label'], filter: {} } } });
  const now = await stored();
  assert.equal(now.version, was.version + 1);
  assert.deepEqual(selectableBy(now.text, 'user'), ['w010']);
  // The stored document is the engine's own export of its metadata.
  const exported = await ok({ type: 'export_metadata', args: {} });
  assert.deepEqual(JSON.parse(now.text).tables, exported.tables);
  // The other engine (schema sync) serves the change.
  const seen = await eventually(
    () => b.graphql('{ w010 { id label } }', undefined, { 'x-svc-admin-secret': 'adm', 'x-svc-role': 'user' }),
    (r) => r.body?.data !== undefined,
  );
  assert.deepEqual(seen.body, { data: { w010: [] } });
  await ok({ type: 'drop_select_permission', args: { table: 'w010', role: 'user' } });
  await eventually(
    () => b.graphql('{ w010 { id } }', undefined, { 'x-svc-admin-secret': 'adm', 'x-svc-role': 'user' }),
    (r) => r.body?.errors?.[0]?.extensions?.code === 'validation-failed',
  );
  assert.equal((await stored()).version, was.version + 2);
});

test('each operation of a bulk is in the one document it writes, and the other engine serves them', async () => {
  const was = await stored();
  const body = await ok({ type: 'bulk', args: ['w020', 'w021', 'w022'].map((table) => ({ type: 'create_select_permission', args: { table, role: 'reader', permission: { columns: ['id'], filter: {} } } })) });
  assert.equal(body.length, 3);
  const now = await stored();
  assert.equal(now.version, was.version + 1);
  assert.deepEqual(selectableBy(now.text, 'reader'), ['w020', 'w021', 'w022']);
  await eventually(
    () => b.graphql('{ w020 { id } w021 { id } w022 { id } }', undefined, { 'x-svc-admin-secret': 'adm', 'x-svc-role': 'reader' }),
    (r) => r.body?.data !== undefined,
  );
});

test('a large document is stored with lz4 where the server offers it, and reads back whole', async () => {
  await ok({ type: 'create_select_permission', args: { table: 'w030', role: 'user', permission: { columns: ['id'], filter: {} } } });
  const [{ lz4 }] = await sql<{ lz4: boolean }>(`SELECT coalesce('lz4' = ANY (enumvals), false) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'
    UNION ALL SELECT false LIMIT 1`);
  const [{ method, size }] = await sql<{ method: string | null; size: number }>(
    'SELECT pg_column_compression(metadata) AS method, length(metadata::text) AS size FROM hdb_catalog.hdb_metadata WHERE id = 1',
  );
  assert.ok(Number(size) > 256 * 1024, `document of ${size} characters`);
  assert.equal(method, lz4 ? 'lz4' : 'pglz');
  // The server's own default is untouched outside the request's transaction.
  const [{ setting }] = await sql<{ setting: string }>(`SELECT current_setting('default_toast_compression') AS setting`);
  assert.equal(setting, 'pglz');
  // A third engine starting on the database reads it.
  const c = await startTestEngine({ adminSecret: 'adm', databaseUrl: a.databaseUrl });
  try {
    const r = await c.graphql('{ w030 { id } }', undefined, { 'x-svc-admin-secret': 'adm', 'x-svc-role': 'user' });
    assert.deepEqual(r.body, { data: { w030: [] } });
  } finally {
    await c.stop();
  }
});
