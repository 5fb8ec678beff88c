/**
 * The outbound HTTP client and its configuration functions (src/webhooks): env resolution of URLs and
 * headers (SVC_GRAPHQL_* never read), redaction, and postJson against a real local server (status,
 * capped body, timeout, connection refused).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError } from '../../../src/core/index.js';
import { assertEnvNameAllowed, postJson, redactedHeaders, resolveHeaders, resolveUrlTemplate, resolveWebhook } from '../../../src/webhooks/index.js';

test('URL templates and webhook_from_env resolve from the given env, never from SVC_GRAPHQL_*', () => {
  const env = { HOOK: 'http://h:1', SVC_GRAPHQL_ADMIN_SECRET: 'secret' };
  assert.deepEqual(resolveUrlTemplate('{{HOOK}}/path', env), { url: 'http://h:1/path', missing: [] });
  assert.deepEqual(resolveUrlTemplate('{{ NOPE }}/x', env).missing, ['NOPE']);
  assert.deepEqual(resolveWebhook({ webhook_from_env: 'HOOK' }, env), { url: 'http://h:1' });
  assert.deepEqual(resolveWebhook({ webhook_from_env: 'SVC_GRAPHQL_ADMIN_SECRET' }, env), { error: "environment variable 'SVC_GRAPHQL_ADMIN_SECRET' not set" });
  assert.deepEqual(resolveWebhook({ webhook: '{{SVC_GRAPHQL_ADMIN_SECRET}}' }, env), { error: "environment variable 'SVC_GRAPHQL_ADMIN_SECRET' not set" });
});

test('headers from value / value_from_env; env values are redacted for logs', () => {
  const r = resolveHeaders([{ name: 'a', value: '1' }, { name: 'b', value_from_env: 'B' }, { name: 'c', value_from_env: 'C' }], { B: 'two' });
  assert.deepEqual(r.missing, ['C']);
  assert.deepEqual(r.headers, [{ name: 'a', value: '1', fromEnv: false }, { name: 'b', value: 'two', fromEnv: true }]);
  assert.deepEqual(redactedHeaders(r.headers), [{ name: 'a', value: '1' }, { name: 'b', value: '<from env>' }]);
  assert.throws(() => assertEnvNameAllowed('SVC_GRAPHQL_JWT_SECRET', '$.headers[0]'), (e) => e instanceof ApiError && e.code === 'parse-failed' && e.path === '$.headers[0]');
  assertEnvNameAllowed('MY_VAR', '$');
});

test('postJson: status, headers sent, body capped, timeout, refused connection', async (t) => {
  const seen: Array<{ headers: Record<string, unknown>; body: string }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      if (req.url === '/slow') setTimeout(() => res.writeHead(200).end(), 2000);
      else res.writeHead(req.url === '/big' ? 500 : 201, { 'retry-after': '3' }).end(req.url === '/big' ? 'y'.repeat(100_000) : 'ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const ok = await postJson({ url: base + '/', headers: { 'x-a': '1' }, body: '{"k":1}', timeoutMs: 5000, userAgent: 'svc-graphql-engine/test' });
  assert.equal(ok.kind, 'response');
  assert.equal(ok.kind === 'response' && ok.status, 201);
  assert.equal(ok.kind === 'response' && ok.headers['retry-after'], '3');
  assert.equal(seen[0]!.body, '{"k":1}');
  assert.equal(seen[0]!.headers['content-type'], 'application/json');
  assert.equal(seen[0]!.headers['user-agent'], 'svc-graphql-engine/test');
  assert.equal(seen[0]!.headers['x-a'], '1');
  const big = await postJson({ url: base + '/big', headers: {}, body: '{}', timeoutMs: 5000, maxResponseBytes: 1000 });
  assert.ok(big.kind === 'response' && big.body.length === 1000 && big.truncated && big.status === 500);
  const slow = await postJson({ url: base + '/slow', headers: {}, body: '{}', timeoutMs: 200 });
  assert.ok(slow.kind === 'error' && slow.timedOut);
  const refused = await postJson({ url: 'http://127.0.0.1:9/', headers: {}, body: '{}', timeoutMs: 2000 });
  assert.ok(refused.kind === 'error' && !refused.timedOut);
  const bad = await postJson({ url: 'ftp://x', headers: {}, body: '{}', timeoutMs: 2000 });
  assert.ok(bad.kind === 'error' && bad.invalidUrl && /invalid webhook URL/.test(bad.message));
});
