/**
 * The contract between the HTTP listener and the endpoint handlers in api/.
 * A handler gets the parsed request and the engine context, and returns status + body text;
 * JSON built by Postgres is returned as text and written to the socket as it is.
 */
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';
import type { EngineContext } from '../appState.js';

export interface RequestContext {
  method: string;
  /** Path without query string. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  requestId: string;
}

export interface HttpResponse {
  status: number;
  headers?: Record<string, string | string[]>;
  body: string | Buffer;
  /** Filled by handlers for the request log line. */
  log?: { role?: string; operationName?: string; error?: string; kind?: string };
}

export type Handler = (req: RequestContext, ctx: EngineContext) => Promise<HttpResponse>;

export const jsonResponse = (status: number, value: unknown, headers?: Record<string, string>): HttpResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  body: JSON.stringify(value),
});

/**
 * A WebSocket endpoint (GraphQL subscriptions on /v1/graphql): gets the accepted socket (its
 * `protocol` is `graphql-transport-ws`, `graphql-ws` or empty) and the upgrade request. The server
 * closes remaining sockets (code 1001) on shutdown.
 */
export type WsHandler = (socket: WebSocket, req: IncomingMessage, ctx: EngineContext) => void;
