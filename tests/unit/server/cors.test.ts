import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corsPolicy, originAllowed } from '../../../src/server/cors.js';

test('"*" allows any origin', () => {
  assert.equal(originAllowed('https://anything.example', '*'), true);
});

test('exact origins, one-level wildcard subdomains and wildcard ports', () => {
  const domains = ['https://app.example.com', 'https://*.foo.com', 'http://localhost:*', 'http://127.0.0.1:3000'];
  const allowed = ['https://app.example.com', 'https://a.foo.com', 'https://A.foo.com', 'http://localhost:3000', 'http://localhost:8080', 'http://localhost', 'http://127.0.0.1:3000'];
  const refused = [
    'http://app.example.com', // scheme differs
    'https://app.example.com:8443', // port differs
    'https://foo.com', // wildcard needs a subdomain
    'https://a.b.foo.com', // one level only
    'https://evilfoo.com',
    'https://a.foo.com.evil.io',
    'http://127.0.0.1:3001',
    'null',
  ];
  for (const o of allowed) assert.equal(originAllowed(o, domains), true, o);
  for (const o of refused) assert.equal(originAllowed(o, domains), false, o);
});

test('allowed origins are reflected with credentials; others get no headers; disabled means no policy', () => {
  const policy = corsPolicy(['https://*.foo.com'], false)!;
  const h = policy.headersFor('https://x.foo.com');
  assert.equal(h?.['access-control-allow-origin'], 'https://x.foo.com');
  assert.equal(h?.['access-control-allow-credentials'], 'true');
  assert.equal(h?.['access-control-allow-methods'], 'GET,POST,PUT,PATCH,DELETE,OPTIONS');
  assert.equal(policy.headersFor('https://x.bar.com'), undefined);
  assert.equal(corsPolicy('*', true), undefined);
});
