import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSessionHeaders } from '../../../src/core/index.js';

test('x-svc-* headers become lower-cased session variables; the names set apart are kept out of them', () => {
  const { vars, apart } = splitSessionHeaders(
    { 'X-Svc-Role': 'user', 'x-svc-user-id': '7', 'X-SVC-Admin-Secret': 's', 'x-svc-tags': ['a', 'b'], authorization: 'Bearer t', 'x-svc-none': undefined },
    ['x-svc-admin-secret', 'x-svc-access-key'],
  );
  assert.deepEqual(vars, { 'x-svc-role': 'user', 'x-svc-user-id': '7', 'x-svc-tags': 'a,b' });
  assert.deepEqual(apart, { 'x-svc-admin-secret': 's' });
});
