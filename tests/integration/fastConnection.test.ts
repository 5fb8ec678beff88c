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
    c.write(post('/v1/query', '"a"', 'Connection: close\r\n') + post('/v1/query', '"never read"'));
    await c.closedByServer();
    assert.equal(c.responses.length, 1);
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

test("a head that takes longer than headersTimeout gets node:http's 408 on both paths; a trickled head is served", async () => {
  /** The status and Connection header each side answers to a head still unfinished after the timeout. */
  const timedOut = async (port: number, wake: boolean): Promise<{ status: number; connection: string | undefined; served: number }> => {
    const c = new RawClient(port);
    c.write('POST /x HTTP/1.1\r\nHost: x\r\nContent-Le');
    const t0 = Date.now();
    // The fast path checks the time when bytes arrive (node:http on its own timer): keep trickling.
    while (!c.closed && Date.now() - t0 < 3000) {
      await new Promise((r) => setTimeout(r, 50));
      if (wake && !c.closed) c.write('n');
    }
    await c.closedByServer();
    return { status: c.responses[0]?.status ?? 0, connection: c.responses[0]?.headers.connection, served: c.responses.length };
  };
  const fastServer = createServer(() => assert.fail('node:http should not see plain requests'));
  const fast = installFastPath(fastServer, (_req, body, reply) => reply({ status: 200, headers: { 'content-length': body.length }, body }), {
    keepAliveMs: 10_000, maxHead: 16 * 1024, maxBody: 1024, headersTimeoutMs: 200,
  });
  assert.ok(fast);
  const nodeServer = createServer({ headersTimeout: 200, requestTimeout: 1000, connectionsCheckingInterval: 50 }, (_req, res) => res.end());
  for (const s of [fastServer, nodeServer]) {
    s.listen(0, '127.0.0.1');
    await once(s, 'listening');
  }
  try {
    const fromFast = await timedOut((fastServer.address() as net.AddressInfo).port, true);
    const fromNode = await timedOut((nodeServer.address() as net.AddressInfo).port, true);
    assert.deepEqual(fromNode, { status: 408, connection: 'close', served: 1 });
    assert.deepEqual(fromFast, fromNode);

    // A head arriving a few bytes at a time within the timeout is served.
    const c = new RawClient((fastServer.address() as net.AddressInfo).port);
    const bytes = Buffer.from(post('/x', 'trickled', `X-Pad: ${'p'.repeat(2000)}\r\n`));
    for (let i = 0; i < bytes.length; i += 7) c.write(bytes.subarray(i, i + 7));
    await c.responsesCount(1);
    assert.equal(c.responses[0]!.body, 'trickled');
    c.socket.destroy();
  } finally {
    fastServer.close();
    nodeServer.close();
    fast.destroyAll();
  }
});
