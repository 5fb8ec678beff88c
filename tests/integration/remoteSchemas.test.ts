/**
 * Remote schemas and remote relationships against real GraphQL servers of our own (graphql-js over
 * node:http on 127.0.0.1): metadata operations and their validation, delegation (mixed operations,
 * one request per remote, variables/fragments/aliases/directives kept, errors with paths, header
 * precedence, timeouts, subscription refusal, mutations), batched remote joins, and an unreachable
 * remote at startup and reload.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { startRemoteGraphqlServer, type RemoteGraphqlServer } from '../support/remoteGraphqlServer.js';

const SDL = `
  type Query {
    hello(name: String = "world"): String
    user(id: Int!): User
    users(ids: [Int!]!, color: Color): [User]
    echoHeaders: String
    fail: String
  }
  type Mutation { addUser(name: String!): User }
  type User { id: Int! name: String color: Color greeting(prefix: String): String }
  enum Color { RED GREEN }
`;

const mkUser = (id: number) => ({ id, name: `u${id}`, color: id % 2 ? 'RED' : 'GREEN', greeting: ({ prefix }: { prefix?: string }) => `${prefix ?? 'hi'} u${id}` });
let nextId = 1000;
const ROOT = {
  hello: ({ name }: { name: string }) => `Hello ${name}`,
  user: ({ id }: { id: number }) => (id > 100 ? null : mkUser(id)),
  users: ({ ids, color }: { ids: number[]; color?: string }) => ids.map(mkUser).filter((u) => !color || u.color === color),
  echoHeaders: (_a: unknown, req: { headers: Record<string, string | undefined> }) =>
    JSON.stringify({ conf: req.headers['x-conf'], role: req.headers['x-svc-role'], uid: req.headers['x-svc-user-id'], auth: req.headers.authorization, fwd: req.headers['x-forwarded-host'] !== undefined }),
  fail: () => {
    throw new Error('boom');
  },
  addUser: ({ name }: { name: string }) => ({ ...mkUser(nextId++), name }),
};

let remote: RemoteGraphqlServer;
let e: TestEngine;

const ok = (r: { status: number; text: string }) => assert.equal(r.status, 200, r.text);
const exported = async () => (await e.query({ type: 'export_metadata', args: {} })).body;

before(async () => {
  remote = await startRemoteGraphqlServer(SDL, ROOT);
  e = await startTestEngine({ adminSecret: 'sec' });
  await e.runSql(`
    CREATE TABLE profile (id serial PRIMARY KEY, name text, secret text);
    INSERT INTO profile (name, secret) SELECT 'p' || g, 's' || g FROM generate_series(1, 60) g;
    INSERT INTO profile (id, name) VALUES (500, 'nobody');
    CREATE TABLE team (id serial PRIMARY KEY, label text);
    INSERT INTO team (label) VALUES ('a'), ('b');
    ALTER TABLE profile ADD COLUMN team_id int REFERENCES team(id);
    UPDATE profile SET team_id = 1 + (id % 2) WHERE id <= 60;`);
  ok(await e.query({ type: 'bulk', args: [
    { type: 'track_table', args: { name: 'profile' } },
    { type: 'track_table', args: { name: 'team' } },
    { type: 'create_array_relationship', args: { table: 'team', name: 'members', using: { foreign_key_constraint_on: { table: 'profile', column: 'team_id' } } } },
    { type: 'create_select_permission', args: { table: 'profile', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
    { type: 'create_select_permission', args: { table: 'profile', role: 'guest', permission: { columns: ['name'], filter: {} } } },
    { type: 'add_remote_schema', args: { name: 'users', definition: { url: remote.url, headers: [{ name: 'x-conf', value: 'configured' }], forward_client_headers: true } } },
  ] }));
});

after(async () => {
  await e?.stop();
  await remote?.stop();
});

test('remote root fields: mixed with database fields, one request per remote, answers in field order', async () => {
  const before = remote.queries().length;
  const r = await e.graphql(`query Q($id: Int!, $skip: Boolean!) {
      a: hello(name: "x")
      profile(where: {id: {_eq: 1}}) { name }
      u: user(id: $id) { ...U nope: name @skip(if: $skip) }
      b: hello
    }
    fragment U on User { id greeting(prefix: "yo") }`, { id: 7, skip: true });
  ok(r);
  assert.equal(r.text, JSON.stringify({ data: { a: 'Hello x', profile: [{ name: 'p1' }], u: { id: 7, greeting: 'yo u7' }, b: 'Hello world' } }));
  const sent = remote.queries().slice(before);
  assert.equal(sent.length, 1, 'one request for the three remote fields');
  assert.match(sent[0].body.query, /fragment U on User/);
  assert.match(sent[0].body.query, /@skip\(if: \$skip\)/);
  assert.doesNotMatch(sent[0].body.query, /profile/);
  assert.deepEqual(sent[0].body.variables, { id: 7, skip: true });
  assert.equal(sent[0].body.operationName, 'Q');
});

test('a remote\'s Set-Cookie is passed back to the client', async () => {
  remote.responseHeaders = { 'set-cookie': 'abcd=1' };
  try {
    const r = await e.graphql('{ hello }');
    ok(r);
    assert.equal(r.headers.get('set-cookie'), 'abcd=1');
    const plain = await e.graphql('{ profile(limit: 1) { id } }');
    assert.equal(plain.headers.get('set-cookie'), null);
  } finally {
    remote.responseHeaders = {};
  }
});

test('remote errors come back as GraphQL errors with their path; data kept', async () => {
  const r = await e.graphql('{ x: hello fail }');
  ok(r);
  assert.equal(r.body.data.x, 'Hello world');
  assert.equal(r.body.data.fail, null);
  assert.equal(r.body.errors[0].message, 'boom');
  assert.deepEqual(r.body.errors[0].path, ['fail']);
});

test('a remote field the remote does not accept is a validation error, nothing sent', async () => {
  const before = remote.queries().length;
  const r = await e.graphql('{ user(id: 1) { id nosuch } }');
  ok(r);
  assert.equal(r.body.errors[0].extensions.code, 'validation-failed');
  assert.equal(remote.queries().length, before);
});

test('headers: configured > session variables > forwarded client headers', async () => {
  const r = await e.graphql('{ echoHeaders }', undefined, {
    'x-svc-role': 'user', 'x-svc-user-id': '42', 'x-conf': 'from-client', authorization: 'Bearer t',
  });
  ok(r);
  assert.deepEqual(JSON.parse(r.body.data.echoHeaders), { conf: 'configured', role: 'user', uid: '42', auth: 'Bearer t', fwd: true });
  const last = remote.queries().at(-1)!;
  assert.equal(last.headers['x-svc-admin-secret'], undefined, 'the admin secret is never forwarded');
});

test('remote root fields are in every role\'s schema; subscriptions on them are refused', async () => {
  const r = await e.graphql('{ hello }', undefined, { 'x-svc-role': 'nobody-role' });
  ok(r);
  assert.equal(r.body.data.hello, 'Hello world');
  const s = await e.graphql('subscription { hello }');
  assert.deepEqual(s.body, { errors: [{ extensions: { path: '$', code: 'not-supported' }, message: 'subscription to remote server is not supported' }] });
});

test('remote mutation fields are delegated', async () => {
  const r = await e.graphql('mutation { a: addUser(name: "n1") { name } b: addUser(name: "n2") { name } }');
  ok(r);
  assert.deepEqual(r.body, { data: { a: { name: 'n1' }, b: { name: 'n2' } } });
});

test('remote relationship: one request per relationship per level, nulls kept, row order', async () => {
  ok(await e.query({ type: 'create_remote_relationship', args: {
    name: 'account', table: 'profile', hasura_fields: ['id'], remote_schema: 'users', remote_field: { user: { arguments: { id: '$id' } } },
  } }));
  const before = remote.queries().length;
  const r = await e.graphql('{ profile(order_by: {id: desc}, limit: 40) { id account { name greeting(prefix: "hey") } } }');
  ok(r);
  assert.equal(r.body.data.profile.length, 40);
  assert.deepEqual(r.body.data.profile[0], { id: 500, account: null }, 'the remote answers null for id 500');
  assert.deepEqual(r.body.data.profile[1], { id: 60, account: { name: 'u60', greeting: 'hey u60' } });
  assert.deepEqual(r.body.data.profile.at(-1), { id: 22, account: { name: 'u22', greeting: 'hey u22' } });
  assert.equal(remote.queries().length - before, 1, 'one request for 40 rows');
});

test('remote relationship under an array relationship, with client arguments merged', async () => {
  ok(await e.query({ type: 'create_remote_relationship', args: {
    name: 'friends', table: 'profile', hasura_fields: ['id', 'team_id'], remote_schema: 'users', remote_field: { users: { arguments: { ids: ['$id', '$team_id'] } } },
  } }));
  const before = remote.queries().length;
  const r = await e.graphql('{ team(order_by: {id: asc}) { label members(where: {id: {_lte: 4}}, order_by: {id: asc}) { id friends(color: GREEN) { id } } } }');
  ok(r);
  assert.deepEqual(r.body.data.team, [
    { label: 'a', members: [{ id: 2, friends: [{ id: 2 }] }, { id: 4, friends: [{ id: 4 }] }] },
    { label: 'b', members: [{ id: 1, friends: [{ id: 2 }] }, { id: 3, friends: [{ id: 2 }] }] },
  ]);
  assert.equal(remote.queries().length - before, 1);
  assert.match(remote.queries().at(-1)!.body.query, /color: GREEN/);
});

test('a remote relationship in a mutation response is refused before anything runs', async () => {
  const r = await e.graphql('mutation { insert_profile(objects: [{id: 900, name: "m"}]) { returning { id account { id } } } }');
  ok(r);
  assert.equal(r.body.errors[0].extensions.code, 'validation-failed');
  assert.match(r.body.errors[0].message, /remote relationships are not supported/);
  const rows = await e.graphql('{ profile(where: {id: {_eq: 900}}) { id } }');
  assert.deepEqual(rows.body, { data: { profile: [] } });
});

test('what the client asks of a remote relationship is checked against the remote before anything is sent', async () => {
  const before = remote.queries().length;
  for (const q of ['{ profile { account { nosuch } } }', '{ profile { friends(color: BLUE) { id } } }', '{ profile { account(id: 3) { id } } }']) {
    const r = await e.graphql(q);
    ok(r);
    assert.equal(r.body.errors?.[0]?.extensions.code, 'validation-failed', `${q}: ${r.text}`);
  }
  assert.equal(remote.queries().length, before);
});

test('remote relationship visible only to roles that select every join column', async () => {
  const u = await e.graphql('{ profile(limit: 1, order_by: {id: asc}) { account { id } } }', undefined, { 'x-svc-role': 'user' });
  ok(u);
  assert.deepEqual(u.body.data, { profile: [{ account: { id: 1 } }] });
  const g = await e.graphql('{ profile(limit: 1) { account { id } } }', undefined, { 'x-svc-role': 'guest' });
  assert.equal(g.body.errors[0].extensions.code, 'validation-failed');
});

test('invalid remote relationships are refused with 400 and change nothing', async () => {
  const before = JSON.stringify(await exported());
  const bad = [
    { remote_field: { nosuch: { arguments: {} } } },
    { remote_field: { user: { arguments: { nope: '$id' } } } },
    { remote_field: { user: { arguments: { id: 'abc' } } } },
    { remote_field: { user: { arguments: { id: '$name' } } } },
    { hasura_fields: ['nosuch'] },
    { remote_schema: 'nosuch' },
  ];
  for (const b of bad) {
    const r = await e.query({ type: 'create_remote_relationship', args: {
      name: 'bad', table: 'profile', hasura_fields: ['id'], remote_schema: 'users', remote_field: { user: { arguments: { id: '$id' } } }, ...b,
    } });
    assert.equal(r.status, 400, JSON.stringify(b));
    assert.ok(r.body.error && r.body.code && r.body.path, r.text);
  }
  // The join column's type is checked against the argument's (Hasura's isTypeCoercible): a text
  // column cannot feed an Int! argument, nor a list of Int.
  for (const remote_field of [{ user: { arguments: { id: '$name' } } }, { users: { arguments: { ids: ['$name'] } } }]) {
    const r = await e.query({ type: 'create_remote_relationship', args: { name: 'bad', table: 'profile', hasura_fields: ['name'], remote_schema: 'users', remote_field } });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.error, /expected type "Int" but got "String"/, r.text);
  }
  assert.equal(JSON.stringify(await exported()), before);
});

test('metadata: export lists remote schemas and relationships; remove refused while used unless removed with them', async () => {
  const md = await exported();
  assert.equal(md.remote_schemas[0].name, 'users');
  const profile = md.tables.find((t: { table: { name: string } }) => t.table.name === 'profile');
  assert.deepEqual(profile.remote_relationships.map((r: { name: string }) => r.name), ['account', 'friends']);
  const refused = await e.query({ type: 'remove_remote_schema', args: { name: 'users' } });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.code, 'dependency-error');
  const dup = await e.query({ type: 'add_remote_schema', args: { name: 'users2', definition: { url: remote.url } } });
  assert.equal(dup.status, 400, 'root fields clash with the first remote');
  const unreachable = await e.query({ type: 'add_remote_schema', args: { name: 'gone', definition: { url: 'http://127.0.0.1:9/graphql' } } });
  assert.equal(unreachable.status, 400);
  assert.equal(unreachable.body.code, 'remote-schema-error');
  const both = await e.query({ type: 'add_remote_schema', args: { name: 'x', definition: { url: remote.url, url_from_env: 'X' } } });
  assert.equal(both.body.code, 'invalid-params');
  // replace_metadata with the exported document is accepted and keeps them.
  ok(await e.query({ type: 'replace_metadata', args: md }));
  assert.deepEqual(await exported(), md);
});

test('an unreachable remote at startup or reload is an inconsistent object; the rest is served', async () => {
  const r2 = await startRemoteGraphqlServer('type Query { ping: String }', { ping: () => 'pong' });
  ok(await e.query({ type: 'add_remote_schema', args: { name: 'pinger', definition: { url: r2.url, timeout_seconds: 5 } } }));
  await r2.stop();
  const other = await startTestEngine({ adminSecret: 'sec', databaseUrl: e.databaseUrl });
  try {
    const h = await other.request('GET', '/healthz');
    assert.equal(h.text, 'WARN: inconsistent objects in schema');
    const inc = await other.query({ type: 'get_inconsistent_metadata', args: {} });
    assert.deepEqual(inc.body.inconsistent_objects.map((o: { type: string }) => o.type), ['remote_schema']);
    const q = await other.graphql('{ profile(where: {id: {_eq: 2}}) { name } hello }');
    assert.deepEqual(q.body, { data: { profile: [{ name: 'p2' }], hello: 'Hello world' } });
    await r2.listen();
    ok(await other.query({ type: 'reload_remote_schema', args: { name: 'pinger' } }));
    assert.equal((await other.request('GET', '/healthz')).text, 'OK');
    assert.deepEqual((await other.graphql('{ ping }')).body, { data: { ping: 'pong' } });
  } finally {
    await other.stop();
    await r2.stop();
  }
  ok(await e.query({ type: 'remove_remote_schema', args: { name: 'pinger' } }));
});

test('a remote slower than timeout_seconds gives an error, not a hung request', async () => {
  const slow = await startRemoteGraphqlServer('type Query { late: String }', { late: () => 'late' });
  try {
    ok(await e.query({ type: 'add_remote_schema', args: { name: 'slow', definition: { url: slow.url, timeout_seconds: 1 } } }));
    slow.delayMs = 4000;
    const started = Date.now();
    const r = await e.graphql('{ late }');
    assert.ok(Date.now() - started < 3500, `answered after ${Date.now() - started} ms`);
    assert.deepEqual(r.body, { errors: [{ extensions: { path: '$', code: 'unexpected' }, message: 'ResponseTimeout' }] });
  } finally {
    slow.delayMs = 0;
    ok(await e.query({ type: 'remove_remote_schema', args: { name: 'slow' } }));
    await slow.stop();
  }
});

test('bulk: relationships removed with their remote schema; clear_metadata removes remotes', async () => {
  ok(await e.query({ type: 'bulk', args: [
    { type: 'delete_remote_relationship', args: { table: 'profile', name: 'account' } },
    { type: 'delete_remote_relationship', args: { table: 'profile', name: 'friends' } },
    { type: 'remove_remote_schema', args: { name: 'users' } },
  ] }));
  const md = await exported();
  assert.equal(md.remote_schemas, undefined);
  const r = await e.graphql('{ hello }');
  assert.equal(r.body.errors[0].extensions.code, 'validation-failed');
  ok(await e.query({ type: 'add_remote_schema', args: { name: 'users', definition: { url: remote.url } } }));
  ok(await e.query({ type: 'clear_metadata', args: {} }));
  assert.equal((await exported()).remote_schemas, undefined);
});
