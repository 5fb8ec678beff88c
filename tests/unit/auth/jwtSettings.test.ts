import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { parseJwtSettings, AuthConfigError } from '../../../src/auth/jwtSettings.js';
import { rsaPair } from '../../support/jwt.js';

const KEY32 = 'a'.repeat(32);
const parse = (o: unknown) => parseJwtSettings(o, 0);
const refuses = (o: unknown, re: RegExp) =>
  assert.throws(() => parse(o), (e: unknown) => e instanceof AuthConfigError && re.test(e.message) && !e.message.includes('\n'));

test('HS256 needs at least 32 characters, HS384 48, HS512 64', () => {
  refuses({ type: 'HS256', key: 'short' }, /Key size too small; should be atleast 32 characters for HS256/);
  refuses({ type: 'HS384', key: KEY32 }, /atleast 48 characters/);
  refuses({ type: 'HS512', key: 'b'.repeat(63) }, /atleast 64 characters/);
  assert.equal(parse({ type: 'HS256', key: KEY32 }).keySource.kind, 'static');
});

test('RS keys: PEM public key and X509 certificate accepted; EC, private and OpenSSH keys refused', () => {
  const pair = rsaPair();
  assert.equal(parse({ type: 'RS256', key: pair.publicPem }).keySource.kind, 'static');
  const pkcs1 = pair.publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  assert.equal(parse({ type: 'RS512', key: pkcs1 }).keySource.kind, 'static');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  refuses({ type: 'RS256', key: ec.publicKey.export({ type: 'spki', format: 'pem' }).toString() }, /EC keys are not supported/);
  refuses({ type: 'ES256', key: 'x' }, /Key type: ES256 is not supported.*EC/);
  refuses({ type: 'RS256', key: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() }, /a private key was given/);
  refuses({ type: 'RS256', key: 'ssh-rsa AAAAB3NzaC1yc2E user@host' }, /OpenSSH format is not supported/);
  refuses({ type: 'RS256', key: 'garbage' }, /Could not decode PEM/);
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
  refuses({ type: 'RS256', key: small.publicKey.export({ type: 'spki', format: 'pem' }).toString() }, /RSA key size too small \(1024 bits\)/);
});

test('key XOR jwk_url, type with key, namespace XOR path', () => {
  refuses({}, /key and jwk_url both cannot be empty/);
  refuses({ type: 'HS256', key: KEY32, jwk_url: 'http://x/jwks' }, /key, jwk_url both cannot be present/);
  refuses({ key: KEY32 }, /"type" is required with "key"/);
  refuses({ type: 'HS256', key: KEY32, claims_namespace: 'a', claims_namespace_path: '$.b' }, /claims_namespace and claims_namespace_path both cannot be set/);
  refuses({ type: 'HS256', key: KEY32, claims_format: 'xml' }, /claims_format must be "json" or "stringified_json"/);
  refuses({ type: 'HS256', key: KEY32, claims_namespace_path: '$.' }, /invalid JSON path claims_namespace_path/);
  refuses({ type: 'HS256', key: KEY32, audience: 5 }, /"audience" must be a string or a list of strings/);
  refuses({ jwk_url: 'ftp://x/y' }, /jwk_url must be an http\(s\) URL/);
  refuses('{not json', /not valid JSON/);
});

test('defaults: namespace https://svc.io/jwt/claims, format json; audience becomes a list', () => {
  const s = parse(JSON.stringify({ type: 'HS256', key: KEY32, audience: 'app' }));
  assert.deepEqual(s.info, { claims_namespace: 'https://svc.io/jwt/claims', claims_format: 'json' });
  assert.deepEqual(s.audience, ['app']);
  const p = parse({ type: 'HS256', key: KEY32, claims_namespace_path: '$.svc', claims_format: 'stringified_json' });
  assert.deepEqual(p.info, { claims_namespace: '$.svc', claims_format: 'stringified_json' });
});

test('claims_map: both role claims required, literal or {path, default}, x-svc- keys only', () => {
  refuses({ type: 'HS256', key: KEY32, claims_map: { 'x-svc-default-role': 'user' } }, /claims_map: x-svc-allowed-roles is expected but not found/);
  refuses({ type: 'HS256', key: KEY32, claims_map: { 'x-svc-allowed-roles': 'user', 'x-svc-default-role': 'user' } }, /x-svc-allowed-roles must be a list of strings/);
  refuses({ type: 'HS256', key: KEY32, claims_map: { 'x-svc-allowed-roles': ['u'], 'x-svc-default-role': 'u', 'user-id': 'x' } }, /not a session variable/);
  const s = parse({ type: 'HS256', key: KEY32, claims_map: { 'X-Svc-Allowed-Roles': { path: '$.roles' }, 'x-svc-default-role': { path: '$.role', default: 'user' }, 'x-svc-user-id': { path: '$.sub' } } });
  assert.equal(s.claims.kind, 'map');
  if (s.claims.kind === 'map') assert.deepEqual([...s.claims.map.keys()], ['x-svc-allowed-roles', 'x-svc-default-role', 'x-svc-user-id']);
});

test('allowed_skew overrides the configured leeway', () => {
  assert.equal(parseJwtSettings({ type: 'HS256', key: KEY32 }, 30).leewaySeconds, 30);
  assert.equal(parseJwtSettings({ type: 'HS256', key: KEY32, allowed_skew: 5 }, 30).leewaySeconds, 5);
});
