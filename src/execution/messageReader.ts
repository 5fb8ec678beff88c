/**
 * The socket the pool's Postgres connections read with: every read lands in ONE buffer per
 * connection, reused from read to read, and node-postgres' parser gets only whole messages, as
 * views of that buffer (`'data'` events, which is all pg reads from its stream).
 *
 * Why: a plain `net.Socket` allocates a fresh ArrayBuffer for every read (64 kB, cut to what was
 * read), and pg-protocol's parser allocates again to join a message that spans reads. That memory
 * lives outside V8's heap until a scavenge frees it, and V8 counts it against the old generation's
 * limit: on e_large_1000 (106 kB answers at ~400 req/s) the dead read buffers between two scavenges
 * reached 35 MB and V8 ran a full mark-compact every 200–300 ms (measured with the engine under wrk; docs/benchmarks.md).
 *
 * How: node's `onread` option (`buffer` as a function: node reads into whatever it returns, and
 * calls `callback(nread)` after each read). The reader keeps `[start, end)` of bytes not yet handed
 * on; after a read it finds the last whole message, emits `[start, that)` and keeps the tail (a
 * message still arriving). Before the next read the tail moves to the front when the free space is
 * short, and the buffer doubles when one message fills it (as its bytes arrive, never as its header
 * claims). Every message handed on is consumed synchronously — pg decodes fields to strings, and
 * `dataRowBytes` copies the DataRow it takes and drops its view when the message has been
 * dispatched — so the bytes can be overwritten by the next read. The two messages whose parsed form
 * keeps a view of the bytes (CopyData, and the MD5 salt of an authentication request) are handed on
 * as a copy. A buffer grown past `KEEP_BYTES` is dropped once it is empty, so one huge answer does
 * not pin its memory.
 *
 * TLS connections keep pg's own socket: their bytes are read by the TLS layer, not by pg.
 */
import net from 'node:net';

/** Bytes a read may fill at least (node's own read size). */
const READ_BYTES = 64 * 1024;
/** A grown buffer larger than this is replaced by a fresh one once it holds nothing. */
const KEEP_BYTES = 1024 * 1024;
/** Message codes whose parsed form keeps a view of the bytes: CopyData ('d'), Authentication ('R'). */
const COPY_DATA = 100;
const AUTHENTICATION = 82;

/** One connection's read buffer and the cursors of the bytes not handed on yet. */
class MessageReader {
  private buf = Buffer.allocUnsafe(2 * READ_BYTES);
  private start = 0;
  private end = 0;
  /** Set once the socket exists (node asks for the first buffer while constructing it). */
  socket: net.Socket | undefined;

  /** Where the next read goes: the free space behind the kept bytes, made large enough first. */
  next = (): Buffer => {
    const kept = this.end - this.start;
    if (kept === 0) {
      this.start = this.end = 0;
      if (this.buf.length > KEEP_BYTES) this.buf = Buffer.allocUnsafe(2 * READ_BYTES);
    }
    if (this.buf.length - this.end < READ_BYTES) {
      // grown by what has arrived, never by what a header claims (a stream that is not Postgres' may
      // claim gigabytes)
      const size = kept + READ_BYTES;
      if (size > this.buf.length) {
        let cap = this.buf.length * 2;
        while (cap < size) cap *= 2;
        const grown = Buffer.allocUnsafe(cap);
        this.buf.copy(grown, 0, this.start, this.end);
        this.buf = grown;
      } else {
        this.buf.copyWithin(0, this.start, this.end);
      }
      this.start = 0;
      this.end = kept;
    }
    return this.buf.subarray(this.end);
  };

  /** After a read of `nread` bytes: hands every whole message on, keeps the rest (never pauses). */
  onRead = (nread: number): boolean => {
    this.end += nread;
    const buf = this.buf;
    const end = this.end;
    let p = this.start;
    let viewed = false;
    while (end - p >= 5) {
      const code = buf[p]!;
      const next = p + 1 + buf.readUInt32BE(p + 1);
      if (next > end) break;
      if (code === COPY_DATA || code === AUTHENTICATION) viewed = true;
      p = next;
    }
    if (p === this.start) return true;
    const chunk = buf.subarray(this.start, p);
    this.start = p;
    this.socket!.emit('data', viewed ? Buffer.from(chunk) : chunk);
    return true;
  };
}

/**
 * pg's `stream` option: a socket whose reads go through a `MessageReader` (a plain socket for
 * TLS connections, whose first byte is the answer to the SSL request and not a message).
 */
/** Sockets made with a read buffer since start (tests read it to see which socket a pool uses). */
export const messageReaderSockets = { count: 0 };

export function messageReaderSocket(config?: { ssl?: unknown }): net.Socket {
  if (config?.ssl) return new net.Socket();
  messageReaderSockets.count++;
  const reader = new MessageReader();
  // `onread` is a constructor option too (node's net.Socket reads it there); the types list it for connect()
  const options: net.SocketConstructorOpts & { onread: net.OnReadOpts } = { onread: { buffer: reader.next, callback: reader.onRead } };
  const socket = new net.Socket(options);
  reader.socket = socket;
  return socket;
}
