/**
 * A real GraphQL server for remote-schema tests: graphql-js `graphql()` over node:http on
 * 127.0.0.1. Records every request (headers and JSON body) so tests can count requests and check
 * what was sent; `delayMs` slows answers down (timeouts); `stop()` / `listen()` take it down and bring
 * it back on the same port (unreachable remotes).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSchema, graphql } from 'graphql';

export interface RemoteRequest {
  headers: IncomingHttpHeaders;
  body: { query: string; variables?: Record<string, unknown>; operationName?: string };
}

export interface RemoteGraphqlServer {
  url: string;
  port: number;
  requests: RemoteRequest[];
  /** Requests that were not introspection queries. */
  queries(): RemoteRequest[];
  delayMs: number;
  /** Extra headers on every answer (`Set-Cookie`...). */
  responseHeaders: Record<string, string>;
  stop(): Promise<void>;
  listen(): Promise<void>;
}

export async function startRemoteGraphqlServer(sdl: string, root: Record<string, unknown>, port = 0): Promise<RemoteGraphqlServer> {
  const schema = buildSchema(sdl);
  const requests: RemoteRequest[] = [];
  let server: Server | undefined;
  const state = { delayMs: 0, headers: {} as Record<string, string> };
  const make = () => createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RemoteRequest['body'];
      requests.push({ headers: req.headers, body });
      if (state.delayMs > 0 && !body.query.includes('__schema')) await new Promise((r) => setTimeout(r, state.delayMs));
      const result = await graphql({ schema, source: body.query, rootValue: root, variableValues: body.variables, operationName: body.operationName, contextValue: req });
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json', ...state.headers });
      res.end(JSON.stringify(result));
    });
  });
  const listen = () => new Promise<void>((resolve) => {
    server = make();
    server.listen(port, '127.0.0.1', () => {
      port = (server!.address() as AddressInfo).port;
      resolve();
    });
  });
  await listen();
  return {
    get url() {
      return `http://127.0.0.1:${port}/graphql`;
    },
    get port() {
      return port;
    },
    requests,
    queries: () => requests.filter((r) => !r.body.query.includes('__schema')),
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(v: number) {
      state.delayMs = v;
    },
    get responseHeaders() {
      return state.headers;
    },
    set responseHeaders(v: Record<string, string>) {
      state.headers = v;
    },
    stop: () => new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.closeAllConnections();
      server.close(() => resolve());
      server = undefined;
    }),
    listen,
  };
}
