/**
 * The read-your-writes header (execution/readRouting.ts): a bare position is `default`'s, `name=position`
 * another source's; what a mutation sends back is what a later request gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { commitPointsHeader, parseLsn, readAfterOf } from '../../../src/execution/index.js';

test('a bare position, per-source positions, the primary, and malformed headers', () => {
  assert.equal(readAfterOf({}), undefined);
  assert.equal(readAfterOf({ 'x-svc-commit-lsn': '0/16B3748' }), parseLsn('0/16B3748'));
  assert.equal(readAfterOf({ 'x-svc-read-primary': 'true', 'x-svc-commit-lsn': '0/1' }), 'primary');
  const header = commitPointsHeader([['default', '0/16B3748'], ['archive', '0/3000060'], ['a,b=c', '1/0']]);
  assert.equal(header, '0/16B3748, archive=0/3000060, a%2Cb%3Dc=1/0');
  assert.deepEqual(readAfterOf({ 'x-svc-commit-lsn': header }), new Map([['default', parseLsn('0/16B3748')], ['archive', parseLsn('0/3000060')], ['a,b=c', parseLsn('1/0')]]));
  // Sent once per response: the later position of a source counts.
  assert.deepEqual(readAfterOf({ 'x-svc-commit-lsn': ['archive=0/5', 'archive=0/3'] }), new Map([['archive', 5n]]));
  for (const bad of ['nope', 'archive=', 'archive=x/1', '=0/1', '0/1,', '%E0%A4%A=0/1']) {
    assert.throws(() => readAfterOf({ 'x-svc-commit-lsn': bad }), (e: unknown) => e instanceof ApiError && e.code === 'bad-request', bad);
  }
});
