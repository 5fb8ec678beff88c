/**
 * Inherited roles end to end over HTTP on a real database: `add_inherited_role` /
 * `drop_inherited_role`, the combined select permission (rows of any member, a column only where
 * a member that grants it allows the row — null elsewhere, also in where / order_by / aggregates),
 * limit = the largest, aggregations if any member allows them, mutations only when the members
 * agree, a JWT whose allowed roles list several roles (the inherited one as default), Hasura's
 * errors with nothing half-applied, and the export → replace → export round trip.
 */
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { signJwt, svcClaims } from '../support/jwt.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { startRemoteGraphqlServer } from '../support/remoteGraphqlServer.js';

const KEY = 'an-hs256-key-of-at-least-32-characters!!';
let e: TestEngine;

const SQL = `
CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL, email text NOT NULL);
CREATE TABLE authors (id int PRIMARY KEY, name text NOT NULL, followers int NOT NULL);
INSERT INTO users VALUES (1, 'Alice', 'alice@x.io'), (2, 'Bob', 'bob@x.io'), (3, 'Sam', 'sam@x.io');
INSERT INTO authors VALUES (1, 'Paulo', 10382193);
`;

const perm = (type: string, table: string, role: string, permission: unknown) => ({ type: `create_${type}_permission`, args: { table, role, permission } });

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm', jwtSecret: { type: 'HS256', key: KEY } });
  await e.runSql(SQL);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'users' } },
      { type: 'track_table', args: { table: 'authors' } },
      perm('select', 'users', 'user', { columns: ['id', 'name', 'email'], filter: { id: { _eq: 'X-Svc-User-Id' } }, limit: 1 }),
      perm('select', 'users', 'anonymous', { columns: ['id', 'name'], filter: {}, limit: 2, allow_aggregations: true }),
      perm('select', 'authors', 'author', { columns: ['id', 'name', 'followers'], filter: {} }),
      perm('insert', 'authors', 'author', { check: {}, columns: ['id', 'name', 'followers'] }),
      perm('insert', 'authors', 'editor', { check: { followers: { _gt: 0 } }, columns: ['id', 'name', 'followers'] }),
      perm('select', 'authors', 'editor', { columns: ['id', 'name'], filter: {} }),
    ],
  });
  assert.equal(r.status, 200, r.text);
});
after(() => e?.stop());

const asRole = (role: string, vars: Record<string, string> = {}) => ({ 'x-svc-role': role, ...vars });
const exportMd = async () => (await e.query({ type: 'export_metadata', args: {} })).body;

test('add_inherited_role: rows of every member, a column only where a member granting it allows the row', async () => {
  const r = await e.query({ type: 'add_inherited_role', args: { role_name: 'user_anon', role_set: ['user', 'anonymous'] } });
  assert.deepEqual([r.status, r.body], [200, { message: 'success' }]);

  const q = '{ users(order_by: {id: asc}) { id name email } }';
  const mine = await e.graphql(q, undefined, asRole('user', { 'x-svc-user-id': '1' }));
  assert.deepEqual(mine.body, { data: { users: [{ id: 1, name: 'Alice', email: 'alice@x.io' }] } });
  const both = await e.graphql('{ users(order_by: {id: asc}, limit: 10) { id name email } }', undefined, asRole('user_anon', { 'x-svc-user-id': '1' }));
  // limit = the larger of the members' limits (2): Alice's row shows her email, Bob's row does not.
  assert.deepEqual(both.body, { data: { users: [{ id: 1, name: 'Alice', email: 'alice@x.io' }, { id: 2, name: 'Bob', email: null }] } });

  // The anonymous role alone cannot ask for the email at all.
  const anon = await e.graphql(q, undefined, asRole('anonymous'));
  assert.equal(anon.body.errors[0].extensions.code, 'validation-failed');
});

