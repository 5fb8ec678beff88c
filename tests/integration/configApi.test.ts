/**
 * GET /v1alpha1/config against a real engine: admin only, the SPEC's record, JWT details.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine } from './harness.js';
import { signJwt, svcClaims } from '../support/jwt.js';
import { rawRequest } from '../support/rawRequest.js';

const KEY = 'config-api-test-secret-0123456789abcdef';

test('config API: the record for an engine with an admin secret and no JWT', async (t) => {
  const e = await startTestEngine({ adminSecret: 'adm' });
  t.after(() => e.stop());
  const r = await e.request('GET', '/v1alpha1/config');
  assert.equal(r.status, 200);
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(r.body, {
    version: r.body.version,
    is_admin_secret_set: true,
    is_auth_hook_set: false,
    is_jwt_set: false,
    jwt: null,
    is_allow_list_enabled: false,
    is_function_permissions_inferred: true,
    live_queries: { batch_size: 100, refetch_delay: 1 },
    warnings: [],
  });
  assert.equal(typeof r.body.version, 'string');
  // Admin only.
  const user = await e.request('GET', '/v1alpha1/config', undefined, { 'x-svc-role': 'user' });
  assert.equal(user.status, 400);
  assert.deepEqual(user.body, { path: '$', error: 'you have to be admin to access this endpoint', code: 'access-denied' });
  const none = await rawRequest(e.url, 'GET', '/v1alpha1/config');
  assert.equal(none.status, 401);
  const wrong = await e.request('GET', '/v1alpha1/config', undefined, { 'x-svc-admin-secret': 'wrong' });
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body.code, 'access-denied');
});

test('config API: JWT namespace/format, allow-list and live-query settings are reported', async (t) => {
  const e = await startTestEngine({
    adminSecret: 'adm',
    enableAllowlist: true,
    liveQueries: { batchSize: 42, refetchIntervalMs: 2000, changePollIntervalMs: 50 },
    jwtSecret: { type: 'HS256', key: KEY, claims_namespace: 'https://example.com/claims', claims_format: 'stringified_json' },
  });
  t.after(() => e.stop());
  const r = await e.request('GET', '/v1alpha1/config');
  assert.equal(r.status, 200);
  assert.equal(r.body.is_jwt_set, true);
  assert.deepEqual(r.body.jwt, { claims_namespace: 'https://example.com/claims', claims_format: 'stringified_json' });
  assert.equal(r.body.is_allow_list_enabled, true);
  assert.deepEqual(r.body.live_queries, { batch_size: 42, refetch_delay: 2 });
  // A JWT user (even with a valid token) is not admin.
  const claims = JSON.stringify({ 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user' });
  const token = signJwt({ ...svcClaims({}), 'https://example.com/claims': claims }, { alg: 'HS256', key: KEY });
  const u = await rawRequest(e.url, 'GET', '/v1alpha1/config', undefined, { authorization: `Bearer ${token}` });
  assert.equal(u.status, 400);
  assert.equal(u.body.code, 'access-denied');
});

test('config API: without an admin secret everyone is admin; disabled → 404', async (t) => {
  const e = await startTestEngine({});
  t.after(() => e.stop());
  const r = await e.request('GET', '/v1alpha1/config');
  assert.equal(r.status, 200);
  assert.equal(r.body.is_admin_secret_set, false);
  const off = await startTestEngine({ env: { SVC_GRAPHQL_ENABLED_APIS: 'graphql,metadata' } });
  t.after(() => off.stop());
  const d = await off.request('GET', '/v1alpha1/config');
  assert.equal(d.status, 404);
  assert.equal(d.body.code, 'not-found');
});
