/**
 * A local JWKS endpoint for tests: serves `{keys}` with chosen caching headers, counts fetches,
 * can rotate its keys and can be stopped and restarted on the same port ("provider down").
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface JwksServer {
  url: string;
  port: number;
  /** Replaces the served keys. */
  setKeys(keys: Record<string, unknown>[]): void;
  /** Response headers such as `{'cache-control': 'max-age=1'}` or `{expires: …}`; {} for none. */
  setHeaders(h: Record<string, string>): void;
  /** Answer this status (and no keys) instead of 200. */
  setStatus(status: number): void;
  fetches: number;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

export async function startJwksServer(opts: { port?: number; keys?: Record<string, unknown>[]; headers?: Record<string, string> } = {}): Promise<JwksServer> {
  let keys = opts.keys ?? [];
  let headers = opts.headers ?? {};
  let status = 200;
  let server: Server;
  const self: JwksServer = {
    url: '',
    port: 0,
    fetches: 0,
    setKeys: (k) => (keys = k),
    setHeaders: (h) => (headers = h),
    setStatus: (s) => (status = s),
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
    restart: () => listen(self.port),
  };
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server = createServer((req, res) => {
        self.fetches++;
        if (status !== 200) {
          res.writeHead(status, { 'content-type': 'text/plain' }).end('unavailable');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ keys }));
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        self.port = (server.address() as AddressInfo).port;
        self.url = `http://127.0.0.1:${self.port}/.well-known/jwks.json`;
        resolve();
      });
    });
  await listen(opts.port ?? 0);
  return self;
}
