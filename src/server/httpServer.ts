/**
 * The HTTP + WebSocket listener (node:http, no framework). Per request: route lookup, CORS,
 * body read, the handler, one `http-log` line. Plain HTTP/1.1 requests (nearly all) are cut from
 * the socket and answered by fastConnection.ts without node:http's request/response objects;
 * node:http serves everything else (and WebSocket upgrades); both paths end in `onRequest`.
 * Handler bodies are written as they are (JSON text built by Postgres is never re-parsed). A thrown
 * ApiError becomes its `{path,error,code}` body; anything else becomes 500 "internal error"
 * (logged, never shown).
 *
 * `close(timeoutMs)` is the graceful half of shutdown: stop accepting, let in-flight requests
 * finish (bounded), then close keep-alive connections and WebSockets.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { WebSocketServer } from 'ws';
import { ApiError } from '../core/index.js';
import { releaseBuffer } from '../lib/index.js';
import type { EngineContext } from '../appState.js';
import { corsPolicy, originAllowed, PREFLIGHT_MAX_AGE } from './cors.js';
import { readBody } from './readBody.js';
import { installFastPath } from './fastConnection.js';
import { compressResponse } from './compressResponse.js';
import { writeHttpLog } from './httpLog.js';
import { buildRouteTable, lookupRoute, wsHandlersOf } from './routes.js';
import type { HttpResponse, RequestContext } from '../api/index.js';
import { tracedRequest, tracingOn } from '../tracing/index.js';

export interface EngineServer {
  readonly server: Server;
  /** Resolves with the bound port. */
  listen(port: number, host: string): Promise<number>;
  close(timeoutMs: number): Promise<void>;
  /** Requests being handled right now. */
  readonly inFlight: number;
}

const JSON_CT = 'application/json; charset=utf-8';
const KEEP_ALIVE_MS = 30_000;
/** node:http's default maxHeaderSize: a larger head goes to node:http (and its 431). */
const MAX_HEAD = 16 * 1024;
const EMPTY = Buffer.alloc(0);

/** Where a response goes: node:http's ServerResponse or a fast-path connection. */
interface ResponseWriter {
  /** Writes status, headers and body (throws on an invalid header, as node:http does). */
  write(r: HttpResponse, headers: Record<string, string | string[] | number>): void;
  destroy(): void;
}

const releaseOf = (body: Buffer) => () => releaseBuffer(body);

const errorBody = (error: string, code: string): string => JSON.stringify({ path: '$', error, code });
const NOT_FOUND_BODY = errorBody('resource does not exist', 'not-found');
const INTERNAL_BODY = errorBody('internal error', 'unexpected');
const METHOD_NOT_ALLOWED_BODY = errorBody('method not allowed', 'method-not-allowed');

const WS_PROTOCOLS = ['graphql-transport-ws', 'graphql-ws'];

function pathOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** The metrics' `kind` label when the handler named none. */
function defaultKind(endpoint: string): string {
  return endpoint === '/v1/query' || endpoint === '/v1/metadata' || endpoint === '/v2/query' ? 'metadata' : endpoint.endsWith('/graphql') ? 'query' : 'other';
}

