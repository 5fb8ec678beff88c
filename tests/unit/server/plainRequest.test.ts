import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePlainRequest, type PlainRequest } from '../../../src/server/plainRequest.js';

const MAX_HEAD = 16 * 1024;
const MAX_BODY = 1000;
const parse = (text: string | Buffer, start = 0) => parsePlainRequest(Buffer.isBuffer(text) ? text : Buffer.from(text, 'latin1'), start, MAX_HEAD, MAX_BODY);
const plain = (text: string): PlainRequest => {
  const r = parse(text);
  assert.equal(typeof r, 'object', `expected a plain request, got ${String(r)}`);
  return r as PlainRequest;
};

test('a POST with a body: method, target, lower-cased headers with trimmed values, body position', () => {
  const text = 'POST /v1/graphql?x=1 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nContent-Type:application/json \r\nX-Svc-Role:\t user\t\r\nContent-Length: 7\r\n\r\n{"a":1}';
  const r = plain(text);
  assert.equal(r.method, 'POST');
  assert.equal(r.url, '/v1/graphql?x=1');
  assert.deepEqual(r.headers, { host: '127.0.0.1:8080', 'content-type': 'application/json', 'x-svc-role': 'user', 'content-length': '7' });
  assert.equal(text.slice(r.bodyStart, r.bodyStart + r.bodyLength), '{"a":1}');
  assert.equal(r.close, false);
});

test('a GET without a body, an empty header value, obs-text kept as latin1, Connection: close', () => {
  const r = plain('GET /healthz HTTP/1.1\r\nhost: x\r\nx-empty:\r\nx-latin: caf\xe9\r\nConnection: Keep-Alive, close\r\n\r\n');
  assert.equal(r.method, 'GET');
  assert.equal(r.bodyLength, 0);
  assert.equal(r.headers['x-empty'], '');
  assert.equal(r.headers['x-latin'], 'café');
  assert.equal(r.close, true);
});

test('parsing starts at the given offset (pipelined requests) and the body may still be arriving', () => {
  const first = 'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi';
  const second = 'POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nab';
  const buf = Buffer.from(first + second);
  const r = parsePlainRequest(buf, first.length, MAX_HEAD, MAX_BODY) as PlainRequest;
  assert.equal(r.url, '/b');
  assert.equal(r.bodyStart, buf.length - 2);
  assert.equal(r.bodyLength, 5);
});

test('a head that has not fully arrived is incomplete; one that never ends within the limit is not plain', () => {
  assert.equal(parse('POST /v1/graphql HTTP/1.1\r\nHost: x\r\nContent-Le'), 'incomplete');
  assert.equal(parse('GET / HTTP/1.1\r\nHost: x\r\n'), 'incomplete');
  assert.equal(parse(''), 'incomplete');
  const long = `GET / HTTP/1.1\r\nHost: x\r\nx-big: ${'a'.repeat(MAX_HEAD)}`;
  assert.equal(parse(long), 'other');
  assert.equal(parse(`${long}\r\n\r\n`), 'other');
});

test('everything that is not a plain request is left to node:http', () => {
  const cases: Record<string, string> = {
    'HTTP/1.0': 'GET / HTTP/1.0\r\nHost: x\r\n\r\n',
    'HTTP/2 preface': 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
    'other method': 'PUT / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n',
    'OPTIONS (CORS preflight)': 'OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n',
    'HEAD': 'HEAD / HTTP/1.1\r\nHost: x\r\n\r\n',
    'lower-case method': 'get / HTTP/1.1\r\nHost: x\r\n\r\n',
    'absolute target': 'GET http://x/ HTTP/1.1\r\nHost: x\r\n\r\n',
    'asterisk target': 'GET * HTTP/1.1\r\nHost: x\r\n\r\n',
    'control byte in target': 'GET /a\x01b HTTP/1.1\r\nHost: x\r\n\r\n',
    'non-ASCII target': 'GET /caf\xe9 HTTP/1.1\r\nHost: x\r\n\r\n',
    'two spaces': 'GET  / HTTP/1.1\r\nHost: x\r\n\r\n',
    'bare LF line ends': 'GET / HTTP/1.1\nHost: x\n\r\n\r\n',
    'no Host': 'GET / HTTP/1.1\r\nx-a: b\r\n\r\n',
    'chunked body': 'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    'POST without Content-Length': 'POST / HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET with a body': 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc',
    'Expect: 100-continue': 'POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n',
    'Upgrade (WebSocket)': 'GET /v1/graphql HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    'Connection: upgrade without Upgrade': 'GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade\r\n\r\n',
    'h2c upgrade settings': 'GET / HTTP/1.1\r\nHost: x\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n\r\n',
    'repeated header': 'GET / HTTP/1.1\r\nHost: x\r\nCookie: a=1\r\nCookie: b=2\r\n\r\n',
    'repeated header, other case': 'GET / HTTP/1.1\r\nHost: x\r\nx-svc-role: a\r\nX-Svc-Role: b\r\n\r\n',
    'repeated Content-Length': 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\na',
    'signed Content-Length': 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +1\r\n\r\na',
    'Content-Length list': 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1, 1\r\n\r\na',
    'huge Content-Length': 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9999999999999999\r\n\r\n',
    'body over the limit': `POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${MAX_BODY + 1}\r\n\r\n`,
    'space before colon': 'GET / HTTP/1.1\r\nHost : x\r\n\r\n',
    'folded header line': 'GET / HTTP/1.1\r\nHost: x\r\nx-a: b\r\n c\r\n\r\n',
    'empty header name': 'GET / HTTP/1.1\r\nHost: x\r\n: b\r\n\r\n',
    'separator in header name': 'GET / HTTP/1.1\r\nHost: x\r\nx(a): b\r\n\r\n',
    'NUL in header value': 'GET / HTTP/1.1\r\nHost: x\r\nx-a: b\x00c\r\n\r\n',
    'DEL in header value': 'GET / HTTP/1.1\r\nHost: x\r\nx-a: b\x7fc\r\n\r\n',
    'CR alone in header value': 'GET / HTTP/1.1\r\nHost: x\r\nx-a: b\rc\r\n\r\n',
    '__proto__ header': 'GET / HTTP/1.1\r\nHost: x\r\n__proto__: b\r\n\r\n',
    'too many headers': `GET / HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 100 }, (_, i) => `x-h${i}: v\r\n`).join('')}\r\n`,
  };
  for (const [name, text] of Object.entries(cases)) assert.equal(parse(text), 'other', name);
});

test('99 more headers besides Host are still plain', () => {
  const r = plain(`GET / HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 99 }, (_, i) => `x-h${i}: v${i}\r\n`).join('')}\r\n`);
  assert.equal(Object.keys(r.headers).length, 100);
  assert.equal(r.headers['x-h98'], 'v98');
});
