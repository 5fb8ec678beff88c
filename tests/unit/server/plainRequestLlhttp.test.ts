/**
 * The fast path's parser (server/plainRequest.ts) against llhttp, node's own HTTP parser, driven
 * as node:http's server drives it (the `HTTPParser` of `_http_common`, strict, node's header-size
 * limit). Thousands of generated and mutated requests: every one the fast path accepts must parse
 * the same in node — method, target, headers (lower-cased names, values as node gives them),
 * body, keep-alive — and end at the same byte, so a pipelined request after it starts where node
 * starts it. Requests the fast path leaves to node ('other') are node's to answer, so they need
 * not agree. A seeded generator keeps a failure reproducible; the seed is in the message.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { parsePlainRequest, type PlainRequest } from '../../../src/server/plainRequest.js';

const require = createRequire(import.meta.url);
const { HTTPParser, methods } = require('_http_common') as { HTTPParser: any; methods: string[] };

const MAX_HEAD = 16 * 1024;
const MAX_BODY = 1024;

interface NodeMessage {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Buffer;
  keepAlive: boolean;
  /** Byte offset just past the message. */
  end: number;
}

/** The first message llhttp reads from `bytes`, as node:http's server would: undefined on a parse error or an unfinished message. */
function llhttpParse(bytes: Buffer): NodeMessage | undefined {
  const parser = new HTTPParser();
  parser.initialize(HTTPParser.REQUEST, {}, MAX_HEAD, 0);
  let head: Omit<NodeMessage, 'body' | 'end'> | undefined;
  const raw: string[] = [];
  const body: Buffer[] = [];
  let complete = false;
  parser[HTTPParser.kOnHeaders] = (h: string[]) => raw.push(...h);
  parser[HTTPParser.kOnHeadersComplete] = (_maj: number, minor: number, h: string[] | undefined, method: number, url: string, _s: unknown, _m: unknown, upgrade: boolean, keepAlive: boolean) => {
    if (h) raw.push(...h);
    const headers: Record<string, string> = {};
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!.toLowerCase();
      if (name in headers) return 0; // node joins repeats; the fast path never takes them
      headers[name] = raw[i + 1]!;
    }
    head = { method: upgrade ? 'UPGRADE' : minor === 1 ? methods[method]! : 'HTTP/1.0', url, headers, keepAlive };
    return 0;
  };
  parser[HTTPParser.kOnBody] = (b: Buffer) => body.push(Buffer.from(b));
  parser[HTTPParser.kOnMessageComplete] = () => {
    complete = true;
  };
  // Byte by byte up to the end of the first message: where it ends is what is compared.
  for (let i = 0; i < bytes.length; i++) {
    const r = parser.execute(bytes.subarray(i, i + 1));
    if (r instanceof Error) return undefined;
    if (complete) return head && { ...head, body: Buffer.concat(body), end: i + 1 };
  }
  return undefined;
}

/** A small seeded PRNG (mulberry32). */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CONTENT_LENGTHS = ['3', ' 3', '3 ', '\t3', '3\t', '03', '003 ', '+3', '3,3', '3, 3', '0x3', '', ' ', '3 3', '3.0', '1e1', '-3', '18446744073709551616', '99999999999999999999', '٣', '3\x00', '3 \t', ' \t3'];
const CONNECTIONS = ['close', 'Close', 'CLOSE', 'keep-alive', 'Keep-Alive', ' close ', 'close\t', '\tclose', 'close,', ',close', 'keep-alive, close', 'keep-alive,close', 'keep-alive , close', 'keep-alive,\tclose', 'close, keep-alive', 'closed', 'clos', 'close;', 'cl ose', 'upgrade', 'close, upgrade', 'keep-alive,,close', 'te, close', 'close  ,  keep-alive  ', 'close \t', 'keep-alive\t,close'];
const OTHER_HEADERS = ['Content-Type: application/json', 'X-Svc-Role: user', 'Accept: */*', 'X-Empty:', 'X-Spaces:   a b   ', 'X-Tab:\tv\t', 'X-Latin: caf\xe9', 'Authorization: Bearer abc.def', 'TE: trailers', 'Keep-Alive: timeout=5'];
const TARGETS = ['/', '/v1/graphql', '/v1/graphql?x=1&y=%20', '/healthz', '/a/../b', '/%00', '/~!$&\'()*+,;=:@'];

/** A request the fast path could take, with a random choice of the values it reads itself. */
function generate(r: () => number): Buffer {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const post = r() < 0.6;
  const lines = [`${post ? 'POST' : 'GET'} ${pick(TARGETS)} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (let n = Math.floor(r() * 3); n > 0; n--) lines.push(pick(OTHER_HEADERS));
  if (post || r() < 0.2) lines.push(`${pick(['Content-Length', 'content-length', 'CONTENT-LENGTH'])}:${pick(['', ' ', '  '])}${r() < 0.6 ? '3' : pick(CONTENT_LENGTHS)}`);
  if (r() < 0.5) lines.push(`${pick(['Connection', 'connection'])}:${pick(['', ' '])}${pick(CONNECTIONS)}`);
  for (let i = lines.length - 1; i > 1; i--) {
    const j = 1 + Math.floor(r() * i);
    [lines[i], lines[j]] = [lines[j]!, lines[i]!];
  }
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\nabc`, 'latin1');
}

