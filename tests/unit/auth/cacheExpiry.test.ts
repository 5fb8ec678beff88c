import { test } from 'node:test';
import assert from 'node:assert/strict';
import { expiryFromHeaders, maxAgeSeconds } from '../../../src/auth/cacheExpiry.js';

test('max-age wins, s-maxage is used without it', () => {
  assert.equal(maxAgeSeconds('public, max-age=300, must-revalidate'), 300);
  assert.equal(maxAgeSeconds('s-maxage=120'), 120);
  assert.equal(maxAgeSeconds('s-maxage=120, max-age=60'), 60);
  assert.equal(maxAgeSeconds('no-cache'), undefined);
});

test('Expires is read only when Cache-Control is absent', () => {
  const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
  assert.equal(expiryFromHeaders(undefined, 'Wed, 21 Oct 2015 07:30:00 GMT', now), 120);
  assert.equal(expiryFromHeaders('no-store', 'Wed, 21 Oct 2015 07:30:00 GMT', now), undefined);
  assert.equal(expiryFromHeaders(undefined, 'not a date', now), undefined);
  assert.equal(expiryFromHeaders(null, null, now), undefined);
});
