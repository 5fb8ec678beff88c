import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { extractClaims, sessionFromClaims } from '../../../src/auth/jwtClaims.js';
import { parseJwtSettings } from '../../../src/auth/jwtSettings.js';

const KEY = 'k'.repeat(32);
const loc = (extra: Record<string, unknown> = {}) => parseJwtSettings({ type: 'HS256', key: KEY, ...extra }, 0).claims;
const NS = 'https://svc.io/jwt/claims';
const apiFails = (fn: () => unknown, code: string, message: string | RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.code === code && (typeof message === 'string' ? e.message === message : message.test(e.message)));

const good = { 'x-svc-allowed-roles': ['user', 'editor'], 'x-svc-default-role': 'user', 'x-svc-user-id': '1', 'X-Svc-Org': 'acme', other: 'ignored' };

test('claims under the default namespace; only x-svc-* kept, keys lower-cased', () => {
  const c = extractClaims({ [NS]: good }, loc());
  assert.deepEqual([...c.keys()], ['x-svc-allowed-roles', 'x-svc-default-role', 'x-svc-user-id', 'x-svc-org']);
  apiFails(() => extractClaims({ sub: 'x' }, loc()), 'jwt-invalid-claims', "claims key: 'https://svc.io/jwt/claims' not found");
  apiFails(() => extractClaims({ [NS]: 'str' }, loc()), 'jwt-invalid-claims', 'expecting a json object when claims_format is json');
});

test('custom namespace, namespace path (incl. $ root) and stringified_json', () => {
  assert.ok(extractClaims({ myns: good }, loc({ claims_namespace: 'myns' })).has('x-svc-user-id'));
  assert.ok(extractClaims({ svc: { claims: good } }, loc({ claims_namespace_path: '$.svc.claims' })).has('x-svc-user-id'));
  assert.ok(extractClaims({ ...good, sub: 'u' }, loc({ claims_namespace_path: '$' })).has('x-svc-default-role'));
  apiFails(() => extractClaims({ svc: {} }, loc({ claims_namespace_path: '$.svc.claims' })), 'jwt-invalid-claims', "claims not found at claims_namespace_path: '$.svc.claims'");
  const str = loc({ claims_format: 'stringified_json' });
  assert.ok(extractClaims({ [NS]: JSON.stringify(good) }, str).has('x-svc-user-id'));
  apiFails(() => extractClaims({ [NS]: good }, str), 'jwt-invalid-claims', 'expecting a string when claims_format is stringified_json');
  apiFails(() => extractClaims({ [NS]: '{oops' }, str), 'jwt-invalid-claims', `expecting stringified json at: 'claims_namespace ${NS}', but found: {oops`);
});

test('claims_map: literals, paths into the payload, defaults', () => {
  const m = loc({
    claims_map: {
      'x-svc-allowed-roles': { path: '$.roles' },
      'x-svc-default-role': 'user',
      'x-svc-user-id': { path: '$.sub' },
      'x-svc-org': { path: '$.org.id', default: 'none' },
    },
  });
  const c = extractClaims({ sub: 'u7', roles: ['user'] }, m);
  assert.deepEqual(Object.fromEntries(c), { 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user', 'x-svc-user-id': 'u7', 'x-svc-org': 'none' });
  apiFails(() => extractClaims({ sub: 'u7' }, m), 'jwt-missing-role-claims', 'JWT claim does not contain x-svc-allowed-roles');
  apiFails(() => extractClaims({ roles: ['user'] }, m), 'jwt-invalid-claims', /JWT claim from claims_map, x-svc-user-id not found/);
  const s = sessionFromClaims(c, undefined);
  assert.deepEqual(s, { role: 'user', isAdmin: false, vars: { 'x-svc-user-id': 'u7', 'x-svc-org': 'none', 'x-svc-role': 'user' } });
});

test('role: header must be allowed; default role used otherwise and must itself be allowed', () => {
  const c = (o: Record<string, unknown>) => new Map(Object.entries(o));
  assert.equal(sessionFromClaims(c(good), undefined).role, 'user');
  assert.equal(sessionFromClaims(c(good), 'editor').role, 'editor');
  apiFails(() => sessionFromClaims(c(good), 'admin'), 'access-denied', 'Your requested role is not in allowed roles');
  apiFails(() => sessionFromClaims(c({ 'x-svc-allowed-roles': ['editor'], 'x-svc-default-role': 'user' }), undefined), 'access-denied', 'Your requested role is not in allowed roles');
  const admin = sessionFromClaims(c({ 'x-svc-allowed-roles': ['admin'], 'x-svc-default-role': 'admin' }), undefined);
  assert.equal(admin.isAdmin, true);
});

test('missing and malformed role claims', () => {
  const c = (o: Record<string, unknown>) => new Map(Object.entries(o));
  apiFails(() => sessionFromClaims(c({ 'x-svc-default-role': 'user' }), undefined), 'jwt-missing-role-claims', 'JWT claim does not contain x-svc-allowed-roles');
  apiFails(() => sessionFromClaims(c({ 'x-svc-allowed-roles': ['user'] }), undefined), 'jwt-missing-role-claims', 'JWT claim does not contain x-svc-default-role');
  apiFails(() => sessionFromClaims(c({ 'x-svc-allowed-roles': 'user', 'x-svc-default-role': 'user' }), undefined), 'jwt-invalid-claims', 'invalid x-svc-allowed-roles; should be a list of roles: parsing [] failed, expected Array, but encountered String');
  apiFails(() => sessionFromClaims(c({ 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': ['user'] }), undefined), 'jwt-invalid-claims', 'invalid x-svc-default-role; should be a single role name: parsing Text failed, expected String, but encountered Array');
  apiFails(() => sessionFromClaims(c({ ...good, 'x-svc-user-id': 1 }), undefined), 'jwt-invalid-claims', /x-svc-user-id should be a string: parsing Text failed, expected String, but encountered Number/);
});

test('session variables are the x-svc-* claims minus the role claims', () => {
  const s = sessionFromClaims(extractClaims({ [NS]: good }, loc()), 'editor');
  assert.deepEqual(s.vars, { 'x-svc-user-id': '1', 'x-svc-org': 'acme', 'x-svc-role': 'editor' });
});
