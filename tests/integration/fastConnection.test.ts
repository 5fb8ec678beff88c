/**
 * The engine's own serving of plain HTTP/1.1 requests (server/fastConnection.ts), over real
 * sockets: keep-alive, pipelining, requests cut anywhere, Connection: close from either side, a
 * half-closed client, the hand-over of a connection to node:http at its first request that is not
 * plain (chunked, malformed, Upgrade...), invalid response headers, graceful shutdown and the idle
 * timeout. node:http's 'request' event tells which side served a request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import net from 'node:net';
import { createEngineServer } from '../../src/server/httpServer.js';
import { installFastPath } from '../../src/server/fastConnection.js';
import type { Handler } from '../../src/server/index.js';
import { listenerContext } from '../support/listenerContext.js';

/** What a raw client receives until the server closes (Date and request ids blanked); a step is bytes to write, a pause (ms), or text to wait for. */
async function exchange(port: number, steps: Array<string | number | { until: string }>): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  let out = '';
  socket.on('data', (d) => (out += d.toString('latin1')));
  socket.on('error', () => {});
  const closed = once(socket, 'close');
  for (const step of steps) {
    if (typeof step === 'number') await new Promise((r) => setTimeout(r, step));
    else if (typeof step === 'object') {
      const deadline = Date.now() + 5000;
      while (!out.includes(step.until) && !socket.destroyed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    } else if (!socket.destroyed) socket.write(step);
  }
  const timer = setTimeout(() => socket.destroy(), 5000);
  await closed;
  clearTimeout(timer);
  return out.replace(/^Date: .*$/gm, 'Date: -').replace(/^x-request-id: .*$/gim, 'x-request-id: -');
}

interface Response {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A raw client: writes what it is told, parses every response it receives (Content-Length bodies). */
class RawClient {
  readonly socket: net.Socket;
  private data = Buffer.alloc(0);
  readonly responses: Response[] = [];
  closed = false;
  private waiters: Array<() => void> = [];

  constructor(port: number) {
    this.socket = net.connect(port, '127.0.0.1');
    this.socket.on('data', (d) => {
      this.data = Buffer.concat([this.data, d]);
      this.parse();
    });
    this.socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    this.socket.on('error', () => {});
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  private parse(): void {
    for (;;) {
      const end = this.data.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = this.data.toString('latin1', 0, end).split('\r\n');
      const status = Number(lines[0]!.split(' ')[1]);
      const headers: Record<string, string> = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
      }
      const length = Number(headers['content-length'] ?? 0);
      if (this.data.length < end + 4 + length) return;
      this.responses.push({ status, headers, body: this.data.toString('utf8', end + 4, end + 4 + length) });
      this.data = this.data.subarray(end + 4 + length);
      this.wake();
    }
  }

  write(text: string | Buffer): void {
    this.socket.write(text);
  }

