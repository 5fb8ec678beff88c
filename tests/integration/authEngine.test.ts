/**
 * Authentication end to end: a real engine, tokens signed here, a local JWKS server whose keys
 * rotate, a local auth webhook. Every rule is checked on /v1/graphql the way a client sees it:
 * HTTP 200 with `{errors: [{extensions: {path, code}, message}]}` (Hasura's /v1/graphql shape),
 * except the opt-in 401 for an expired JWT.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { startTestEngine } from './harness.js';
import type { TestEngine } from './harness.js';
import { nowSeconds, rsaPair, signJwt, svcClaims } from '../support/jwt.js';
import { startJwksServer } from '../support/jwksServer.js';
import { startWebhookServer } from '../support/webhookServer.js';
import { rawRequest } from '../support/rawRequest.js';

const KEY = 'engine-test-shared-secret-0123456789abcdef';
const QUERY = '{ article(order_by: {id: asc}) { id author_id } }';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function seed(e: TestEngine): Promise<void> {
  await e.runSql(`CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int NOT NULL);
    INSERT INTO article (title, author_id) VALUES ('a1', 1), ('a2', 1), ('b1', 2);`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'article' } },
      { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: '*', filter: { author_id: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'create_select_permission', args: { table: 'article', role: 'editor', permission: { columns: '*', filter: {} } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
}

/** POST /v1/graphql without the admin secret, with the given headers. */
const gql = (e: TestEngine, headers: Record<string, string>, query = QUERY) => rawRequest(e.url, 'POST', '/v1/graphql', { query }, headers);
const bearer = (payload: Record<string, unknown>, key: string = KEY) => ({ authorization: `Bearer ${signJwt(payload, { alg: 'HS256', key })}` });
const userToken = (userId = '1', extra: Record<string, unknown> = {}) =>
  bearer({ ...svcClaims({ allowed: ['user', 'editor'], default: 'user', vars: { 'x-svc-user-id': userId } }), ...extra });

function assertError(r: { status: number; body: any; text: string }, code: string, message: string | RegExp, status = 200): void {
  assert.equal(r.status, status, r.text);
  assert.equal(r.body.errors?.length, 1, r.text);
  const err = r.body.errors[0];
  assert.equal(err.extensions.code, code, r.text);
  assert.equal(err.extensions.path, '$');
  if (typeof message === 'string') assert.equal(err.message, message);
  else assert.match(err.message, message);
}

