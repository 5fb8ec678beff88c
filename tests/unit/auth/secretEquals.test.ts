import { test } from 'node:test';
import assert from 'node:assert/strict';
import { secretEquals } from '../../../src/auth/secretEquals.js';

test('secretEquals: only the exact secret matches', () => {
  assert.equal(secretEquals('s3cret', 's3cret'), true);
  assert.equal(secretEquals('s3cres', 's3cret'), false);
  assert.equal(secretEquals('S3cret', 's3cret'), false);
  assert.equal(secretEquals('s3cre', 's3cret'), false, 'a prefix');
  assert.equal(secretEquals('s3crett', 's3cret'), false, 'longer');
  assert.equal(secretEquals('s3crets3cret', 's3cret'), false, 'the secret repeated');
  assert.equal(secretEquals('', 's3cret'), false, 'empty');
  assert.equal(secretEquals('s3cret ', 's3cret'), false, 'trailing space');
  assert.equal(secretEquals('ü-secret', 'ü-secret'), true, 'non-ASCII');
  assert.equal(secretEquals('u-secret', 'ü-secret'), false);
});
