/**
 * `backend_only` insert / update / delete permissions over HTTP, as Hasura v2 has them: the
 * mutations are absent from the role's schema unless the request carries the admin secret AND
 * `x-svc-use-backend-only-permissions: true`; then they are there (next to the role's other
 * mutations) and run with the role's permission. A JWT request never gets them, whatever header it sends.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { signJwt, svcClaims } from '../support/jwt.js';
import { startTestEngine, type TestEngine } from './harness.js';

const KEY = 'an-hs256-key-of-at-least-32-characters!!';
let e: TestEngine;

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm', jwtSecret: { type: 'HS256', key: KEY } });
  await e.runSql(`
    CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL, owner int NOT NULL);
    CREATE TABLE note (id serial PRIMARY KEY, body text);
    INSERT INTO item VALUES (1, 'one', 1), (2, 'two', 2);`);
  const perm = (type: string, table: string, permission: unknown) => ({ type: `create_${type}_permission`, args: { table, role: 'user', permission } });
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'item' } },
      { type: 'track_table', args: { table: 'note' } },
      perm('select', 'item', { columns: ['id', 'name', 'owner'], filter: {} }),
      perm('insert', 'item', { check: { owner: { _eq: 'X-Svc-User-Id' } }, columns: ['id', 'name', 'owner'], backend_only: true }),
      perm('update', 'item', { columns: ['name'], filter: { owner: { _eq: 'X-Svc-User-Id' } }, backend_only: true }),
      perm('delete', 'item', { filter: { owner: { _eq: 'X-Svc-User-Id' } }, backend_only: true }),
      perm('insert', 'note', { check: {}, columns: ['body'] }),
    ],
  });
  assert.equal(r.status, 200, r.text);
});
after(() => e?.stop());

const MUTATIONS = ['insert_item', 'update_item', 'delete_item', 'insert_note'];

async function mutationFields(headers: Record<string, string>, withSecret = true): Promise<string[]> {
  const body = JSON.stringify({ query: '{ __schema { mutationType { fields { name } } } }' });
  const res = await fetch(`${e.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...(withSecret ? { 'x-svc-admin-secret': 'adm' } : {}), ...headers }, body });
  const json = (await res.json()) as { data: { __schema: { mutationType: { fields: Array<{ name: string }> } | null } } };
  return (json.data.__schema.mutationType?.fields ?? []).map((f) => f.name).filter((n) => MUTATIONS.includes(n)).sort();
}

test('backend_only mutations exist only for an admin-secret request asking for them', async () => {
  const user = { 'x-svc-role': 'user', 'x-svc-user-id': '1' };
  assert.deepEqual(await mutationFields(user), ['insert_note'], 'admin secret without the header: the frontend schema');
  assert.deepEqual(await mutationFields({ ...user, 'x-svc-use-backend-only-permissions': 'false' }), ['insert_note']);
  assert.deepEqual(await mutationFields({ ...user, 'x-svc-use-backend-only-permissions': 'TRUE' }), ['delete_item', 'insert_item', 'insert_note', 'update_item']);
  const token = signJwt(svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': '1' } }), { alg: 'HS256', key: KEY });
  assert.deepEqual(await mutationFields({ authorization: `Bearer ${token}`, 'x-svc-use-backend-only-permissions': 'true' }, false), ['insert_note'], 'a JWT request is never trusted');

  const frontend = await e.graphql('mutation { insert_item_one(object: {id: 3, name: "x", owner: 1}) { id } }', undefined, user);
  assert.deepEqual(frontend.body.errors[0].extensions.code, 'validation-failed');
  assert.equal(frontend.body.errors[0].message, 'field "insert_item_one" not found in type: \'mutation_root\'');
});

test('with the header the backend_only permissions apply: checks and filters of the role', async () => {
  const backend = { 'x-svc-role': 'user', 'x-svc-user-id': '1', 'x-svc-use-backend-only-permissions': 'true' };
  const ins = await e.graphql('mutation { insert_item_one(object: {id: 3, name: "three", owner: 1}) { id name } }', undefined, backend);
  assert.deepEqual(ins.body, { data: { insert_item_one: { id: 3, name: 'three' } } });
  const denied = await e.graphql('mutation { insert_item_one(object: {id: 4, name: "four", owner: 2}) { id } }', undefined, backend);
  assert.equal(denied.body.errors[0].extensions.code, 'permission-error');
  const upd = await e.graphql('mutation { update_item(where: {}, _set: {name: "renamed"}) { affected_rows } }', undefined, backend);
  assert.deepEqual(upd.body, { data: { update_item: { affected_rows: 2 } } }, 'only the rows of owner 1 (ids 1 and 3)');
  const del = await e.graphql('mutation { delete_item(where: {}) { affected_rows } }', undefined, backend);
  assert.deepEqual(del.body, { data: { delete_item: { affected_rows: 2 } } });
  const left = await e.graphql('{ item { id name } }', undefined, { 'x-svc-role': 'user' });
  assert.deepEqual(left.body, { data: { item: [{ id: 2, name: 'two' }] } });
  const note = await e.graphql('mutation { insert_note(objects: [{body: "b"}]) { affected_rows } }', undefined, backend);
  assert.deepEqual(note.body, { data: { insert_note: { affected_rows: 1 } } }, 'the role\'s other mutations stay in the backend schema');
});

test('a value that is not a boolean is 400 bad-request; the metadata keeps backend_only through export → replace', async () => {
  const r = await e.graphql('{ item { id } }', undefined, { 'x-svc-role': 'user', 'x-svc-use-backend-only-permissions': 'maybe' });
  assert.equal(r.body.errors[0].extensions.code, 'bad-request');
  assert.match(r.body.errors[0].message, /^x-svc-use-backend-only-permissions: {2}Not a valid boolean text/);

  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  const item = md.tables.find((t: { table: { name: string } }) => t.table.name === 'item');
  assert.deepEqual(
    ['insert', 'update', 'delete'].map((k) => item[`${k}_permissions`][0].permission.backend_only),
    [true, true, true],
  );
  assert.equal((await e.query({ type: 'replace_metadata', args: md })).status, 200);
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, md);
  const bad = await e.query({ type: 'create_delete_permission', args: { table: 'note', role: 'user', permission: { filter: {}, backend_only: 'yes' } } });
  assert.deepEqual([bad.status, bad.body.code], [400, 'parse-failed']);
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, md, 'the failed operation changed nothing');
});