/** One to three random byte edits: replace, insert, delete, or a CR/LF/SP/TAB/colon/NUL where it hurts most. */
function mutate(r: () => number, bytes: Buffer): Buffer {
  let b = Buffer.from(bytes);
  const special = [13, 10, 32, 9, 58, 0, 0x7f, 0xff, 44, 48];
  for (let n = 1 + Math.floor(r() * 3); n > 0; n--) {
    const at = Math.floor(r() * b.length);
    const byte = r() < 0.7 ? special[Math.floor(r() * special.length)]! : Math.floor(r() * 256);
    const op = r();
    if (op < 0.4) b[at] = byte;
    else if (op < 0.75) b = Buffer.concat([b.subarray(0, at), Buffer.from([byte]), b.subarray(at)]);
    else b = Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
  }
  return b;
}

const NEXT = Buffer.from('GET /next HTTP/1.1\r\nHost: x\r\n\r\n', 'latin1');

/** Checks one input; returns whether the fast path accepted it. */
function compare(bytes: Buffer, label: string): boolean {
  // A pipelined request after it: the fast path must end the first where node does.
  let input = Buffer.concat([bytes, NEXT]);
  let fast = parsePlainRequest(input, 0, MAX_HEAD, MAX_BODY);
  if (typeof fast !== 'object') return false;
  // A Content-Length beyond the bytes given (a mutated digit): the fast path has read the head and
  // waits for the rest of the body, as llhttp does; give both the whole body, then the next request.
  const missing = fast.bodyStart + fast.bodyLength - input.length;
  if (missing > 0) {
    input = Buffer.concat([input, Buffer.alloc(missing, 0x61), NEXT]);
    fast = parsePlainRequest(input, 0, MAX_HEAD, MAX_BODY);
    if (typeof fast !== 'object') return false;
  }
  const show = `${label}: ${JSON.stringify(bytes.toString('latin1'))}`;
  const node = llhttpParse(input);
  assert.ok(node, `the fast path accepted what node:http rejects — ${show}`);
  const f = fast as PlainRequest;
  assert.equal(f.method, node.method, show);
  assert.equal(f.url, node.url, show);
  assert.deepEqual(f.headers, node.headers, show);
  assert.equal(f.close, !node.keepAlive, `keep-alive differs — ${show}`);
  assert.equal(f.bodyStart + f.bodyLength, node.end, `the message ends elsewhere — ${show}`);
  assert.ok(input.subarray(f.bodyStart, f.bodyStart + f.bodyLength).equals(node.body), `body differs — ${show}`);
  return true;
}

test('llhttp reads every generated request the fast path accepts the same way', () => {
  const seed = Number(process.env.PLAIN_DIFF_SEED ?? Date.now() % 1_000_000);
  const r = rng(seed);
  let accepted = 0;
  for (let i = 0; i < 3000; i++) if (compare(generate(r), `seed ${seed}, generated #${i}`)) accepted++;
  // The generator is not vacuous: most of its requests are plain.
  assert.ok(accepted > 1000, `only ${accepted} of 3000 generated requests were plain (seed ${seed})`);
});

test('llhttp reads every mutated request the fast path still accepts the same way', () => {
  const seed = Number(process.env.PLAIN_DIFF_SEED ?? Date.now() % 1_000_000) + 1;
  const r = rng(seed);
  let accepted = 0;
  for (let i = 0; i < 6000; i++) if (compare(mutate(r, generate(r)), `seed ${seed}, mutated #${i}`)) accepted++;
  assert.ok(accepted > 500, `only ${accepted} of 6000 mutated requests were plain (seed ${seed})`);
});

test('Content-Length and Connection forms: the fast path takes exactly what llhttp reads the same way', () => {
  const taken: string[] = [];
  for (const cl of CONTENT_LENGTHS) {
    const bytes = Buffer.from(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length:${cl}\r\n\r\nabc`, 'latin1');
    if (compare(bytes, `Content-Length ${JSON.stringify(cl)}`)) taken.push(`CL ${JSON.stringify(cl)}`);
  }
  for (const c of CONNECTIONS) {
    const bytes = Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\nConnection: ${c}\r\n\r\n`, 'latin1');
    if (compare(bytes, `Connection ${JSON.stringify(c)}`)) taken.push(`Connection ${JSON.stringify(c)}`);
  }
  // The common forms stay on the fast path; tabs after a value (read differently by llhttp) do not.
  for (const want of ['CL "3"', 'CL " 3"', 'CL "3 "', 'CL "03"', 'Connection "close"', 'Connection "keep-alive, close"', 'Connection "Keep-Alive"', 'Connection " close "']) {
    assert.ok(taken.includes(want), `${want} should be plain; plain were ${taken.join(', ')}`);
  }
  for (const never of ['CL "3\\t"', 'Connection "close\\t"']) assert.ok(!taken.includes(never), `${never} must be left to node:http`);
});
