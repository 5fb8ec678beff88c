import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createSecretKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { verifyJwt, JwtError } from '../../../src/auth/verifyJwt.js';
import type { ClaimChecks, KeyResolver } from '../../../src/auth/verifyJwt.js';
import { rsaPublicKeyFromPem } from '../../../src/auth/jwtKeys.js';
import { rsaPair, signJwt } from '../../support/jwt.js';

const SECRET = 'a-shared-secret-of-at-least-32-characters!';
const NOW = 1_700_000_000;
const checks = (c: Partial<ClaimChecks> = {}): ClaimChecks => ({ leewaySeconds: 0, now: NOW, ...c });
const only = (alg: string, key: KeyObject): KeyResolver => (h) => {
  if (h.alg !== alg) throw new JwtError('JWSError (AlgorithmMismatch "x")');
  return [key];
};
const hs = only('HS256', createSecretKey(Buffer.from(SECRET)));
const fails = (fn: () => unknown, reason: string | RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof JwtError && (typeof reason === 'string' ? e.reason === reason : reason.test(e.reason)));

test('HS256 token with the right secret verifies and gives payload and expiry', () => {
  const t = signJwt({ sub: 'u1', exp: NOW + 60 }, { alg: 'HS256', key: SECRET });
  const v = verifyJwt(t, hs, checks());
  assert.equal(v.payload.sub, 'u1');
  assert.equal(v.expiresAt?.getTime(), (NOW + 60) * 1000);
});

test('HS384 / HS512 verify with their own hash', () => {
  const key = createSecretKey(Buffer.from('k'.repeat(64)));
  for (const alg of ['HS384', 'HS512'] as const) {
    const t = signJwt({ sub: alg }, { alg, key: 'k'.repeat(64) });
    assert.equal(verifyJwt(t, only(alg, key), checks()).payload.sub, alg);
  }
});

test('wrong secret → JWSError JWSInvalidSignature; tampered payload too', () => {
  fails(() => verifyJwt(signJwt({ a: 1 }, { alg: 'HS256', key: 'another-secret-of-at-least-32-characters' }), hs, checks()), 'JWSError JWSInvalidSignature');
  const [h, , s] = signJwt({ role: 'user' }, { alg: 'HS256', key: SECRET }).split('.');
  const forged = `${h}.${Buffer.from(JSON.stringify({ role: 'admin' })).toString('base64url')}.${s}`;
  fails(() => verifyJwt(forged, hs, checks()), 'JWSError JWSInvalidSignature');
});

test('alg none and an alg other than the configured one are refused', () => {
  fails(() => verifyJwt(signJwt({ a: 1 }, { alg: 'none' }), hs, checks()), /alg none is not accepted/);
  fails(() => verifyJwt(signJwt({ a: 1 }, { alg: 'HS384', key: SECRET }), hs, checks()), /AlgorithmMismatch/);
  fails(() => verifyJwt(signJwt({ a: 1 }, { alg: 'HS256', key: SECRET, header: { alg: 'ES256' } }), hs, checks()), /alg ES256 is not supported/);
});

test('RS256/RS512 with a PEM public key; an HS token signed with the public PEM text is refused', () => {
  const pair = rsaPair();
  const pub = rsaPublicKeyFromPem(pair.publicPem);
  for (const alg of ['RS256', 'RS512'] as const) {
    assert.equal(verifyJwt(signJwt({ sub: alg }, { alg, key: pair.privateKey }), only(alg, pub), checks()).payload.sub, alg);
  }
  // Classic key-confusion attack: HMAC keyed with the public key text, offered to an RSA key.
  const confused = signJwt({ sub: 'x' }, { alg: 'HS256', key: pair.publicPem });
  fails(() => verifyJwt(confused, () => [pub], checks()), 'JWSError JWSInvalidSignature');
});

test('X509 certificate as the RS256 key', () => {
  const cert = readFileSync(new URL('../../support/fixtures/x509-test-cert.pem', import.meta.url), 'utf8');
  const priv = readFileSync(new URL('../../support/fixtures/x509-test-key.pem', import.meta.url), 'utf8');
  const t = signJwt({ sub: 'cert' }, { alg: 'RS256', key: priv });
  assert.equal(verifyJwt(t, only('RS256', rsaPublicKeyFromPem(cert)), checks()).payload.sub, 'cert');
});

