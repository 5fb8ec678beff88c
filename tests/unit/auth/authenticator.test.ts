import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig } from '../../../src/config/index.js';
import type { ServerConfig } from '../../../src/config/index.js';
import { createAuthenticator, AuthConfigError, graphqlAuthFailureHttp, resolveSession } from '../../../src/auth/index.js';
import { ApiError } from '../../../src/core/index.js';
import { nowSeconds, signJwt, svcClaims } from '../../support/jwt.js';

const KEY = 'a-shared-secret-of-at-least-32-characters!';
const cfg = (over: Partial<ServerConfig> = {}): ServerConfig => ({ ...defaultConfig(), ...over });
const jwtCfg = (secret: Record<string, unknown> = {}, over: Partial<ServerConfig> = {}) =>
  cfg({ adminSecret: 's3cret', jwtSecret: { type: 'HS256', key: KEY, ...secret }, ...over });
const tok = (payload: Record<string, unknown>) => ({ authorization: `Bearer ${signJwt(payload, { alg: 'HS256', key: KEY })}` });
const apiError = (code: string, message: string | RegExp, status = 400) => (e: unknown) =>
  e instanceof ApiError && e.code === code && e.status === status && (typeof message === 'string' ? e.message === message : message.test(e.message));

test('no admin secret: admin by default, the role header picks a role with header session vars', async () => {
  const a = await createAuthenticator(cfg());
  assert.equal(a.mode, 'no-auth');
  assert.deepEqual(await a.resolveSession({}), { role: 'admin', isAdmin: true, vars: { 'x-svc-role': 'admin' } });
  assert.deepEqual(await a.resolveSession({ 'x-svc-role': 'user', 'X-Svc-User-Id': '3' }), { role: 'user', isAdmin: false, vars: { 'x-svc-role': 'user', 'x-svc-user-id': '3' } });
});

test('admin secret: right secret → admin (role header honoured), wrong → 401, none → 401 or unauthorized role', async () => {
  const a = await createAuthenticator(cfg({ adminSecret: 's3cret' }));
  assert.equal((await a.resolveSession({ 'x-svc-admin-secret': 's3cret' })).isAdmin, true);
  assert.equal((await a.resolveSession({ 'x-svc-access-key': 's3cret', 'x-svc-role': 'user' })).role, 'user');
  await assert.rejects(a.resolveSession({ 'x-svc-admin-secret': 'bad' }), apiError('access-denied', 'invalid x-svc-admin-secret/x-svc-access-key', 401));
  await assert.rejects(a.resolveSession({}), apiError('access-denied', 'x-svc-admin-secret/x-svc-access-key required, but not found', 401));
  const u = await createAuthenticator(cfg({ adminSecret: 's3cret', unauthorizedRole: 'anonymous' }));
  assert.equal((await u.resolveSession({})).role, 'anonymous');
});

test('JWT mode: a valid token gives the role and x-svc-* claims as string session variables', async () => {
  const a = await createAuthenticator(jwtCfg());
  assert.equal(a.mode, 'jwt');
  const headers = { ...tok(svcClaims({ allowed: ['user', 'editor'], default: 'user', vars: { 'x-svc-user-id': '1' } })), 'x-svc-user-id': 'spoofed' };
  const r = await a.authenticate(headers);
  assert.deepEqual(r.session, { role: 'user', isAdmin: false, vars: { 'x-svc-user-id': '1', 'x-svc-role': 'user' } });
  assert.ok(r.expiresAt instanceof Date);
  assert.equal((await a.resolveSession({ ...headers, 'x-svc-role': 'editor' })).role, 'editor');
  await assert.rejects(a.resolveSession({ ...headers, 'x-svc-role': 'admin' }), apiError('access-denied', 'Your requested role is not in allowed roles'));
});

test('JWT mode: the admin secret skips JWT; a wrong secret is 401 even with a valid token', async () => {
  const a = await createAuthenticator(jwtCfg());
  assert.equal((await a.resolveSession({ 'x-svc-admin-secret': 's3cret', authorization: 'Bearer garbage' })).isAdmin, true);
  await assert.rejects(a.resolveSession({ 'x-svc-admin-secret': 'no', ...tok(svcClaims({ allowed: ['user'], default: 'user' })) }), apiError('access-denied', /invalid x-svc-admin-secret/, 401));
});

test('JWT mode: header problems → invalid-headers; unauthorized role without a header', async () => {
  const a = await createAuthenticator(jwtCfg());
  await assert.rejects(a.resolveSession({}), apiError('invalid-headers', 'Missing Authorization header in JWT authentication mode'));
  await assert.rejects(a.resolveSession({ authorization: 'Token abc' }), apiError('invalid-headers', 'Malformed Authorization header'));
  await assert.rejects(a.resolveSession({ authorization: 'Bearer a b' }), apiError('invalid-headers', 'Malformed Authorization header'));
  await assert.rejects(a.resolveSession({ authorization: 'bearer abc' }), apiError('invalid-headers', 'Malformed Authorization header'));
  const u = await createAuthenticator(jwtCfg({}, { unauthorizedRole: 'anonymous' }));
  assert.equal((await u.resolveSession({})).role, 'anonymous');
});

