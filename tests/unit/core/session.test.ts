import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hasuraSessionVars, inHasuraMode, roleSession, sessionJson, splitSessionHeaders, withHasuraKeys } from '../../../src/core/index.js';

test('x-svc-* headers become lower-cased session variables; the names set apart are kept out of them', () => {
  const { vars, apart } = splitSessionHeaders(
    { 'X-Svc-Role': 'user', 'x-svc-user-id': '7', 'X-SVC-Admin-Secret': 's', 'x-svc-tags': ['a', 'b'], authorization: 'Bearer t', 'x-svc-none': undefined },
    ['x-svc-admin-secret', 'x-svc-access-key'],
  );
  assert.deepEqual(vars, { 'x-svc-role': 'user', 'x-svc-user-id': '7', 'x-svc-tags': 'a,b' });
  assert.deepEqual(apart, { 'x-svc-admin-secret': 's' });
});

test('Hasura-compatible session JSON: an x-hasura-* twin beside each x-svc-* key, keys already given win; off, the variables as they are', () => {
  const s = roleSession('user', { 'x-svc-user-id': '7', other: 'o' });
  assert.deepEqual(hasuraSessionVars(s.vars), { 'x-hasura-user-id': '7', 'x-hasura-role': 'user', other: 'o' });
  assert.deepEqual(withHasuraKeys({ 'x-svc-user-id': '7', 'x-hasura-user-id': 'given' }), { 'x-svc-user-id': '7', 'x-hasura-user-id': 'given' });
  assert.deepEqual(sessionJson(inHasuraMode(s, true)), { ...s.vars, 'x-hasura-user-id': '7', 'x-hasura-role': 'user' });
  assert.equal(sessionJson(inHasuraMode(s, false)), s.vars);
});
