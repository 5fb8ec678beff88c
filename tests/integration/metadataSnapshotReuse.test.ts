/**
 * Metadata operations reuse the previous request's database introspection only while the catalog
 * is unchanged: DDL made outside the engine (another client, no run_sql) between two operations is
 * still seen by the next one, as Hasura v1.3 re-reads the catalog at every schema build.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
async function outside(sqlText: string): Promise<void> {
  const c = new pg.Client({ connectionString: e.databaseUrl });
  await c.connect();
  try {
    await c.query(sqlText);
  } finally {
    await c.end();
  }
}
const ok = async (body: unknown) => {
  const r = await e.query(body);
  assert.equal(r.status, 200, r.text);
  return r.body;
};

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm' });
  await e.runSql(`CREATE TABLE author (id serial PRIMARY KEY, name text);
    CREATE TABLE color (value text PRIMARY KEY, comment text);
    INSERT INTO color VALUES ('red', 'Red');
    CREATE TABLE paint (id serial PRIMARY KEY, color text REFERENCES color(value));`);
  await ok({ type: 'track_table', args: { schema: 'public', name: 'author' } });
});
after(() => e.stop());

test('a table and a column created outside the engine are seen by the next metadata operation', async () => {
  // Two operations with no DDL in between (the second may reuse the first's introspection).
  await ok({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id'], filter: {} } } });
  await ok({ type: 'drop_select_permission', args: { table: 'author', role: 'user' } });

  await outside('CREATE TABLE book (id serial PRIMARY KEY, author_id int REFERENCES author(id))');
  await ok({ type: 'track_table', args: { schema: 'public', name: 'book' } });
  await ok({ type: 'create_object_relationship', args: { table: 'book', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } });

  await outside('ALTER TABLE author ADD COLUMN bio text');
  await ok({ type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'bio'], filter: {} } } });
  const r = await e.graphql('{ author { id bio } }', undefined, { 'x-svc-admin-secret': 'adm', 'x-svc-role': 'user' });
  assert.deepEqual(r.body, { data: { author: [] } });
});

test('a table dropped outside the engine is not trackable by the next operation', async () => {
  await outside('CREATE TABLE temp_thing (id int PRIMARY KEY)');
  await ok({ type: 'track_table', args: { schema: 'public', name: 'temp_thing' } });
  await ok({ type: 'untrack_table', args: { table: 'temp_thing' } });
  await outside('DROP TABLE temp_thing');
  const r = await e.query({ type: 'track_table', args: { schema: 'public', name: 'temp_thing' } });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.code, 'not-exists');
});

test('enum values changed outside the engine are read again by the next operation', async () => {
  await ok({ type: 'track_table', version: 2, args: { table: 'color', is_enum: true } });
  await ok({ type: 'track_table', args: { schema: 'public', name: 'paint' } });
  await outside(`INSERT INTO color VALUES ('blue', 'Blue')`);
  await ok({ type: 'reload_metadata', args: {} });
  await outside(`INSERT INTO color VALUES ('green', 'Green')`);
  // A metadata-only operation rebuilds the cache with the enum rows as they are now.
  await ok({ type: 'create_select_permission', args: { table: 'author', role: 'other', permission: { columns: ['id'], filter: {} } } });
  const r = await e.graphql('{ __type(name: "color_enum") { enumValues { name } } }');
  assert.ok(r.body.data?.__type, r.text);
  assert.deepEqual(r.body.data.__type.enumValues.map((v: { name: string }) => v.name).sort(), ['blue', 'green', 'red']);
});

test('an enum label added outside the engine is seen by the first operation after start-up and by reload_metadata', async () => {
  await outside(`CREATE TYPE mood AS ENUM ('happy'); CREATE TABLE diary (id serial PRIMARY KEY, mood mood)`);
  await ok({ type: 'track_table', args: { schema: 'public', name: 'diary' } });
  // A second engine: its start-up build took the catalogs' fingerprint beside its introspection.
  const b = await startTestEngine({ adminSecret: 'adm', databaseUrl: e.databaseUrl });
  try {
    const insert = (label: string) => b.graphql(`mutation { insert_diary_one(object: { mood: "${label}" }) { mood } }`, undefined, { 'x-svc-admin-secret': 'adm' });
    assert.deepEqual((await insert('happy')).body, { data: { insert_diary_one: { mood: 'happy' } } });
    // ALTER TYPE … ADD VALUE writes pg_enum only.
    await outside(`ALTER TYPE mood ADD VALUE 'sad'`);
    const refused = await insert('sad');
    assert.equal(refused.body.errors?.[0]?.extensions?.code, 'validation-failed', refused.text);
    const r = await b.query({ type: 'create_select_permission', args: { table: 'diary', role: 'user', permission: { columns: ['id'], filter: {} } } });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await insert('sad')).body, { data: { insert_diary_one: { mood: 'sad' } } });
    await outside(`ALTER TYPE mood ADD VALUE 'calm'`);
    const reload = await b.query({ type: 'reload_metadata', args: {} });
    assert.equal(reload.status, 200, reload.text);
    assert.deepEqual((await insert('calm')).body, { data: { insert_diary_one: { mood: 'calm' } } });
  } finally {
    await b.stop();
  }
});
