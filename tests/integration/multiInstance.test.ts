/**
 * Several engines on ONE database: metadata and schema changes made through one engine reach the
 * others (version-row polling, `svc_schema_update` LISTEN as a wake-up; no request to their
 * /v1/query; with --strict-schema-sync at the next request), a lost listener connection is re-established and catches up, and engines starting together on an empty
 * database create `hdb_catalog` once, under the catalog advisory lock.
 */
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import pg from 'pg';
import { CATALOG_LOCK_KEY } from '../../src/metadata/catalog/index.js';
import { createTestDatabase, startTestEngine, type TestEngine, type TestEngineOptions } from './harness.js';

const LISTENER = 'svc-graphql-engine-listener';

const cleanups = new WeakMap<TestContext, Array<() => Promise<void>>>();

/** A fresh database for this test, dropped after the engines started on it have stopped. */
async function sharedDatabase(t: TestContext): Promise<string> {
  const db = await createTestDatabase('multi');
  const steps: Array<() => Promise<void>> = [];
  cleanups.set(t, steps);
  t.after(async () => {
    for (const step of steps.reverse()) await step();
    await db.drop();
  });
  return db.url;
}

async function engineOn(t: TestContext, databaseUrl: string, opts: TestEngineOptions = {}): Promise<TestEngine> {
  const e = await startTestEngine({ ...opts, databaseUrl });
  cleanups.get(t)!.push(() => e.stop());
  return e;
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Polls `probe` until it returns a value `ok` accepts (or fails with the last value after `timeoutMs`). */
async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T;
  for (;;) {
    last = await probe();
    if (ok(last)) return last;
    if (Date.now() > deadline) assert.fail(`not converged after ${timeoutMs} ms; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const hasData = (r: { body: any }) => r.body?.data !== undefined && r.body.errors === undefined;

test('a table tracked and a permission created on engine A are served by engine B', async (t) => {
  const url = await sharedDatabase(t);
  const a = await engineOn(t, url);
  const b = await engineOn(t, url);
  await a.runSql(`CREATE TABLE author (id int PRIMARY KEY, name text, secret text); INSERT INTO author VALUES (1, 'A1', 's1'), (2, 'A2', 's2')`);
  const before = await b.graphql('{ author { id } }');
  assert.equal(before.body.errors?.[0]?.extensions?.code, 'validation-failed');

  assert.equal((await a.query({ type: 'track_table', args: { table: 'author' } })).status, 200);
  const tracked = await eventually(() => b.graphql('{ author(order_by: {id: asc}) { id name } }'), hasData);
  assert.deepEqual(tracked.body, { data: { author: [{ id: 1, name: 'A1' }, { id: 2, name: 'A2' }] } });

  const perm = { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } } };
  assert.equal((await a.query(perm)).status, 200);
  const asUser = { 'x-svc-role': 'user', 'x-svc-user-id': '2' };
  const permitted = await eventually(() => b.graphql('{ author { id name } }', undefined, asUser), hasData);
  assert.deepEqual(permitted.body, { data: { author: [{ id: 2, name: 'A2' }] } });
  const hidden = await b.graphql('{ author { secret } }', undefined, asUser);
  assert.equal(hidden.body.errors?.[0]?.extensions?.code, 'validation-failed');

  // And back the other way: B's change reaches A.
  assert.equal((await b.query({ type: 'drop_select_permission', args: { table: 'author', role: 'user' } })).status, 200);
  await eventually(() => a.graphql('{ author { id } }', undefined, asUser), (r) => r.body.errors?.[0]?.extensions?.code === 'validation-failed');
});

test('a column added by run_sql on engine A appears on engine B', async (t) => {
  const url = await sharedDatabase(t);
  const a = await engineOn(t, url);
  const b = await engineOn(t, url);
  await a.runSql(`CREATE TABLE article (id int PRIMARY KEY, title text); INSERT INTO article VALUES (1, 'T1')`);
  await a.query({ type: 'track_table', args: { table: 'article' } });
  await eventually(() => b.graphql('{ article { id } }'), hasData);
  assert.equal((await b.graphql('{ article { rating } }')).body.errors?.[0]?.extensions?.code, 'validation-failed');

  await a.runSql(`ALTER TABLE article ADD COLUMN rating int NOT NULL DEFAULT 5`);
  const r = await eventually(() => b.graphql('{ article { id title rating } }'), hasData);
  assert.deepEqual(r.body, { data: { article: [{ id: 1, title: 'T1', rating: 5 }] } });
});

test('--strict-schema-sync: the next request on B sees a change made through A, with no poll and no LISTEN to tell it', async (t) => {
  const url = await sharedDatabase(t);
  // Polling off and no listener: only the per-request check can bring A and B up to date.
  const deaf = { schemaSyncIntervalMs: 0, startOptions: { schemaSync: { listenUrl: undefined } } };
  const a = await engineOn(t, url, { ...deaf, strictSchemaSync: true });
  const b = await engineOn(t, url, { ...deaf, strictSchemaSync: true });
  const c = await engineOn(t, url, { ...deaf, strictSchemaSync: false });
  await a.runSql(`CREATE TABLE strict_note (id int PRIMARY KEY, body text); INSERT INTO strict_note VALUES (1, 'n1')`);
  assert.equal((await a.query({ type: 'track_table', args: { table: 'strict_note' } })).status, 200);
  // Many requests at once, all arriving after the change: every one is answered on the new schema.
  const burst = await Promise.all(Array.from({ length: 40 }, () => b.graphql('{ strict_note { id body } }')));
  assert.deepEqual(new Set(burst.map((r) => JSON.stringify(r.body))), new Set([JSON.stringify({ data: { strict_note: [{ id: 1, body: 'n1' }] } })]));
  // A schema-only change (run_sql DDL) and a metadata request through B on what A just did.
  await a.runSql(`ALTER TABLE strict_note ADD COLUMN stars int NOT NULL DEFAULT 4`);
  assert.deepEqual((await b.graphql('{ strict_note { stars } }')).body, { data: { strict_note: [{ stars: 4 }] } });
  const perm = await b.query({ type: 'create_select_permission', args: { table: 'strict_note', role: 'user', permission: { columns: ['id', 'stars'], filter: {} } } });
  assert.equal(perm.status, 200, perm.text);
  assert.deepEqual((await a.graphql('{ strict_note { id stars } }', undefined, { 'x-svc-role': 'user' })).body, { data: { strict_note: [{ id: 1, stars: 4 }] } });
  // Without the switch the same engine stays on its old schema (eventually consistent, as Hasura).
  assert.equal((await c.graphql('{ strict_note { id } }')).body.errors?.[0]?.extensions?.code, 'validation-failed');
});

test('after its listener connection is killed, engine B reconnects and catches up on missed changes', async (t) => {
  const url = await sharedDatabase(t);
  const a = await engineOn(t, url);
  // A first retry long enough that A's change below lands while B is not listening.
  const b = await engineOn(t, url, { startOptions: { schemaSync: { retryMs: 3000, maxRetryMs: 3000 } } });
  await a.runSql(`CREATE TABLE tag (id int PRIMARY KEY, label text); INSERT INTO tag VALUES (1, 'x')`);
  const listeners = () =>
    withClient(url, async (c) => (await c.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [LISTENER])).rows[0].n as number);
  assert.equal(await listeners(), 2);

  const killed = await withClient(url, (c) =>
    c.query(`SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`, [LISTENER]),
  );
  assert.equal(killed.rows.length, 2);
  assert.equal((await a.query({ type: 'track_table', args: { table: 'tag' } })).status, 200);

  const r = await eventually(() => b.graphql('{ tag { id label } }'), hasData, 10_000);
  assert.deepEqual(r.body, { data: { tag: [{ id: 1, label: 'x' }] } });
  await eventually(listeners, (n) => n === 2, 10_000);

  // Notifications flow again over the new connection.
  await a.runSql(`ALTER TABLE tag ADD COLUMN color text`);
  await eventually(() => b.graphql('{ tag { color } }'), hasData);
});

test('two engines started together on an empty database create hdb_catalog once', async (t) => {
  const url = await sharedDatabase(t);
  const [a, b] = await Promise.all([engineOn(t, url), engineOn(t, url)]);
  for (const e of [a, b]) assert.equal((await e.request('GET', '/healthz')).text, 'OK');
  const rows = await withClient(url, async (c) => ({
    versions: (await c.query('SELECT version FROM hdb_catalog.hdb_version')).rows,
    metadata: (await c.query('SELECT id, metadata::jsonb AS metadata FROM hdb_catalog.hdb_metadata')).rows,
  }));
  assert.equal(rows.versions.length, 1);
  assert.equal(rows.metadata.length, 1);
  assert.equal(rows.metadata[0].metadata.version, 2);
  const md = await a.query({ type: 'export_metadata', args: {} });
  assert.deepEqual(md.body, { version: 2, tables: [] });
});

test('catalog migration waits for the catalog advisory lock', async (t) => {
  const url = await sharedDatabase(t);
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  cleanups.get(t)!.push(() => holder.end());
  await holder.query('SELECT pg_advisory_lock($1)', [CATALOG_LOCK_KEY]);
  let started = false;
  const starting = engineOn(t, url).then((e) => {
    started = true;
    return e;
  });
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(started, false, 'the engine started while another session held the catalog lock');
  const schema = await holder.query(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'hdb_catalog'`);
  assert.equal(schema.rows[0].n, 0);
  await holder.query('SELECT pg_advisory_unlock($1)', [CATALOG_LOCK_KEY]);
  const e = await starting;
  assert.equal((await e.request('GET', '/healthz')).text, 'OK');
});
