/**
 * Remote schema permissions (`--enable-remote-schema-permissions`) against a real GraphQL server:
 * add/drop_remote_schema_permissions and their validation against the remote's introspection, a
 * role's subset of the remote, `@preset` arguments and input fields (static and from the session)
 * hidden from the role and sent to the remote, roles without a permission, inherited roles (union),
 * remote relationships, `@cached` answers per role, export/replace_metadata round trip.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/index.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { startRemoteGraphqlServer, type RemoteGraphqlServer } from '../support/remoteGraphqlServer.js';

const SDL = `
  type Query {
    hello(name: String): String
    user(id: Int!): User
    notes(owner: Int!, limit: Int, filter: NoteFilter): [Note]
    secret: String
  }
  type Mutation { addNote(owner: Int!, text: String!): Note }
  type User { id: Int! name: String email: String }
  type Note { id: Int! owner: Int! text: String }
  input NoteFilter { text: String, tenant: String }
`;

const NOTES = [{ id: 1, owner: 1, text: 'a' }, { id: 2, owner: 2, text: 'b' }, { id: 3, owner: 1, text: 'c' }];
const ROOT = {
  hello: ({ name }: { name?: string }) => `Hello ${name ?? 'world'}`,
  user: ({ id }: { id: number }) => ({ id, name: `u${id}`, email: `u${id}@x` }),
  notes: ({ owner, limit, filter }: { owner: number; limit?: number; filter?: { text?: string; tenant?: string } }) =>
    NOTES.filter((n) => n.owner === owner && (!filter?.text || n.text === filter.text)).slice(0, limit ?? 100)
      .map((n) => ({ ...n, text: filter?.tenant ? `${n.text}@${filter.tenant}` : n.text })),
  secret: () => 'top',
  addNote: ({ owner, text }: { owner: number; text: string }) => ({ id: 99, owner, text }),
};

const USER_SDL = `
  type Query {
    hello(name: String): String
    notes(owner: Int! @preset(value: "x-svc-user-id"), limit: Int, filter: NoteFilter): [Note]
  }
  type Note { id: Int! text: String }
  input NoteFilter { text: String tenant: String @preset(value: "acme") }
  schema { query: Query }
`;
const GUEST_SDL = `
  type Query { user(id: Int!): User }
  type User { id: Int! name: String }
`;

let remote: RemoteGraphqlServer;
let e: TestEngine;
const ok = (r: { status: number; text: string }) => assert.equal(r.status, 200, r.text);
const as = (role: string, vars: Record<string, string> = {}) => ({ 'x-svc-admin-secret': 'sec', 'x-svc-role': role, ...vars });
const exported = async () => (await e.query({ type: 'export_metadata', args: {} })).body;

before(async () => {
  remote = await startRemoteGraphqlServer(SDL, ROOT);
  e = await startTestEngine({ adminSecret: 'sec', enableRemoteSchemaPermissions: true });
  await e.runSql(`CREATE TABLE account (id int PRIMARY KEY, uid int); INSERT INTO account VALUES (1, 1), (2, 2);`);
  ok(await e.query({ type: 'bulk', args: [
    { type: 'track_table', args: { name: 'account' } },
    { type: 'add_remote_schema', args: { name: 'rs', definition: { url: remote.url } } },
    { type: 'create_select_permission', args: { table: 'account', role: 'user', permission: { columns: ['id', 'uid'], filter: {} } } },
    { type: 'create_select_permission', args: { table: 'account', role: 'nobody', permission: { columns: ['id', 'uid'], filter: {} } } },
    { type: 'create_remote_relationship', args: { table: 'account', name: 'owner', hasura_fields: ['uid'], remote_schema: 'rs', remote_field: { user: { arguments: { id: '$uid' } } } } },
  ] }));
  ok(await e.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'rs', role: 'user', definition: { schema: USER_SDL }, comment: 'c' } }));
  ok(await e.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'rs', role: 'guest', definition: { schema: GUEST_SDL } } }));
  ok(await e.query({ type: 'add_inherited_role', args: { role_name: 'both', role_set: ['user', 'guest'] } }));
});

after(async () => {
  await e?.stop();
  await remote?.stop();
});

test('a role sees its subset of the remote; preset arguments are hidden and taken from the session', async () => {
  remote.requests.length = 0;
  const r = await e.graphql('{ hello(name: "x") notes(limit: 5) { id text } }', undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.deepEqual(r.body, { data: { hello: 'Hello x', notes: [{ id: 1, text: 'a' }, { id: 3, text: 'c' }] } });
  const sent = remote.queries().at(-1)!.body;
  assert.match(sent.query, /owner: \$__svc_preset_0/);
  assert.equal(sent.variables?.__svc_preset_0, 1);
  // Another user, another answer.
  const two = await e.graphql('{ notes { id } }', undefined, as('user', { 'x-svc-user-id': '2' }));
  assert.deepEqual(two.body, { data: { notes: [{ id: 2 }] } });
  // Hidden: the preset argument, fields and root fields outside the role's schema.
  for (const q of ['{ notes(owner: 2) { id } }', '{ secret }', '{ notes { owner } }', '{ user(id: 1) { id } }']) {
    const bad = await e.graphql(q, undefined, as('user', { 'x-svc-user-id': '1' }));
    assert.equal(bad.body.errors?.[0]?.extensions?.code, 'validation-failed', `${q}: ${JSON.stringify(bad.body)}`);
  }
  // No mutation root for the role (its schema has none).
  const m = await e.graphql('mutation { addNote(owner: 1, text: "x") { id } }', undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.ok(m.body.errors, JSON.stringify(m.body));
  // A missing session variable is an error, never a call with a wrong value.
  const missing = await e.graphql('{ notes { id } }', undefined, as('user'));
  assert.match(JSON.stringify(missing.body.errors), /x-svc-user-id/);
});

test('preset input fields: in literals and in variables', async () => {
  const lit = await e.graphql('{ notes(filter: {text: "a"}) { text } }', undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.deepEqual(lit.body, { data: { notes: [{ text: 'a@acme' }] } });
  const viaVar = await e.graphql('query($f: NoteFilter) { notes(filter: $f) { text } }', { f: { text: 'c' } }, as('user', { 'x-svc-user-id': '1' }));
  assert.deepEqual(viaVar.body, { data: { notes: [{ text: 'c@acme' }] } });
  const hidden = await e.graphql('{ notes(filter: {tenant: "evil"}) { text } }', undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.equal(hidden.body.errors?.[0]?.extensions?.code, 'validation-failed', JSON.stringify(hidden.body));
});

test('a role without a permission does not see the remote; admin sees all of it', async () => {
  const r = await e.graphql('{ hello }', undefined, as('nobody'));
  assert.equal(r.body.errors?.[0]?.extensions?.code, 'validation-failed', JSON.stringify(r.body));
  const admin = await e.graphql('{ secret notes(owner: 2) { owner } }');
  assert.deepEqual(admin.body, { data: { secret: 'top', notes: [{ owner: 2 }] } });
});

test('remote relationships follow the role\'s remote permissions', async () => {
  // `user` has no `user` field in its remote schema: the relationship is not in its schema.
  const r = await e.graphql('{ account { id owner { id } } }', undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.equal(r.body.errors?.[0]?.extensions?.code, 'validation-failed', JSON.stringify(r.body));
  ok(await e.query({ type: 'create_select_permission', args: { table: 'account', role: 'guest', permission: { columns: ['id', 'uid'], filter: {} } } }));
  const g = await e.graphql('{ account(order_by: {id: asc}) { id owner { id name } } }', undefined, as('guest'));
  assert.deepEqual(g.body, { data: { account: [{ id: 1, owner: { id: 1, name: 'u1' } }, { id: 2, owner: { id: 2, name: 'u2' } }] } });
  const email = await e.graphql('{ account { owner { email } } }', undefined, as('guest'));
  assert.equal(email.body.errors?.[0]?.extensions?.code, 'validation-failed', JSON.stringify(email.body));
});

test('an inherited role gets the union of its parents\' remote schemas', async () => {
  const r = await e.graphql('{ hello user(id: 3) { name } notes { id } }', undefined, as('both', { 'x-svc-user-id': '2' }));
  assert.deepEqual(r.body, { data: { hello: 'Hello world', user: { name: 'u3' }, notes: [{ id: 2 }] } });
  const hidden = await e.graphql('{ secret }', undefined, as('both', { 'x-svc-user-id': '2' }));
  assert.equal(hidden.body.errors?.[0]?.extensions?.code, 'validation-failed');
});

test('@cached answers of remote fields are kept per role and session', async () => {
  const q = 'query @cached { notes { id } }';
  const one = await e.graphql(q, undefined, as('user', { 'x-svc-user-id': '1' }));
  const two = await e.graphql(q, undefined, as('user', { 'x-svc-user-id': '2' }));
  const again = await e.graphql(q, undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.deepEqual([one.body, two.body, again.body], [
    { data: { notes: [{ id: 1 }, { id: 3 }] } }, { data: { notes: [{ id: 2 }] } }, { data: { notes: [{ id: 1 }, { id: 3 }] } },
  ]);
  const nobody = await e.graphql(q, undefined, as('nobody', { 'x-svc-user-id': '1' }));
  assert.equal(nobody.body.errors?.[0]?.extensions?.code, 'validation-failed');
});

test('validation of a permission against the remote: Hasura\'s errors, nothing changed', async () => {
  const before = await exported();
  const cases: Array<[string, RegExp]> = [
    ['type Query { nope: String }', /^validation for the given role-based schema failed because field "nope" of "Query" does not exist in the upstream remote schema$/],
    ['type Query { user(id: Int!): User } type User { id: String }', /the type of field "id" of "User" is "Int!" in the upstream remote schema, not "String"/],
    ['type Query { hello: String } type Ghost { a: Int }', /object "Ghost" does not exist in the upstream remote schema/],
    ['type Query { hello(name: String @preset(value: 3)): String }', /expected preset value 3/],
    ['type Query { hello: String @preset(value: "x") }', /Preset directives can be defined only on INPUT_FIELD_DEFINITION or ARGUMENT_DEFINITION/],
    ['type Query { notes(limit: Int): [Note] } type Note { id: Int! }', /non-nullable argument "owner"/],
    ['type Query { user(id: Int!): User }', /type "User" of field "user" of "Query" is not defined in the role-based schema/],
  ];
  for (const [schema, message] of cases) {
    const r = await e.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'rs', role: 'r2', definition: { schema } } });
    assert.deepEqual([r.status, r.body.code, r.body.path], [400, 'validation-failed', '$.args'], r.text);
    assert.match(r.body.error, message);
  }
  const two = await e.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'rs', role: 'r2', definition: { schema: 'type Query { nope: String, secret: Int }' } } });
  assert.match(two.body.error, /^validation for the given role-based schema failed for the following reasons:\n • /);
  const dup = await e.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'rs', role: 'user', definition: { schema: USER_SDL } } });
  assert.deepEqual([dup.status, dup.body.code], [400, 'already-exists'], dup.text);
  const noRemote = await e.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'zz', role: 'x', definition: { schema: USER_SDL } } });
  assert.deepEqual([noRemote.status, noRemote.body.code], [400, 'not-exists'], noRemote.text);
  const dropNone = await e.request('POST', '/v1/metadata', { type: 'drop_remote_schema_permissions', args: { remote_schema: 'rs', role: 'r2' } });
  assert.deepEqual([dropNone.status, dropNone.body.code], [400, 'not-exists'], dropNone.text);
  assert.deepEqual(await exported(), before);
});

test('export, replace_metadata round trip and drop_remote_schema_permissions', async () => {
  const md = await exported();
  const rs = md.remote_schemas.find((r: { name: string }) => r.name === 'rs');
  assert.deepEqual(rs.permissions.map((p: { role: string }) => p.role), ['user', 'guest']);
  assert.deepEqual(rs.permissions[0], { role: 'user', definition: { schema: USER_SDL }, comment: 'c' });
  ok(await e.query({ type: 'replace_metadata', args: md }));
  assert.deepEqual(await exported(), md);
  ok(await e.request('POST', '/v1/metadata', { type: 'drop_remote_schema_permissions', args: { remote_schema: 'rs', role: 'user' } }));
  const gone = await e.graphql('{ hello }', undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.equal(gone.body.errors?.[0]?.extensions?.code, 'validation-failed');
  ok(await e.query({ type: 'replace_metadata', args: md }));
  const back = await e.graphql('{ hello }', undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.deepEqual(back.body, { data: { hello: 'Hello world' } });
});

test('metadata apply of a Hasura v2 project with remote_schemas.yaml permissions (X-Hasura-* presets mapped)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rsperm-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const sdl = USER_SDL.replace('"x-svc-user-id"', '"X-Hasura-User-Id"');
  const indented = sdl.split('\n').map((l) => `          ${l}`).join('\n');
  await writeFile(join(dir, 'version.yaml'), 'version: 2\n');
  await writeFile(join(dir, 'tables.yaml'), '[]\n');
  await writeFile(join(dir, 'remote_schemas.yaml'), [
    '- name: rs',
    '  definition:',
    `    url: ${remote.url}`,
    '    timeout_seconds: 60',
    '  permissions:',
    '    - role: user',
    '      definition:',
    '        schema: |',
    indented,
    '',
  ].join('\n'));
  const err: string[] = [];
  const code = await runCli('metadata', ['apply', '--dir', dir], {
    out: () => undefined, err: (l) => void err.push(l), progress: () => undefined,
    env: { SVC_GRAPHQL_ENDPOINT: e.url, SVC_GRAPHQL_ADMIN_SECRET: 'sec' }, color: false,
  });
  assert.equal(code, 0, err.join('\n'));
  assert.ok(err.some((l) => l.includes('@preset session variables')), err.join('\n'));
  const md = await exported();
  assert.match(md.remote_schemas[0].permissions[0].definition.schema, /@preset\(value: "x-svc-user-id"\)/);
  const r = await e.graphql('{ notes { id } }', undefined, as('user', { 'x-svc-user-id': '2' }));
  assert.deepEqual(r.body, { data: { notes: [{ id: 2 }] } });
  const hidden = await e.graphql('{ secret }', undefined, as('user', { 'x-svc-user-id': '2' }));
  assert.equal(hidden.body.errors?.[0]?.extensions?.code, 'validation-failed');
});

test('without --enable-remote-schema-permissions every role sees the whole remote and adding a permission is refused', async (t) => {
  const off = await startTestEngine({ adminSecret: 'sec' });
  t.after(() => off.stop());
  ok(await off.query({ type: 'add_remote_schema', args: { name: 'rs', definition: { url: remote.url } } }));
  const r = await off.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'rs', role: 'user', definition: { schema: USER_SDL } } });
  assert.deepEqual([r.status, r.body.code], [400, 'constraint-violation'], r.text);
  // Stored permissions (replace_metadata) are kept but not acted on.
  const md = (await off.query({ type: 'export_metadata', args: {} })).body;
  md.remote_schemas[0].permissions = [{ role: 'user', definition: { schema: USER_SDL } }];
  ok(await off.query({ type: 'replace_metadata', args: md }));
  const all = await off.graphql('{ secret notes(owner: 2) { owner } }', undefined, as('user'));
  assert.deepEqual(all.body, { data: { secret: 'top', notes: [{ owner: 2 }] } });
});
