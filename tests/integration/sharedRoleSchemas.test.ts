/**
 * Role schemas shared between roles and kept across metadata changes, end to end: two roles with the
 * same columns and different row filters (one built schema) each get their own rows, limits and
 * mutation checks; after a change to one role's permission (a new schema cache) the other roles'
 * answers, and the changed role's, follow the new metadata; a filter-only change applies at once.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
const perm = (type: string, table: string, role: string, permission: unknown) => ({ type: `create_${type}_permission`, args: { table, role, permission } });
const as = (role: string, id = '1') => ({ 'x-svc-role': role, 'x-svc-user-id': id });

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm' });
  await e.runSql(`
    CREATE TABLE notes (id int PRIMARY KEY, owner int NOT NULL, body text NOT NULL);
    INSERT INTO notes VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 1, 'c');
  `);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'notes' } },
      perm('select', 'notes', 'mine', { columns: ['id', 'owner', 'body'], filter: { owner: { _eq: 'X-Svc-User-Id' } } }),
      perm('select', 'notes', 'all', { columns: ['id', 'owner', 'body'], filter: {}, limit: 2 }),
      perm('insert', 'notes', 'mine', { columns: ['id', 'owner', 'body'], check: { owner: { _eq: 'X-Svc-User-Id' } } }),
      perm('insert', 'notes', 'all', { columns: ['id', 'owner', 'body'], check: {} }),
    ],
  });
  assert.equal(r.status, 200, r.text);
});
after(() => e?.stop());

const ids = async (role: string, id = '1') => {
  const r = await e.graphql('{ notes(order_by: {id: asc}) { id } }', undefined, as(role, id));
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body as { data: { notes: Array<{ id: number }> } }).data.notes.map((n) => n.id);
};

test('roles with one schema keep their own filters, limits and checks', async () => {
  assert.deepEqual(await ids('mine'), [1, 3]);
  assert.deepEqual(await ids('all'), [1, 2]);
  assert.deepEqual(await ids('mine', '2'), [2]);
  const insert = (role: string, id: number, owner: number) =>
    e.graphql(`mutation { insert_notes_one(object: {id: ${id}, owner: ${owner}, body: "x"}) { id } }`, undefined, as(role));
  const refused = await insert('mine', 10, 2);
  assert.match(JSON.stringify(refused.body), /Check constraint violation/);
  const accepted = await insert('all', 10, 2);
  assert.deepEqual(accepted.body, { data: { insert_notes_one: { id: 10 } } });
  await e.runSql('DELETE FROM notes WHERE id = 10');
});

test('after a change to one role\'s permission every role answers by the new metadata', async () => {
  assert.deepEqual(await ids('mine'), [1, 3]);
  // a filter-only change of `mine` (the shape of its schema unchanged)
  let r = await e.query({ type: 'drop_select_permission', args: { table: 'notes', role: 'mine' } });
  assert.equal(r.status, 200, r.text);
  r = await e.query(perm('select', 'notes', 'mine', { columns: ['id', 'owner', 'body'], filter: { id: { _gt: 1 } } }));
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(await ids('mine'), [2, 3]);
  assert.deepEqual(await ids('all'), [1, 2]);
  // a change of `all`'s columns: its schema changes, `mine` keeps its rows
  r = await e.query({ type: 'drop_select_permission', args: { table: 'notes', role: 'all' } });
  assert.equal(r.status, 200, r.text);
  r = await e.query(perm('select', 'notes', 'all', { columns: ['id'], filter: {} }));
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(await ids('all'), [1, 2, 3]);
  const body = await e.graphql('{ notes { body } }', undefined, as('all'));
  assert.match(JSON.stringify(body.body), /field .{1,3}body.{1,3} not found in type/);
  assert.deepEqual(await ids('mine'), [2, 3]);
});

test('introspection answers follow the role schema: the same answer again, a new one after the role\'s columns change', async () => {
  const q = '{ __type(name: "notes") { fields { name } } }';
  const fields = async (role: string) => {
    const r = await e.graphql(q, undefined, as(role));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return (r.body as { data: { __type: { fields: Array<{ name: string }> } } }).data.__type.fields.map((f) => f.name).sort();
  };
  assert.deepEqual(await fields('mine'), ['body', 'id', 'owner']);
  assert.deepEqual(await fields('mine'), ['body', 'id', 'owner']);
  let r = await e.query({ type: 'drop_select_permission', args: { table: 'notes', role: 'mine' } });
  assert.equal(r.status, 200, r.text);
  r = await e.query(perm('select', 'notes', 'mine', { columns: ['id', 'body'], filter: {} }));
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(await fields('mine'), ['body', 'id']);
  const aliased = await e.graphql('{ t: __type(name: "notes") { name } }', undefined, as('mine'));
  assert.deepEqual(aliased.body, { data: { t: { name: 'notes' } } });
});

test('reload_metadata reads the stored document again, even one edited in the catalog without a new resource_version', async () => {
  // metadata operations start from the live cache's metadata while resource_version is unchanged;
  // reload_metadata must not
  await e.runSql(`UPDATE hdb_catalog.hdb_metadata SET metadata = jsonb_set(metadata::jsonb, '{tables,0,select_permissions}', '[]')::json`);
  assert.deepEqual(await ids('all'), [1, 2, 3]);
  const r = await e.query({ type: 'reload_metadata', args: {} });
  assert.equal(r.status, 200, r.text);
  const gone = await e.graphql('{ notes { id } }', undefined, as('all'));
  assert.match(JSON.stringify(gone.body), /field .{1,3}notes.{1,3} not found in type/);
});