/** Builds the listener for `ctx`, routing to the handlers exported by `api` (api/index.ts). */
export function createEngineServer(ctx: EngineContext, api: Readonly<Record<string, unknown>>): EngineServer {
  const { config, logger, metrics } = ctx;
  const routes = buildRouteTable(api, config.enabledApis, ctx.catchUp);
  const wsHandlers = wsHandlersOf(api, config.enabledApis);
  const cors = corsPolicy(config.corsDomain, config.disableCors);
  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | undefined;

  /** The response's headers as written: the handler's, the request id, CORS, content type and length. */
  const headersOf = (r: HttpResponse, corsHeaders: Record<string, string> | undefined, requestId: string): Record<string, string | string[] | number> => {
    const headers: Record<string, string | string[] | number> = { ...r.headers, 'x-request-id': requestId };
    if (corsHeaders) Object.assign(headers, corsHeaders);
    if (headers['content-type'] === undefined) headers['content-type'] = JSON_CT;
    headers['content-length'] = typeof r.body === 'string' ? Buffer.byteLength(r.body) : r.body.length;
    if (closing) headers.connection = 'close';
    return headers;
  };

  /** node:http's side: a ServerResponse. */
  const nodeWriter = (res: ServerResponse): ResponseWriter => ({
    write(r, headers) {
      res.writeHead(r.status, headers);
      if (typeof r.body === 'string') res.end(r.body);
      else {
        // A pooled response buffer goes back to the pool once the socket has taken its bytes.
        const body = r.body;
        res.end(body, () => releaseBuffer(body));
      }
    },
    destroy: () => res.destroy(),
  });

  const dispatch = async (
    headers: IncomingHttpHeaders, source: IncomingMessage | Buffer, method: string, url: string, path: string, requestId: string,
  ): Promise<HttpResponse> => {
    const methods = lookupRoute(routes, path)?.methods;
    if (!methods) return { status: 404, body: NOT_FOUND_BODY };
    const handler = methods.get(method);
    if (!handler) return { status: 405, headers: { allow: [...methods.keys()].join(', ') }, body: METHOD_NOT_ALLOWED_BODY };
    const body = Buffer.isBuffer(source) ? source : method === 'GET' || method === 'HEAD' ? EMPTY : await readBody(source, config.maxAdminBodySize);
    const q = url.indexOf('?');
    let query: URLSearchParams | undefined;
    const rc: RequestContext = {
      method,
      path,
      // Parsed only for the handlers that read it (most requests have no query string).
      get query() {
        return (query ??= new URLSearchParams(q < 0 ? '' : url.slice(q + 1)));
      },
      headers,
      body,
      requestId,
    };
    return handler(rc, ctx);
  };

  /**
   * One request, from either side: node:http's (`source` is the IncomingMessage, its body not yet
   * read) or the fast path's (`source` is the body).
   */
  const onRequest = async (
    method: string, url: string, headers: IncomingHttpHeaders, source: IncomingMessage | Buffer, out: ResponseWriter,
  ): Promise<void> => {
    const start = performance.now();
    inFlight++;
    const path = pathOf(url);
    const idHeader = headers['x-request-id'];
    const requestId = typeof idHeader === 'string' && idHeader !== '' ? idHeader : randomUUID();
    const origin = headers.origin;
    const corsHeaders = cors && origin !== undefined ? cors.headersFor(origin) : undefined;
    let response: HttpResponse;
    let error: string | undefined;
    try {
      if (corsHeaders && method === 'OPTIONS') {
        const requested = headers['access-control-request-headers'];
        response = {
          status: 204,
          headers: { 'access-control-max-age': PREFLIGHT_MAX_AGE, 'access-control-allow-headers': requested ?? '', 'content-type': 'text/plain; charset=utf-8' },
          body: '',
        };
      } else {
        response = tracingOn()
          ? await tracedRequest(headers, method, path, () => dispatch(headers, source, method, url, path, requestId))
          : await dispatch(headers, source, method, url, path, requestId);
      }
    } catch (err) {
      if (err instanceof ApiError) {
        response = { status: err.status, body: JSON.stringify(err.toQueryBody(false)) };
        error = err.code;
      } else {
        logger.error({ type: 'unexpected-error', request_id: requestId, path, err }, 'handler failed');
        response = { status: 500, body: INTERNAL_BODY };
        error = 'unexpected';
      }
    }
    try {
      // gzip for a client that accepts it (compressResponse.ts); unchanged when it sends no Accept-Encoding.
      if (headers['accept-encoding'] !== undefined) response = await compressResponse(headers, response, response.headers?.['content-type'] ?? JSON_CT);
      out.write(response, headersOf(response, corsHeaders, requestId));
    } catch (err) {
      logger.error({ type: 'unexpected-error', request_id: requestId, path, err }, 'writing the response failed');
      out.destroy();
    }
    const log = response.log;
    const elapsedMs = performance.now() - start;
    if (metrics !== undefined) {
      const endpoint = lookupRoute(routes, path)?.route ?? 'unmatched';
      metrics.observeRequest(endpoint, log?.kind ?? defaultKind(endpoint), response.status, elapsedMs / 1000);
    }
    writeHttpLog(logger, {
      status: response.status,
      method,
      path,
      request_id: requestId,
      duration_ms: Math.round(elapsedMs * 1000) / 1000,
      role: log?.role,
      operation_name: log?.operationName,
      error: log?.error ?? error,
    });
    if (--inFlight === 0 && drained) drained();
  };

  const server = createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, (req, res) => void onRequest(req.method ?? 'GET', req.url ?? '/', req.headers, req, nodeWriter(res)));
  // Plain requests skip node:http's request and response objects (fastConnection.ts).
  const fast = config.httpFastPath === false ? undefined : installFastPath(server, (req, body, reply) => {
    void onRequest(req.method, req.url, req.headers, body, {
      write(r, headers) {
        const released = typeof r.body === 'string' ? undefined : releaseOf(r.body);
        reply({ status: r.status, headers, body: r.body, released });
      },
      destroy() {
        // reply() destroyed the socket before it threw
      },
    });
  }, { keepAliveMs: KEEP_ALIVE_MS, maxHead: MAX_HEAD, maxBody: config.maxAdminBodySize, headersTimeoutMs: server.headersTimeout, requestTimeoutMs: server.requestTimeout });

  const wss = wsHandlers.size > 0
    ? new WebSocketServer({
        noServer: true,
        maxPayload: config.maxAdminBodySize,
        handleProtocols: (offered: Set<string>) => WS_PROTOCOLS.find((p) => offered.has(p)) ?? false,
      })
    : undefined;

  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const path = pathOf(req.url ?? '/');
    const wsHandler = wsHandlers.get(path);
    if (!wss || !wsHandler || closing) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    // As Hasura: with CORS domains configured, a browser handshake from another origin is refused.
    const origin = req.headers.origin;
    if (!config.disableCors && origin !== undefined && !originAllowed(origin, config.corsDomain)) {
      const body = JSON.stringify({ path: '$', error: 'received origin header does not match configured CORS domains', code: 'access-denied' });
      socket.end(`HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      logger.info({ type: 'websocket', path, origin }, 'websocket handshake refused: origin not allowed');
      return;
    }
    const upgrade = () => wss.handleUpgrade(req, socket, head, (ws) => {
      try {
        wsHandler(ws, req, ctx);
      } catch (err) {
        logger.error({ type: 'unexpected-error', path, err }, 'websocket handler failed');
        ws.close(1011, 'internal error');
      }
    });
    // --strict-schema-sync: the connection starts on a schema not older than the stored metadata.
    if (ctx.catchUp === undefined) upgrade();
    else void ctx.catchUp().then(upgrade);
  });

  return {
    server,
    get inFlight() {
      return inFlight;
    },
    listen(port, host) {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      });
    },
    async close(timeoutMs) {
      if (closing) return;
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      fast?.closeIdle();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, timeoutMs);
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      const sockets = [...(wss?.clients ?? [])];
      for (const ws of sockets) ws.close(1001, 'server shutting down');
      wss?.close();
      server.closeAllConnections();
      fast?.destroyAll();
      if (sockets.length > 0) {
        // Give clients a moment to answer the close frame, then cut the rest.
        await new Promise((r) => setTimeout(r, 500));
        for (const ws of sockets) ws.terminate();
      }
      await stopped;
    },
  };
}
