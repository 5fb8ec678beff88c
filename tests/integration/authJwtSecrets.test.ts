/**
 * Several JWT configurations (`--jwt-secrets` / SVC_GRAPHQL_JWT_SECRETS): two identity providers
 * side by side — one with a real JWKS server (RS256, keys by kid), one with a shared HS256 key — and
 * a third that differs from the second only by audience. A token is accepted by the first
 * configuration whose issuer and audience fit it and that verifies it; each configuration's own
 * claims settings apply; a token for no configuration is refused (or gets the unauthorized role);
 * a bad list refuses to start. Then an engine started with the variable serves both providers' users.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig, ConfigError } from '../../src/config/index.js';
import { createAuthenticator, AuthConfigError } from '../../src/auth/index.js';
import { ApiError } from '../../src/core/index.js';
import { rsaPair, signJwt, svcClaims, nowSeconds } from '../support/jwt.js';
import { startJwksServer } from '../support/jwksServer.js';
import { startTestEngine } from './harness.js';

const HS_KEY = 'a-shared-secret-of-at-least-32-characters!';
const OTHER_KEY = 'another-shared-secret-of-32-characters-at-least';
const A = rsaPair();
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const claims = (user: string, extra: Record<string, unknown> = {}) => ({ ...svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': user } }), exp: nowSeconds() + 600, ...extra });

function secrets(jwksUrl: string): string {
  return JSON.stringify([
    { jwk_url: jwksUrl, issuer: 'https://idp.example' },
    { type: 'HS256', key: HS_KEY, issuer: 'legacy', claims_namespace_path: '$.legacy' },
    { type: 'HS256', key: OTHER_KEY, issuer: 'legacy', audience: 'mobile' },
  ]);
}

test('a token is accepted by the first configuration whose issuer, audience and key fit and that verifies it', async (t) => {
  const jwks = await startJwksServer({ keys: [A.jwk('a')] });
  const config = loadConfig([], { SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRETS: secrets(jwks.url) });
  const auth = await createAuthenticator(config);
  t.after(async () => { auth.close(); await jwks.stop(); });
  assert.equal(auth.mode, 'jwt');

  // Provider 1: RS256 from the JWKS, by kid.
  const s1 = await auth.resolveSession(bearer(signJwt(claims('1', { iss: 'https://idp.example' }), { alg: 'RS256', key: A.privateKey, kid: 'a' })));
  assert.deepEqual(s1.vars, { 'x-svc-user-id': '1', 'x-svc-role': 'user' });

  // Provider 2: its own claims location (claims_namespace_path) applies.
  const legacy = { iss: 'legacy', legacy: { 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user', 'x-svc-user-id': '2' }, exp: nowSeconds() + 600 };
  assert.equal((await auth.resolveSession(bearer(signJwt(legacy, { alg: 'HS256', key: HS_KEY })))).vars['x-svc-user-id'], '2');

  // Same issuer, other key: the second configuration fails to verify, the third (audience fits) does.
  const mobile = signJwt(claims('3', { iss: 'legacy', aud: 'mobile' }), { alg: 'HS256', key: OTHER_KEY });
  assert.equal((await auth.resolveSession(bearer(mobile))).vars['x-svc-user-id'], '3');

  // A token without an issuer is a candidate for each, but a configured issuer requires the claim.
  await assert.rejects(auth.resolveSession(bearer(signJwt(claims('4'), { alg: 'RS256', key: A.privateKey, kid: 'a' }))), (e: unknown) => e instanceof ApiError && e.message === 'Could not verify JWT: JWTNotInIssuer');
});

test('a token no configuration verifies is refused with the first candidate\'s reason; one for no issuer is refused or unauthorized', async (t) => {
  const jwks = await startJwksServer({ keys: [A.jwk('a')] });
  const env = { SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRETS: secrets(jwks.url) };
  const auth = await createAuthenticator(loadConfig([], env));
  const anon = await createAuthenticator(loadConfig([], { ...env, SVC_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous' }));
  t.after(async () => { auth.close(); anon.close(); await jwks.stop(); });
  const invalid = (re: RegExp) => (e: unknown) => e instanceof ApiError && e.code === 'invalid-jwt' && re.test(e.message);

  // Issuer of provider 1, signed with a key it does not publish.
  const forged = signJwt(claims('9', { iss: 'https://idp.example' }), { alg: 'RS256', key: rsaPair().privateKey, kid: 'a' });
  await assert.rejects(auth.resolveSession(bearer(forged)), invalid(/JWSInvalidSignature/));
  // An unknown kid at provider 1 and no other candidate for that issuer.
  await assert.rejects(auth.resolveSession(bearer(signJwt(claims('9', { iss: 'https://idp.example' }), { alg: 'RS256', key: A.privateKey, kid: 'zz' }))), invalid(/NoUsableKeys/));
  // The legacy issuer with an audience no configuration accepts, signed with the third key: not for the third.
  await assert.rejects(auth.resolveSession(bearer(signJwt(claims('9', { iss: 'legacy', aud: 'web' }), { alg: 'HS256', key: OTHER_KEY }))), invalid(/JWSInvalidSignature/));
  // An issuer no configuration has.
  const stranger = signJwt(claims('9', { iss: 'elsewhere' }), { alg: 'HS256', key: HS_KEY });
  await assert.rejects(auth.resolveSession(bearer(stranger)), invalid(/JWTNotInIssuer/));
  assert.equal((await anon.resolveSession(bearer(stranger))).role, 'anonymous');
});

test('a bad --jwt-secrets refuses to start, naming the item', async () => {
  assert.throws(() => loadConfig([], { SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRETS: '{"type":"HS256"}' }), ConfigError);
  assert.throws(() => loadConfig([], { SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRETS: '[]' }), ConfigError);
  assert.throws(() => loadConfig([], { SVC_GRAPHQL_JWT_SECRETS: `[{"type":"HS256","key":"${HS_KEY}"}]` }), /requires an admin secret/);
  await assert.rejects(
    createAuthenticator(loadConfig([], { SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRETS: `[{"type":"HS256","key":"${HS_KEY}"},{"type":"HS256"}]` })),
    (e: unknown) => e instanceof AuthConfigError && /--jwt-secrets \(SVC_GRAPHQL_JWT_SECRETS\) item 1/.test(e.message),
  );
});

test('an engine with SVC_GRAPHQL_JWT_SECRETS serves the users of both providers with their permissions', async (t) => {
  const jwks = await startJwksServer({ keys: [A.jwk('a')] });
  const engine = await startTestEngine({ adminSecret: 's', jwtSecrets: JSON.parse(secrets(jwks.url)) });
  t.after(async () => { await engine.stop(); await jwks.stop(); });
  await engine.runSql(`CREATE TABLE note (id serial PRIMARY KEY, owner text NOT NULL, body text);
    INSERT INTO note (owner, body) VALUES ('1', 'one'), ('2', 'two'), ('3', 'three');`);
  const admin = { 'x-svc-admin-secret': 's' };
  assert.equal((await engine.query({ type: 'track_table', args: { schema: 'public', name: 'note' } }, admin)).status, 200);
  const perm = await engine.query({ type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: ['id', 'body'], filter: { owner: { _eq: 'X-Svc-User-Id' } } } } }, admin);
  assert.equal(perm.status, 200, JSON.stringify(perm.body));
  // Straight to the endpoint: the harness's request functions add the admin secret.
  const notes = async (token: string) => (await fetch(`${engine.url}/v1/graphql`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token) }, body: JSON.stringify({ query: '{ note { body } }' }),
  })).json() as Promise<any>;
  const legacy = { iss: 'legacy', legacy: { 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user', 'x-svc-user-id': '2' }, exp: nowSeconds() + 600 };
  assert.deepEqual(await notes(signJwt(claims('1', { iss: 'https://idp.example' }), { alg: 'RS256', key: A.privateKey, kid: 'a' })), { data: { note: [{ body: 'one' }] } });
  assert.deepEqual(await notes(signJwt(legacy, { alg: 'HS256', key: HS_KEY })), { data: { note: [{ body: 'two' }] } });
  const refused = await notes(signJwt(claims('1', { iss: 'elsewhere' }), { alg: 'HS256', key: HS_KEY }));
  assert.equal(refused.errors?.[0]?.extensions?.code, 'invalid-jwt');
});
