/**
 * `connection_init` never adds rights to the WebSocket upgrade request's, through real WebSockets:
 * behind a proxy that authenticated the upgrade with the admin secret and `x-svc-role: user`, the
 * payload cannot add the backend-only flag (no backend-only insert runs), a session variable the
 * upgrade did not carry, or another credential; an upgrade without credentials (a browser: the
 * token only in the payload) still authenticates with the payload's token, admin secret, role and
 * session variables.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { signJwt, svcClaims, nowSeconds } from '../support/jwt.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';

const SECRET = 'ws-init-secret';
const KEY = 'a-ws-init-hs256-key-of-at-least-32-chars';
let e: TestEngine;

before(async () => {
  e = await startTestEngine({ adminSecret: SECRET, jwtSecret: { type: 'HS256', key: KEY } });
  await e.runSql(`CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL, owner int NOT NULL);
    INSERT INTO item VALUES (1, 'one', 1), (2, 'two', 2);`);
  const perm = (type: string, permission: unknown) => ({ type: `create_${type}_permission`, args: { table: 'item', role: 'user', permission } });
  const r = await e.query({ type: 'bulk', args: [
    { type: 'track_table', args: { table: 'item' } },
    perm('select', { columns: ['id', 'name', 'owner'], filter: { owner: { _eq: 'X-Svc-User-Id' } } }),
    perm('insert', { check: {}, columns: ['id', 'name', 'owner'], backend_only: true }),
  ] });
  assert.equal(r.status, 200, r.text);
});
after(() => e?.stop());

/** Opens a graphql-ws socket with `upgrade` headers, sends connection_init with `payload` headers, runs `query`: its first answer. */
async function run(upgrade: Record<string, string>, payload: Record<string, string>, query: string): Promise<any> {
  const s = await TestSocket.open(e.url, 'graphql-ws', '/v1/graphql', upgrade);
  try {
    s.send({ type: 'connection_init', payload: { headers: payload } });
    assert.equal((await s.next()).type, 'connection_ack');
    s.send({ id: '1', type: 'start', payload: { query } });
    return await s.next();
  } finally {
    s.ws.close();
  }
}

const INSERT = 'mutation { insert_item_one(object: {id: 9, name: "evil", owner: 1}) { id } }';
const MINE = '{ item(order_by: {id: asc}) { id } }';
const proxied = { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user', 'x-svc-user-id': '1' };

test('an authenticated upgrade: the payload cannot add the backend-only flag, a session variable, or another credential', async () => {
  const backendOnly = await run(proxied, { 'x-svc-use-backend-only-permissions': 'true' }, INSERT);
  assert.equal(backendOnly.type, 'error', JSON.stringify(backendOnly));
  assert.match(JSON.stringify(backendOnly.payload), /no mutations exist/, 'the role without its backend-only permissions has no mutation');
  assert.deepEqual((await e.graphql('{ item(where: {id: {_eq: 9}}) { id } }')).body, { data: { item: [] } }, 'nothing inserted');
  // The same header on the upgrade request itself (the proxy asked for it) is honoured.
  const trusted = await run({ ...proxied, 'x-svc-use-backend-only-permissions': 'true' }, {}, 'mutation { insert_item_one(object: {id: 8, name: "ok", owner: 1}) { id } }');
  assert.deepEqual(trusted, { type: 'data', id: '1', payload: { data: { insert_item_one: { id: 8 } } } });

  // A session variable the upgrade did not carry.
  const { 'x-svc-user-id': _, ...noUser } = proxied;
  const added = await run(noUser, { 'x-svc-user-id': '2' }, MINE);
  assert.equal(added.type, 'error', JSON.stringify(added));
  assert.match(JSON.stringify(added.payload), /x-svc-user-id\\" header is expected but not found/);
  // One it did carry is not replaced; the role neither.
  assert.deepEqual(await run(proxied, { 'x-svc-user-id': '2', 'x-svc-role': 'admin' }, MINE), { type: 'data', id: '1', payload: { data: { item: [{ id: 1 }, { id: 8 }] } } });
  // A token in the payload does not replace the upgrade's admin secret session either.
  const token = signJwt({ ...svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': '2' } }), exp: nowSeconds() + 600 }, { alg: 'HS256', key: KEY });
  assert.deepEqual(await run(proxied, { authorization: `Bearer ${token}` }, MINE), { type: 'data', id: '1', payload: { data: { item: [{ id: 1 }, { id: 8 }] } } });
});

test('an upgrade without credentials (a browser): the payload authenticates, with its role and session variables', async () => {
  const token = signJwt({ ...svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': '2' } }), exp: nowSeconds() + 600 }, { alg: 'HS256', key: KEY });
  assert.deepEqual(await run({}, { Authorization: `Bearer ${token}`, 'x-svc-role': 'user' }, MINE), { type: 'data', id: '1', payload: { data: { item: [{ id: 2 }] } } });
  // The admin secret in the payload (the console's way), with a role and session variables.
  assert.deepEqual(await run({}, { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user', 'x-svc-user-id': '2' }, MINE), { type: 'data', id: '1', payload: { data: { item: [{ id: 2 }] } } });
  // ... and the backend-only flag with it: the payload proves itself.
  const inserted = await run({}, { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user', 'x-svc-use-backend-only-permissions': 'true' }, 'mutation { insert_item_one(object: {id: 7, name: "seven", owner: 2}) { id } }');
  assert.deepEqual(inserted, { type: 'data', id: '1', payload: { data: { insert_item_one: { id: 7 } } } });
});
