/**
 * A TCP proxy in front of Postgres that records the protocol messages each client connection sends
 * (type letter: Q simple query, P parse, B bind, E execute, S sync, …), so a test can count the
 * round trips a request cost: every Sync and every simple Query waits for the server's ReadyForQuery.
 * `flow` also has the server's ReadyForQuery messages, in the order the proxy saw both directions,
 * so a test can tell that a client wrote a unit before the previous one was answered (pipelining).
 * Bytes pass through unchanged.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface RecordedMessage {
  connection: number;
  type: string;
  /** The message body as latin1 text (enough to find a statement's text in a Parse or Query). */
  body: string;
}

/** A client Sync or a server ReadyForQuery, as the proxy saw them. */
export interface FlowEvent {
  connection: number;
  /** 'S': the client sent a Sync; 'Z': the server answered ReadyForQuery. */
  type: 'S' | 'Z';
}

export interface PgMessageProxy {
  /** The Postgres URL `target` with host and port replaced by the proxy's. */
  url: string;
  messages: RecordedMessage[];
  flow: FlowEvent[];
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

/** Starts a proxy on 127.0.0.1 for the server of `targetUrl`. */
export async function startPgMessageProxy(targetUrl: string): Promise<PgMessageProxy> {
  const target = new URL(targetUrl);
  const messages: RecordedMessage[] = [];
  const flow: FlowEvent[] = [];
  const sockets = new Set<Socket>();
  let nextId = 0;
  const server: Server = createServer((client) => {
    const id = nextId++;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let buf = Buffer.alloc(0);
    let startup = true;
    /** The client asked for SSL/GSS: the server's next byte is its one-byte answer, not a message. */
    let answerByte = false;
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk);
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        if (startup) {
          if (buf.length < 8) break;
          const len = buf.readInt32BE(0);
          if (buf.length < len) break;
          const code = buf.readInt32BE(4);
          buf = buf.subarray(len);
          if (code !== SSL_REQUEST && code !== GSS_REQUEST) startup = false;
          else answerByte = true;
          continue;
        }
        if (buf.length < 5) break;
        const len = buf.readInt32BE(1);
        if (buf.length < len + 1) break;
        const type = String.fromCharCode(buf[0]!);
        messages.push({ connection: id, type, body: buf.subarray(5, len + 1).toString('latin1') });
        if (type === 'S') flow.push({ connection: id, type: 'S' });
        buf = buf.subarray(len + 1);
      }
    });
    // Server → client: only message boundaries are read, to see each ReadyForQuery ('Z').
    let sbuf: Buffer = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      client.write(chunk);
      sbuf = sbuf.length === 0 ? chunk : Buffer.concat([sbuf, chunk]);
      if (answerByte) {
        sbuf = sbuf.subarray(1);
        answerByte = false;
      }
      for (;;) {
        if (sbuf.length < 5) break;
        const len = sbuf.readInt32BE(1);
        if (sbuf.length < len + 1) break;
        if (sbuf[0] === 0x5a) flow.push({ connection: id, type: 'Z' });
        sbuf = sbuf.subarray(len + 1);
      }
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.toString(),
    messages,
    flow,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

/** Whether some connection sent a Sync while an earlier one of its Syncs was still unanswered. */
export function pipelinedSomewhere(p: PgMessageProxy): boolean {
  const unanswered = new Map<number, number>();
  for (const e of p.flow) {
    const n = unanswered.get(e.connection) ?? 0;
    if (e.type === 'S') {
      if (n > 0) return true;
      unanswered.set(e.connection, n + 1);
    } else unanswered.set(e.connection, Math.max(0, n - 1));
  }
  return false;
}
