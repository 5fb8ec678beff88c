/**
 * Several JWT configurations (`--jwt-secrets` / SVC_GRAPHQL_JWT_SECRETS): identity providers side by
 * side — one with a real JWKS server (RS256, keys by kid), two with their own HS256 keys. As Hasura's
 * rules for several secrets: a token is verified by exactly one configuration, the one whose issuer
 * is the token's `iss` (or that has none, or a token without `iss`); no configuration is
 * JWTNotInIssuer, more than one "Multiple JWTs found"; a token that the chosen configuration refuses
 * is never tried with another one's key. Each configuration's own claims settings apply; a bad list
 * refuses to start. Then an engine started with the variable serves both providers' users, and
 * refuses over HTTP a token with one issuer signed with another configuration's key.
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
    { type: 'HS256', key: OTHER_KEY, issuer: 'mobile', audience: 'mobile' },
  ]);
}

const refused = (code: string, message: string) => (e: unknown) => e instanceof ApiError && e.code === code && e.message === message;

test('a token is verified by the one configuration its issuer names, with that configuration\'s claims settings', async (t) => {
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
  // Provider 3, with its audience.
  assert.equal((await auth.resolveSession(bearer(signJwt(claims('3', { iss: 'mobile', aud: 'mobile' }), { alg: 'HS256', key: OTHER_KEY })))).vars['x-svc-user-id'], '3');
});

test('one issuer never borrows another configuration\'s key; unknown and ambiguous tokens are refused with Hasura\'s errors', async (t) => {
  const jwks = await startJwksServer({ keys: [A.jwk('a')] });
  const env = { SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRETS: secrets(jwks.url) };
  const auth = await createAuthenticator(loadConfig([], env));
  const anon = await createAuthenticator(loadConfig([], { ...env, SVC_GRAPHQL_UNAUTHORIZED_ROLE: 'anonymous' }));
  // An item without an issuer beside one with: Hasura's ambiguity.
  const open = await createAuthenticator(loadConfig([], { SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRETS: JSON.stringify([
    { type: 'HS256', key: HS_KEY, issuer: 'a' },
    { type: 'HS256', key: OTHER_KEY },
  ]) }));
  t.after(async () => { auth.close(); anon.close(); open.close(); await jwks.stop(); });
  const invalid = (re: RegExp) => (e: unknown) => e instanceof ApiError && e.code === 'invalid-jwt' && re.test(e.message);

  // The issuer of provider 2 (legacy), signed with provider 3's key: provider 2 refuses it, provider 3 is not asked.
  await assert.rejects(auth.resolveSession(bearer(signJwt(claims('9', { iss: 'legacy', aud: 'mobile' }), { alg: 'HS256', key: OTHER_KEY }))), refused('invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature'));
  // The issuer of provider 1, signed with provider 2's HS256 key or a key it does not publish.
  await assert.rejects(auth.resolveSession(bearer(signJwt(claims('9', { iss: 'https://idp.example' }), { alg: 'HS256', key: HS_KEY }))), invalid(/^Could not verify JWT: /));
  await assert.rejects(auth.resolveSession(bearer(signJwt(claims('9', { iss: 'https://idp.example' }), { alg: 'RS256', key: rsaPair().privateKey, kid: 'a' }))), invalid(/JWSInvalidSignature/));
  // An unknown kid at provider 1.
  await assert.rejects(auth.resolveSession(bearer(signJwt(claims('9', { iss: 'https://idp.example' }), { alg: 'RS256', key: A.privateKey, kid: 'zz' }))), invalid(/NoUsableKeys/));
  // An issuer no configuration has: refused, with or without an unauthorized role (Hasura's processJwt).
  const stranger = signJwt(claims('9', { iss: 'elsewhere' }), { alg: 'HS256', key: HS_KEY });
  await assert.rejects(auth.resolveSession(bearer(stranger)), refused('invalid-jwt', 'Could not verify JWT: JWTNotInIssuer'));
  await assert.rejects(anon.resolveSession(bearer(stranger)), refused('invalid-jwt', 'Could not verify JWT: JWTNotInIssuer'));
  // No Authorization at all: the unauthorized role.
  assert.equal((await anon.resolveSession({})).role, 'anonymous');
  // A token without iss is for every configuration: ambiguous.
  await assert.rejects(auth.resolveSession(bearer(signJwt(claims('4'), { alg: 'HS256', key: HS_KEY }))), refused('invalid-headers', 'Could not verify JWT: Multiple JWTs found'));

  // iss names entry A, signed with entry B's key, B having no issuer: both are for it, refused as ambiguous.
  await assert.rejects(open.resolveSession(bearer(signJwt(claims('5', { iss: 'a' }), { alg: 'HS256', key: OTHER_KEY }))), refused('invalid-headers', 'Could not verify JWT: Multiple JWTs found'));
  // An issuer A does not have: only B is for it, and verifies it.
  assert.equal((await open.resolveSession(bearer(signJwt(claims('6', { iss: 'b' }), { alg: 'HS256', key: OTHER_KEY })))).vars['x-svc-user-id'], '6');
  // ... and B never verifies a token A's key signed under another issuer either.
  await assert.rejects(open.resolveSession(bearer(signJwt(claims('7', { iss: 'b' }), { alg: 'HS256', key: HS_KEY }))), refused('invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature'));
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
  const unknown = await notes(signJwt(claims('1', { iss: 'elsewhere' }), { alg: 'HS256', key: HS_KEY }));
  assert.equal(unknown.errors?.[0]?.extensions?.code, 'invalid-jwt');
  // The legacy issuer signed with the mobile provider's key: refused, not accepted by the mobile item.
  const borrowed = await notes(signJwt(claims('3', { iss: 'legacy', aud: 'mobile' }), { alg: 'HS256', key: OTHER_KEY }));
  assert.deepEqual(borrowed.errors, [{ message: 'Could not verify JWT: JWSError JWSInvalidSignature', extensions: { path: '$', code: 'invalid-jwt' } }]);

  // iss of entry A signed with entry B's key, B having no issuer: refused over HTTP with Hasura's error.
  const open = await startTestEngine({ adminSecret: 's', jwtSecrets: [{ type: 'HS256', key: HS_KEY, issuer: 'a' }, { type: 'HS256', key: OTHER_KEY }] });
  t.after(() => open.stop());
  const forged = await fetch(`${open.url}/v1/graphql`, {
    method: 'POST', headers: { 'content-type': 'application/json', ...bearer(signJwt(claims('1', { iss: 'a' }), { alg: 'HS256', key: OTHER_KEY })) }, body: JSON.stringify({ query: '{ __typename }' }),
  });
  assert.deepEqual(await forged.json(), { errors: [{ message: 'Could not verify JWT: Multiple JWTs found', extensions: { path: '$', code: 'invalid-headers' } }] });
});
