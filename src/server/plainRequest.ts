/**
 * Recognises the plain HTTP/1.1 requests that make up nearly all of the engine's traffic — a GET
 * or a POST with a Content-Length body, every header once, nothing to negotiate — so that
 * `fastConnection.ts` can serve them without node:http's per-request machinery (measured: about
 * 25 µs of CPU a request, a tenth of a by-primary-key query's cost).
 *
 * It is deliberately strict: anything else — chunked or absent bodies on POST, `Expect`,
 * `Upgrade`, HTTP/1.0, a repeated header, an absolute or odd request target, an unusual byte, a
 * head over `maxHead` or a body over `maxBody` — is `'other'`, and the connection is handed to
 * node:http from that request on, which answers it exactly as before (400, 413, 431, a WebSocket
 * upgrade...). So the fast path never has to decide an edge case; it only has to be right about
 * what it accepts.
 */

/** A request the fast path serves. Header names are lower-cased, values are latin1 as node gives them. */
export interface PlainRequest {
  method: 'GET' | 'POST';
  /** The request target as sent (origin form: starts with `/`). */
  url: string;
  headers: Record<string, string>;
  /** Offset of the body's first byte in the buffer that was parsed, and its length. */
  bodyStart: number;
  bodyLength: number;
  /** The client sent `Connection: close`: the connection ends after this response. */
  close: boolean;
}

export type PlainParse = PlainRequest | 'incomplete' | 'other';

/** Headers per request the fast path takes (node's own limit is 2000; more is never seen in practice). */
const MAX_HEADERS = 100;
const CRLFCRLF = Buffer.from('\r\n\r\n');
const HTTP11 = Buffer.from(' HTTP/1.1');

/** RFC 9110 token characters (header names). */
const TOKEN = new Uint8Array(256);
for (const c of "!#$%&'*+-.^_`|~") TOKEN[c.charCodeAt(0)] = 1;
for (let c = 48; c <= 57; c++) TOKEN[c] = 1;
for (let c = 65; c <= 90; c++) TOKEN[c] = 1;
for (let c = 97; c <= 122; c++) TOKEN[c] = 1;

/** Header value bytes: HTAB, visible ASCII, space, obs-text (what node:http also accepts). */
const FIELD = new Uint8Array(256);
FIELD[9] = 1;
for (let c = 32; c <= 126; c++) FIELD[c] = 1;
for (let c = 128; c <= 255; c++) FIELD[c] = 1;

/**
 * `Content-Length` and `Connection` values taken here, raw (trailing whitespace included): the
 * forms llhttp (node's parser) reads the same way. After the digits or a token llhttp allows
 * spaces but not a tab (`5\t` is a 400 there, `close\t` is not `close`), so a tab anywhere is
 * left to node:http, as is every other form.
 */
const CONTENT_LENGTH = /^\d{1,15} *$/;
const CONNECTION = /^(?:close|keep-alive)(?: *, *(?:close|keep-alive))* *$/i;

/**
 * Parses the request starting at `start` in `buf`. `'incomplete'` when the head has not fully
 * arrived yet (the body is not waited for here: `bodyStart + bodyLength` may lie beyond the buffer).
 * `headEnd`, when the caller already knows it (headScanner.ts), is the offset of the head's CRLFCRLF.
 */
export function parsePlainRequest(buf: Buffer, start: number, maxHead: number, maxBody: number, headEnd = buf.indexOf(CRLFCRLF, start)): PlainParse {
  if (headEnd < 0) return buf.length - start > maxHead ? 'other' : 'incomplete';
  if (headEnd - start > maxHead) return 'other';

  // Request line: METHOD SP origin-form SP HTTP/1.1
  let method: 'GET' | 'POST';
  let p: number;
  if (buf[start] === 0x47 && buf[start + 1] === 0x45 && buf[start + 2] === 0x54 && buf[start + 3] === 0x20) {
    method = 'GET';
    p = start + 4;
  } else if (buf[start] === 0x50 && buf[start + 1] === 0x4f && buf[start + 2] === 0x53 && buf[start + 3] === 0x54 && buf[start + 4] === 0x20) {
    method = 'POST';
    p = start + 5;
  } else {
    return 'other';
  }
  if (buf[p] !== 0x2f /* / */) return 'other';
  const urlStart = p;
  while (p < headEnd) {
    const c = buf[p]!;
    if (c === 0x20) break;
    if (c < 0x21 || c > 0x7e) return 'other';
    p++;
  }
  const url = buf.toString('latin1', urlStart, p);
  for (let i = 0; i < HTTP11.length; i++) if (buf[p + i] !== HTTP11[i]) return 'other';
  p += HTTP11.length;
  if (buf[p] !== 13 || buf[p + 1] !== 10) return 'other';
  p += 2;

  // Header lines up to the blank line.
  const headers: Record<string, string> = {};
  let count = 0;
  let contentLength = -1;
  let close = false;
  let host = false;
  while (p < headEnd + 2) {
    if (++count > MAX_HEADERS) return 'other';
    const nameStart = p;
    while (TOKEN[buf[p]!] === 1) p++;
    if (p === nameStart || buf[p] !== 0x3a /* : */) return 'other';
    const name = buf.toString('latin1', nameStart, p).toLowerCase();
    p++;
    while (buf[p] === 0x20 || buf[p] === 9) p++;
    const valueStart = p;
    let valueEnd = p;
    for (;;) {
      const c = buf[p]!;
      if (c === 13) break;
      if (FIELD[c] !== 1) return 'other';
      p++;
      if (c !== 0x20 && c !== 9) valueEnd = p;
    }
    if (buf[p + 1] !== 10) return 'other';
    p += 2;
    if (name === '__proto__' || Object.prototype.hasOwnProperty.call(headers, name)) return 'other';
    const value = buf.toString('latin1', valueStart, valueEnd);
    headers[name] = value;
    switch (name) {
      case 'content-length':
        if (!CONTENT_LENGTH.test(buf.toString('latin1', valueStart, p - 2))) return 'other';
        contentLength = Number(value);
        break;
      case 'connection':
        if (!CONNECTION.test(buf.toString('latin1', valueStart, p - 2))) return 'other';
        close = /close/i.test(value);
        break;
      case 'host':
        host = true;
        break;
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
      case 'http2-settings':
        return 'other';
      default:
        break;
    }
  }
  if (!host) return 'other';
  if (method === 'GET' ? contentLength > 0 : contentLength < 0) return 'other';
  const bodyLength = contentLength < 0 ? 0 : contentLength;
  if (bodyLength > maxBody) return 'other';
  return { method, url, headers, bodyStart: headEnd + 4, bodyLength, close };
}
