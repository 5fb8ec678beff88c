/**
 * The pool's socket hands node-postgres whole protocol messages only, whatever the reads were:
 * bytes sent one at a time, many messages in one read, a 3 MB message spanning dozens of reads
 * (the buffer grows, and shrinks back once it is empty), and the messages whose parsed form keeps a
 * view of the bytes (CopyData, authentication) come as copies that later reads do not overwrite, and
 * a header that claims a gigabyte costs only the bytes that arrived.
 * Real sockets on 127.0.0.1; a TLS connection's socket is a plain one (its first byte is no message).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { messageReaderSocket } from '../../../src/execution/messageReader.js';

/** A backend message: code, int32 length (itself included), body. */
function message(code: string, body: Buffer | string): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const head = Buffer.alloc(5);
  head[0] = code.charCodeAt(0);
  head.writeUInt32BE(4 + b.length, 1);
  return Buffer.concat([head, b]);
}

/** Splits concatenated messages at their boundaries; throws when a chunk ends inside one. */
function wholeMessages(chunk: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let p = 0;
  while (p < chunk.length) {
    assert.ok(chunk.length - p >= 5, 'a chunk ends inside a message header');
    const next = p + 1 + chunk.readUInt32BE(p + 1);
    assert.ok(next <= chunk.length, 'a chunk ends inside a message');
    out.push(chunk.subarray(p, next));
    p = next;
  }
  return out;
}

/** What the client got as 'data': each chunk as handed on, and a copy taken when it came. */
interface Received {
  chunks: Buffer[];
  copies: Buffer[];
}

/** Serves `send` (a function writing to the accepted socket) to a `messageReaderSocket`. */
async function exchange(send: (s: net.Socket) => Promise<void>, config?: { ssl?: unknown }): Promise<Received> {
  const server = net.createServer((s) => {
    void send(s).then(() => s.end());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = messageReaderSocket(config);
  const chunks: Buffer[] = [];
  const copies: Buffer[] = [];
  socket.on('data', (c: Buffer) => {
    chunks.push(c);
    copies.push(Buffer.from(c));
  });
  socket.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await once(socket, 'end');
  socket.destroy();
  server.close();
  return { chunks, copies };
}

const pause = (): Promise<void> => new Promise((r) => setTimeout(r, 2));
const written = (s: net.Socket, b: Buffer): Promise<void> => new Promise((r) => s.write(b, () => r()));

test('messages sent a byte at a time and many in one write arrive whole, in order', async () => {
  const slow = [message('Z', 'I'), message('D', Buffer.from([0, 1, 0, 0, 0, 2, 0x7b, 0x7d]))];
  const fast = Array.from({ length: 500 }, (_, i) => message('D', `row ${i}`));
  const { copies } = await exchange(async (s) => {
    for (const m of slow) for (const byte of m) {
      await written(s, Buffer.from([byte]));
      await pause();
    }
    await written(s, Buffer.concat(fast));
  });
  const got = copies.flatMap(wholeMessages);
  assert.deepEqual(got, [...slow, ...fast]);
});

test('a 3 MB message spanning many reads arrives whole, and small ones after it still do', async () => {
  const big = message('D', Buffer.alloc(3 * 1024 * 1024, 0x61));
  const after = [message('C', 'SELECT 1\0'), message('Z', 'I')];
  const { copies } = await exchange(async (s) => {
    for (let i = 0; i < big.length; i += 50_000) {
      await written(s, big.subarray(i, i + 50_000));
      await pause();
    }
    await pause();
    for (const m of after) {
      await written(s, m);
      await pause();
    }
  });
  const got = copies.flatMap(wholeMessages);
  assert.equal(got.length, 3);
  assert.ok(got[0]!.equals(big), 'the 3 MB message is intact');
  assert.deepEqual(got.slice(1), after);
});

test('CopyData and authentication messages come as copies that later reads leave alone', async () => {
  const md5 = message('R', Buffer.from([0, 0, 0, 5, 1, 2, 3, 4]));
  const copyData = message('d', 'copied bytes');
  const later = Array.from({ length: 50 }, (_, i) => message('D', `overwrite ${i} `.repeat(200)));
  const { chunks, copies } = await exchange(async (s) => {
    await written(s, md5);
    await pause();
    await written(s, copyData);
    await pause();
    for (const m of later) await written(s, m);
  });
  assert.deepEqual(copies.flatMap(wholeMessages), [md5, copyData, ...later]);
  // a chunk holding either message, as handed on and read after every later read: still intact
  const viewKeeping = (c: Buffer): boolean => wholeMessages(c).some((m) => m[0] === 0x52 || m[0] === 0x64);
  const held = copies.flatMap((c, i) => (viewKeeping(c) ? [i] : []));
  assert.ok(held.length >= 1);
  for (const i of held) assert.ok(chunks[i]!.equals(copies[i]!), `chunk ${i} was overwritten`);
  // while an ordinary message's view is the reused buffer, overwritten since (what the copies are for)
  assert.ok(chunks.some((c, i) => !c.equals(copies[i]!)), 'the read buffer is reused');
});

test('a TLS connection gets a plain socket: the one-byte answer to the SSL request comes through', async () => {
  const answer = Buffer.from('N');
  const plain = await exchange(async (s) => written(s, answer), { ssl: true });
  assert.deepEqual(Buffer.concat(plain.copies), answer);
  const framed = await exchange(async (s) => written(s, answer));
  assert.deepEqual(framed.copies, [], 'a byte that is not a whole message is not handed on');
});

test('a header claiming a gigabyte grows the buffer only by the bytes that arrived', async () => {
  // what a server that is not Postgres may send: its first bytes read as a huge message length
  const head = Buffer.alloc(5);
  head[0] = 0x48; // 'H', as in "HTTP/1.1 400"
  head.writeUInt32BE(0x5454502f, 1);
  let peak = 0;
  const { copies } = await exchange(async (s) => {
    await written(s, head);
    for (let i = 0; i < 4; i++) {
      await written(s, Buffer.alloc(100_000, 0x20));
      await pause();
      peak = Math.max(peak, process.memoryUsage().arrayBuffers);
    }
  });
  assert.deepEqual(copies, [], 'an unfinished message is not handed on');
  assert.ok(peak < 256 * 1024 * 1024, `ArrayBuffer memory peaked at ${(peak / 1e6).toFixed(0)} MB`);
});
