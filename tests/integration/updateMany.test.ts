/**
 * Hasura v2's `update_<table>_many(updates: [<table>_updates!]!)`: the updates run in order in one
 * transaction (each sees what the ones before it changed), the answer is the list of their
 * `<table>_mutation_response`s; a role's update permission (filter, check, columns, presets) applies
 * to each; one failing update rolls every one back; variables, an empty list, a custom root field
 * name, and the field's absence for a role without update permission.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
const user = (id: number) => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

before(async () => {
  e = await startTestEngine();
  await e.runSql(`CREATE TABLE item (id serial PRIMARY KEY, owner int NOT NULL, label text NOT NULL, qty int NOT NULL CHECK (qty >= 0), note text);
    INSERT INTO item (owner, label, qty) VALUES (1, 'a', 1), (1, 'b', 2), (2, 'c', 3), (1, 'd', 4);
    CREATE TABLE frozen (id int PRIMARY KEY);`);
  for (const q of [
    { type: 'track_table', args: { schema: 'public', name: 'item' } },
    { type: 'track_table', args: { schema: 'public', name: 'frozen' } },
    { type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: '*', filter: { owner: { _eq: 'X-Svc-User-Id' } } } } },
    { type: 'create_update_permission', args: { table: 'item', role: 'user', permission: { columns: ['label', 'qty'], filter: { owner: { _eq: 'X-Svc-User-Id' } }, check: { qty: { _lt: 100 } }, set: { note: 'by user' } } } },
    { type: 'create_select_permission', args: { table: 'frozen', role: 'user', permission: { columns: '*', filter: {} } } },
  ]) assert.equal((await e.query(q)).status, 200, JSON.stringify(q));
});
after(() => e?.stop());

const rows = async () => (await e.runSql('SELECT id, owner, label, qty, note FROM item ORDER BY id')).result.slice(1);

test('updates run in order, each seeing the previous ones; the answer lists each response', async () => {
  const r = await e.graphql(`mutation {
    update_item_many(updates: [
      { where: { id: { _eq: 1 } }, _inc: { qty: 10 } },
      { where: { qty: { _gt: 10 } }, _set: { label: "big" } },
      { where: { id: { _eq: 999 } }, _set: { label: "none" } }
    ]) { affected_rows returning { id label qty } }
  }`);
  assert.deepEqual(r.body, { data: { update_item_many: [
    { affected_rows: 1, returning: [{ id: 1, label: 'a', qty: 11 }] },
    { affected_rows: 1, returning: [{ id: 1, label: 'big', qty: 11 }] },
    { affected_rows: 0, returning: [] },
  ] } });
  const empty = await e.graphql('mutation { update_item_many(updates: []) { affected_rows } }');
  assert.deepEqual(empty.body, { data: { update_item_many: [] } });
});

test('a role\'s permission applies to every update; a failing one rolls all back', async () => {
  const before = await rows();
  const r = await e.graphql(`mutation ($u: [item_updates!]!) { update_item_many(updates: $u) { affected_rows returning { id qty note } } }`,
    { u: [{ where: {}, _inc: { qty: 1 } }, { where: { label: { _eq: 'c' } }, _set: { qty: 0 } }] }, user(1));
  assert.equal(r.body.errors, undefined, r.text);
  const [first, second] = r.body.data.update_item_many;
  assert.equal(first.affected_rows, 3, 'only the rows of user 1');
  assert.ok(first.returning.every((x: { note: string }) => x.note === 'by user'), 'the preset is applied');
  assert.deepEqual(second, { affected_rows: 0, returning: [] }, "user 1 cannot touch user 2's row");

  const mid = await rows();
  const bad = await e.graphql(`mutation { update_item_many(updates: [
    { where: { id: { _eq: 2 } }, _set: { label: "changed" } },
    { where: { id: { _eq: 4 } }, _set: { qty: 500 } }
  ]) { affected_rows } }`, undefined, user(1));
  assert.equal(bad.body.errors?.[0]?.extensions?.code, 'permission-error', bad.text);
  assert.deepEqual(await rows(), mid, 'the first update was rolled back with the second');
  const denied = await e.graphql('mutation { update_item_many(updates: [{ where: {}, _set: { owner: 2 } }]) { affected_rows } }', undefined, user(1));
  assert.equal(denied.body.errors?.[0]?.extensions?.code, 'validation-failed', 'owner is not an updatable column');
  assert.notDeepEqual(before, mid);
});

test('no update permission: no field; custom root field name for update_many', async () => {
  const r = await e.graphql('mutation { update_frozen_many(updates: []) { affected_rows } }', undefined, user(1));
  assert.equal(r.body.errors?.[0]?.extensions?.code, 'validation-failed');
  const set = await e.query({ type: 'set_table_custom_fields', args: { table: 'item', custom_root_fields: { update_many: 'bulkUpdateItems' }, custom_column_names: {} } });
  assert.equal(set.status, 200, set.text);
  const renamed = await e.graphql('mutation { bulkUpdateItems(updates: [{ where: { id: { _eq: 3 } }, _inc: { qty: 1 } }]) { affected_rows } }');
  assert.deepEqual(renamed.body, { data: { bulkUpdateItems: [{ affected_rows: 1 }] } });
});
