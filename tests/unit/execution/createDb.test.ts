import { test } from 'node:test';
import assert from 'node:assert/strict';
import { beginStatement, escapeLiteral, statementName } from '../../../src/execution/index.js';
import { inHasuraMode, roleSession } from '../../../src/core/index.js';

test('prepared statement names are stable per text, distinct across texts, and valid identifiers', () => {
  const a = statementName('SELECT 1');
  assert.equal(statementName('SELECT 1'), a);
  assert.notEqual(statementName('SELECT 2'), a);
  assert.match(a, /^svc_[A-Za-z0-9_-]+$/);
  assert.ok(a.length <= 63);
});

test('literals escape quotes, and backslashes with the E\'\' form', () => {
  assert.equal(escapeLiteral("it's"), "'it''s'");
  assert.equal(escapeLiteral('a\\b'), " E'a\\\\b'");
  assert.equal(escapeLiteral(''), "''");
});

test('BEGIN carries isolation, read-only and the session variables in one statement', () => {
  assert.equal(beginStatement({}), 'BEGIN');
  assert.equal(beginStatement({ readOnly: true, isolation: 'repeatable read' }), 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  const s = beginStatement({ session: roleSession('user', { 'x-svc-user-id': "1'2" }) });
  assert.equal(s, `BEGIN; SELECT set_config('svc.user', '{"x-svc-user-id":"1''2","x-svc-role":"user"}', true)`);
});

test('in Hasura-compatible mode the same statement also sets hasura.user with x-hasura-* keys; off, the text is the one above', () => {
  const off = roleSession('user', { 'x-svc-user-id': '1' });
  assert.equal(inHasuraMode(off, false), off);
  assert.equal(beginStatement({ session: inHasuraMode(off, false) }), `BEGIN; SELECT set_config('svc.user', '{"x-svc-user-id":"1","x-svc-role":"user"}', true)`);
  assert.equal(
    beginStatement({ session: inHasuraMode(off, true) }),
    `BEGIN; SELECT set_config('svc.user', '{"x-svc-user-id":"1","x-svc-role":"user"}', true), set_config('hasura.user', '{"x-hasura-user-id":"1","x-hasura-role":"user"}', true)`,
  );
});
