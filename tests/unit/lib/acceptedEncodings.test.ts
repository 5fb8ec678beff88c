import { test } from 'node:test';
import assert from 'node:assert/strict';
import { acceptedEncodings } from '../../../src/lib/index.js';

test('Accept-Encoding read for gzip as Hasura reads it', () => {
  const cases: Array<[string | string[] | undefined, boolean, boolean]> = [
    [undefined, false, false],
    ['', false, false],
    ['gzip', true, false],
    ['gzip, deflate, br', true, false],
    ['GZip;q=0.5', true, false],
    ['x-gzip', true, false],
    ['br, deflate', false, false],
    ['gzip;q=0', false, false],
    ['gzip; q=0.0, br', false, false],
    ['gzip, identity;q=0', true, true],
    ['gzip, *;q=0', true, true],
    ['gzip, identity, *;q=0', true, false],
    [['deflate', 'gzip'], true, false],
  ];
  for (const [header, gzip, identityRefused] of cases) assert.deepEqual(acceptedEncodings(header), { gzip, identityRefused }, String(header));
});