  async until(cond: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 5000;
    while (!cond()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  responsesCount(n: number): Promise<void> {
    return this.until(() => this.responses.length >= n, `${n} responses`);
  }

  closedByServer(): Promise<void> {
    return this.until(() => this.closed, 'the server to close the connection');
  }
}

const post = (path: string, body: string, extra = ''): string =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** An engine listener whose /v1/query echoes the request back (headers it read, body), in order. */
async function echoServer(delay?: (body: string) => Promise<void>) {
  const seen: string[] = [];
  const echo: Handler = async (req) => {
    const body = req.body.toString();
    seen.push(`start ${body}`);
    if (delay) await delay(body);
    seen.push(`end ${body}`);
    return { status: 200, body: JSON.stringify({ method: req.method, path: req.path, role: req.headers['x-svc-role'] ?? null, body }) };
  };
  const server = createEngineServer(listenerContext(), { v1Query: echo, healthz: async () => ({ status: 200, body: 'OK' }) });
  const port = await server.listen(0, '127.0.0.1');
  let nodeRequests = 0;
  server.server.on('request', () => nodeRequests++);
  return { server, port, seen, nodeRequests: () => nodeRequests };
}

test('plain requests on one keep-alive connection are served without node:http, with node:http\'s response headers', async () => {
  const { server, port, nodeRequests } = await echoServer();
  const c = new RawClient(port);
  try {
    for (let i = 0; i < 3; i++) {
      c.write(post('/v1/query', `{"n":${i}}`, 'X-Svc-Role: user\r\n'));
      await c.responsesCount(i + 1);
    }
    assert.deepEqual(c.responses.map((r) => JSON.parse(r.body)), [0, 1, 2].map((i) => ({ method: 'POST', path: '/v1/query', role: 'user', body: `{"n":${i}}` })));
    const h = c.responses[0]!.headers;
    assert.equal(c.responses[0]!.status, 200);
    assert.equal(h['content-type'], 'application/json; charset=utf-8');
    assert.equal(h.connection, 'keep-alive');
    assert.equal(h['keep-alive'], 'timeout=30');
    assert.ok(!Number.isNaN(Date.parse(h.date!)), h.date);
    assert.match(h['x-request-id']!, /^[0-9a-f-]{36}$/);
    assert.equal(nodeRequests(), 0, 'node:http served none of them');
    assert.equal(c.closed, false);
  } finally {
    c.socket.destroy();
    await server.close(1000);
  }
});

test('pipelined requests are answered in order, one at a time; a request cut anywhere waits for its bytes', async () => {
  let release: (() => void) | undefined;
  const { server, port, seen } = await echoServer((body) => (body === '"slow"' ? new Promise<void>((r) => (release = r)) : Promise.resolve()));
  const c = new RawClient(port);
  try {
    c.write(post('/v1/query', '"slow"') + post('/v1/query', '"second"') + post('/v1/query', '"third"'));
    await c.until(() => release !== undefined, 'the first request to start');
    assert.deepEqual(seen, ['start "slow"'], 'the next request waits for the answer before it');
    release!();
    await c.responsesCount(3);
    assert.deepEqual(c.responses.map((r) => JSON.parse(r.body).body), ['"slow"', '"second"', '"third"']);
    assert.deepEqual(seen, ['start "slow"', 'end "slow"', 'start "second"', 'end "second"', 'start "third"', 'end "third"']);

    // One byte at a time, head and body.
    const bytes = Buffer.from(post('/v1/query', '{"trickle":"é"}'));
    for (let i = 0; i < bytes.length; i++) {
      c.write(bytes.subarray(i, i + 1));
      await new Promise((r) => setImmediate(r));
    }
    await c.responsesCount(4);
    assert.equal(JSON.parse(c.responses[3]!.body).body, '{"trickle":"é"}');

    // A 3 MB body in 64 KiB writes, the head in the first one.
    const big = JSON.stringify('x'.repeat(3 * 1024 * 1024));
    const request = Buffer.from(post('/v1/query', big));
    for (let i = 0; i < request.length; i += 65536) c.write(request.subarray(i, i + 65536));
    await c.responsesCount(5);
    assert.equal(JSON.parse(c.responses[4]!.body).body, big);
  } finally {
    c.socket.destroy();
    await server.close(1000);
  }
});

test('Connection: close from the client, and a client that half-closes after its request, still get their answers', async () => {
  const { server, port } = await echoServer();
  try {
    const c = new RawClient(port);
    c.write(post('/v1/query', '"a"', 'Connection: close\r\n'));
    await c.closedByServer();
    assert.equal(c.responses.length, 1);
    assert.equal(JSON.parse(c.responses[0]!.body).body, '"a"');
    assert.equal(c.responses[0]!.headers.connection, 'close');
    assert.equal(c.responses[0]!.headers['keep-alive'], undefined);

    const h = new RawClient(port);
    h.socket.end(post('/v1/query', '"one"') + post('/v1/query', '"two"'));
    await h.closedByServer();
    assert.deepEqual(h.responses.map((r) => JSON.parse(r.body).body), ['"one"', '"two"']);
  } finally {
    await server.close(1000);
  }
});

test('the first request that is not plain hands the connection to node:http, which serves it and the rest', async () => {
  const { server, port, nodeRequests } = await echoServer();
  const c = new RawClient(port);
  try {
    c.write(post('/v1/query', '"fast"'));
    await c.responsesCount(1);
    assert.equal(nodeRequests(), 0);
    // Chunked: node:http decodes it; the bytes after it on the wire reach node:http too.
    c.write('POST /v1/query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n"chu\r\n5\r\nnked"\r\n0\r\n\r\n' + post('/v1/query', '"after"'));
    await c.responsesCount(3);
    assert.deepEqual(c.responses.map((r) => JSON.parse(r.body).body), ['"fast"', '"chunked"', '"after"']);
    assert.equal(nodeRequests(), 2);
    assert.equal(c.responses[2]!.headers.connection, 'keep-alive');
  } finally {
    c.socket.destroy();
  }
  // Malformed requests get node:http's own 400, as without the fast path.
  const bad = new RawClient(port);
  try {
    bad.write('GET /healthz HTTP/1.1\r\nHost: x\r\nx-a: b\x00c\r\n\r\n');
    await bad.closedByServer();
    assert.equal(bad.responses[0]?.status, 400);
  } finally {
    bad.socket.destroy();
    await server.close(1000);
  }
});

test('an invalid header from a handler destroys that connection only; the engine keeps serving', async () => {
  const server = createEngineServer(listenerContext(), {
    v1Query: async () => ({ status: 200, headers: { 'x-bad': 'a\r\nx-injected: 1' }, body: '{}' }),
    healthz: async () => ({ status: 200, body: 'OK' }),
  });
  const port = await server.listen(0, '127.0.0.1');
  try {
    const c = new RawClient(port);
    c.write(post('/v1/query', '{}'));
    await c.closedByServer();
    assert.equal(c.responses.length, 0, 'no header injection, no partial answer');
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(await ok.text(), 'OK');
  } finally {
    await server.close(1000);
  }
});

test('shutdown: an idle keep-alive connection is closed at once; an in-flight request finishes with Connection: close', async () => {
  let release: (() => void) | undefined;
  const { server, port } = await echoServer((body) => (body === '"slow"' ? new Promise<void>((r) => (release = r)) : Promise.resolve()));
  const idle = new RawClient(port);
  const busy = new RawClient(port);
  idle.write(post('/v1/query', '"idle"'));
  await idle.responsesCount(1);
  busy.write(post('/v1/query', '"slow"'));
  await busy.until(() => release !== undefined, 'the slow request to start');
  const closed = server.close(5000);
  await idle.closedByServer();
  assert.equal(busy.closed, false);
  release!();
  await busy.closedByServer();
  assert.equal(busy.responses[0]?.headers.connection, 'close');
  assert.equal(JSON.parse(busy.responses[0]!.body).body, '"slow"');
  await closed;
});

test('a connection idle for the keep-alive time, or stuck inside a request head, is closed', async () => {
  const server = createServer(() => assert.fail('node:http should not see plain requests'));
  const fast = installFastPath(server, (_req, body, reply) => reply({ status: 200, headers: { 'content-length': body.length }, body }), {
    keepAliveMs: 300, maxHead: 16 * 1024, maxBody: 1024,
  });
  assert.ok(fast);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  try {
    const a = new RawClient(port);
    a.write(post('/x', 'ping'));
    await a.responsesCount(1);
    assert.equal(a.responses[0]!.body, 'ping');
    assert.equal(a.responses[0]!.headers['keep-alive'], 'timeout=0', 'whole seconds, as node:http writes them');
    await a.closedByServer();
    const b = new RawClient(port);
    b.write('POST /x HTTP/1.1\r\nHost: x\r\nContent-Le');
    await b.closedByServer();
    assert.equal(b.responses.length, 0);
    await b.until(() => fast.connections === 0, 'the server side to let go of both connections');
  } finally {
    server.close();
  }
});

test('bytes pipelined after Connection: close get node:http\'s answer, with or without the fast path', async () => {
  // The same exchanges against the engine served by node:http alone and with the fast path in
  // front: what the client receives must be byte for byte the same (node: a 400 and the end of
  // the connection when more bytes follow a `Connection: close` request before its answer).
  const closeReq = post('/v1/query', '"a"', 'Connection: close\r\n');
  const scenarios: Record<string, Array<string | number | { until: string }>> = {
    'in the same write': [closeReq + post('/v1/query', '"b"')],
    'while the request is in flight': [closeReq, 50, post('/v1/query', '"b"')],
    'after its answer': [closeReq, { until: '{"body":"\\"a\\""}' }, post('/v1/query', '"b"')],
    'a GET after a GET with close': ['GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
  };
  const results: Record<string, string[]> = {};
  for (const fastPath of [false, true]) {
    const ctx = listenerContext();
    ctx.config.httpFastPath = fastPath;
    const slow: Handler = async (req) => {
      await new Promise((r) => setTimeout(r, 1000));
      return { status: 200, body: JSON.stringify({ body: req.body.toString() }) };
    };
    const server = createEngineServer(ctx, { v1Query: slow, healthz: async () => ({ status: 200, body: 'OK' }) });
    const port = await server.listen(0, '127.0.0.1');
    try {
      for (const [name, steps] of Object.entries(scenarios)) (results[name] ??= []).push(await exchange(port, steps));
    } finally {
      await server.close(1000);
    }
  }
  for (const [name, [node, fast]] of Object.entries(results)) assert.equal(fast, node, name);
  assert.equal(results['in the same write']![0], 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  assert.equal(results['while the request is in flight']![0], 'HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
  assert.match(results['after its answer']![0]!, /^HTTP\/1\.1 200 OK\r\n[^]*\{"body":"\\"a\\""\}$/);
});

test('a request head that takes too long to arrive gets node:http\'s 408, as from node:http', async () => {
  // A head trickled a byte at a time, each byte well within the idle timeout, the whole slower
  // than headersTimeout: the same bytes to node:http alone and to the fast path.
  const head = 'GET /x HTTP/1.1\r\nHost: x\r\nX-Slow: abcdefghijklmnopqrstuvwxyz\r\n\r\n';
  const steps: Array<string | number> = [];
  for (const ch of head) steps.push(ch, 40);
  const answers: string[] = [];
  for (const fastPath of [false, true]) {
    const server = createServer({ headersTimeout: 400, requestTimeout: 800, connectionsCheckingInterval: 50, keepAliveTimeout: 5000 }, (_req, res) => res.end('served'));
    const fast = fastPath ? installFastPath(server, (_req, body, reply) => reply({ status: 200, headers: { 'content-length': 6 }, body: 'served' }), {
      keepAliveMs: 5000, maxHead: 16 * 1024, maxBody: 1024, headersTimeoutMs: server.headersTimeout, requestTimeoutMs: server.requestTimeout,
    }) : undefined;
    assert.equal(fastPath, fast !== undefined);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      answers.push(await exchange((server.address() as net.AddressInfo).port, steps));
    } finally {
      server.close();
    }
  }
  assert.equal(answers[0], 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n', 'node:http alone');
  assert.equal(answers[1], answers[0], 'the fast path');
});
