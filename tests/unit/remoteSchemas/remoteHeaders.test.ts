/**
 * Headers sent to a remote (remoteSchemas/remoteHeaders.ts): configured > session variables >
 * forwarded client headers; hop-by-hop headers and `x-svc-*` client headers never forwarded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roleSession } from '../../../src/core/index.js';
import { remoteRequestHeaders } from '../../../src/remoteSchemas/index.js';
import type { RemoteSchemaInfo } from '../../../src/metadata/index.js';

const remote = (forward: boolean) => ({ headers: [{ name: 'X-Svc-Test', value: 'conf' }, { name: 'x-api', value: 'k' }], forwardClientHeaders: forward }) as unknown as RemoteSchemaInfo;
const session = roleSession('user', { 'x-svc-user-id': '7', 'x-svc-test': 'session' });
const client = {
  host: 'engine:8080', 'user-agent': 'ua/1', 'content-length': '10', 'content-type': 'text/plain', connection: 'keep-alive',
  authorization: 'Bearer t', 'x-api': 'client', 'x-svc-role': 'admin', 'x-svc-admin-secret': 's', cookie: 'c=1',
};

test('with forward_client_headers: precedence and filtering', () => {
  assert.deepEqual(remoteRequestHeaders(remote(true), session, client), {
    authorization: 'Bearer t',
    cookie: 'c=1',
    'x-forwarded-host': 'engine:8080',
    'x-forwarded-user-agent': 'ua/1',
    'x-svc-user-id': '7',
    'x-svc-test': 'conf',
    'x-svc-role': 'user',
    'x-api': 'k',
    'content-type': 'application/json',
  });
});

test('without forward_client_headers: configured headers and session variables only', () => {
  assert.deepEqual(remoteRequestHeaders(remote(false), session, client), {
    'x-svc-user-id': '7', 'x-svc-test': 'conf', 'x-svc-role': 'user', 'x-api': 'k', 'content-type': 'application/json',
  });
});

test('Hasura\'s words: with Hasura\'s session variables the remote gets x-hasura-* too; under --hasura-compat x-hasura-* client headers are session headers, not forwarded', () => {
  const hasuraClient = { ...client, 'x-hasura-admin-secret': 's', 'x-hasura-role': 'admin' };
  const h = remoteRequestHeaders(remote(true), { ...session, hasura: true, hasuraCompat: true }, hasuraClient);
  assert.equal(h['x-hasura-user-id'], '7');
  assert.equal(h['x-hasura-role'], 'user');
  assert.equal(h['x-hasura-admin-secret'], undefined);
  // Off: as before, a client's x-hasura-* header is just a header.
  const off = remoteRequestHeaders(remote(true), session, hasuraClient);
  assert.equal(off['x-hasura-admin-secret'], 's');
  assert.equal(off['x-hasura-user-id'], undefined);
});
