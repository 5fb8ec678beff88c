/**
 * JWT with `jwk_url` against a real local JWKS server: keys fetched at start and chosen by kid,
 * refresh driven by Cache-Control / Expires, rotation, a provider that goes down, EC keys.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { loadConfig } from '../../src/config/index.js';
import { createAuthenticator, AuthConfigError } from '../../src/auth/index.js';
import type { Authenticator } from '../../src/auth/index.js';
import { ApiError } from '../../src/core/index.js';
import { rsaPair, signJwt, svcClaims } from '../support/jwt.js';
import type { RsaPair } from '../support/jwt.js';
import { startJwksServer } from '../support/jwksServer.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const claims = svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': '42' } });
const token = (pair: RsaPair, kid?: string, alg: 'RS256' | 'RS384' = 'RS256') => signJwt(claims, { alg, key: pair.privateKey, kid });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const config = (url: string) => loadConfig([], { SVC_GRAPHQL_ADMIN_SECRET: 'secret', SVC_GRAPHQL_JWT_SECRET: JSON.stringify({ jwk_url: url }) });
const fast = { jwkRetryMs: 300, jwkMinRefreshMs: 100 };

async function rejects(auth: Authenticator, t: string, message: RegExp) {
  await assert.rejects(auth.resolveSession(bearer(t)), (e: unknown) => e instanceof ApiError && e.code === 'invalid-jwt' && message.test(e.message));
}
async function until(cond: () => Promise<boolean>, ms: number) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return true;
    await sleep(50);
  }
  return false;
}
const accepts = (auth: Authenticator, t: string) => auth.resolveSession(bearer(t)).then(() => true, () => false);

const A = rsaPair();
const B = rsaPair();
const C = rsaPair();

test('keys are fetched at start and chosen by kid; unknown kid → NoUsableKeys', async (t) => {
  const jwks = await startJwksServer({ keys: [A.jwk('a'), B.jwk('b', 'RS384')] });
  const auth = await createAuthenticator(config(jwks.url), undefined, fast);
  t.after(async () => { auth.close(); await jwks.stop(); });
  const s = await auth.resolveSession(bearer(token(A, 'a')));
  assert.deepEqual(s.vars, { 'x-svc-user-id': '42', 'x-svc-role': 'user' });
  assert.equal((await auth.resolveSession(bearer(token(B, 'b', 'RS384')))).role, 'user');
  await rejects(auth, token(A, 'b', 'RS384'), /JWSError JWSInvalidSignature/);
  await rejects(auth, token(A, 'zzz'), /NoUsableKeys \(no key with kid "zzz"/);
  await rejects(auth, token(B, 'b'), /NoUsableKeys/); // key b is published for RS384 only
  // No kid: every key fit for the alg is tried.
  assert.equal((await auth.resolveSession(bearer(token(A)))).role, 'user');
  await rejects(auth, signJwt(claims, { alg: 'HS256', key: 'x'.repeat(32), kid: 'a' }), /^Could not verify JWT: JWSError JWSInvalidSignature$/);
});

test('Cache-Control max-age drives the refresh: rotated keys are picked up, old ones dropped', async (t) => {
  const jwks = await startJwksServer({ keys: [A.jwk('a')], headers: { 'cache-control': 'public, max-age=1' } });
  const auth = await createAuthenticator(config(jwks.url), undefined, fast);
  t.after(async () => { auth.close(); await jwks.stop(); });
  assert.ok(await accepts(auth, token(A, 'a')));
  assert.equal(await accepts(auth, token(B, 'b')), false);
  jwks.setKeys([B.jwk('b')]);
  assert.ok(await until(() => accepts(auth, token(B, 'b')), 3000), 'rotated key accepted after max-age');
  await rejects(auth, token(A, 'a'), /NoUsableKeys/);
});

test('Expires header drives the refresh when Cache-Control is absent', async (t) => {
  const jwks = await startJwksServer({ keys: [A.jwk('a')], headers: { expires: new Date(Date.now() + 1000).toUTCString() } });
  const auth = await createAuthenticator(config(jwks.url), undefined, fast);
  t.after(async () => { auth.close(); await jwks.stop(); });
  jwks.setKeys([B.jwk('b')]);
  jwks.setHeaders({});
  assert.ok(await until(() => accepts(auth, token(B, 'b')), 3500));
});

test('no expiry at start → the keys are never refreshed', async (t) => {
  const jwks = await startJwksServer({ keys: [A.jwk('a')] });
  const auth = await createAuthenticator(config(jwks.url), undefined, fast);
  t.after(async () => { auth.close(); await jwks.stop(); });
  jwks.setKeys([B.jwk('b')]);
  jwks.setHeaders({ 'cache-control': 'max-age=1' });
  await sleep(1500);
  assert.equal(jwks.fetches, 1);
  assert.ok(await accepts(auth, token(A, 'a')));
  assert.equal(await accepts(auth, token(B, 'b')), false);
});

test('while refreshing, a response without a usable time → retry after the retry interval', async (t) => {
  const jwks = await startJwksServer({ keys: [A.jwk('a')], headers: { 'cache-control': 'max-age=1' } });
  const auth = await createAuthenticator(config(jwks.url), undefined, { jwkRetryMs: 400, jwkMinRefreshMs: 100 });
  t.after(async () => { auth.close(); await jwks.stop(); });
  jwks.setHeaders({ 'cache-control': 'no-cache' });
  // First refresh at ~1 s (no time in it), then retries every 400 ms: waited for, not slept on.
  const t0 = Date.now();
  assert.ok(await until(async () => jwks.fetches >= 2, 10_000), 'the refresh happened');
  assert.ok(Date.now() - t0 >= 500, 'not before the max-age');
  const after = jwks.fetches;
  assert.ok(await until(async () => jwks.fetches >= after + 2, 10_000), `expected retries, got ${jwks.fetches - after}`);
});

test('a JWKS server that is down keeps the last good keys; the engine keeps serving and recovers', async (t) => {
  const jwks = await startJwksServer({ port: 18151, keys: [A.jwk('a')], headers: { 'cache-control': 'max-age=1' } });
  const auth = await createAuthenticator(config(jwks.url), undefined, { jwkRetryMs: 300, jwkMinRefreshMs: 100 });
  t.after(async () => { auth.close(); await jwks.stop().catch(() => {}); });
  await jwks.stop();
  await sleep(1800); // refresh + retries all fail
  assert.ok(await accepts(auth, token(A, 'a')), 'last good key still accepted');
  // An error status keeps the keys too.
  await jwks.restart();
  jwks.setStatus(503);
  await sleep(700);
  assert.ok(await accepts(auth, token(A, 'a')));
  // Back up with a rotated set: picked up by the retry loop.
  jwks.setStatus(200);
  jwks.setKeys([C.jwk('c')]);
  assert.ok(await until(() => accepts(auth, token(C, 'c')), 3000));
});

test('a jwk_url that cannot be fetched at start refuses to start', async () => {
  await assert.rejects(
    createAuthenticator(config('http://127.0.0.1:18159/jwks.json')),
    (e: unknown) => e instanceof AuthConfigError && /could not fetch the JWK set from jwk_url http:\/\/127\.0\.0\.1:18159\/jwks\.json/.test(e.message),
  );
  const jwks = await startJwksServer({ keys: [] });
  jwks.setStatus(500);
  await assert.rejects(createAuthenticator(config(jwks.url)), /Non-2xx response on fetching JWK/);
  await jwks.stop();
});

test('EC keys in the set are skipped with a warning; tokens for them are refused', async (t) => {
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ecJwk = { ...ec.publicKey.export({ format: 'jwk' }), kid: 'e', alg: 'ES256', use: 'sig' };
  const jwks = await startJwksServer({ keys: [ecJwk, { ...ecJwk, alg: undefined, kid: 'e2' }, A.jwk('a')] });
  const warnings: string[] = [];
  const logger = { info() {}, error() {}, warn: (_o: object, m?: string) => void warnings.push(m ?? '') };
  const auth = await createAuthenticator(config(jwks.url), logger, fast);
  t.after(async () => { auth.close(); await jwks.stop(); });
  assert.ok(warnings.some((w) => /JWK kid "e" skipped: alg ES256 is not supported \(EC keys are not supported/.test(w)), warnings.join('\n'));
  assert.ok(warnings.some((w) => /JWK kid "e2" skipped: key type "EC" is not supported/.test(w)), warnings.join('\n'));
  await rejects(auth, signJwt(claims, { alg: 'RS256', key: A.privateKey, kid: 'e', header: { alg: 'ES256' } }), /alg ES256 is not supported/);
  assert.ok(await accepts(auth, token(A, 'a')));
});
