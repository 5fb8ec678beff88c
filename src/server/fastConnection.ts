/**
 * The engine's own serving of plain HTTP/1.1 connections, in front of node:http. Every new
 * connection starts here: its requests are cut from the socket's bytes by `parsePlainRequest`,
 * handed to the engine with their body already read, and answered with one socket write (status
 * line, headers, body). node:http builds an IncomingMessage and a ServerResponse stream per
 * request, validates and stores headers one by one and corks its writes; for the small JSON
 * answers the engine gives, that machinery cost more CPU than the engine's own work for a query
 * by primary key (a plain node:http server measured ~60 µs a request here, a socket server ~37 µs).
 *
 * The first request that is not plain (`'other'`: chunked, Expect, Upgrade, HTTP/1.0, malformed,
 * too large...) hands the connection to node:http for good: the unread bytes are put back on the
 * socket (`unshift`) and node's own connection listener takes it, exactly as if it had accepted
 * it, so everything unusual is answered by node as before.
 *
 * Per connection: one request at a time (the socket is paused while the engine works; pipelined
 * requests wait in order, and wait for a client that does not read its answers), keep-alive as
 * node's (`Connection`/`Keep-Alive` headers, idle timeout), `Connection: close` from either side
 * ends the connection after the response, a half-closed client still gets its answer, and a
 * request whose head takes over 60 s or whole over 300 s to arrive gets node's 408 and is cut
 * (node's defaults). A head that arrives in pieces is searched for its end once, piece by piece.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { parsePlainRequest, type PlainRequest } from './plainRequest.js';

/** What the engine answers; `content-length` is always among the headers. */
export interface PlainResponse {
  status: number;
  headers: Record<string, string | string[] | number>;
  body: string | Buffer;
  /** Called once the body's bytes are no longer needed (pooled response buffers go back). */
  released?: () => void;
}

/** Serves one plain request; calls `reply` exactly once (a throw from `reply` means the headers were invalid). */
export type PlainHandler = (req: PlainRequest, body: Buffer, reply: (r: PlainResponse) => void) => void;

export interface FastPathOptions {
  keepAliveMs: number;
  /** Largest request head served here (node:http's default maxHeaderSize). */
  maxHead: number;
  /** Largest body served here; a larger one goes to node:http (and its 413). */
  maxBody: number;
  /** node:http's headersTimeout (default 60 s): a head that takes longer to arrive gets node's 408. */
  headersTimeoutMs?: number;
}

export interface FastPath {
  /** Connections served here right now. */
  readonly connections: number;
  /** Ends idle connections now; a busy one ends after its response. */
  closeIdle(): void;
  /** Destroys every connection still served here. */
  destroyAll(): void;
}

/** node:http's headersTimeout and requestTimeout defaults: the longest a request head, a whole request, may take to arrive. */
const HEADERS_MS = 60_000;
const REQUEST_MS = 300_000;

/** What node:http writes when a request takes too long to arrive (before anything else was written). */
const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';
const CRLFCRLF = [13, 10, 13, 10];

/** Bodies up to this size are copied behind the head into one buffer: one write, no writev. */
const COPY_BODY = 16 * 1024;