test('exp, iat, nbf with leeway', () => {
  const tok = (p: Record<string, unknown>) => signJwt(p, { alg: 'HS256', key: SECRET });
  fails(() => verifyJwt(tok({ exp: NOW - 1 }), hs, checks()), 'JWTExpired');
  assert.ok(verifyJwt(tok({ exp: NOW - 5 }), hs, checks({ leewaySeconds: 10 })));
  fails(() => verifyJwt(tok({ exp: NOW - 11 }), hs, checks({ leewaySeconds: 10 })), 'JWTExpired');
  fails(() => verifyJwt(tok({ nbf: NOW + 30 }), hs, checks()), 'JWTNotYetValid');
  assert.ok(verifyJwt(tok({ nbf: NOW + 30 }), hs, checks({ leewaySeconds: 60 })));
  fails(() => verifyJwt(tok({ iat: NOW + 30 }), hs, checks()), 'JWTIssuedAtFuture');
  fails(() => verifyJwt(tok({ exp: 'tomorrow' }), hs, checks()), /JWTClaimsSetDecodeError "exp must be a NumericDate/);
});

test('exp, nbf, iat that are present but not a NumericDate are refused (null, string, object, array, bool)', () => {
  const tok = (p: Record<string, unknown>) => signJwt(p, { alg: 'HS256', key: SECRET });
  for (const claim of ['exp', 'nbf', 'iat']) {
    for (const bad of [null, 'tomorrow', String(NOW + 60), { t: NOW + 60 }, [NOW + 60], true]) {
      fails(() => verifyJwt(tok({ sub: 'u', [claim]: bad }), hs, checks()), new RegExp(`^JWTClaimsSetDecodeError "${claim} must be a NumericDate`));
    }
  }
  // absent claims are fine, numbers (also fractional) are fine
  assert.equal(verifyJwt(tok({ sub: 'u' }), hs, checks()).expiresAt, undefined);
  assert.ok(verifyJwt(tok({ sub: 'u', exp: NOW + 60.5, nbf: NOW - 1.5, iat: NOW }), hs, checks()));
});

test('audience (string or list) and issuer', () => {
  const tok = (p: Record<string, unknown>) => signJwt(p, { alg: 'HS256', key: SECRET });
  assert.ok(verifyJwt(tok({ aud: 'app' }), hs, checks({ audience: ['app', 'other'] })));
  assert.ok(verifyJwt(tok({ aud: ['x', 'other'] }), hs, checks({ audience: ['app', 'other'] })));
  fails(() => verifyJwt(tok({ aud: 'rubbish' }), hs, checks({ audience: ['app'] })), 'JWTNotInAudience');
  fails(() => verifyJwt(tok({}), hs, checks({ audience: ['app'] })), 'JWTNotInAudience');
  assert.ok(verifyJwt(tok({ aud: 'anything' }), hs, checks()));
  assert.ok(verifyJwt(tok({ iss: 'me' }), hs, checks({ issuer: 'me' })));
  fails(() => verifyJwt(tok({ iss: 'rubbish' }), hs, checks({ issuer: 'me' })), 'JWTNotInIssuer');
  fails(() => verifyJwt(tok({}), hs, checks({ issuer: 'me' })), 'JWTNotInIssuer');
});

test('malformed tokens', () => {
  fails(() => verifyJwt('abc.def', hs, checks()), 'JWSError (CompactDecodeError Invalid number of parts: Expected 3 parts; got 2)');
  fails(() => verifyJwt('a b.c.d', hs, checks()), /CompactDecodeError Invalid text/);
  fails(() => verifyJwt(`${Buffer.from('[1]').toString('base64url')}.e30.x`, hs, checks()), /header is not a JSON object/);
  fails(() => verifyJwt(signJwt({}, { alg: 'HS256', key: SECRET, header: { crit: ['exp'] } }), hs, checks()), 'JWSError JWSCritUnprotected');
});
