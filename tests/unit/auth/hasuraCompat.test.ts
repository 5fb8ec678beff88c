/**
 * --hasura-compat in the authenticator: each path (headers, JWT, claims_map) reads Hasura's words as
 * the same names, refuses a name given twice with different values, and never raises rights; off,
 * Hasura's words are plain unknown headers and claims. (The HTTP, WebSocket and webhook paths run
 * end to end in tests/integration/hasuraCompat.test.ts.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../../../src/config/index.js';
import type { ServerConfig } from '../../../src/config/index.js';
import { AuthConfigError, createAuthenticator } from '../../../src/auth/index.js';
import { ApiError, splitSessionHeadersCompat } from '../../../src/core/index.js';
import { nowSeconds, signJwt, svcClaims } from '../../support/jwt.js';

const KEY = 'a-shared-secret-of-at-least-32-characters!';
const HASURA_NS = 'https://hasura.io/jwt/claims';
const cfg = (over: Partial<ServerConfig> = {}): ServerConfig => ({ ...defaultConfig(), ...over });
const jwtCfg = (secret: Record<string, unknown> = {}) => cfg({ adminSecret: 's3cret', jwtSecret: { type: 'HS256', key: KEY, ...secret } });
const tok = (payload: Record<string, unknown>) => ({ authorization: `Bearer ${signJwt(payload, { alg: 'HS256', key: KEY })}` });
const hasuraToken = (claims: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  tok({ sub: 'auth0|1', iat: nowSeconds(), exp: nowSeconds() + 600, [HASURA_NS]: claims, ...extra });
const USER = { 'x-hasura-allowed-roles': ['user', 'editor'], 'x-hasura-default-role': 'user', 'x-hasura-user-id': '7' };
const apiError = (code: string, message: string | RegExp, status = 400) => (e: unknown) =>
  e instanceof ApiError && e.code === code && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));
const on = { hasuraCompat: true };

test('header splitting: x-hasura-* is its x-svc-* twin; the same value twice is one; different values are refused', () => {
  const r = splitSessionHeadersCompat({ 'X-Hasura-Role': 'user', 'x-svc-user-id': '1', 'x-hasura-user-id': '1', 'x-hasura-admin-secret': 's', host: 'h' }, ['x-svc-admin-secret']);
  assert.deepEqual(r.vars, { 'x-svc-role': 'user', 'x-svc-user-id': '1' });
  assert.deepEqual(r.apart, { 'x-svc-admin-secret': 's' });
  assert.throws(() => splitSessionHeadersCompat({ 'x-svc-user-id': '1', 'x-hasura-user-id': '2' }, []),
    apiError('invalid-headers', 'conflicting session headers: x-svc-user-id and x-hasura-user-id have different values'));
});

test('admin secret: X-Hasura-Admin-Secret is the admin secret; a wrong one is 401 as the svc one; both spellings must agree', async () => {
  const a = await createAuthenticator(cfg({ adminSecret: 's3cret' }), undefined, on);
  assert.equal((await a.resolveSession({ 'x-hasura-admin-secret': 's3cret' })).isAdmin, true);
  assert.equal((await a.resolveSession({ 'x-hasura-access-key': 's3cret' })).isAdmin, true);
  const s = await a.resolveSession({ 'x-hasura-admin-secret': 's3cret', 'x-hasura-role': 'user', 'x-hasura-user-id': '3' });
  assert.deepEqual(s, { role: 'user', isAdmin: false, vars: { 'x-svc-role': 'user', 'x-svc-user-id': '3' }, hasuraCompat: true });
  await assert.rejects(a.resolveSession({ 'x-hasura-admin-secret': 'bad' }), apiError('access-denied', 'invalid x-hasura-admin-secret/x-hasura-access-key', 401));
  await assert.rejects(a.resolveSession({ 'x-svc-admin-secret': 'bad' }), apiError('access-denied', 'invalid x-svc-admin-secret/x-svc-access-key', 401));
  // The right secret in one spelling does not carry a wrong one in the other.
  await assert.rejects(a.resolveSession({ 'x-svc-admin-secret': 's3cret', 'x-hasura-admin-secret': 'bad' }), apiError('invalid-headers', /x-svc-admin-secret and x-hasura-admin-secret have different values/));
  await assert.rejects(a.resolveSession({}), apiError('access-denied', 'x-hasura-admin-secret/x-hasura-access-key required, but not found', 401));
  // Backend-only permissions in Hasura's words.
  assert.equal((await a.resolveSession({ 'x-hasura-admin-secret': 's3cret', 'x-hasura-use-backend-only-permissions': 'true' })).backendOnly, true);
});

test('off: Hasura\'s headers are nobody\'s credentials and pick no role', async () => {
  const a = await createAuthenticator(cfg({ adminSecret: 's3cret', unauthorizedRole: 'anonymous' }));
  const s = await a.resolveSession({ 'x-hasura-admin-secret': 's3cret', 'x-hasura-role': 'admin' });
  assert.deepEqual(s, { role: 'anonymous', isAdmin: false, vars: { 'x-svc-role': 'anonymous' } });
  const open = await createAuthenticator(cfg());
  assert.equal((await open.resolveSession({ 'x-hasura-role': 'user' })).role, 'admin');
  assert.equal((await (await createAuthenticator(cfg(), undefined, on)).resolveSession({ 'x-hasura-role': 'user' })).role, 'user');
});

test('JWT: claims under Hasura\'s namespace with x-hasura-* keys, the role header in either spelling, within the allowed roles only', async () => {
  const a = await createAuthenticator(jwtCfg(), undefined, on);
  const r = await a.authenticate({ ...hasuraToken(USER), 'x-hasura-user-id': 'spoofed' });
  assert.deepEqual(r.session, { role: 'user', isAdmin: false, vars: { 'x-svc-user-id': '7', 'x-svc-role': 'user' }, hasuraCompat: true });
  assert.equal((await a.resolveSession({ ...hasuraToken(USER), 'x-hasura-role': 'editor' })).role, 'editor');
  await assert.rejects(a.resolveSession({ ...hasuraToken(USER), 'x-hasura-role': 'admin' }), apiError('access-denied', 'Your requested role is not in allowed roles'));
  await assert.rejects(a.resolveSession({ ...hasuraToken(USER), 'x-hasura-role': 'editor', 'x-svc-role': 'user' }), apiError('invalid-headers', /x-svc-role and x-hasura-role/));
  // The engine's own tokens still work.
  assert.equal((await a.resolveSession(tok(svcClaims({ allowed: ['user'], default: 'user' })))).role, 'user');
  // Hasura's messages name Hasura's claims.
  await assert.rejects(a.resolveSession(hasuraToken({ 'x-hasura-default-role': 'user' })), apiError('jwt-missing-role-claims', 'JWT claim does not contain x-hasura-allowed-roles'));
  await assert.rejects(a.resolveSession(tok({ sub: '1', exp: nowSeconds() + 60 })), apiError('jwt-invalid-claims', `claims key: '${HASURA_NS}' not found`));
});

test('JWT: a token\'s two spellings or two namespaces must agree; none adds roles to the other', async () => {
  const a = await createAuthenticator(jwtCfg(), undefined, on);
  const conflict = apiError('jwt-invalid-claims', /^conflicting JWT claims: x-svc-allowed-roles and x-hasura-allowed-roles have different values$/);
  await assert.rejects(a.resolveSession(hasuraToken({ ...USER, 'x-svc-allowed-roles': ['user'] })), conflict);
  await assert.rejects(a.resolveSession(tok({ exp: nowSeconds() + 60, 'https://svc.io/jwt/claims': { 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user' }, [HASURA_NS]: { ...USER, 'x-hasura-allowed-roles': ['user', 'admin'] } })), conflict);
  // The same values in both places are one session.
  const both = tok({ exp: nowSeconds() + 60, 'https://svc.io/jwt/claims': { 'x-svc-allowed-roles': ['user', 'editor'], 'x-svc-default-role': 'user' }, [HASURA_NS]: USER });
  assert.deepEqual((await a.resolveSession(both)).vars, { 'x-svc-user-id': '7', 'x-svc-role': 'user' });
});

test('JWT off: a Hasura-issued token is refused as before', async () => {
  const a = await createAuthenticator(jwtCfg());
  await assert.rejects(a.resolveSession(hasuraToken(USER)), apiError('jwt-invalid-claims', "claims key: 'https://svc.io/jwt/claims' not found"));
  const ns = await createAuthenticator(jwtCfg({ claims_namespace: HASURA_NS }));
  await assert.rejects(ns.resolveSession(hasuraToken(USER)), apiError('jwt-missing-role-claims', 'JWT claim does not contain x-svc-allowed-roles'));
});

test('JWT: claims_namespace, claims_namespace_path and claims_map written for Hasura', async () => {
  const ns = await createAuthenticator(jwtCfg({ claims_namespace: 'https://example.com/claims' }), undefined, on);
  assert.equal((await ns.resolveSession(tok({ exp: nowSeconds() + 60, 'https://example.com/claims': USER }))).vars['x-svc-user-id'], '7');
  const path = await createAuthenticator(jwtCfg({ claims_namespace_path: '$.hasura.claims', claims_format: 'stringified_json' }), undefined, on);
  assert.equal((await path.resolveSession(tok({ exp: nowSeconds() + 60, hasura: { claims: JSON.stringify(USER) } }))).role, 'user');
  const map = {
    'x-hasura-allowed-roles': { path: '$.roles' },
    'x-hasura-default-role': { path: '$.roles[0]' },
    'x-hasura-user-id': { path: `$['${HASURA_NS}']['x-hasura-user-id']`, default: '0' },
  };
  const m = await createAuthenticator(jwtCfg({ claims_map: map }), undefined, on);
  const s = await m.resolveSession(tok({ exp: nowSeconds() + 60, roles: ['editor', 'user'], [HASURA_NS]: { 'x-hasura-user-id': '9' } }));
  assert.deepEqual(s.vars, { 'x-svc-user-id': '9', 'x-svc-role': 'editor' });
  await assert.rejects(m.resolveSession({ ...tok({ exp: nowSeconds() + 60, roles: ['user'] }), 'x-hasura-role': 'editor' }), apiError('access-denied', 'Your requested role is not in allowed roles'));
  // Off, such a claims_map refuses to start as before; on, one key in both spellings does.
  await assert.rejects(createAuthenticator(jwtCfg({ claims_map: map })), (e) => e instanceof AuthConfigError && /claims_map: key "x-hasura-allowed-roles" is not a session variable \(it must start with x-svc-\)/.test(e.message));
  await assert.rejects(createAuthenticator(jwtCfg({ claims_map: { ...map, 'x-svc-user-id': { path: '$.sub' } } }), undefined, on),
    (e) => e instanceof AuthConfigError && /claims_map: x-svc-user-id is given twice/.test(e.message));
});
