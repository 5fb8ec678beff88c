/**
 * A TCP proxy in front of Postgres that records the protocol messages each client connection sends
 * (type letter: Q simple query, P parse, B bind, E execute, S sync, …), so a test can count the
 * round trips a request cost: every Sync and every simple Query waits for the server's ReadyForQuery.
 * Bytes pass through unchanged; the proxy only reads the client→server stream.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface RecordedMessage {
  connection: number;
  type: string;
  /** The message body as latin1 text (enough to find a statement's text in a Parse or Query). */
  body: string;
}

export interface PgMessageProxy {
  /** The Postgres URL `target` with host and port replaced by the proxy's. */
  url: string;
  messages: RecordedMessage[];
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;

/** Starts a proxy on 127.0.0.1 for the server of `targetUrl`. */
export async function startPgMessageProxy(targetUrl: string): Promise<PgMessageProxy> {
  const target = new URL(targetUrl);
  const messages: RecordedMessage[] = [];
  const sockets = new Set<Socket>();
  let nextId = 0;
  const server: Server = createServer((client) => {
    const id = nextId++;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let buf = Buffer.alloc(0);
    let startup = true;
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
          continue;
        }
        if (buf.length < 5) break;
        const len = buf.readInt32BE(1);
        if (buf.length < len + 1) break;
        messages.push({ connection: id, type: String.fromCharCode(buf[0]!), body: buf.subarray(5, len + 1).toString('latin1') });
        buf = buf.subarray(len + 1);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
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
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