test('JWT failures: codes and messages as Hasura; expired is 400 by default, 401 when opted in', async () => {
  const a = await createAuthenticator(jwtCfg({}, { jwtLeewaySeconds: 0 }));
  const expired = tok({ ...svcClaims({ allowed: ['user'], default: 'user' }), exp: nowSeconds() - 60 });
  await assert.rejects(a.resolveSession(expired), apiError('invalid-jwt', 'Could not verify JWT: JWTExpired'));
  const err = await a.resolveSession(expired).catch((e: ApiError) => e);
  assert.deepEqual(graphqlAuthFailureHttp(err as ApiError), { status: 200, headers: {} });
  const strict = await createAuthenticator(jwtCfg({}, { jwtExpiredStatus: 401 }));
  const err401 = (await strict.resolveSession(expired).catch((e: ApiError) => e)) as ApiError;
  assert.equal(err401.status, 401);
  assert.equal(graphqlAuthFailureHttp(err401).status, 401);
  assert.match(graphqlAuthFailureHttp(err401).headers['www-authenticate']!, /invalid_token/);
  // Only expiry is 401; a bad signature stays 200 on /v1/graphql.
  const bad = { authorization: `Bearer ${signJwt(svcClaims({ allowed: ['u'], default: 'u' }), { alg: 'HS256', key: 'x'.repeat(40) })}` };
  const badErr = (await strict.resolveSession(bad).catch((e: ApiError) => e)) as ApiError;
  assert.equal(badErr.message, 'Could not verify JWT: JWSError JWSInvalidSignature');
  assert.equal(graphqlAuthFailureHttp(badErr).status, 200);
  await assert.rejects(a.resolveSession(tok(svcClaims({ default: 'user' }))), apiError('jwt-missing-role-claims', 'JWT claim does not contain x-svc-allowed-roles'));
  await assert.rejects(a.resolveSession(tok({ sub: 'x' })), apiError('jwt-invalid-claims', "claims key: 'https://svc.io/jwt/claims' not found"));
  await assert.rejects(a.resolveSession({ authorization: `Bearer ${signJwt({}, { alg: 'none' })}` }), apiError('invalid-jwt', /alg none is not accepted/));
  // Another alg than the configured type: Hasura's wording, the detail only in `internal`.
  const other = (await a.resolveSession({ authorization: `Bearer ${signJwt(svcClaims({ allowed: ['u'], default: 'u' }), { alg: 'HS512', key: KEY })}` }).catch((e: ApiError) => e)) as ApiError;
  assert.equal(other.message, 'Could not verify JWT: JWSError JWSInvalidSignature');
  assert.deepEqual(other.internal, { detail: 'the token is signed with HS512 but the configured type is HS256' });
});

test('JWT leeway applies to exp (default from config)', async () => {
  const a = await createAuthenticator(jwtCfg({}, { jwtLeewaySeconds: 30 }));
  const t = tok({ ...svcClaims({ allowed: ['user'], default: 'user' }), exp: nowSeconds() - 10 });
  assert.equal((await a.resolveSession(t)).role, 'user');
});

test('audience and issuer', async () => {
  const a = await createAuthenticator(jwtCfg({ audience: ['app-1', 'app-2'], issuer: 'https://issuer.example' }));
  const base = svcClaims({ allowed: ['user'], default: 'user' });
  assert.equal((await a.resolveSession(tok({ ...base, aud: 'app-2', iss: 'https://issuer.example' }))).role, 'user');
  await assert.rejects(a.resolveSession(tok({ ...base, aud: 'other', iss: 'https://issuer.example' })), apiError('invalid-jwt', 'Could not verify JWT: JWTNotInAudience'));
  await assert.rejects(a.resolveSession(tok({ ...base, aud: 'app-1', iss: 'rubbish' })), apiError('invalid-jwt', 'Could not verify JWT: JWTNotInIssuer'));
});

test('stringified claims under a namespace path', async () => {
  const a = await createAuthenticator(jwtCfg({ claims_namespace_path: '$.svc.claims', claims_format: 'stringified_json' }));
  const claims = JSON.stringify({ 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user', 'x-svc-user-id': '9' });
  assert.deepEqual((await a.resolveSession(tok({ svc: { claims } }))).vars, { 'x-svc-user-id': '9', 'x-svc-role': 'user' });
  assert.deepEqual(a.info, { is_admin_secret_set: true, is_auth_hook_set: false, is_jwt_set: true, jwt: { claims_namespace: '$.svc.claims', claims_format: 'stringified_json' } });
});

test('startup validation gives one-line errors', async () => {
  const refuses = (c: ServerConfig, re: RegExp) =>
    assert.rejects(createAuthenticator(c), (e: unknown) => e instanceof AuthConfigError && re.test(e.message) && !e.message.includes('\n'));
  await refuses(cfg({ jwtSecret: { type: 'HS256', key: KEY } }), /--jwt-secret \(SVC_GRAPHQL_JWT_SECRET\) requires --admin-secret/);
  await refuses(jwtCfg({ key: 'short' }), /Key size too small; should be atleast 32 characters/);
  await refuses(jwtCfg({ claims_namespace: 'a', claims_namespace_path: '$.a' }), /claims_namespace and claims_namespace_path both cannot be set/);
  await refuses(cfg({ unauthorizedRole: 'anon' }), /--unauthorized-role .* requires --admin-secret/);
});

test('resolveSession(headers, config) uses the authenticator registered for that config', async () => {
  const c = jwtCfg();
  await createAuthenticator(c);
  const s = await resolveSession(tok(svcClaims({ allowed: ['user'], default: 'user' })), c);
  assert.equal(s.role, 'user');
  // Without createAuthenticator, one is built on first use.
  assert.equal((await resolveSession({}, cfg())).isAdmin, true);
});
