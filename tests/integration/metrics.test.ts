/**
 * GET /v1/metrics: Prometheus text (parsed here) with requests by endpoint/kind/status, latency
 * histograms, pool, WebSocket and live-query gauges and schema rebuilds; guarded by the admin
 * secret or the metrics secret; absent when metrics are disabled.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { startTestEngine, type TestEngine } from './harness.js';
import { eventually, startEventReceiver } from '../support/eventReceiver.js';

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

test('delivery queues: depth by state, calls in flight and attempts by outcome for events, scheduled events and async actions', async () => {
  const rx = await startEventReceiver((d) => (d.path === '/fail' ? { status: 500 } : d.path === '/action' ? { status: 200, body: '{"id":7}' } : { status: 200 }));
  try {
    const ok = async (body: unknown) => {
      const r = await e.query(body);
      assert.equal(r.status, 200, r.text);
    };
    await e.runSql('CREATE TABLE IF NOT EXISTS queued (id int PRIMARY KEY)');
    await ok({ type: 'track_table', args: { schema: 'public', name: 'queued' } });
    await ok({ type: 'create_event_trigger', args: { name: 'queued_ok', table: 'queued', insert: { columns: '*' }, webhook: `${rx.url}/ok` } });
    await ok({ type: 'create_event_trigger', args: { name: 'queued_bad', table: 'queued', insert: { columns: '*' }, webhook: `${rx.url}/fail`, retry_conf: { num_retries: 0 } } });
    await ok({ type: 'create_scheduled_event', args: { webhook: `${rx.url}/later`, schedule_at: new Date(Date.now() + 86_400_000).toISOString(), payload: {} } });
    await ok({ type: 'set_custom_types', args: { objects: [{ name: 'Done', fields: [{ name: 'id', type: 'Int' }] }] } });
    await ok({ type: 'create_action', args: { name: 'do_later', definition: { kind: 'asynchronous', arguments: [], output_type: 'Done', handler: `${rx.url}/action` } } });
    const before = await scrape();
    assert.ok(before.some((x) => x.name === 'svc_delivery_queue_depth' && x.labels.queue === 'event'), 'the event queue is listed before any event');

    assert.equal((await e.graphql('mutation { insert_queued(objects: [{id: 1}, {id: 2}]) { affected_rows } }')).status, 200);
    const id = (await e.graphql('mutation { do_later }')).body.data.do_later;
    assert.match(id, /^[0-9a-f-]{36}$/);

    const attempts = (s: Sample[], queue: string, outcome: string) =>
      value(s, 'svc_delivery_attempts_total', { queue, outcome }) - value(before, 'svc_delivery_attempts_total', { queue, outcome });
    const s = await eventually(scrape, (x) => attempts(x, 'event', 'delivered') === 2 && attempts(x, 'event', 'failed') === 2 && attempts(x, 'async_action', 'delivered') === 1, 15_000, 'the attempts counted');
    assert.equal(attempts(s, 'async_action', 'failed'), 0);
    assert.equal(value(s, 'svc_delivery_queue_depth', { queue: 'event', state: 'pending' }), 0, 'every event delivered or failed for good');
    assert.equal(value(s, 'svc_delivery_queue_depth', { queue: 'async_action', state: 'pending' }), 0);
    assert.equal(value(s, 'svc_delivery_queue_depth', { queue: 'scheduled_event', state: 'pending' }), 1, 'the event due tomorrow waits');
    assert.equal(value(s, 'svc_delivery_queue_depth', { queue: 'scheduled_event', state: 'due' }), 0, '... and is not due');
    assert.equal(value(s, 'svc_delivery_in_flight', { queue: 'event' }), 0);
    // The async action's result is stored by the shared delivery engine.
    const r = await e.graphql(`query { do_later(id: "${id}") { output { id } errors } }`);
    assert.deepEqual(r.body, { data: { do_later: { output: { id: 7 }, errors: null } } });
  } finally {
    await rx.stop();
  }
});