let dateSecond = -1;
let dateText = '';
/** The `Date` header, as node:http writes it (computed once a second). */
function httpDate(): string {
  const now = Date.now();
  const s = Math.floor(now / 1000);
  if (s !== dateSecond) {
    dateSecond = s;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const NON_ASCII = /[^\x00-\x7f]/;

/** The status line and headers, as node:http would write them (node adds Date and the connection headers last). */
function responseHead(r: PlainResponse, keepAliveSeconds: number, clientClose: boolean): { head: string; close: boolean } {
  let head = `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? 'unknown'}\r\n`;
  let close = false;
  let named = false;
  for (const name in r.headers) {
    const value = r.headers[name]!;
    if (!HEADER_NAME.test(name)) throw new TypeError(`invalid header name "${name}"`);
    if (name === 'connection') {
      named = true;
      close = String(value).toLowerCase() === 'close';
    }
    if (Array.isArray(value)) {
      for (const v of value) {
        if (BAD_VALUE.test(v)) throw new TypeError(`invalid character in header "${name}"`);
        head += `${name}: ${v}\r\n`;
      }
    } else {
      const v = typeof value === 'number' ? String(value) : value;
      if (BAD_VALUE.test(v)) throw new TypeError(`invalid character in header "${name}"`);
      head += `${name}: ${v}\r\n`;
    }
  }
  head += `Date: ${httpDate()}\r\n`;
  if (clientClose && !close) {
    head += named ? '\r\n' : 'Connection: close\r\n\r\n';
    close = true;
  } else {
    head += close || named ? '\r\n' : `Connection: keep-alive\r\nKeep-Alive: timeout=${keepAliveSeconds}\r\n\r\n`;
  }
  return { head, close };
}

/** The CRLFCRLF bytes matched after `byte`, `matched` having been matched before it. */
function nextMatch(matched: number, byte: number): number {
  if (byte === CRLFCRLF[matched]) return matched + 1;
  return byte === 13 ? 1 : 0;
}

/**
 * Puts the fast path in front of `server`'s own connection listener (node:http's), which keeps
 * serving whatever is handed to it. Undefined when node:http's listener is not where expected
 * (then node:http serves everything, as before).
 */
export function installFastPath(server: Server, handler: PlainHandler, opts: FastPathOptions): FastPath | undefined {
  const listeners = server.listeners('connection');
  if (listeners.length !== 1) return undefined;
  const nodeListener = listeners[0] as (socket: Socket) => void;
  server.removeListener('connection', nodeListener);
  const open = new Set<FastConnection>();
  const keepAliveSeconds = Math.floor(opts.keepAliveMs / 1000);
  const headersMs = opts.headersTimeoutMs ?? HEADERS_MS;
  let closing = false;

  class FastConnection {
    /** Bytes received and not yet consumed, in arrival order (joined only when needed). */
    private chunks: Buffer[] = [];
    private size = 0;
    /** The head of a request whose body is still arriving. */
    private head: PlainRequest | undefined;
    /** When the first byte of the request being received arrived (0: none is). */
    private started = 0;
    /**
     * A head found incomplete: only the chunks that arrive after it are searched for its end
     * (`scanned` chunks done, `matched` bytes of CRLFCRLF at their end), so a head trickled a byte
     * at a time is scanned once, not on every read; it is parsed when it has ended.
     */
    private partial = false;
    private scanned = 0;
    private matched = 0;
    busy = false;
    private ended = false;
    private gone = false;
    private readonly onData = (chunk: Buffer): void => {
      this.chunks.push(chunk);
      this.size += chunk.length;
      if (!this.busy) this.pump();
    };
    private readonly onEnd = (): void => {
      this.ended = true;
      if (!this.busy) this.socket.end();
    };
    private readonly onTimeout = (): void => {
      if (!this.busy) this.socket.destroy();
    };
    private readonly onError = (): void => {
      this.socket.destroy();
    };
    private readonly onClose = (): void => {
      this.gone = true;
      open.delete(this);
    };
    private readonly onDrain = (): void => this.next();

    /** This connection's socket listeners (removed when node:http takes the socket over). */
    private readonly listeners: Array<[string, (...args: any[]) => void]> = [
      ['data', this.onData], ['end', this.onEnd], ['timeout', this.onTimeout], ['error', this.onError], ['close', this.onClose],
    ];

    constructor(readonly socket: Socket) {
      for (const [event, fn] of this.listeners) socket.on(event, fn);
      socket.setTimeout(opts.keepAliveMs);
      open.add(this);
    }

    /** The pending bytes as one buffer. */
    private joined(): Buffer {
      if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.size)];
      return this.chunks[0]!;
    }

    /** Serves the pending requests, one at a time, until one is incomplete or in flight. */
    private pump(): void {
      while (!this.busy && !this.gone && this.size > 0) {
        if (this.started === 0) this.started = Date.now();
        if (this.head === undefined) {
          if (this.partial && !this.headEnded()) {
            // Still no end of head: parsePlainRequest would say 'other' past maxHead, else 'incomplete'.
            if (this.size > opts.maxHead) this.handOff();
            else this.tooSlow(headersMs);
            return;
          }
          const buf = this.joined();
          const parsed = parsePlainRequest(buf, 0, opts.maxHead, opts.maxBody);
          this.partial = false;
          if (parsed === 'other') {
            this.handOff();
            return;
          }
          if (parsed === 'incomplete') {
            this.partial = true;
            this.scanned = 1;
            this.matched = 0;
            for (let k = Math.max(0, buf.length - 3); k < buf.length; k++) this.matched = nextMatch(this.matched, buf[k]!);
            this.tooSlow(headersMs);
            return;
          }
          this.head = parsed;
        }
        const req = this.head;
        const end = req.bodyStart + req.bodyLength;
        if (this.size < end) {
          this.tooSlow(REQUEST_MS);
          return;
        }
        const buf = this.joined();
        this.head = undefined;
        this.started = 0;
        this.chunks = buf.length > end ? [buf.subarray(end)] : [];
        this.size = buf.length - end;
        this.busy = true;
        this.socket.pause();
        this.socket.setTimeout(0);
        handler(req, buf.subarray(req.bodyStart, end), (r) => this.reply(r, req.close));
      }
      if (this.ended && !this.busy && !this.gone) this.socket.end();
    }

    /** Whether the chunks not yet searched complete the head's CRLFCRLF. */
    private headEnded(): boolean {
      for (; this.scanned < this.chunks.length; this.scanned++) {
        const chunk = this.chunks[this.scanned]!;
        for (let k = 0; k < chunk.length; k++) {
          this.matched = nextMatch(this.matched, chunk[k]!);
          if (this.matched === 4) return true;
        }
      }
      return false;
    }

    /**
     * node:http's headersTimeout / requestTimeout: a request may not take longer to arrive. As node,
     * a 408 is written when nothing was written on the connection yet, then the socket is destroyed.
     */
    private tooSlow(limitMs: number): void {
      if (Date.now() - this.started <= limitMs) return;
      if (this.socket.bytesWritten === 0) this.socket.write(REQUEST_TIMEOUT_RESPONSE);
      this.socket.destroy();
    }

    private reply(r: PlainResponse, clientClose: boolean): void {
      if (!this.busy) return;
      this.busy = false;
      if (this.gone) {
        r.released?.();
        return;
      }
      let head: string;
      let close: boolean;
      try {
        ({ head, close } = responseHead(r, keepAliveSeconds, clientClose));
      } catch (err) {
        r.released?.();
        this.socket.destroy();
        throw err;
      }
      this.write(head, r);
      if (close || closing) {
        this.socket.end();
        return;
      }
      this.socket.setTimeout(opts.keepAliveMs);
      // A client that does not read its answers is not served more until it does.
      if (this.socket.writableNeedDrain) this.socket.once('drain', this.onDrain);
      else this.next();
    }

    /** After an answer: the next pipelined request, or more bytes from the socket. */
    private next(): void {
      this.pump();
      if (!this.busy && !this.gone) this.socket.resume();
    }

    /** Head and body in one write where that is cheap, else two corked writes. */
    private write(head: string, r: PlainResponse): void {
      const { socket } = this;
      const body = r.body;
      if (typeof body === 'string') {
        if (body.length <= COPY_BODY && !NON_ASCII.test(head)) socket.write(head + body, 'utf8');
        else {
          socket.cork();
          socket.write(head, 'latin1');
          socket.write(body, 'utf8');
          socket.uncork();
        }
        r.released?.();
        return;
      }
      if (body.length <= COPY_BODY) {
        const out = Buffer.allocUnsafe(head.length + body.length);
        out.write(head, 0, 'latin1');
        body.copy(out, head.length);
        r.released?.();
        socket.write(out);
        return;
      }
      socket.cork();
      socket.write(head, 'latin1');
      socket.write(body, r.released === undefined ? undefined : () => r.released!());
      socket.uncork();
    }

    /** node:http takes the connection from the first request that is not plain, with the bytes not yet read. */
    private handOff(): void {
      const { socket } = this;
      socket.pause();
      for (const [event, fn] of this.listeners) socket.removeListener(event, fn);
      socket.setTimeout(0);
      open.delete(this);
      const rest = this.size > 0 ? this.joined() : undefined;
      this.chunks = [];
      this.size = 0;
      this.gone = true;
      if (rest !== undefined) socket.unshift(rest);
      nodeListener.call(server, socket);
      socket.resume();
    }

    /** Ends the connection if no request is in flight (else `reply` ends it). */
    endIfIdle(): void {
      if (!this.busy) this.socket.end();
    }
  }

  server.on('connection', (socket: Socket) => new FastConnection(socket));

  return {
    get connections() {
      return open.size;
    },
    closeIdle() {
      closing = true;
      for (const c of open) c.endIfIdle();
    },
    destroyAll() {
      for (const c of open) c.socket.destroy();
    },
  };
}
