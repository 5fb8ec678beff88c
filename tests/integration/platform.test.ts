/**
 * The engine over real HTTP: health, version, 404/405 shapes, CORS, request ids, body limit,
 * enabled-APIs gating, invalid JSON on /v1/query.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestEngine, type TestEngine } from './harness.js';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const NOT_FOUND = { path: '$', error: 'resource does not exist', code: 'not-found' };

let e: TestEngine;
before(async () => {
  e = await startTestEngine({ adminSecret: 'sekret' });
});
after(() => e?.stop());

test('GET /healthz answers OK as plain text', async () => {
  const r = await e.request('GET', '/healthz');
  assert.equal(r.status, 200);
  assert.equal(r.text, 'OK');
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
});

test('GET /v1/version returns the package version', async () => {
  const r = await e.request('GET', '/v1/version');
  assert.equal(r.status, 200);
  assert.deepEqual(r.body, { version: pkg.version });
  assert.match(r.headers.get('content-type') ?? '', /^application\/json/);
});

test('unknown paths are 404 with Hasura\'s body; a wrong method is 405', async () => {
  for (const path of ['/', '/v1/nothing', '/healthz/', '/v3/query']) {
    const r = await e.request('GET', path);
    assert.equal(r.status, 404, path);
    assert.deepEqual(r.body, NOT_FOUND, path);
  }
  const r = await e.request('POST', '/v1/version', {});
  assert.equal(r.status, 405);
  assert.equal(r.body.path, '$');
  assert.equal(r.headers.get('allow'), 'GET');
});

test('every response carries a request id, echoing the client\'s', async () => {
  const mine = await e.request('GET', '/healthz', undefined, { 'x-request-id': 'abc-123' });
  assert.equal(mine.headers.get('x-request-id'), 'abc-123');
  const generated = await e.request('GET', '/healthz');
  assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('CORS: preflight from any origin is answered 204 with the requested headers', async () => {
  const res = await fetch(e.url + '/v1/graphql', {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-svc-role' },
  });
  assert.equal(res.status, 204);
  assert.equal(res.headers.get('access-control-allow-origin'), 'https://app.example.com');
  assert.equal(res.headers.get('access-control-allow-credentials'), 'true');
  assert.equal(res.headers.get('access-control-allow-headers'), 'content-type,x-svc-role');
  assert.match(res.headers.get('access-control-allow-methods') ?? '', /POST/);
  assert.equal(res.headers.get('access-control-max-age'), '1728000');
});

test('CORS: simple requests get the origin reflected; no Origin, no CORS headers', async () => {
  const withOrigin = await e.request('GET', '/v1/version', undefined, { origin: 'http://localhost:3000' });
  assert.equal(withOrigin.headers.get('access-control-allow-origin'), 'http://localhost:3000');
  const without = await e.request('GET', '/v1/version');
  assert.equal(without.headers.get('access-control-allow-origin'), null);
});

test('CORS: only listed origins with --cors-domain; none at all with --disable-cors', async () => {
  const listed = await startTestEngine({ corsDomain: ['https://*.foo.com'] });
  const disabled = await startTestEngine({ disableCors: true });
  try {
    const ok = await listed.request('GET', '/v1/version', undefined, { origin: 'https://a.foo.com' });
    assert.equal(ok.headers.get('access-control-allow-origin'), 'https://a.foo.com');
    const refused = await listed.request('GET', '/v1/version', undefined, { origin: 'https://evil.com' });
    assert.equal(refused.headers.get('access-control-allow-origin'), null);
    const off = await disabled.request('GET', '/v1/version', undefined, { origin: 'https://a.foo.com' });
    assert.equal(off.headers.get('access-control-allow-origin'), null);
    const preflight = await fetch(disabled.url + '/v1/version', { method: 'OPTIONS', headers: { origin: 'https://a.foo.com' } });
    assert.equal(preflight.headers.get('access-control-allow-origin'), null);
    assert.notEqual(preflight.status, 204);
  } finally {
    await Promise.all([listed.stop(), disabled.stop()]);
  }
});

test('disabled APIs are 404; healthz and version stay', async () => {
  const g = await startTestEngine({ enabledApis: new Set(['graphql']) });
  try {
    for (const [method, path] of [['POST', '/v1/query'], ['GET', '/v1alpha1/config'], ['POST', '/v1/graphql/explain'], ['POST', '/v1alpha1/pg_dump']] as const) {
      const r = await g.request(method, path, method === 'POST' ? {} : undefined);
      assert.equal(r.status, 404, path);
      assert.deepEqual(r.body, NOT_FOUND, path);
    }
    assert.equal((await g.request('GET', '/healthz')).status, 200);
    assert.equal((await g.request('GET', '/v1/version')).status, 200);
  } finally {
    await g.stop();
  }
});

test('invalid JSON on /v1/query is a 400 invalid-json', async () => {
  const r = await e.request('POST', '/v1/query', '{"type": "run_sql", ');
  assert.equal(r.status, 400);
  assert.equal(r.body.code, 'invalid-json');
  assert.equal(r.body.path, '$');
});