test('a partly visible column is null in where, order_by and aggregates too, and nullable in the schema', async () => {
  const h = asRole('user_anon', { 'x-svc-user-id': '1' });
  const hidden = await e.graphql('{ users(where: {email: {_eq: "bob@x.io"}}) { id } }', undefined, h);
  assert.deepEqual(hidden.body, { data: { users: [] } }, 'Bob\'s hidden email cannot be probed through where');
  const shown = await e.graphql('{ users(where: {email: {_like: "%@x.io"}}) { id } }', undefined, h);
  assert.deepEqual(shown.body, { data: { users: [{ id: 1 }] } });
  const nulls = await e.graphql('{ users(where: {email: {_is_null: true}}, order_by: {id: desc}) { id } }', undefined, h);
  assert.deepEqual(nulls.body, { data: { users: [{ id: 3 }, { id: 2 }] } }, 'the emails of other users read as null');
  const ordered = await e.graphql('{ users(order_by: [{email: desc_nulls_last}, {id: desc}]) { id } }', undefined, h);
  assert.deepEqual(ordered.body, { data: { users: [{ id: 1 }, { id: 3 }] } }, 'hidden emails sort as nulls');
  const agg = await e.graphql('{ users_aggregate { aggregate { count all: count(columns: email) max { email } } } }', undefined, h);
  assert.deepEqual(agg.body, { data: { users_aggregate: { aggregate: { count: 3, all: 1, max: { email: 'alice@x.io' } } } } }, 'aggregations allowed because anonymous allows them; hidden emails are not counted');
  const distinct = await e.graphql('{ users(distinct_on: email, order_by: {email: asc}) { id email } }', undefined, h);
  assert.equal(distinct.body.data.users.length, 2, 'distinct on the visible values (one email, one null) within the limit');

  const typeOf = async (role: string) => {
    const r = await e.graphql('{ __type(name: "users") { fields { name type { kind } } } }', undefined, asRole(role, { 'x-svc-user-id': '1' }));
    return Object.fromEntries(r.body.data.__type.fields.map((f: { name: string; type: { kind: string } }) => [f.name, f.type.kind]));
  };
  assert.deepEqual(await typeOf('user'), { id: 'NON_NULL', name: 'NON_NULL', email: 'NON_NULL' });
  assert.deepEqual(await typeOf('user_anon'), { id: 'NON_NULL', name: 'NON_NULL', email: 'SCALAR' });
});

