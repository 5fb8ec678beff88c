/**
 * GET /v1/metrics: Prometheus text (parsed here) with requests by endpoint/kind/status, latency
 * histograms, pool, WebSocket and live-query gauges and schema rebuilds; guarded by the admin
 * secret or the metrics secret; absent when metrics are disabled.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
before(async () => {
  e = await startTestEngine({ adminSecret: 'adm', metricsSecret: 'met' });
  await e.runSql('CREATE TABLE thing (id int PRIMARY KEY, name text); INSERT INTO thing VALUES (1, \'a\');');
  const r = await e.query({ type: 'track_table', args: { schema: 'public', name: 'thing' } });
  assert.equal(r.status, 200, r.text);
});
after(() => e?.stop());

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
/** Parses the Prometheus text exposition format (one sample per non-comment line). */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `a valid sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}
const scrape = async () => {
  const r = await e.request('GET', '/v1/metrics', undefined, { 'x-svc-admin-secret': 'adm' });
  assert.equal(r.status, 200, r.text);
  assert.match(r.headers.get('content-type') ?? '', /^text\/plain/);
  return parse(r.text);
};
const value = (s: Sample[], name: string, labels: Record<string, string> = {}) =>
  s.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v)).reduce((a, x) => a + x.value, 0);

test('requests are counted by endpoint, kind and status, with latency histograms', async () => {
  const before = await scrape();
  for (let i = 0; i < 3; i++) assert.equal((await e.graphql('{ thing { id } }')).status, 200);
  await e.graphql('mutation { insert_thing(objects: [{id: 2, name: "b"}]) { affected_rows } }');
  await e.request('POST', '/v1/graphql', 'not json', { 'content-type': 'application/json' });
  await e.request('GET', '/nope/' + Math.random());
  const s = await scrape();
  const d = (labels: Record<string, string>) => value(s, 'svc_http_requests_total', labels) - value(before, 'svc_http_requests_total', labels);
  assert.equal(d({ endpoint: '/v1/graphql', kind: 'query', status: '200' }), 4, '3 queries + the invalid JSON (answered 200 with errors)');
  assert.equal(d({ endpoint: '/v1/graphql', kind: 'mutation', status: '200' }), 1);
  assert.equal(d({ endpoint: 'unmatched', status: '404' }), 1);
  assert.ok(value(s, 'svc_http_request_duration_seconds_count', { endpoint: '/v1/graphql', kind: 'query' }) >= 4);
  const inf = value(s, 'svc_http_request_duration_seconds_bucket', { endpoint: '/v1/graphql', kind: 'mutation', le: '+Inf' });
  assert.equal(inf, value(s, 'svc_http_request_duration_seconds_count', { endpoint: '/v1/graphql', kind: 'mutation' }));
  assert.ok(value(s, 'svc_http_request_duration_seconds_sum', { endpoint: '/v1/graphql' }) > 0);
  assert.ok(value(s, 'svc_http_requests_total', { endpoint: '/v1/query', kind: 'metadata', status: '200' }) >= 2);
});

test('schema rebuilds, pool and websocket / live-query gauges', async () => {
  const b = value(await scrape(), 'svc_schema_rebuilds_total');
  assert.equal((await e.query({ type: 'reload_metadata', args: {} })).status, 200);
  const s = await scrape();
  assert.ok(value(s, 'svc_schema_rebuilds_total') > b, 'reload counted');
  assert.ok(value(s, 'svc_pg_pool_connections', { state: 'idle' }) + value(s, 'svc_pg_pool_connections', { state: 'in_use' }) >= 1);
  assert.equal(value(s, 'svc_pg_pool_connections', { state: 'waiting' }), 0);

  const ws = new WebSocket(e.url.replace('http', 'ws') + '/v1/graphql', 'graphql-ws', { headers: { 'x-svc-admin-secret': 'adm' } });
  const got = new Promise<void>((resolve, reject) => {
    ws.on('message', (m) => {
      const msg = JSON.parse(String(m));
      if (msg.type === 'connection_ack') ws.send(JSON.stringify({ id: '1', type: 'start', payload: { query: 'subscription { thing { id } }' } }));
      if (msg.type === 'data') resolve();
    });
    ws.on('error', reject);
  });
  ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init', payload: {} })));
  await got;
  const live = await scrape();
  assert.equal(value(live, 'svc_websocket_connections'), 1);
  assert.equal(value(live, 'svc_live_query_cohorts'), 1);
  assert.equal(value(live, 'svc_live_query_subscribers'), 1);
  ws.close();
  const deadline = Date.now() + 10_000;
  while (value(await scrape(), 'svc_websocket_connections') !== 0) {
    assert.ok(Date.now() < deadline, 'the closed socket leaves the gauge');
    await new Promise((r) => setTimeout(r, 50));
  }
});

test('the metrics secret or the admin secret is needed', async () => {
  assert.equal((await e.request('GET', '/v1/metrics', undefined, { 'x-svc-admin-secret': 'no' })).status, 401);
  assert.equal((await e.request('GET', '/v1/metrics', undefined, { 'x-svc-admin-secret': '', authorization: 'Bearer nope' })).status, 401);
  const ok = await e.request('GET', '/v1/metrics', undefined, { 'x-svc-admin-secret': '', authorization: 'Bearer met' });
  assert.equal(ok.status, 200);
  assert.match(ok.text, /# TYPE svc_http_requests_total counter/);
});

test('disabled metrics: no endpoint', async () => {
  const off = await startTestEngine({ enableMetrics: false });
  try {
    assert.equal((await off.request('GET', '/v1/metrics')).status, 404);
    assert.equal(off.engine.ctx.metrics, undefined);
  } finally {
    await off.stop();
  }
});
