/**
 * Request and response transforms (src/transforms): decoding with metadata-time validation (versions 1 and 2),
 * and their application to a webhook request / a handler's answer with Hasura's template variables.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import {
  applyRequestTransform, applyResponseTransform, decodeRequestTransform, decodeResponseTransform, requestBindings, type WebhookRequest,
} from '../../../src/transforms/index.js';

const base: WebhookRequest = {
  method: 'POST',
  url: 'http://h.test/api?keep=1',
  headers: { 'content-type': 'application/json', 'x-remove': 'y' },
  body: { action: { name: 'getUser' }, input: { id: 7, name: 'Ann Lee' }, session_variables: { 'x-svc-role': 'user', 'x-svc-user-id': '42' } },
  bodyKind: 'json',
};
const ctx = { sessionVariables: { 'x-svc-role': 'user', 'x-svc-user-id': '42' } };

test('version 2: method, url, query params, headers and a form-urlencoded body', () => {
  const rt = decodeRequestTransform(
    {
      version: 2,
      template_engine: 'Kriti',
      method: 'get',
      url: '{{$base_url}}/users/{{$body.input.id}}',
      query_params: { name: '{{$body.input.name}}', flag: null },
      request_headers: { add_headers: { 'X-User': '{{getSessionVariable("x-svc-user-id")}}' }, remove_headers: ['X-Remove'] },
      body: { action: 'x_www_form_urlencoded', form_template: { who: '{{$body.input.name}}', id: '{{$body.input.id}}' } },
    },
    '$.definition.request_transform',
  );
  assert.equal(rt.method, 'GET');
  const out = applyRequestTransform(rt, { ...base, url: 'http://h.test/api' }, ctx);
  assert.equal(out.method, 'GET');
  assert.equal(out.url, 'http://h.test/api/users/7?name=Ann%20Lee&flag');
  assert.equal(out.body, 'who=Ann%20Lee&id=7');
  assert.equal(out.bodyKind, 'raw');
  assert.deepEqual(out.headers, { 'content-type': 'application/x-www-form-urlencoded', 'x-user': '42' });
});

test('version 2: body transform and remove, query params as one template', () => {
  const t = applyRequestTransform(decodeRequestTransform({ version: 2, body: { action: 'transform', template: '{"id": {{$body.input.id}}, "s": {{$session_variables}}}' }, query_params: 'a={{$body.input.id}}&k={{$query_params.keep}}' }, '$'), base, ctx);
  assert.deepEqual(t.body, { id: 7, s: ctx.sessionVariables });
  assert.equal(t.url, 'http://h.test/api?a=7&k=1');
  const r = applyRequestTransform(decodeRequestTransform({ version: 2, body: { action: 'remove' } }, '$'), base, ctx);
  assert.equal(r.bodyKind, 'none');
  assert.equal(r.headers['content-type'], undefined);
});

test('version 1: body template string with content_type', () => {
  const json = applyRequestTransform(decodeRequestTransform({ version: 1, body: '{"n": {{$body.input.name}}}' }, '$'), base, ctx);
  assert.deepEqual(json.body, { n: 'Ann Lee' });
  const form = applyRequestTransform(
    decodeRequestTransform({ version: 1, body: '{"n": {{$body.input.name}}, "i": {{$body.input.id}}}', content_type: 'application/x-www-form-urlencoded' }, '$'),
    base,
    ctx,
  );
  assert.equal(form.body, 'n=Ann%20Lee&i=7');
  assert.equal(form.headers['content-type'], 'application/x-www-form-urlencoded');
});

test('metadata-time validation: bad templates and shapes are refused with parse-failed at their path', () => {
  const refuse = (v: unknown, path: string, message: RegExp) => {
    assert.throws(() => decodeRequestTransform(v, '$.definition.request_transform'), (e: unknown) => e instanceof ApiError && e.code === 'parse-failed' && e.path === path && message.test(e.message));
  };
  refuse({ version: 2, body: { action: 'transform', template: '{"a": {{ $body.x }' } }, '$.definition.request_transform.body.template', /Kriti template parse error at line 0/);
  refuse({ url: '{{ $base_url' }, '$.definition.request_transform.url', /parse error/);
  refuse({ version: 3 }, '$.definition.request_transform.version', /expected 1 or 2/);
  refuse({ version: 2, body: '{}' }, '$.definition.request_transform.body', /expected Object/);
  refuse({ template_engine: 'Go' }, '$.definition.request_transform.template_engine', /Kriti/);
  refuse({ version: 2, body: { action: 'zip' } }, '$.definition.request_transform.body.action', /unknown body action/);
  refuse({ content_type: 'text/plain' }, '$.definition.request_transform.content_type', /content_type/);
  assert.throws(() => decodeResponseTransform({ version: 2, body: { action: 'transform', template: '{{ if }}' } }, '$'), ApiError);
});

test('evaluation errors are "Request Transformation Failed" with the Kriti error and position', () => {
  const rt = decodeRequestTransform({ version: 2, body: { action: 'transform', template: '{"a": {{$body.nope}}}' } }, '$');
  assert.throws(
    () => applyRequestTransform(rt, base, ctx),
    (e: unknown) =>
      e instanceof ApiError && e.code === 'validation-failed' && e.message === 'Request Transformation Failed' &&
      JSON.stringify(e.internal) === JSON.stringify([{ error_code: 'Attribute Error', message: "'Object' has no attribute 'nope'", source_position: { start_line: 0, start_column: 8, end_line: 0, end_column: 18 } }]),
  );
});

test('response transform: $body, $request, $response.status; remove gives null', () => {
  const rt = decodeResponseTransform({ version: 2, body: { action: 'transform', template: '{"id": {{$body.user_id}}, "st": {{$response.status}}, "in": {{$request.$body.input.id}}}' } }, '$');
  const request = requestBindings(base, ctx);
  assert.deepEqual(applyResponseTransform(rt, { user_id: 9 }, { ...request, $body: base.body }, 200, ctx), { id: 9, st: 200, in: 7 });
  assert.equal(applyResponseTransform(decodeResponseTransform({ body: { action: 'remove' } }, '$'), { a: 1 }, request, 200, ctx), null);
  assert.deepEqual(applyResponseTransform(decodeResponseTransform({ version: 1, body: '{{$body.a}}' }, '$'), { a: [1] }, request, 200, ctx), [1]);
  assert.throws(() => applyResponseTransform(rt, {}, request, 200, ctx), (e: unknown) => e instanceof ApiError && e.message === 'Response Transformation Failed');
});
