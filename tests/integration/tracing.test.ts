/**
 * OpenTelemetry tracing end to end: a real OTLP/HTTP receiver of this test on 127.0.0.1 collects
 * what the engine exports. Off (the default) loads nothing of OpenTelemetry; on, a request carrying
 * a W3C `traceparent` gets a server span in that trace with the GraphQL compile step and each SQL
 * round trip below it (the parameterised statement, never the values), a mutation's one pipeline,
 * and an action's handler call as a client span whose `traceparent` reaches the handler.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { startTestEngine } from './harness.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: Array<{ key: string; value: Record<string, unknown> }>;
}

/** An OTLP/HTTP JSON receiver: every span POSTed to /v1/traces, and the other requests' headers. */
async function startCollector() {
  const spans: OtlpSpan[] = [];
  const hooks: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) spans.push(...ss.spans);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      // Anything else is the action handler.
      hooks.push(req.headers);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": 1}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, spans, hooks, stop: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

const attr = (s: OtlpSpan, key: string): unknown => {
  const v = s.attributes?.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : Object.values(v)[0];
};
// The SDK, exporter and context manager; the bare API package is left out: prom-client requires it
// (for exemplars) whenever it is installed, and it does nothing without an SDK.
const otelModulesLoaded = () => Object.keys(createRequire(import.meta.url).cache).filter((k) => k.includes('@opentelemetry/') && !k.includes('@opentelemetry/api/'));

test('tracing off: nothing of OpenTelemetry is loaded and nothing is sent', async () => {
  const c = await startCollector();
  const e = await startTestEngine({});
  try {
    await e.runSql('CREATE TABLE t (id int PRIMARY KEY)');
    assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 't' } })).status, 200);
    assert.equal((await e.graphql('{ t { id } }', undefined, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' })).status, 200);
  } finally {
    await e.stop();
    await c.stop();
  }
  assert.deepEqual(otelModulesLoaded(), []);
  assert.equal(c.spans.length, 0);
});

test('tracing on: request → compile → SQL spans in the client\'s trace, mutation pipeline, action call with traceparent', async () => {
  const c = await startCollector();
  const e = await startTestEngine({ adminSecret: 'k', otelExporterOtlpEndpoint: c.url, otelServiceName: 'svc-test' });
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const parent = '00f067aa0ba902b7';
  try {
    await e.runSql('CREATE TABLE t (id int PRIMARY KEY, secret text)');
    const setup = await e.query({
      type: 'bulk',
      args: [
        { type: 'track_table', args: { schema: 'public', name: 't' } },
        { type: 'set_custom_types', args: { objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int' }] }] } },
        { type: 'create_action', args: { name: 'ping', definition: { arguments: [], output_type: 'Out', handler: `${c.url}/ping` } } },
      ],
    });
    assert.equal(setup.status, 200, setup.text);
    const q = await e.request('POST', '/v1/graphql', {
      query: 'query Q($s: String!) { t(where: {secret: {_eq: $s}}) { id } }', operationName: 'Q', variables: { s: 'value-never-in-a-span' },
    }, { traceparent: `00-${traceId}-${parent}-01` });
    assert.equal(q.status, 200, q.text);
    const m = await e.graphql('mutation { insert_t_one(object: {id: 1, secret: "x"}) { id } }', undefined, { traceparent: `00-${traceId}-${parent}-01` });
    assert.deepEqual(m.body, { data: { insert_t_one: { id: 1 } } });
    const a = await e.graphql('mutation { ping { id } }', undefined, { traceparent: `00-${traceId}-${parent}-01` });
    assert.deepEqual(a.body, { data: { ping: { id: 1 } } });
  } finally {
    await e.stop(); // flushes the batch processor
  }
  await c.stop();

  assert.deepEqual(otelModulesLoaded().length > 0, true, 'the SDK was loaded for this engine');
  const inTrace = c.spans.filter((s) => s.traceId === traceId);
  const servers = inTrace.filter((s) => s.name === 'POST /v1/graphql');
  assert.equal(servers.length, 3, 'one server span per request, in the client\'s trace');
  for (const s of servers) {
    assert.equal(s.parentSpanId, parent);
    assert.equal(s.kind, 2, 'SERVER');
    assert.equal(attr(s, 'http.response.status_code'), 200);
  }
  const children = (p: OtlpSpan) => inTrace.filter((s) => s.parentSpanId === p.spanId);
  const [query, mutation, action] = servers.sort((x, y) => (children(x).some((s) => s.name === 'pg.pipeline') ? 1 : 0) - (children(y).some((s) => s.name === 'pg.pipeline') ? 1 : 0));

  const qc = children(query!);
  const compile = qc.find((s) => s.name === 'graphql.compile');
  assert.ok(compile, 'a compile span under the request');
  assert.equal(attr(compile!, 'graphql.operation.name'), 'Q');
  assert.equal(attr(compile!, 'graphql.operation.type'), 'query');
  const sqlSpan = qc.find((s) => s.name === 'pg.query');
  assert.ok(sqlSpan, 'the query\'s SQL round trip under the request');
  assert.equal(attr(sqlSpan!, 'db.system'), 'postgresql');
  assert.match(String(attr(sqlSpan!, 'db.statement')), /SELECT/);
  assert.doesNotMatch(JSON.stringify(c.spans), /value-never-in-a-span/, 'values never reach a span');

  const all = [mutation!, action!].flatMap(children);
  const pipeline = all.find((s) => s.name === 'pg.pipeline');
  assert.ok(pipeline, 'the mutation is one pipeline span');
  assert.match(String(attr(pipeline!, 'db.statement')), /INSERT INTO/);

  const call = all.find((s) => s.name.startsWith('POST 127.0.0.1:'));
  assert.ok(call, 'the handler call is a client span under the request');
  assert.equal(call!.kind, 3, 'CLIENT');
  assert.equal(attr(call!, 'http.response.status_code'), 200);
  const tp = String(c.hooks.at(-1)?.traceparent ?? '');
  assert.equal(tp, `00-${traceId}-${call!.spanId}-01`, 'the handler got the trace, with the client span as parent');
});
