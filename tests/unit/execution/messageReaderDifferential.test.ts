/**
 * Differential test of the pool's read adapter against the library it stands in for: the same
 * generated stream of Postgres backend messages, written in random pieces over a real socket on
 * 127.0.0.1, is parsed by node-postgres' own parser (pg-protocol `parse`) once from a plain
 * `net.Socket` (what pg reads with by default) and once from `messageReaderSocket`. Every parsed
 * message must be the same, in the same order, field by field, as pg sees it (when it is handed on);
 * and the messages whose parsed form keeps a view of the bytes (CopyData, the MD5 salt) must still
 * read the same after the whole stream has arrived, when later reads would have overwritten a view.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { once } from 'node:events';
import { parse } from 'pg-protocol';
import { messageReaderSocket } from '../../../src/execution/messageReader.js';
import { prng } from '../../support/prng.js';

function frame(code: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = code.charCodeAt(0);
  head.writeUInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}
const cstr = (s: string): Buffer => Buffer.from(`${s}\0`);
const int16 = (n: number): Buffer => { const b = Buffer.alloc(2); b.writeInt16BE(n); return b; };
const int32 = (n: number): Buffer => { const b = Buffer.alloc(4); b.writeInt32BE(n); return b; };

/** One random backend message of the kinds a pool connection sees. */
function randomMessage(rand: () => number): Buffer {
  const text = (max: number): string => 'x'.repeat(Math.floor(rand() * max)) + String(Math.floor(rand() * 1e9));
  switch (Math.floor(rand() * 10)) {
    case 0: { // DataRow, sometimes large (spans many reads), with NULLs
      const n = 1 + Math.floor(rand() * 4);
      const cols = Array.from({ length: n }, () => {
        if (rand() < 0.2) return int32(-1);
        const v = Buffer.from(text(rand() < 0.1 ? 300_000 : 200));
        return Buffer.concat([int32(v.length), v]);
      });
      return frame('D', Buffer.concat([int16(n), ...cols]));
    }
    case 1: { // RowDescription
      const n = 1 + Math.floor(rand() * 3);
      const fields = Array.from({ length: n }, (_, i) => Buffer.concat([cstr(`c${i}_${text(10)}`), int32(16384), int16(i + 1), int32(25), int16(-1), int32(-1), int16(0)]));
      return frame('T', Buffer.concat([int16(n), ...fields]));
    }
    case 2: return frame('C', cstr(`SELECT ${Math.floor(rand() * 1000)}`));
    case 3: return frame('Z', Buffer.from('I'));
    case 4: return frame('E', Buffer.concat([cstr(`SERROR`), cstr(`C23505`), cstr(`M${text(50)}`), Buffer.from([0])]));
    case 5: return frame('d', Buffer.from(text(5000))); // CopyData: parsed form keeps a view
    case 6: return frame('R', Buffer.concat([int32(5), Buffer.from([rand() * 256, rand() * 256, rand() * 256, rand() * 256].map(Math.floor))])); // MD5 salt
    case 7: return frame('S', Buffer.concat([cstr('application_name'), cstr(text(20))]));
    case 8: return frame('N', Buffer.concat([cstr('SNOTICE'), cstr(`M${text(40)}`), Buffer.from([0])]));
    default: return frame('1', Buffer.alloc(0)); // ParseComplete
  }
}

/** Serves `stream` to one client in random pieces (1 byte .. 128 kB), then ends. */
async function serve(stream: Buffer, rand: () => number): Promise<{ port: number; close: () => void }> {
  const server = net.createServer((sock) => {
    sock.setNoDelay(true);
    let p = 0;
    const pump = (): void => {
      while (p < stream.length) {
        const n = Math.min(stream.length - p, rand() < 0.3 ? 1 + Math.floor(rand() * 16) : 1 + Math.floor(rand() * 131072));
        const more = sock.write(stream.subarray(p, p + n));
        p += n;
        if (rand() < 0.2) return void setImmediate(pump); // let the client read in between
        if (!more) return void sock.once('drain', pump);
      }
      sock.end();
    };
    pump();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

const asJson = (m: unknown): string =>
  JSON.stringify(m, (_k, v) => (v && v.type === 'Buffer' && Array.isArray(v.data) ? Buffer.from(v.data).toString('hex') : v));

/**
 * Parses everything a socket receives with pg-protocol: each message as JSON when it is handed on
 * (what pg sees), and the messages kept as they were, for a second look after the stream ended.
 */
async function parsedBy(socket: net.Socket, port: number): Promise<{ atOnce: string[]; kept: unknown[] }> {
  const atOnce: string[] = [];
  const kept: unknown[] = [];
  socket.connect(port, '127.0.0.1');
  const done = parse(socket, (msg) => {
    atOnce.push(asJson(msg));
    kept.push(msg);
  });
  await once(socket, 'close');
  await done;
  return { atOnce, kept };
}

for (const seed of [1, 2, 3, 42, 20261127]) {
  test(`messageReaderSocket parses like a plain socket: 400 generated messages in random pieces (seed ${seed})`, async () => {
    const rand = prng(seed);
    const stream = Buffer.concat(Array.from({ length: 400 }, () => randomMessage(rand)));
    const server = await serve(stream, prng(seed + 1));
    const plain = await parsedBy(new net.Socket(), server.port);
    const server2 = await serve(stream, prng(seed + 2));
    const ours = await parsedBy(messageReaderSocket(), server2.port);
    server.close();
    server2.close();
    assert.equal(plain.atOnce.length, 400, 'the library parsed every message');
    assert.equal(ours.atOnce.length, plain.atOnce.length);
    for (let i = 0; i < plain.atOnce.length; i++) assert.equal(ours.atOnce[i], plain.atOnce[i], `message ${i} differs`);
    // The kinds whose parsed form keeps a view (CopyData, the MD5 salt) still read as they came after
    // every later read: they are handed on as copies.
    for (let i = 0; i < ours.kept.length; i++) {
      const name = (ours.kept[i] as { name: string }).name;
      if (name === 'copyData' || name === 'authenticationMD5Password') assert.equal(asJson(ours.kept[i]), ours.atOnce[i], `kept ${name} ${i} changed`);
    }
  });
}
