/**
 * Lets the GraphQL hot path take a DataRow's first field as the bytes Postgres sent, framed by the
 * response's own prefix and suffix (`{"data":` … `}`), in ONE Buffer: the JSON text is never
 * decoded to a JS string and never encoded again on the way to the socket.
 *
 * Why: node-postgres decodes every DataRow field to a string as it parses the message. For a
 * 100 kB response that string, the concatenated body and the encoded write were three copies of
 * the response on the V8 heap per request — most of the engine's allocation under load, and what
 * drove its RSS over 150 MB in the benchmark.
 *
 * How: pg-protocol's `Parser.prototype.handlePacket` is wrapped so a DataRow becomes a `LazyDataRow`
 * that decodes its fields on first access (pg.Query reads `fields` while the message is dispatched,
 * so it behaves exactly as before), and `parse` is wrapped so that after the message is dispatched
 * it is sealed: decoded if nobody read it, and its reference to the parser's buffer dropped (the
 * parser, and the socket's messageReader.ts, reuse those bytes for the next chunk).
 * `framedFirstField` copies the first field while the message is being dispatched. If
 * pg-protocol's internals are not what this expects, nothing is patched and `framedFirstField`
 * returns undefined: callers then frame the decoded string instead.
 * The framed Buffer comes from lib/bufferPool: whoever writes it out may give it back with
 * `releaseBuffer` once the socket has taken the bytes.
 */
import { createRequire } from 'node:module';
import { acquireBuffer } from '../lib/index.js';

/** Bytes written before and after the JSON text of a response. */
export interface JsonFrame {
  prefix: Buffer;
  suffix: Buffer;
}

const DATA_ROW = 68;
const NULL_JSON = Buffer.from('null');

type HandlePacket = (this: ParserLike, offset: number, code: number, length: number, bytes: Buffer) => { fields?: unknown[] };
type ParseFn = (this: ParserLike, buffer: Buffer, callback: (msg: unknown) => void) => void;
interface ParserLike {
  [kCallback]?: (msg: unknown) => void;
  [kWrapped]?: (msg: unknown) => void;
}
const kCallback = Symbol('svc.parseCallback');
const kWrapped = Symbol('svc.parseCallbackWrapped');

let originalHandlePacket: HandlePacket | undefined;

/** A DataRow whose fields are decoded on first access (the shape of pg-protocol's DataRowMessage). */
class LazyDataRow {
  readonly name = 'dataRow';
  length: number;
  readonly fieldCount: number;
  private bytes: Buffer | undefined;
  private decoded: unknown[] | undefined;
  private taken = false;

  constructor(
    private readonly parser: ParserLike,
    private readonly offset: number,
    length: number,
    bytes: Buffer,
  ) {
    this.length = length;
    this.bytes = bytes;
    this.fieldCount = bytes.readInt16BE(offset);
  }

  get fields(): unknown[] {
    if (this.decoded === undefined) {
      if (this.bytes === undefined) throw new Error('DataRow was consumed as bytes');
      this.decoded = originalHandlePacket!.call(this.parser, this.offset, DATA_ROW, this.length, this.bytes).fields ?? [];
    }
    return this.decoded;
  }

  /** prefix + first field (or `null`) + suffix, copied while the message is dispatched. */
  framed(frame: JsonFrame): Buffer {
    const bytes = this.bytes;
    if (bytes === undefined) throw new Error('DataRow read after dispatch');
    this.taken = true;
    const len = this.fieldCount > 0 ? bytes.readInt32BE(this.offset + 2) : -1;
    const start = this.offset + 6;
    const bodyLength = len < 0 ? NULL_JSON.length : len;
    const out = acquireBuffer(frame.prefix.length + bodyLength + frame.suffix.length);
    frame.prefix.copy(out, 0);
    if (len < 0) NULL_JSON.copy(out, frame.prefix.length);
    else bytes.copy(out, frame.prefix.length, start, start + len);
    frame.suffix.copy(out, frame.prefix.length + bodyLength);
    return out;
  }

  /** The first field's bytes (null for SQL NULL or no field), copied while the message is dispatched. */
  firstField(): Buffer | null {
    const bytes = this.bytes;
    if (bytes === undefined) throw new Error('DataRow read after dispatch');
    this.taken = true;
    const len = this.fieldCount > 0 ? bytes.readInt32BE(this.offset + 2) : -1;
    if (len < 0) return null;
    const out = Buffer.allocUnsafe(len);
    bytes.copy(out, 0, this.offset + 6, this.offset + 6 + len);
    return out;
  }

  /** After dispatch: keep the decoded fields for a late reader, drop the parser's buffer. */
  seal(): void {
    if (this.decoded === undefined && !this.taken) void this.fields;
    this.bytes = undefined;
  }
}

function install(): boolean {
  try {
    const req = createRequire(import.meta.url);
    const fromPg = createRequire(req.resolve('pg'));
    const { Parser } = fromPg('pg-protocol/dist/parser.js') as { Parser?: { prototype: Record<string, unknown> } };
    const proto = Parser?.prototype;
    if (!proto || typeof proto.handlePacket !== 'function' || typeof proto.parse !== 'function') return false;
    if (proto.handlePacket.length !== 4 || proto.parse.length !== 2) return false;
    const handlePacket = proto.handlePacket as HandlePacket;
    const parse = proto.parse as ParseFn;
    originalHandlePacket = handlePacket;
    proto.handlePacket = function (this: ParserLike, offset: number, code: number, length: number, bytes: Buffer) {
      if (code !== DATA_ROW) return handlePacket.call(this, offset, code, length, bytes);
      return new LazyDataRow(this, offset, length, bytes);
    };
    proto.parse = function (this: ParserLike, buffer: Buffer, callback: (msg: unknown) => void) {
      if (this[kCallback] !== callback) {
        this[kCallback] = callback;
        this[kWrapped] = (msg: unknown) => {
          try {
            callback(msg);
          } finally {
            if (msg instanceof LazyDataRow) msg.seal();
          }
        };
      }
      return parse.call(this, buffer, this[kWrapped]!);
    };
    return true;
  } catch {
    return false;
  }
}

/** True when DataRows can be taken as bytes (pg-protocol has the expected shape). */
export const dataRowBytesInstalled = install();

/**
 * `frame.prefix` + the message's first field + `frame.suffix` as one Buffer (`null` for SQL NULL),
 * or undefined when the message is not a lazily decoded DataRow (the caller frames the string).
 * Call only while the message is dispatched (inside a submittable's `handleDataRow`).
 */
export function framedFirstField(msg: unknown, frame: JsonFrame): Buffer | undefined {
  return msg instanceof LazyDataRow ? msg.framed(frame) : undefined;
}

/**
 * The message's first field as the bytes Postgres sent (null for SQL NULL), or undefined when the
 * message is not a lazily decoded DataRow (the caller reads the decoded string instead). Call only
 * while the message is dispatched.
 */
export function firstFieldBytes(msg: unknown): Buffer | null | undefined {
  return msg instanceof LazyDataRow ? msg.firstField() : undefined;
}

/** The same frame around JSON text that is already a string (or SQL NULL). */
export function frameText(text: string | null, frame: JsonFrame): Buffer {
  const body = text === null ? NULL_JSON : Buffer.from(text);
  return Buffer.concat([frame.prefix, body, frame.suffix], frame.prefix.length + body.length + frame.suffix.length);
}
