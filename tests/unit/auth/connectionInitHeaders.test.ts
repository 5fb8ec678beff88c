/**
 * connectionInitHeaders: which of connection_init's payload headers join the upgrade request's, per
 * auth mode (admin secret, JWT, webhook), for an upgrade with and without credentials, and with
 * --ws-init-overrides-headers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connectionInitHeaders } from '../../../src/auth/index.js';

const SECRET = { adminSecret: 's' };
const JWT = { adminSecret: 's', jwtSecret: { type: 'HS256', key: 'k'.repeat(32) } };
const HOOK = { adminSecret: 's', authHook: 'http://127.0.0.1:1/hook' };

test('an authenticated upgrade: credentials, cookie and x-svc-* from the payload are ignored; read-your-writes and other headers join', () => {
  const upgrade = { 'x-svc-admin-secret': 's', 'x-svc-role': 'user' };
  const payload = {
    'X-Svc-Role': 'admin', 'x-svc-use-backend-only-permissions': 'true', 'x-svc-user-id': '2', authorization: 'Bearer t', cookie: 'a=b',
    'x-svc-commit-lsn': '0/1', 'x-custom': 'c', 'x-svc-admin-secret': 's',
  };
  const r = connectionInitHeaders(upgrade, payload, JWT);
  assert.deepEqual(r.headers, { ...upgrade, 'x-svc-commit-lsn': '0/1', 'x-custom': 'c' });
  assert.deepEqual(r.ignored.sort(), ['authorization', 'cookie', 'x-svc-role', 'x-svc-use-backend-only-permissions', 'x-svc-user-id']);
  // A token on the upgrade is a credential too.
  assert.deepEqual(connectionInitHeaders({ authorization: 'Bearer u' }, { 'x-svc-admin-secret': 's' }, JWT).headers, { authorization: 'Bearer u' });
});

test('with the auth webhook, an upgrade with Authorization or Cookie takes no payload header at all', () => {
  assert.deepEqual(connectionInitHeaders({ cookie: 'sid=1' }, { 'x-custom': 'c', 'x-tenant': 't' }, HOOK), { headers: { cookie: 'sid=1' }, ignored: ['x-custom', 'x-tenant'] });
  // Without them the payload's headers go to the webhook.
  assert.deepEqual(connectionInitHeaders({}, { authorization: 'Bearer t', 'x-tenant': 't' }, HOOK).headers, { authorization: 'Bearer t', 'x-tenant': 't' });
});

test('an upgrade without credentials: the payload authenticates, but never replaces what the upgrade carries', () => {
  const r = connectionInitHeaders({ 'x-svc-role': 'user' }, { 'x-svc-admin-secret': 's', 'x-svc-role': 'admin', 'x-svc-user-id': '2', 'x-svc-use-backend-only-permissions': 'true' }, SECRET);
  assert.deepEqual(r.headers, { 'x-svc-role': 'user', 'x-svc-admin-secret': 's', 'x-svc-user-id': '2', 'x-svc-use-backend-only-permissions': 'true' });
  assert.deepEqual(r.ignored, ['x-svc-role']);
  // Non-string values and a payload that is not an object are dropped.
  assert.deepEqual(connectionInitHeaders({}, { 'x-svc-role': 7 }, SECRET).headers, {});
  assert.deepEqual(connectionInitHeaders({ a: 'b' }, ['x'], SECRET).headers, { a: 'b' });
});

test('--ws-init-overrides-headers, or no admin secret: the payload wins (Hasura)', () => {
  const upgrade = { 'x-svc-admin-secret': 's', 'x-svc-role': 'user' };
  assert.deepEqual(connectionInitHeaders(upgrade, { 'x-svc-role': 'admin' }, { ...SECRET, wsInitOverridesHeaders: true }).headers, { 'x-svc-admin-secret': 's', 'x-svc-role': 'admin' });
  assert.deepEqual(connectionInitHeaders({ 'x-svc-role': 'user' }, { 'x-svc-role': 'admin' }, {}).headers, { 'x-svc-role': 'admin' });
});
