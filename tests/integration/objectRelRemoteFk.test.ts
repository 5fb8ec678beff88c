/**
 * Hasura v2's object relationship through a foreign key on the other table
 * (`foreign_key_constraint_on: {table, column}` on an object relationship: a one-to-one, the key on
 * the remote side pointing here): created through the API and through replace_metadata, answered as
 * an object (null when no row points here), permission-filtered, usable in where and order_by, kept
 * by export; a column that is not such a foreign key is refused with Hasura's message.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
before(async () => {
  e = await startTestEngine();
  await e.runSql(`CREATE TABLE person (id serial PRIMARY KEY, name text NOT NULL);
    CREATE TABLE passport (id serial PRIMARY KEY, person_id int UNIQUE REFERENCES person(id), number text NOT NULL, secret boolean NOT NULL DEFAULT false);
    INSERT INTO person (name) VALUES ('ann'), ('bob'), ('cy');
    INSERT INTO passport (person_id, number, secret) VALUES (1, 'P-1', false), (2, 'P-2', true);`);
  for (const q of [
    { type: 'track_table', args: { schema: 'public', name: 'person' } },
    { type: 'track_table', args: { schema: 'public', name: 'passport' } },
    { type: 'create_object_relationship', args: { table: 'person', name: 'passport', using: { foreign_key_constraint_on: { table: 'passport', column: 'person_id' } } } },
    { type: 'create_select_permission', args: { table: 'person', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
    { type: 'create_select_permission', args: { table: 'passport', role: 'user', permission: { columns: ['number'], filter: { secret: { _eq: false } } } } },
  ]) {
    const r = await e.query(q);
    assert.equal(r.status, 200, `${JSON.stringify(q)}: ${r.text}`);
  }
});
after(() => e?.stop());

test('answered as an object per row, null where no row points here; where and order_by through it', async () => {
  const r = await e.graphql('{ person(order_by: {id: asc}) { name passport { number } } }');
  assert.deepEqual(r.body, { data: { person: [{ name: 'ann', passport: { number: 'P-1' } }, { name: 'bob', passport: { number: 'P-2' } }, { name: 'cy', passport: null }] } });
  const filtered = await e.graphql('{ person(where: {passport: {number: {_eq: "P-2"}}}) { name } }');
  assert.deepEqual(filtered.body, { data: { person: [{ name: 'bob' }] } });
  const ordered = await e.graphql('{ person(order_by: {passport: {number: desc_nulls_last}}) { name } }');
  assert.deepEqual(ordered.body.data.person.map((p: { name: string }) => p.name), ['bob', 'ann', 'cy']);
});

test("the remote table's permission applies through it", async () => {
  const r = await e.graphql('{ person(order_by: {id: asc}) { name passport { number } } }', undefined, { 'x-svc-role': 'user' });
  assert.deepEqual(r.body, { data: { person: [{ name: 'ann', passport: { number: 'P-1' } }, { name: 'bob', passport: null }, { name: 'cy', passport: null }] } });
});

test('exported as given, restored by replace_metadata; a column without such a key is refused', async () => {
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  const person = md.tables.find((t: { table: { name: string } }) => t.table.name === 'person');
  assert.deepEqual(person.object_relationships, [{ name: 'passport', using: { foreign_key_constraint_on: { table: { schema: 'public', name: 'passport' }, column: 'person_id' } } }]);
  assert.equal((await e.query({ type: 'replace_metadata', args: md })).status, 200);
  assert.equal((await e.graphql('{ person(where: {id: {_eq: 1}}) { passport { number } } }')).body.data.person[0].passport.number, 'P-1');
  const bad = await e.query({ type: 'create_object_relationship', args: { table: 'person', name: 'bad', using: { foreign_key_constraint_on: { table: 'passport', column: 'number' } } } });
  assert.equal(bad.status, 400, bad.text);
  assert.equal(bad.body.code, 'constraint-error', bad.text);
  assert.match(bad.body.error, /no foreign constraint exists/);
});