test('a JWT listing several roles: the inherited one as default, the others by x-svc-role; tables of different members in one query', async () => {
  assert.equal((await e.query({ type: 'add_inherited_role', args: { role_name: 'user_author', role_set: ['user', 'author'] } })).status, 200);
  const token = signJwt(svcClaims({ allowed: ['user', 'author', 'user_author'], default: 'user_author', vars: { 'x-svc-user-id': '2' } }), { alg: 'HS256', key: KEY });
  const hdr = { authorization: `Bearer ${token}` };
  const plain = await fetch(`${e.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...hdr }, body: JSON.stringify({ query: '{ users { id email } authors { name followers } }' }) });
  assert.deepEqual(await plain.json(), { data: { users: [{ id: 2, email: 'bob@x.io' }], authors: [{ name: 'Paulo', followers: 10382193 }] } });
  const asAuthor = await fetch(`${e.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...hdr, 'x-svc-role': 'author' }, body: JSON.stringify({ query: '{ users { id } }' }) });
  assert.match(JSON.stringify(await asAuthor.json()), /field \\"users\\" not found in type: 'query_root'/);
  const notAllowed = await fetch(`${e.url}/v1/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...hdr, 'x-svc-role': 'user_anon' }, body: JSON.stringify({ query: '{ users { id } }' }) });
  assert.equal((await notAllowed.json()).errors[0].extensions.code, 'access-denied');
});

test('mutations: inherited when the members agree, a conflict is refused and changes nothing', async () => {
  const beforeMd = await exportMd();
  const conflict = await e.query({ type: 'add_inherited_role', args: { role_name: 'staff', role_set: ['author', 'editor'] } });
  assert.equal(conflict.status, 400);
  assert.equal(conflict.body.code, 'constraint-violation');
  assert.equal(conflict.body.error, 'Could not inherit permission for the role "staff" for the entity: "insert permission, table: authors"');
  assert.deepEqual(await exportMd(), beforeMd, 'nothing stored');

  // An explicit insert permission of the inherited role settles the conflict (it overrides).
  const settled = await e.query({
    type: 'bulk',
    args: [
      perm('insert', 'authors', 'staff', { check: { followers: { _gte: 0 } }, columns: ['id', 'name', 'followers'] }),
      { type: 'add_inherited_role', args: { role_name: 'staff', role_set: ['author', 'editor'] } },
    ],
  });
  assert.equal(settled.status, 200, settled.text);
  const ins = await e.graphql('mutation { insert_authors_one(object: {id: 2, name: "Nadia", followers: 0}) { id name followers } }', undefined, asRole('staff'));
  assert.deepEqual(ins.body, { data: { insert_authors_one: { id: 2, name: 'Nadia', followers: 0 } } }, 'select: author grants followers on every row');
  const bad = await e.graphql('mutation { insert_authors_one(object: {id: 3, name: "Neg", followers: -1}) { id } }', undefined, asRole('staff'));
  assert.equal(bad.body.errors[0].extensions.code, 'permission-error');

  // The same insert permission in every member is inherited.
  assert.equal((await e.query(perm('insert', 'users', 'user', { check: {}, columns: ['id', 'name', 'email'] }))).status, 200);
  assert.equal((await e.query(perm('insert', 'users', 'anonymous', { check: {}, columns: ['id', 'name', 'email'] }))).status, 200);
  const inherited = await e.graphql('mutation { insert_users(objects: [{id: 9, name: "Zed", email: "z@x.io"}]) { affected_rows } }', undefined, asRole('user_anon', { 'x-svc-user-id': '1' }));
  assert.deepEqual(inherited.body, { data: { insert_users: { affected_rows: 1 } } });
});

test('actions: an inherited role may call an action any member may call', async () => {
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'set_custom_types', args: { objects: [{ name: 'Pong', fields: [{ name: 'ok', type: 'Boolean' }] }] } },
      { type: 'create_action', args: { name: 'ping', definition: { arguments: [], output_type: 'Pong', handler: 'http://127.0.0.1:9/ping' } } },
      { type: 'create_action_permission', args: { action: 'ping', role: 'anonymous' } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  const fields = async (role: string) => {
    const res = await e.graphql('{ __schema { mutationType { fields { name } } } }', undefined, asRole(role, { 'x-svc-user-id': '1' }));
    return (res.body.data.__schema.mutationType?.fields ?? []).map((f: { name: string }) => f.name);
  };
  assert.ok((await fields('anonymous')).includes('ping'));
  assert.ok((await fields('user_anon')).includes('ping'), 'through anonymous');
  assert.ok(!(await fields('user')).includes('ping'));
  assert.ok(!(await fields('user_author')).includes('ping'), 'no member may call it');
});

test('functions follow the combined select permission; remote schemas are every role\'s without remote schema permissions; those need the switch', async (t) => {
  const remote = await startRemoteGraphqlServer('type Query { motd: String }', { motd: () => 'hello' });
  t.after(() => remote.stop());
  await e.runSql(`CREATE FUNCTION search_users(q text) RETURNS SETOF users LANGUAGE sql STABLE AS $$ SELECT * FROM users WHERE name ILIKE q $$;`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_function', args: { name: 'search_users' } },
      { type: 'add_inherited_role', args: { role_name: 'fn_member', role_set: ['user', 'anonymous'] } },
      { type: 'add_remote_schema', args: { name: 'notes', definition: { url: remote.url } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  // The function's rows are the combined permission's: any member's rows (limit 2, the larger), the email only where `user` allows it.
  const q = '{ search_users(args: {q: "%"}, order_by: {id: asc}) { id name email } }';
  assert.deepEqual((await e.graphql(q, undefined, asRole('fn_member', { 'x-svc-user-id': '1' }))).body,
    { data: { search_users: [{ id: 1, name: 'Alice', email: 'alice@x.io' }, { id: 2, name: 'Bob', email: null }] } });
  assert.deepEqual((await e.graphql('{ search_users(args: {q: "%"}, order_by: {id: asc}) { id } }', undefined, asRole('fn_member', { 'x-svc-user-id': '3' }))).body,
    { data: { search_users: [{ id: 1 }, { id: 2 }] } });
  // A role set none of whose members may select the table gets no function.
  const none = await e.graphql('{ search_users(args: {q: "%"}) { id } }', undefined, asRole('author'));
  assert.equal(none.body.errors[0].extensions.code, 'validation-failed');
  // Remote schemas: every role (an inherited one too) may query them, as Hasura without remote schema permissions.
  assert.deepEqual((await e.graphql('{ motd }', undefined, asRole('fn_member', { 'x-svc-user-id': '1' }))).body, { data: { motd: 'hello' } });

  // Function permissions are served (functionPermissions.test.ts); remote schema permissions need
  // --enable-remote-schema-permissions (tests/integration/remoteSchemaPermissions.test.ts).
  const md = await exportMd();
  const rsp = await e.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'notes', role: 'user', definition: { schema: 'type Query { motd: String }' } } });
  assert.deepEqual([rsp.status, rsp.body.code], [400, 'constraint-violation'], rsp.text);
  assert.deepEqual(await exportMd(), md);
  const cleanup = await e.query({ type: 'bulk', args: [
    { type: 'remove_remote_schema', args: { name: 'notes' } },
    { type: 'untrack_function', args: { name: 'search_users' } },
    { type: 'drop_inherited_role', args: { role_name: 'fn_member' } },
  ] });
  assert.equal(cleanup.status, 200, cleanup.text);
});

test('a member that is itself an inherited role keeps its column conditions (stricter than Hasura, which would show them on all its rows)', async () => {
  const r = await e.query({ type: 'bulk', args: [
    perm('select', 'users', 'auditor', { columns: ['id', 'name', 'email'], filter: { id: { _eq: 3 } } }),
    { type: 'add_inherited_role', args: { role_name: 'outer', role_set: ['user_anon', 'auditor'] } },
  ] });
  assert.equal(r.status, 200, r.text);
  // Bob's row comes from `anonymous` (through user_anon), which does not grant email: null, as for user_anon itself.
  const rows = await e.graphql('{ users(where: {id: {_in: [2, 3]}}, order_by: {id: desc}) { id email } }', undefined, asRole('outer', { 'x-svc-user-id': '1' }));
  assert.deepEqual(rows.body, { data: { users: [{ id: 3, email: 'sam@x.io' }, { id: 2, email: null }] } });
  const probe = await e.graphql('{ users(where: {email: {_like: "bob%"}}) { id } }', undefined, asRole('outer', { 'x-svc-user-id': '1' }));
  assert.deepEqual(probe.body, { data: { users: [] } });
  const cleanup = await e.query({ type: 'bulk', args: [
    { type: 'drop_inherited_role', args: { role_name: 'outer' } },
    { type: 'drop_select_permission', args: { table: 'users', role: 'auditor' } },
  ] });
  assert.equal(cleanup.status, 200, cleanup.text);
});

test('Hasura\'s errors, and nothing half-applied', async () => {
  const beforeMd = await exportMd();
  const self = await e.query({ type: 'add_inherited_role', args: { role_name: 'loop', role_set: ['user', 'loop'] } });
  assert.deepEqual([self.status, self.body.code, self.body.error], [400, 'invalid-params', 'an inherited role name cannot be in the role combination']);
  const unknown = await e.query({ type: 'add_inherited_role', args: { role_name: 'ghosts', role_set: ['user', 'ghost'] } });
  assert.equal(unknown.status, 400);
  assert.equal(unknown.body.error, 'the following parent role(s) are not found: ghost which are required to construct the inherited role: "ghosts"');
  const cycle = await e.query({
    type: 'bulk',
    args: [
      { type: 'add_inherited_role', args: { role_name: 'r1', role_set: ['user'] } },
      { type: 'add_inherited_role', args: { role_name: 'r2', role_set: ['r1'] } },
      { type: 'add_inherited_role', args: { role_name: 'r1', role_set: ['r2'] } },
    ],
  });
  assert.deepEqual([cycle.status, cycle.body.code, cycle.body.error], [400, 'cyclic-dependency', 'found cycle(s) in roles: ["r2","r1","r2"]']);
  const missing = await e.query({ type: 'drop_inherited_role', args: { role_name: 'nope' } });
  assert.deepEqual([missing.status, missing.body.code, missing.body.error], [400, 'not-exists', '"nope" inherited role doesn\'t exist']);
  const badArgs = await e.query({ type: 'add_inherited_role', args: { role_name: 'x', role_set: 'user' } });
  assert.deepEqual([badArgs.status, badArgs.body.code, badArgs.body.path], [400, 'parse-failed', '$.role_set']);
  // The only permission of a role an inherited role needs cannot go: the inherited role would break.
  const needed = await e.query({ type: 'drop_select_permission', args: { table: 'authors', role: 'author' } });
  assert.equal(needed.status, 200, 'author keeps its insert permission, so the role still exists');
  const beforeDrop = await exportMd();
  const lastPerm = await e.query({ type: 'drop_insert_permission', args: { table: 'authors', role: 'author' } });
  assert.deepEqual([lastPerm.status, lastPerm.body.error], [400, 'cannot continue due to new inconsistent metadata']);
  assert.deepEqual(await exportMd(), beforeDrop);
  assert.equal((await e.query(perm('select', 'authors', 'author', { columns: ['id', 'name', 'followers'], filter: {} }))).status, 200);
  const after = await exportMd();
  assert.deepEqual(after.inherited_roles, beforeMd.inherited_roles, 'no failed step left an inherited role behind');
});

test('export → replace → export round trip, v3 on /v1/metadata, and drop_inherited_role', async () => {
  const md = await exportMd();
  assert.deepEqual(md.inherited_roles, [
    { role_name: 'user_anon', role_set: ['user', 'anonymous'] },
    { role_name: 'user_author', role_set: ['user', 'author'] },
    { role_name: 'staff', role_set: ['author', 'editor'] },
  ]);
  assert.equal((await e.query({ type: 'replace_metadata', args: md })).status, 200);
  assert.deepEqual(await exportMd(), md);
  const v3 = await e.request('POST', '/v1/metadata', { type: 'export_metadata', version: 2, args: {} });
  assert.deepEqual(v3.body.metadata?.inherited_roles ?? v3.body.inherited_roles, md.inherited_roles);
  const replaced = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: v3.body.metadata ?? v3.body });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual(await exportMd(), md);

  const dup = await e.query({ type: 'replace_metadata', args: { ...md, inherited_roles: [...md.inherited_roles, md.inherited_roles[0]] } });
  assert.deepEqual([dup.status, dup.body.error], [400, 'multiple declarations exist for the following inherited roles: user_anon']);

  assert.equal((await e.query({ type: 'drop_inherited_role', args: { role_name: 'user_anon' } })).status, 200);
  const gone = await e.graphql('{ users { id } }', undefined, asRole('user_anon', { 'x-svc-user-id': '1' }));
  assert.match(gone.body.errors[0].message, /not found in type: 'query_root'/);
  assert.deepEqual((await exportMd()).inherited_roles.map((r: { role_name: string }) => r.role_name), ['user_author', 'staff']);
});
