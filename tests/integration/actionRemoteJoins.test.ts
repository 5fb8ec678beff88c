/**
 * Remote relationships inside an action's output (the corpus's `actions/remote_joins`): the output
 * object reaches a table through a relationship, and that table has a remote relationship to a
 * GraphQL server. Real engine, a real action handler and a real remote GraphQL server on
 * 127.0.0.1. What a user checks: the joined answer, one request to the remote for the whole
 * output (whatever the number of rows), the role's row filter applied before the join, and a bad
 * remote selection refused before the handler is called.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestEngine, type TestEngine } from './harness.js';
import { startRemoteGraphqlServer, type RemoteGraphqlServer } from '../support/remoteGraphqlServer.js';

let e: TestEngine;
let remote: RemoteGraphqlServer;
let handlerCalls = 0;
let stopHandler: () => Promise<void>;

before(async () => {
  remote = await startRemoteGraphqlServer(
    'type Query { message(id: Int!): Message } type Message { id: Int! msg: String }',
    { message: ({ id }: { id: number }) => (id === 3 ? null : { id, msg: `hello ${id}` }) },
  );
  // The handler answers the ids it is asked for (a list output).
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handlerCalls += 1;
      const body = JSON.parse(Buffer.concat(chunks).toString());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify((body.input.ids as number[]).map((id) => ({ id }))));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  stopHandler = () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  const handlerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  e = await startTestEngine({ adminSecret: 'k' });
  await e.runSql(`CREATE TABLE "user" (id serial PRIMARY KEY, name text NOT NULL);
    INSERT INTO "user" (name) VALUES ('Ann'), ('Bob'), ('Cid'), ('Dee');`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'user' } },
      { type: 'create_select_permission', args: { table: 'user', role: 'viewer', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'add_remote_schema', args: { name: 'messages', definition: { url: remote.url, forward_client_headers: false } } },
      { type: 'create_remote_relationship', args: { name: 'message', table: 'user', hasura_fields: ['id'], remote_schema: 'messages', remote_field: { message: { arguments: { id: '$id' } } } } },
      { type: 'set_custom_types', args: { objects: [{ name: 'UserId', fields: [{ name: 'id', type: 'Int!' }], relationships: [{ name: 'user', type: 'object', remote_table: 'user', field_mapping: { id: 'id' } }] }] } },
      { type: 'create_action', args: { name: 'pick_users', definition: { arguments: [{ name: 'ids', type: '[Int!]!' }], output_type: '[UserId]', handler: `${handlerUrl}/pick` } } },
      { type: 'create_action_permission', args: { action: 'pick_users', role: 'viewer' } },
    ],
  });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await e?.stop();
  await remote?.stop();
  await stopHandler?.();
});

const PICK = 'mutation { pick_users(ids: [4, 1, 3, 2]) { id user { name message { id msg } } } }';

test('an action output joined to a table with a remote relationship: one remote request for every row, in order', async () => {
  const sent = remote.queries().length;
  const r = await e.graphql(PICK);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, {
    data: {
      pick_users: [
        { id: 4, user: { name: 'Dee', message: { id: 4, msg: 'hello 4' } } },
        { id: 1, user: { name: 'Ann', message: { id: 1, msg: 'hello 1' } } },
        { id: 3, user: { name: 'Cid', message: null } },
        { id: 2, user: { name: 'Bob', message: { id: 2, msg: 'hello 2' } } },
      ],
    },
  });
  assert.equal(remote.queries().length - sent, 1, 'one request to the remote for the four rows');
});

test('the role\'s row filter applies before the join: rows it cannot see are not sent to the remote', async () => {
  const sent = remote.queries().length;
  const r = await e.graphql(PICK, undefined, { 'x-svc-role': 'viewer', 'x-svc-user-id': '2' });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.data.pick_users, [
    { id: 4, user: null }, { id: 1, user: null }, { id: 3, user: null }, { id: 2, user: { name: 'Bob', message: { id: 2, msg: 'hello 2' } } },
  ]);
  assert.equal(remote.queries().length - sent, 1);
  assert.match(remote.queries().at(-1)!.body.query, /message\(id: 2\)/);
  assert.doesNotMatch(remote.queries().at(-1)!.body.query, /id: 1\)/);
});

test('a remote selection the remote does not accept is refused before the handler is called', async () => {
  const calls = handlerCalls;
  const sent = remote.queries().length;
  const r = await e.graphql('mutation { pick_users(ids: [1]) { id user { message { nosuch } } } }');
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.errors[0].extensions.code, 'validation-failed');
  assert.equal(handlerCalls, calls, 'the handler was not called');
  assert.equal(remote.queries().length, sent, 'nothing was sent to the remote');
});