test('JWT (HS256) on /v1/graphql', async (t) => {
  const e = await startTestEngine({ adminSecret: 'adm', jwtSecret: { type: 'HS256', key: KEY }, jwtLeewaySeconds: 0 });
  t.after(() => e.stop());
  await seed(e);

  await t.test('a valid token: default role, its x-svc-* claims drive permissions (headers cannot spoof them)', async () => {
    const r = await gql(e, { ...userToken('1'), 'x-svc-user-id': '2' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { data: { article: [{ id: 1, author_id: 1 }, { id: 2, author_id: 1 }] } });
  });
  await t.test('x-svc-role picks another allowed role', async () => {
    const r = await gql(e, { ...userToken('1'), 'x-svc-role': 'editor' });
    assert.equal(r.body.data.article.length, 3, r.text);
  });
  await t.test('a role outside x-svc-allowed-roles → access-denied', async () => {
    assertError(await gql(e, { ...userToken('1'), 'x-svc-role': 'admin' }), 'access-denied', 'Your requested role is not in allowed roles');
  });
  await t.test('the default role must itself be allowed', async () => {
    assertError(await gql(e, bearer(svcClaims({ allowed: ['editor'], default: 'user' }))), 'access-denied', 'Your requested role is not in allowed roles');
  });
  await t.test('expired → invalid-jwt JWTExpired with status 200 (as Hasura)', async () => {
    assertError(await gql(e, userToken('1', { exp: nowSeconds() - 60 })), 'invalid-jwt', 'Could not verify JWT: JWTExpired');
  });
  await t.test('not yet valid (nbf) and issued in the future (iat)', async () => {
    assertError(await gql(e, userToken('1', { nbf: nowSeconds() + 600 })), 'invalid-jwt', 'Could not verify JWT: JWTNotYetValid');
    assertError(await gql(e, userToken('1', { iat: nowSeconds() + 600 })), 'invalid-jwt', 'Could not verify JWT: JWTIssuedAtFuture');
  });
  await t.test('exp / nbf / iat that are not numbers (null, string, object, array, bool) → invalid-jwt', async () => {
    for (const claim of ['exp', 'nbf', 'iat']) {
      for (const bad of [null, String(nowSeconds() + 600), { at: nowSeconds() + 600 }, [nowSeconds() + 600], false]) {
        assertError(await gql(e, userToken('1', { [claim]: bad })), 'invalid-jwt', new RegExp(`^Could not verify JWT: JWTClaimsSetDecodeError`));
      }
    }
  });
  await t.test('bad signature, alg none, alg other than the configured type', async () => {
    const claims = svcClaims({ allowed: ['user'], default: 'user' });
    assertError(await gql(e, bearer(claims, 'another-secret-0123456789abcdef-0123456789')), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
    assertError(await gql(e, { authorization: `Bearer ${signJwt(claims, { alg: 'none' })}` }), 'invalid-jwt', /alg none is not accepted/);
    // Another alg than the configured type: reported as Hasura does (an invalid signature).
    assertError(await gql(e, { authorization: `Bearer ${signJwt(claims, { alg: 'HS512', key: KEY })}` }), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
  });
  await t.test('role claims missing or malformed', async () => {
    assertError(await gql(e, bearer(svcClaims({ default: 'user' }))), 'jwt-missing-role-claims', 'JWT claim does not contain x-svc-allowed-roles');
    assertError(await gql(e, bearer(svcClaims({ allowed: ['user'] }))), 'jwt-missing-role-claims', 'JWT claim does not contain x-svc-default-role');
    assertError(await gql(e, bearer(svcClaims({ allowed: 'user', default: 'user' }))), 'jwt-invalid-claims', 'invalid x-svc-allowed-roles; should be a list of roles: parsing [] failed, expected Array, but encountered String');
    assertError(await gql(e, bearer({ sub: 'x', exp: nowSeconds() + 60 })), 'jwt-invalid-claims', "claims key: 'https://svc.io/jwt/claims' not found");
  });
  await t.test('Authorization header missing or malformed → invalid-headers', async () => {
    assertError(await gql(e, {}), 'invalid-headers', 'Missing Authorization header in JWT authentication mode');
    assertError(await gql(e, { authorization: 'Basic dXNlcjpwYXNz' }), 'invalid-headers', 'Malformed Authorization header');
  });
  await t.test('a correct admin secret is admin and skips JWT; a wrong one is refused', async () => {
    const r = await gql(e, { 'x-svc-admin-secret': 'adm', authorization: 'Bearer not-a-token' });
    assert.equal(r.body.data?.article.length, 3, r.text);
    assertError(await gql(e, { 'x-svc-admin-secret': 'nope', ...userToken('1') }), 'access-denied', 'invalid x-svc-admin-secret/x-svc-access-key', r.status === 200 ? 200 : 401);
  });
});

test('JWT: opt-in 401 for an expired token; audience and issuer', async (t) => {
  const e = await startTestEngine({
    adminSecret: 'adm',
    jwtSecret: { type: 'HS256', key: KEY, audience: ['app'], issuer: 'https://issuer.example' },
    jwtExpiredStatus: 401,
    jwtLeewaySeconds: 0,
  });
  t.after(() => e.stop());
  await seed(e);
  const ok = { aud: 'app', iss: 'https://issuer.example' };
  const expired = await gql(e, userToken('2', { ...ok, exp: nowSeconds() - 5 }));
  assertError(expired, 'invalid-jwt', 'Could not verify JWT: JWTExpired', 401);
  assert.match(expired.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
  assertError(await gql(e, userToken('2', { ...ok, aud: 'rubbish' })), 'invalid-jwt', 'Could not verify JWT: JWTNotInAudience');
  assertError(await gql(e, userToken('2', { ...ok, iss: 'rubbish' })), 'invalid-jwt', 'Could not verify JWT: JWTNotInIssuer');
  assertError(await gql(e, userToken('2', { iss: ok.iss })), 'invalid-jwt', 'Could not verify JWT: JWTNotInAudience');
  const r = await gql(e, userToken('2', { ...ok, aud: ['other', 'app'] }));
  assert.deepEqual(r.body, { data: { article: [{ id: 3, author_id: 2 }] } });
});

test('JWT: RS256 with an X509 certificate, claims under a namespace path as stringified JSON, claims_map', async (t) => {
  const cert = readFileSync(new URL('../support/fixtures/x509-test-cert.pem', import.meta.url), 'utf8');
  const priv = readFileSync(new URL('../support/fixtures/x509-test-key.pem', import.meta.url), 'utf8');
  const e = await startTestEngine({ adminSecret: 'adm', jwtSecret: { type: 'RS256', key: cert, claims_namespace_path: '$.svc.claims', claims_format: 'stringified_json' } });
  t.after(() => e.stop());
  await seed(e);
  const claims = JSON.stringify({ 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user', 'x-svc-user-id': '2' });
  const token = signJwt({ sub: 'x', exp: nowSeconds() + 60, svc: { claims } }, { alg: 'RS256', key: priv });
  const r = await gql(e, { authorization: `Bearer ${token}` });
  assert.deepEqual(r.body, { data: { article: [{ id: 3, author_id: 2 }] } });
  assertError(await gql(e, { authorization: `Bearer ${signJwt({ svc: { claims: JSON.parse(claims) } }, { alg: 'RS256', key: priv })}` }), 'jwt-invalid-claims', 'expecting a string when claims_format is stringified_json');

  const m = await startTestEngine({
    adminSecret: 'adm',
    jwtSecret: { type: 'RS256', key: cert, claims_map: { 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user', 'x-svc-user-id': { path: '$.sub' } } },
  });
  t.after(() => m.stop());
  await seed(m);
  const mr = await gql(m, { authorization: `Bearer ${signJwt({ sub: '1', exp: nowSeconds() + 60 }, { alg: 'RS256', key: priv })}` });
  assert.equal(mr.body.data?.article.length, 2, mr.text);
});

test('JWT with jwk_url: keys rotate at max-age; a JWKS server that is down does not stop the engine', async (t) => {
  const A = rsaPair();
  const B = rsaPair();
  const jwks = await startJwksServer({ port: 18152, keys: [A.jwk('a')], headers: { 'cache-control': 'max-age=1' } });
  t.after(() => jwks.stop().catch(() => {}));
  const e = await startTestEngine({ adminSecret: 'adm', jwtSecret: { jwk_url: jwks.url } });
  t.after(() => e.stop());
  await seed(e);
  const claims = svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': '1' } });
  const as = (pair: typeof A, kid: string) => ({ authorization: `Bearer ${signJwt(claims, { alg: 'RS256', key: pair.privateKey, kid })}` });
  assert.equal((await gql(e, as(A, 'a'))).body.data?.article.length, 2);
  assertError(await gql(e, as(B, 'b')), 'invalid-jwt', /NoUsableKeys \(no key with kid "b"/);
  jwks.setKeys([B.jwk('b')]);
  let ok = false;
  for (let i = 0; i < 40 && !ok; i++) {
    await sleep(100);
    ok = (await gql(e, as(B, 'b'))).body.data !== undefined;
  }
  assert.ok(ok, 'rotated key accepted');
  assertError(await gql(e, as(A, 'a')), 'invalid-jwt', /NoUsableKeys/);
  await jwks.stop();
  await sleep(1500);
  assert.equal((await gql(e, as(B, 'b'))).body.data?.article.length, 2, 'last good keys still used');
});

test('auth webhook (GET and POST) on /v1/graphql', async (t) => {
  const hook = await startWebhookServer((req) => {
    const auth = req.method === 'GET' ? req.headers.authorization : (req.body as any).headers.authorization;
    if (auth === 'Bearer user-2') return { status: 200, body: { 'X-Svc-Role': 'user', 'X-Svc-User-Id': '2' } };
    if (auth === 'Bearer broken') return { status: 500, body: {} };
    return { status: 401, body: {} };
  });
  t.after(() => hook.stop());
  const e = await startTestEngine({ adminSecret: 'adm', authHook: hook.url, authHookMode: 'GET' });
  t.after(() => e.stop());
  await seed(e);
  const r = await gql(e, { authorization: 'Bearer user-2' });
  assert.deepEqual(r.body, { data: { article: [{ id: 3, author_id: 2 }] } });
  assert.equal(hook.requests.at(-1)!.method, 'GET');
  assertError(await gql(e, { authorization: 'Bearer nobody' }), 'access-denied', 'Authentication hook unauthorized this request');
  assertError(await gql(e, { authorization: 'Bearer broken' }), 'unexpected', 'Invalid response from authorization hook');
  const admin = await gql(e, { 'x-svc-admin-secret': 'adm' });
  assert.equal(admin.body.data?.article.length, 3);

  const p = await startTestEngine({ adminSecret: 'adm', authHook: hook.url, authHookMode: 'POST' });
  t.after(() => p.stop());
  await seed(p);
  const pr = await gql(p, { authorization: 'Bearer user-2' });
  assert.equal(pr.body.data?.article.length, 1, pr.text);
  const sent = hook.requests.at(-1)!;
  assert.equal(sent.method, 'POST');
  assert.deepEqual((sent.body as any).request, { query: QUERY });
  assert.equal((sent.body as any).headers.authorization, 'Bearer user-2');
});

test('startup refuses bad auth settings with one clear line', () => {
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, SVC_GRAPHQL_DATABASE_URL: 'postgres://127.0.0.1:1/none', SVC_GRAPHQL_SERVER_PORT: '18157', ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: 'too-short' }) }, /Key size too small; should be atleast 32 characters/],
    [{ SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: KEY, claims_namespace: 'a', claims_namespace_path: '$.b' }) }, /claims_namespace and claims_namespace_path both cannot be set/],
    [{ SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'ES256', key: 'x' }) }, /ES256 is not supported/],
    [{ SVC_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: KEY }) }, /requires (an )?admin secret|requires --admin-secret/],
    [{ SVC_GRAPHQL_ADMIN_SECRET: 's', SVC_GRAPHQL_AUTH_HOOK: 'http://127.0.0.1:1/h', SVC_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: KEY }) }, /auth-hook|webhook/i],
  ];
  for (const [env, re] of cases) {
    const r = run(env);
    assert.equal(r.status, 1, `${JSON.stringify(env)}: ${r.stderr}`);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, re);
  }
});
