/**
 * The per-socket receive bound (subscriptions/receiveLimit.ts) relies on a field of the installed
 * `ws`: a real server and client show that a frame over the bound closes the socket with 1009
 * before its payload is delivered, and that raising the bound lets the next one through.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocketServer, WebSocket } from 'ws';
import { setReceiveLimit } from '../../../src/subscriptions/receiveLimit.js';

test('a socket receives up to the bound set for it, and is closed with 1009 past it', async (t) => {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 50 * 1024 * 1024 });
  t.after(() => wss.close());
  await new Promise((r) => wss.once('listening', r));
  const received: number[] = [];
  const serverClosed = new Promise<number>((resolve) => {
    wss.on('connection', (s) => {
      assert.equal(setReceiveLimit(s, 1000), true, 'the installed ws has the per-socket field');
      s.on('message', (d: Buffer) => {
        received.push(d.length);
        if (d.length === 1000) assert.equal(setReceiveLimit(s, 5000), true);
        s.send('ok');
      });
      s.on('error', () => undefined);
      s.on('close', (code) => resolve(code));
    });
  });
  const { port } = wss.address() as { port: number };
  const c = new WebSocket(`ws://127.0.0.1:${port}`);
  const closed = new Promise<number>((resolve) => c.on('close', (code) => resolve(code)));
  const acks: string[] = [];
  const next = () => new Promise<void>((r) => c.once('message', (d) => (acks.push(d.toString()), r())));
  await new Promise((r) => c.once('open', r));
  c.send(Buffer.alloc(1000)); // at the bound: delivered, and the bound is raised
  await next();
  c.send(Buffer.alloc(4000)); // under the new bound
  await next();
  c.send(Buffer.alloc(8 * 1024 * 1024)); // over it: never delivered
  assert.equal(await closed, 1009);
  await serverClosed;
  assert.deepEqual(received, [1000, 4000]);
  assert.deepEqual(acks, ['ok', 'ok']);
});
