/**
 * The frontend messages of the extended query protocol that the engine's submittables send —
 * Parse (when the connection has not prepared the statement), Bind, Execute per statement, then
 * one Sync — encoded into ONE buffer in one pass, and written with one `stream.write`.
 *
 * node-postgres' serializer builds every message in its shared writer and copies each out into a
 * Buffer of its own (five buffers for a two-statement pipeline, corked into one `writev`), and
 * writes each parameter with two native calls (`Buffer.byteLength`, `buffer.write`). Here the
 * buffer is sized for the worst case up front (3 bytes per UTF-16 unit), short ASCII values are
 * copied by a JS loop, and the bytes are exactly pg's (the unit test compares them).
 */

/** One statement of a message batch: Parse it first when `parse` is set. Values as `prepareValue` gave them. */
export interface ExtendedStatement {
  name: string;
  text: string;
  parse: boolean;
  values: ReadonlyArray<string | Buffer | null>;
}

const EXECUTE = [69, 0, 0, 0, 9, 0, 0, 0, 0, 0];
const SYNC = [83, 0, 0, 0, 4];
/** Strings up to this length are tried as ASCII in JS before falling back to `buffer.write`. */
const SHORT = 64;

/** Writes `s` as UTF-8 at `off`; returns the number of bytes written. */
function writeText(buf: Buffer, off: number, s: string): number {
  const n = s.length;
  if (n <= SHORT) {
    let i = 0;
    for (; i < n; i++) {
      const c = s.charCodeAt(i);
      if (c >= 0x80) break;
      buf[off + i] = c;
    }
    if (i === n) return n;
  }
  return buf.write(s, off, 'utf8');
}

function int32(buf: Buffer, off: number, v: number): void {
  buf[off] = (v >>> 24) & 0xff;
  buf[off + 1] = (v >>> 16) & 0xff;
  buf[off + 2] = (v >>> 8) & 0xff;
  buf[off + 3] = v & 0xff;
}

function int16(buf: Buffer, off: number, v: number): void {
  buf[off] = (v >>> 8) & 0xff;
  buf[off + 1] = v & 0xff;
}

/** An upper bound of the bytes `encodeExtendedQuery` writes for these statements. */
function maxBytes(statements: readonly ExtendedStatement[]): number {
  let size = SYNC.length;
  for (const s of statements) {
    if (s.parse) size += 1 + 4 + 3 * s.name.length + 1 + 3 * s.text.length + 1 + 2;
    size += 1 + 4 + 1 + 3 * s.name.length + 1 + 2 + 2 * s.values.length + 2 + 2 + 2 + EXECUTE.length;
    for (const v of s.values) size += 4 + (v === null ? 0 : typeof v === 'string' ? 3 * v.length : v.length);
  }
  return size;
}

/**
 * Parse? + Bind + Execute for each statement, then Sync, as one buffer. Every parameter in text
 * format except Buffers (binary, as pg sends them); results in text format.
 */
export function encodeExtendedQuery(statements: readonly ExtendedStatement[]): Buffer {
  const buf = Buffer.allocUnsafe(maxBytes(statements));
  let off = 0;
  for (const s of statements) {
    if (s.parse) {
      const start = off;
      buf[off] = 80; // 'P'
      off += 5;
      off += writeText(buf, off, s.name);
      buf[off++] = 0;
      off += writeText(buf, off, s.text);
      buf[off++] = 0;
      int16(buf, off, 0);
      off += 2;
      int32(buf, start + 1, off - start - 1);
    }
    const start = off;
    buf[off] = 66; // 'B'
    off += 5;
    buf[off++] = 0; // unnamed portal
    off += writeText(buf, off, s.name);
    buf[off++] = 0;
    const n = s.values.length;
    int16(buf, off, n);
    off += 2;
    const formats = off;
    off += 2 * n;
    int16(buf, off, n);
    off += 2;
    for (let i = 0; i < n; i++) {
      const v = s.values[i];
      let binary = 0;
      if (v === null || v === undefined) {
        int32(buf, off, -1);
        off += 4;
      } else if (typeof v === 'string') {
        const len = writeText(buf, off + 4, v);
        int32(buf, off, len);
        off += 4 + len;
      } else {
        binary = 1;
        int32(buf, off, v.length);
        v.copy(buf, off + 4);
        off += 4 + v.length;
      }
      int16(buf, formats + 2 * i, binary);
    }
    int16(buf, off, 1); // one result format code for all columns
    int16(buf, off + 2, 0); // text
    off += 4;
    int32(buf, start + 1, off - start - 1);
    for (const b of EXECUTE) buf[off++] = b;
  }
  for (const b of SYNC) buf[off++] = b;
  return buf.subarray(0, off);
}
