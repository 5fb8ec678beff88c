/**
 * Root-field name clashes between tracked tables and functions are refused as Hasura v1.3 refuses
 * them (`following query root fields are duplicated`), and the metadata stays as it was.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
before(async () => {
  e = await startTestEngine({ adminSecret: 'adm' });
  await e.runSql(`CREATE TABLE art (id serial PRIMARY KEY, title text);
    CREATE TABLE color (value text PRIMARY KEY, comment text);
    INSERT INTO color VALUES ('red', 'Red');
    CREATE FUNCTION arts_for(lim int) RETURNS SETOF art AS $$ SELECT * FROM art LIMIT lim $$ LANGUAGE sql STABLE;
    CREATE FUNCTION art(lim int) RETURNS SETOF art AS $$ SELECT * FROM art LIMIT lim $$ LANGUAGE sql STABLE;`);
  const r = await e.query({ type: 'bulk', args: [
    { type: 'track_table', args: { schema: 'public', name: 'art' } },
    { type: 'track_function', args: { schema: 'public', name: 'arts_for' } },
  ] });
  assert.equal(r.status, 200, r.text);
});
after(() => e.stop());

const exported = async () => (await e.query({ type: 'export_metadata', args: {} })).body;

test('custom root fields that clash with another table\'s or a function\'s fields are refused', async () => {
  const md = await exported();
  const cases: Array<[unknown, string]> = [
    [{ type: 'track_table', version: 2, args: { table: 'color', configuration: { custom_root_fields: { select: 'art' } } } },
      'following query root fields are duplicated: "art"'],
    [{ type: 'set_table_custom_fields', version: 2, args: { table: 'art', custom_root_fields: { select: 'arts_for' } } },
      'following query root fields are duplicated: "arts_for"'],
    [{ type: 'set_table_custom_fields', version: 2, args: { table: 'art', custom_root_fields: { insert: 'delete_art' } } },
      'following mutation root fields are duplicated: "delete_art"'],
  ];
  for (const [body, error] of cases) {
    const r = await e.query(body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.deepEqual(r.body, { path: '$.args', code: 'unexpected', error });
  }
  assert.deepEqual(await exported(), md);
  // Without a clash the same operations succeed.
  assert.equal((await e.query({ type: 'track_table', version: 2, args: { table: 'color', configuration: { custom_root_fields: { select: 'colors' } } } })).status, 200);
  const q = await e.graphql('{ colors { value } art { id } }');
  assert.deepEqual(q.body, { data: { colors: [{ value: 'red' }], art: [] } });
});

test('track_function refuses a function named like a tracked table, and one already tracked', async () => {
  const r = await e.query({ type: 'track_function', args: { schema: 'public', name: 'art' } });
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { path: '$.args', code: 'not-supported', error: 'table with name "art" already exists' });
  const again = await e.query({ type: 'track_function', args: { schema: 'public', name: 'arts_for' } });
  assert.deepEqual(again.body, { path: '$.args', code: 'already-tracked', error: 'function already tracked : "arts_for"' });
});
