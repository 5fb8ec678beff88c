/**
 * Request and response transforms end to end: a real engine and database, real handler / webhook servers on
 * 127.0.0.1. An action calling a REST-style endpoint (GET, templated URL and query params, a form-urlencoded
 * body, a header from the session), a response transform reshaping the answer, an async action, an event
 * trigger with a transformed URL and body (and its invocation log), `test_webhook_transform`, metadata-time
 * validation (nothing stored), and the export / replace round trip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { startWebhookServer, type HookRequest } from '../support/webhookServer.js';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli, type CliIo } from '../../src/cli/index.js';

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function ok(e: TestEngine, body: unknown) {
  const r = await e.query(body);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

const TYPES = {
  objects: [{ name: 'Greeting', fields: [{ name: 'id', type: 'Int!' }, { name: 'text', type: 'String!' }, { name: 'status', type: 'Int' }] }],
};

const REQUEST_TRANSFORM = {
  version: 2,
  template_engine: 'Kriti',
  method: 'GET',
  url: '{{$base_url}}/people/{{$body.input.id}}',
  query_params: { lang: '{{$body.input.lang}}', user: '{{$session_variables["x-svc-user-id"]}}' },
  request_headers: { add_headers: { 'x-user': '{{getSessionVariable("x-svc-user-id")}}' }, remove_headers: ['x-drop'] },
  body: { action: 'x_www_form_urlencoded', form_template: { who: '{{$body.input.name}}', action: '{{$body.action.name}}' } },
};
const RESPONSE_TRANSFORM = {
  version: 2,
  template_engine: 'Kriti',
  body: { action: 'transform', template: '{"id": {{$body.person.pid}}, "text": "Hello {{$body.person.display}}", "status": {{$response.status}}}' },
};

test('an action calls a REST endpoint through a request transform and its answer is reshaped', { timeout: 60_000 }, async () => {
  const hook = await startWebhookServer(() => ({ status: 200, body: { person: { pid: 7, display: 'Ann Lee' } } }));
  const base = new URL(hook.url).origin;
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    await ok(e, { type: 'set_custom_types', args: TYPES });
    const definition = {
      type: 'query', arguments: [{ name: 'id', type: 'Int!' }, { name: 'lang', type: 'String!' }, { name: 'name', type: 'String!' }],
      output_type: 'Greeting', handler: `${base}/api`, headers: [{ name: 'x-drop', value: 'gone' }, { name: 'x-keep', value: 'kept' }],
      request_transform: REQUEST_TRANSFORM, response_transform: RESPONSE_TRANSFORM,
    };
    await ok(e, { type: 'create_action', args: { name: 'greet', definition } });
    await ok(e, { type: 'create_action_permission', args: { action: 'greet', role: 'user' } });
    const r = await e.graphql('{ greet(id: 7, lang: "en gb", name: "Ann Lee") { id text status } }', undefined, { 'x-svc-role': 'user', 'x-svc-user-id': '42' });
    assert.deepEqual(r.body, { data: { greet: { id: 7, text: 'Hello Ann Lee', status: 200 } } });
    assert.equal(hook.requests.length, 1);
    const seen = hook.requests[0] as HookRequest;
    assert.equal(seen.method, 'GET');
    assert.equal(seen.url, '/api/people/7?lang=en%20gb&user=42');
    assert.equal(seen.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(seen.headers['x-user'], '42');
    assert.equal(seen.headers['x-keep'], 'kept');
    assert.equal(seen.headers['x-drop'], undefined);
    assert.equal(seen.body, 'who=Ann%20Lee&action=greet');

    // stored and exported as given; replace_metadata with the export keeps it working
    const exported = await ok(e, { type: 'export_metadata', args: {} });
    const action = exported.actions.find((a: { name: string }) => a.name === 'greet');
    assert.deepEqual(action.definition.request_transform, { ...REQUEST_TRANSFORM });
    assert.deepEqual(action.definition.response_transform, RESPONSE_TRANSFORM);
    await ok(e, { type: 'replace_metadata', args: exported });
    const again = await e.graphql('{ greet(id: 7, lang: "fr", name: "Bo") { text } }', undefined, { 'x-svc-role': 'user', 'x-svc-user-id': '1' });
    assert.deepEqual(again.body, { data: { greet: { text: 'Hello Ann Lee' } } });
    assert.equal(hook.requests[1]!.url, '/api/people/7?lang=fr&user=1');

    // a template that fails at run time: Hasura's error with the Kriti position (admin sees it too)
    await ok(e, {
      type: 'update_action',
      args: { name: 'greet', definition: { ...definition, response_transform: { version: 2, body: { action: 'transform', template: '{"id": {{$body.nope}}}' } } } },
    });
    const bad = await e.graphql('{ greet(id: 1, lang: "x", name: "y") { id } }', undefined, { 'x-svc-role': 'user', 'x-svc-user-id': '1' });
    assert.equal(bad.body.errors[0].message, 'Response Transformation Failed');
    assert.equal(bad.body.errors[0].extensions.code, 'validation-failed');
  } finally {
    await e.stop();
    await hook.stop();
  }
});

test('an asynchronous action sends the transformed request', { timeout: 60_000 }, async () => {
  const hook = await startWebhookServer(() => ({ status: 200, body: { person: { pid: 3, display: 'Async' } } }));
  const base = new URL(hook.url).origin;
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    await ok(e, { type: 'set_custom_types', args: TYPES });
    await ok(e, {
      type: 'create_action',
      args: {
        name: 'greetLater',
        definition: {
          kind: 'asynchronous', arguments: [{ name: 'name', type: 'String!' }], output_type: 'Greeting', handler: `${base}/hook`,
          request_transform: { version: 1, method: 'PUT', url: '{{$base_url}}/v1', body: '{"n": {{$body.input.name}}}' },
          response_transform: { version: 1, body: '{"id": {{$body.person.pid}}, "text": {{$body.person.display}}}' },
        },
      },
    });
    const m = await e.graphql('mutation { greetLater(name: "Zed") }');
    const id = m.body.data.greetLater;
    const done = await until(async () => {
      const r = await e.graphql(`{ greetLater(id: "${id}") { output { id text } errors } }`);
      return r.body.data?.greetLater?.output ? r.body.data.greetLater : undefined;
    });
    assert.deepEqual(done.output, { id: 3, text: 'Async' });
    assert.equal(hook.requests[0]!.method, 'PUT');
    assert.equal(hook.requests[0]!.url, '/hook/v1');
    assert.deepEqual(hook.requests[0]!.body, { n: 'Zed' });
  } finally {
    await e.stop();
    await hook.stop();
  }
});

test('an event trigger delivers the transformed request, and the invocation log records it', { timeout: 60_000 }, async () => {
  const hook = await startWebhookServer(() => ({ status: 200, body: { ok: true } }));
  const base = new URL(hook.url).origin;
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    await e.runSql('CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL)');
    await ok(e, { type: 'track_table', args: { schema: 'public', name: 'note' } });
    const request_transform = {
      version: 2, template_engine: 'Kriti', url: '{{$base_url}}/notes/{{$body.event.data.new.id}}',
      body: { action: 'transform', template: '{"text": {{$body.event.data.new.body}}, "op": {{$body.event.op}}, "table": {{$body.table.name}}}' },
      request_headers: { add_headers: { 'x-trigger': '{{$body.trigger.name}}' } },
    };
    await ok(e, {
      type: 'create_event_trigger',
      args: { table: { schema: 'public', name: 'note' }, name: 'note_hook', insert: { columns: '*' }, webhook: base, request_transform },
    });
    await e.runSql("INSERT INTO note (body) VALUES ('hello')");
    const seen = await until(() => hook.requests[0]);
    assert.equal(seen.method, 'POST');
    assert.equal(seen.url, '/notes/1');
    assert.deepEqual(seen.body, { text: 'hello', op: 'INSERT', table: 'note' });
    assert.equal(seen.headers['x-trigger'], 'note_hook');
    const logs = await until(async () => {
      const r = await ok(e, { type: 'run_sql', args: { sql: 'SELECT status, request::text FROM hdb_catalog.event_invocation_logs' } });
      return r.result.length > 1 ? r.result.slice(1) : undefined;
    });
    assert.equal(logs[0][0], '200');
    assert.deepEqual(JSON.parse(logs[0][1]).payload, { text: 'hello', op: 'INSERT', table: 'note' });
    const exported = await ok(e, { type: 'export_metadata', args: {} });
    assert.deepEqual(exported.tables[0].event_triggers[0].request_transform, request_transform);

    // through Hasura v2's /v1/metadata name too
    const v2 = await e.request('POST', '/v1/metadata', {
      type: 'pg_create_event_trigger',
      args: { source: 'default', table: { schema: 'public', name: 'note' }, name: 'note_hook2', update: { columns: '*' }, webhook: base, request_transform },
    });
    assert.equal(v2.status, 200, v2.text);
  } finally {
    await e.stop();
    await hook.stop();
  }
});

test('an event trigger\'s response_transform reshapes the answer its invocation log keeps; a failing one fails the attempt', { timeout: 60_000 }, async () => {
  const hook = await startWebhookServer((req) => ({ status: 200, body: { result: { id: 41, path: req.url } } }));
  const base = new URL(hook.url).origin;
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    await e.runSql('CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL)');
    await ok(e, { type: 'track_table', args: { schema: 'public', name: 'note' } });
    const response_transform = {
      version: 2, template_engine: 'Kriti',
      body: { action: 'transform', template: '{"seen": {{$body.result.id}}, "status": {{$response.status}}, "sent_to": {{$request.$base_url}}, "op": {{$request.$body.event.op}}}' },
    };
    await ok(e, {
      type: 'create_event_trigger',
      args: {
        table: { schema: 'public', name: 'note' }, name: 'note_hook', insert: { columns: '*' }, webhook: `${base}/hook`, response_transform,
        request_transform: { version: 2, template_engine: 'Kriti', url: '{{$base_url}}/{{$body.event.data.new.id}}' },
      },
    });
    // a template that fails on this answer: a missing key
    await ok(e, {
      type: 'create_event_trigger',
      args: {
        table: { schema: 'public', name: 'note' }, name: 'note_bad', update: { columns: '*' }, webhook: `${base}/bad`,
        retry_conf: { num_retries: 0, interval_sec: 1, timeout_sec: 10 },
        response_transform: { version: 2, template_engine: 'Kriti', body: { action: 'transform', template: '{"x": {{$body.nope.deeper}}}' } },
      },
    });
    await e.runSql("INSERT INTO note (body) VALUES ('hello')");
    const sql = (q: string) => ok(e, { type: 'run_sql', args: { sql: q } });
    const logged = await until(async () => {
      const r = await sql("SELECT l.status, l.response::text FROM hdb_catalog.event_invocation_logs l JOIN hdb_catalog.event_log v ON v.id = l.event_id WHERE v.trigger_name = 'note_hook'");
      return r.result.length > 1 ? r.result[1] : undefined;
    });
    assert.equal(hook.requests[0].url, '/hook/1', 'the request transform still applies');
    assert.equal(logged[0], '200');
    const response = JSON.parse(logged[1]);
    assert.equal(response.type, 'webhook_response');
    assert.deepEqual(JSON.parse(response.data.body), { seen: 41, status: 200, sent_to: `${base}/hook`, op: 'INSERT' });
    const delivered = await sql("SELECT delivered::text, error::text FROM hdb_catalog.event_log WHERE trigger_name = 'note_hook'");
    assert.deepEqual(delivered.result[1], ['true', 'false']);

    await e.runSql("UPDATE note SET body = 'again'");
    const failed = await until(async () => {
      const r = await sql("SELECT l.status, l.response::text, v.error::text FROM hdb_catalog.event_invocation_logs l JOIN hdb_catalog.event_log v ON v.id = l.event_id WHERE v.trigger_name = 'note_bad'");
      return r.result.length > 1 && r.result[1][2] === 'true' ? r.result[1] : undefined;
    });
    assert.equal(hook.requests.some((r) => r.url === '/bad'), true, 'the webhook was called');
    assert.equal(failed[0], '500');
    const err = JSON.parse(failed[1]);
    assert.equal(err.type, 'client_error');
    assert.match(err.data.message, /^Response Transformation Failed/);
    assert.match(err.data.message, /nope/);

    const exported = await ok(e, { type: 'export_metadata', args: {} });
    assert.deepEqual(exported.tables[0].event_triggers.find((t: { name: string }) => t.name === 'note_hook').response_transform, response_transform);
  } finally {
    await e.stop();
    await hook.stop();
  }
});

test('test_webhook_transform answers the transformed request; bad templates are refused and nothing is stored', { timeout: 60_000 }, async () => {
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    const r = await e.request('POST', '/v1/metadata', {
      type: 'test_webhook_transform',
      args: {
        webhook_url: 'http://example.test/{{H4_TRANSFORM_PATH}}',
        env: { H4_TRANSFORM_PATH: 'users' },
        body: { input: { id: 5, name: 'x y' } },
        session_variables: { 'x-svc-user-id': '9' },
        request_transform: {
          version: 2, method: 'GET', url: '{{$base_url}}/{{$body.input.id}}', query_params: { q: '{{$body.input.name}}' },
          request_headers: { add_headers: { 'x-user': '{{$session_variables["x-svc-user-id"]}}' } },
          body: { action: 'transform', template: '{"name": {{$body.input.name}}}' },
        },
      },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, {
      method: 'GET',
      webhook_url: 'http://example.test/users/5?q=x%20y',
      body: { name: 'x y' },
      headers: [['content-type', 'application/json'], ['x-user', '9']],
    });
    const failed = await e.request('POST', '/v1/metadata', {
      type: 'test_webhook_transform',
      args: { webhook_url: 'http://h.test', body: {}, request_transform: { version: 2, body: { action: 'transform', template: '{\n  "a": {{$body.missing}}\n}' } } },
    });
    assert.equal(failed.status, 400);
    assert.deepEqual(failed.body, {
      code: 'validation-failed', error: 'Request Transformation Failed', path: '$',
      internal: [{ error_code: 'Attribute Error', message: "'Object' has no attribute 'missing'", source_position: { start_line: 1, start_column: 9, end_line: 1, end_column: 22 } }],
    });

    // a template that does not parse: refused at metadata time, nothing stored
    await ok(e, { type: 'set_custom_types', args: TYPES });
    const before = await ok(e, { type: 'export_metadata', args: {} });
    const refused = await e.query({
      type: 'create_action',
      args: { name: 'broken', definition: { arguments: [], output_type: 'Greeting', handler: 'http://h.test', request_transform: { version: 2, body: { action: 'transform', template: '{"a": {{ $body.x }' } } } },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'parse-failed');
    assert.equal(refused.body.path, '$.definition.request_transform.body.template');
    assert.deepEqual(await ok(e, { type: 'export_metadata', args: {} }), before);
  } finally {
    await e.stop();
  }
});

test('metadata export / apply through the CLI keeps the transforms (actions.yaml, tables.yaml) and they still apply', { timeout: 60_000 }, async () => {
  const hook = await startWebhookServer(() => ({ status: 200, body: { person: { pid: 1, display: 'Cli' } } }));
  const base = new URL(hook.url).origin;
  const e = await startTestEngine({ adminSecret: 'k' });
  const dir = await mkdtemp(join(tmpdir(), 'svc-transforms-'));
  const cli = (): CliIo => ({ out: () => {}, err: () => {}, progress: () => {}, env: { SVC_GRAPHQL_ENDPOINT: e.url, SVC_GRAPHQL_ADMIN_SECRET: 'k' }, color: false });
  try {
    await e.runSql('CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL)');
    await ok(e, { type: 'track_table', args: { schema: 'public', name: 'note' } });
    await ok(e, { type: 'set_custom_types', args: TYPES });
    await ok(e, {
      type: 'create_action',
      args: { name: 'greet', definition: { type: 'query', arguments: [{ name: 'id', type: 'Int!' }, { name: 'lang', type: 'String!' }, { name: 'name', type: 'String!' }], output_type: 'Greeting', handler: `${base}/api`, request_transform: REQUEST_TRANSFORM, response_transform: RESPONSE_TRANSFORM } },
    });
    await ok(e, { type: 'create_event_trigger', args: { table: 'note', name: 'note_hook', insert: { columns: '*' }, webhook: base, request_transform: { version: 1, body: '{"b": {{$body.event.data.new.body}}}', method: 'PUT' } } });
    const before = await ok(e, { type: 'export_metadata', args: {} });
    assert.equal(await runCli('metadata', ['export', '--dir', dir], cli()), 0);
    assert.match(await readFile(join(dir, 'actions.yaml'), 'utf8'), /request_transform:[\s\S]*x_www_form_urlencoded[\s\S]*response_transform:/);
    assert.match(await readFile(join(dir, 'tables.yaml'), 'utf8'), /request_transform:/);
    await ok(e, { type: 'clear_metadata', args: {} });
    assert.equal(await runCli('metadata', ['apply', '--dir', dir], cli()), 0);
    const after = await ok(e, { type: 'export_metadata', args: {} });
    // (the CLI layout writes custom types in its own normal form; actions and tables come back as they were)
    assert.deepEqual(after.actions, before.actions);
    assert.deepEqual(after.tables, before.tables);
    const r = await e.graphql('{ greet(id: 2, lang: "de", name: "N") { id text } }', undefined, { 'x-svc-user-id': '5' });
    assert.deepEqual(r.body, { data: { greet: { id: 1, text: 'Hello Cli' } } });
    assert.equal(hook.requests[0]!.url, '/api/people/2?lang=de&user=5');
    await e.runSql("INSERT INTO note (body) VALUES ('n1')");
    const delivered = await until(() => hook.requests.find((x) => x.method === 'PUT'));
    assert.deepEqual(delivered.body, { b: 'n1' });
  } finally {
    await e.stop();
    await hook.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
