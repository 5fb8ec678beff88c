/**
 * One GraphQL WebSocket connection, in either sub-protocol (chosen at the handshake; none offered
 * → `graphql-ws`, as Hasura v1.3):
 *
 *   client                                server
 *   connection_init {headers}       →     connection_ack (+ ka every 5 s on graphql-ws)
 *                                         | connection_error "<auth error>"   (graphql-ws)
 *                                         | close 4403                        (graphql-transport-ws)
 *   start / subscribe {id, payload} →     data / next … (a query or mutation: one, then complete)
 *                                         | error (invalid request; graphql-ws then sends complete)
 *   stop / complete {id}            →     (the operation ends, nothing is sent)
 *
 * Authentication reads `payload.headers` with the handshake's headers like an HTTP request (a name in either
 * spelling under `--hasura-compat`), but
 * never with more rights than the upgrade request's (auth/connectionInitHeaders.ts: with an admin
 * secret, a header the handshake has is not replaced, and a handshake that carries credentials alone
 * decides the session; `--ws-init-overrides-headers` restores Hasura's merge); until
 * connection_init is accepted, messages are held to `--max-unauthenticated-body-size`, and at most
 * `--ws-max-queued-messages` wait to be handled (holding
 * at most QUEUED_MESSAGE_BYTES_FACTOR × the per-message bound: a client may send hundreds of small
 * `start`s at once, as Hasura clients do on reconnecting); a credential's expiry (JWT `exp`) closes the socket. Queries and mutations go to the
 * injected `execute` (the /v1/graphql pipeline); subscriptions become live queries (liveQueries.ts).
 * Messages are handled in arrival order; only `connection_init` is awaited before the next one, so
 * a slow query never holds up a `stop`. Sends are bounded: a client that does not read past
 * `wsLimits.maxBufferedBytes` is cut off instead of buffering without end. Closing frees every
 * operation, cohort membership and timer of the connection. After a metadata change a running
 * subscription is planned again; if its role may no longer run it, it ends with an `error`.
 */
import { setReceiveLimit } from './receiveLimit.js';
import type { IncomingMessage } from 'node:http';
import type { RawData, WebSocket } from 'ws';
import { ApiError, errors, inHasuraMode, isStackOverflow, type Session } from '../core/index.js';
import { readAfterOf, type ReadAfter } from '../execution/index.js';
import { parseJsonExact } from '../lib/index.js';
import { authenticate, checkNonAdminBody, connectionInitHeaders } from '../auth/index.js';
import { hasReadReplicas, type ApiParts, type EngineContext } from '../appState.js';
import { assertQueryAllowed, getRoleSchema, type GraphqlRequest } from '../graphql/index.js';
import { getCompiledOperation, type RemoteJoinPlan, type StreamPlan } from '../planner/index.js';
import type { LiveRootField } from './multiplexedQuery.js';
import type { Subscriber } from './cohort.js';
import { liveQueriesFor, type LiveQueryManager } from './liveQueries.js';
import {
  ackMessage, CLOSE, completeMessage, connectionErrorMessage, dataMessage, errorMessage, keepAliveMessage, pongMessage,
  type Protocol,
} from './messages.js';
import { decodeStartPayload } from './startPayload.js';
import { startJoinedLiveQuery } from './joinedLiveQuery.js';
import { joinedReads } from './joinedReads.js';
import type { TimerHandle } from './timers.js';

/** Runs a query or mutation for the socket: the same result /v1/graphql would answer. */
export type WsExecute = (session: Session, request: GraphqlRequest, readAfter: ReadAfter) => Promise<{ body: string; error?: ApiError }>;

/** Bytes of received, unhandled messages a connection may hold: this many times its per-message bound. */
const QUEUED_MESSAGE_BYTES_FACTOR = 64;

/** Send-buffer bound per connection (bytes queued in ws and the socket, not yet on the wire). */
export const wsLimits = { maxBufferedBytes: 8 * 1024 * 1024 };

/** `readAfter`: with read replicas, where the connection's reads may go (its read-your-writes headers). */
type ConnState = { kind: 'new' } | { kind: 'ready'; session: Session; readAfter: ReadAfter } | { kind: 'failed'; message: string };

interface Operation {
  cancelled: boolean;
  stop?: () => void;
}

const OPEN = 1;
const DROPPED_HEADERS = new Set(['sec-websocket-key', 'sec-websocket-version', 'sec-websocket-extensions', 'sec-websocket-protocol', 'upgrade', 'connection']);

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Serves one accepted socket until it closes. */
export function serveGraphqlSocket(socket: WebSocket, req: IncomingMessage, ctx: EngineContext, execute: WsExecute, parts: ApiParts): void {
  new GraphqlSocket(socket, req, ctx, execute, parts);
}

class GraphqlSocket {
  private readonly protocol: Protocol;
  private readonly legacyErrors: boolean;
  private readonly handshakeHeaders: Record<string, string>;
  private readonly live: LiveQueryManager;
  private readonly release: () => void;
  private readonly ops = new Map<string, Operation>();
  private state: ConnState = { kind: 'new' };
  private initReceived = false;
  private expiryTimer: TimerHandle | undefined;
  private closed = false;
  private chain: Promise<void> = Promise.resolve();
  /** Messages received and not yet handled. */
  private queued = 0;
  private queuedBytes = 0;

  constructor(
    private readonly socket: WebSocket, req: IncomingMessage, private readonly ctx: EngineContext, private readonly execute: WsExecute,
    /** The API the socket serves (the GraphQL API or the Relay API). */
    private readonly parts: ApiParts,
  ) {
    this.protocol = socket.protocol === 'graphql-transport-ws' ? 'graphql-transport-ws' : 'graphql-ws';
    this.legacyErrors = (req.url ?? '').startsWith('/v1alpha1/');
    this.handshakeHeaders = handshakeHeaders(req, ctx);
    this.live = liveQueriesFor(ctx);
    this.release = this.live.openConnection(this.protocol === 'graphql-ws' ? () => this.send(keepAliveMessage) : undefined);
    setReceiveLimit(socket, ctx.config.maxUnauthenticatedBodySize);
    socket.on('message', (data) => this.onMessage(data));
    socket.on('close', () => this.onClose());
    socket.on('error', (err) => ctx.logger.debug({ type: 'websocket-log', err }, 'websocket error'));
  }

  private onMessage(data: RawData): void {
    if (this.closed) return;
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data as ArrayBuffer);
    // Bounded before anything is decoded (auth/bodyLimits.ts): until connection_init is accepted,
    // a small message; then the session's own bound. Messages wait, undecoded, in a bounded queue.
    const config = this.ctx.config;
    if (this.state.kind !== 'ready') {
      if (bytes.length > config.maxUnauthenticatedBodySize) {
        return this.close(1009, `message larger than ${config.maxUnauthenticatedBodySize} bytes (the limit before connection_init is accepted)`);
      }
    } else if (!this.state.session.isAdmin && bytes.length > config.maxNonAdminBodySize) {
      return this.close(1009, `message larger than ${config.maxNonAdminBodySize} bytes`);
    }
    const perMessage = this.state.kind !== 'ready' ? config.maxUnauthenticatedBodySize : this.state.session.isAdmin ? config.maxAdminBodySize : config.maxNonAdminBodySize;
    if (this.queuedBytes + bytes.length > QUEUED_MESSAGE_BYTES_FACTOR * perMessage) {
      return this.close(1008, `more than ${QUEUED_MESSAGE_BYTES_FACTOR * perMessage} bytes of messages waiting to be handled`);
    }
    if (this.queued >= config.wsMaxQueuedMessages) {
      return this.close(1008, `more than ${config.wsMaxQueuedMessages} messages waiting to be handled`);
    }
    this.queued++;
    this.queuedBytes += bytes.length;
    // A macrotask between messages: many costly messages in one TCP read never hold the event
    // loop together; the order of messages is kept.
    this.chain = this.chain
      .then(yieldToEventLoop)
      .then(() => this.handle(bytes))
      .catch((err: unknown) => {
        this.ctx.logger.error({ type: 'websocket-log', err }, 'websocket message failed');
        this.close(1011, 'internal error');
      })
      .finally(() => {
        this.queued--;
        this.queuedBytes -= bytes.length;
      });
  }

  private async handle(bytes: Buffer): Promise<void> {
    if (this.closed) return;
    // Parsing JSON blocks the event loop: a non-admin message is bounded by the values it holds too.
    if (this.state.kind === 'ready' && !this.state.session.isAdmin) {
      try {
        checkNonAdminBody(this.ctx.config, bytes);
      } catch (e) {
        return this.close(1009, (e as Error).message);
      }
    }
    let msg: Record<string, unknown>;
    try {
      const parsed: unknown = parseJsonExact(bytes.toString('utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return this.badMessage('expected Object');
      msg = parsed as Record<string, unknown>;
    } catch (e) {
      return this.badMessage(`invalid JSON: ${(e as Error).message}`);
    }
    const type = msg.type;
    if (typeof type !== 'string') return this.badMessage('key "type" not found');
    const needId = (): string | undefined => {
      if (typeof msg.id === 'string' && msg.id !== '') return msg.id;
      this.badMessage(`key "id" not found or not a string in the ${type} message`);
      return undefined;
    };
    if (this.protocol === 'graphql-ws') {
      switch (type) {
        case 'connection_init':
          return this.init(msg.payload);
        case 'start': {
          const id = needId();
          if (id === undefined) return;
          if (!('payload' in msg)) return this.badMessage('key "payload" not found');
          return this.start(id, msg.payload);
        }
        case 'stop': {
          const id = needId();
          if (id !== undefined) this.stop(id);
          return;
        }
        case 'connection_terminate':
          return this.close(1000, 'GQL_CONNECTION_TERMINATE received');
        default:
          return this.badMessage(`unknown message type: ${type}`);
      }
    }
    switch (type) {
      case 'connection_init':
        if (this.initReceived) return this.close(CLOSE.tooManyInits, 'Too many initialisation requests');
        this.initReceived = true;
        return this.init(msg.payload);
      case 'ping':
        return this.send(pongMessage);
      case 'pong':
        return;
      case 'subscribe': {
        const id = needId();
        if (id === undefined) return;
        return this.start(id, msg.payload);
      }
      case 'complete': {
        const id = needId();
        if (id !== undefined) this.stop(id);
        return;
      }
      default:
        return this.badMessage(`Unexpected message of type ${type} received`);
    }
  }

  /** A message that does not parse: `connection_error` (graphql-ws) or close 4400. */
  private badMessage(detail: string): void {
    if (this.protocol === 'graphql-ws') this.send(connectionErrorMessage(`parsing ClientMessage failed: Error in $: ${detail}`));
    else this.close(CLOSE.badRequest, detail);
  }

  private async init(payload: unknown): Promise<void> {
    const given = payload !== null && typeof payload === 'object' ? (payload as Record<string, unknown>).headers : undefined;
    // connection_init never adds rights to the upgrade request's (auth/connectionInitHeaders.ts).
    const { headers, ignored } = connectionInitHeaders(this.handshakeHeaders, given, this.ctx.config, this.ctx.hasuraCompat === true);
    if (ignored.length > 0) {
      this.ctx.logger.info({ type: 'websocket-log', event: 'connection_init_headers_ignored', headers: ignored }, 'connection_init headers ignored: the upgrade request decides the connection\'s rights');
    }
    let auth: Awaited<ReturnType<typeof authenticate>>;
    let readAfter: ReadAfter;
    try {
      // X-Svc-Commit-Lsn / X-Svc-Read-Primary of the upgrade request or connection_init (a malformed LSN fails the init).
      readAfter = hasReadReplicas(this.ctx) ? readAfterOf(headers) : undefined;
      auth = await authenticate(headers, this.ctx.config);
    } catch (e) {
      if (this.closed) return;
      const message = e instanceof ApiError ? e.message : 'authentication failed';
      this.ctx.logger.info({ type: 'websocket-log', event: 'connection_error', message }, 'websocket connection_init failed');
      if (this.protocol === 'graphql-transport-ws') return this.close(CLOSE.forbidden, 'Forbidden');
      this.state = { kind: 'failed', message };
      return this.send(connectionErrorMessage(message));
    }
    if (this.closed) return;
    this.state = { kind: 'ready', session: inHasuraMode(auth.session, this.ctx.hasuraSession), readAfter };
    setReceiveLimit(this.socket, auth.session.isAdmin ? this.ctx.config.maxAdminBodySize : this.ctx.config.maxNonAdminBodySize);
    this.live.timers.clear(this.expiryTimer);
    this.expiryTimer = undefined;
    if (auth.expiresAt) {
      this.live.timers.at(auth.expiresAt, () => this.onExpired(), (h) => (this.expiryTimer = h));
    }
    this.send(ackMessage);
    if (this.protocol === 'graphql-ws') this.send(keepAliveMessage);
  }

  private onExpired(): void {
    this.expiryTimer = undefined;
    if (this.protocol === 'graphql-ws') this.close(1000, 'JWT expired');
    else this.close(CLOSE.forbidden, 'Forbidden: JWT expired');
  }

  private start(id: string, payload: unknown): void {
    if (this.protocol === 'graphql-transport-ws') {
      if (this.state.kind !== 'ready') return this.close(CLOSE.unauthorized, 'Unauthorized');
      if (this.ops.has(id)) return this.close(CLOSE.subscriberExists, `Subscriber for ${id} already exists`);
    } else {
      if (this.ops.has(id)) return this.startFailed(id, `an operation already exists with this id: ${id}`);
      if (this.state.kind === 'failed') return this.startFailed(id, `cannot start as connection_init failed with : ${this.state.message}`);
      if (this.state.kind !== 'ready') return this.startFailed(id, 'start received before the connection is initialised');
    }
    let request: GraphqlRequest;
    try {
      request = decodeStartPayload(payload);
    } catch (e) {
      if (this.protocol === 'graphql-transport-ws') return this.close(CLOSE.badRequest, (e as Error).message);
      this.sendError(id, e);
      return this.send(completeMessage(this.protocol, id));
    }
    const op: Operation = { cancelled: false };
    this.ops.set(id, op);
    void this.run(id, op, request, this.state.session, this.state.readAfter);
  }

  /** Plans and runs one operation; a subscription is (re)planned here, `sub` kept across re-plans. */
  private async run(id: string, op: Operation, request: GraphqlRequest, session: Session, readAfter: ReadAfter, sub?: Subscriber): Promise<void> {
    try {
      const cache = this.ctx.state.current;
      assertQueryAllowed(cache, this.ctx.config, session, request.query);
      const { compiled, variables } = getCompiledOperation({
        cache, roleSchema: getRoleSchema(cache, session.role, this.parts.schema, session.backendOnly), request, stringifyNumericTypes: this.ctx.config.stringifyNumericTypes,
        limits: this.ctx.limitDefaults ?? this.ctx.config, planners: this.parts.planners,
      });
      if (compiled.kind !== 'subscription') {
        const r = await this.execute(session, request, readAfter);
        if (op.cancelled || this.closed) return;
        this.ops.delete(id);
        // A request refused before it reached the database is an `error` (graphql-transport-ws:
        // final, no complete); anything else is a result, then complete.
        const refused = r.error !== undefined && !r.body.startsWith('{"data"');
        if (refused) this.sendError(id, r.error);
        else this.send(dataMessage(this.protocol, id, r.body));
        if (!refused || this.protocol === 'graphql-ws') this.send(completeMessage(this.protocol, id));
        return;
      }
      const field = compiled.fields[0];
      const streaming = compiled.fields.length === 1 && field?.kind === 'ext:stream';
      const joined = compiled.fields.length === 1 && field?.kind === 'ext:remote_join';
      if (!streaming && !joined && (compiled.fields.length !== 1 || field?.kind !== 'sql')) {
        throw new ApiError('not-supported', 'this subscription field is not supported: only database query fields can be subscribed to');
      }
      const subscriber: Subscriber = sub ?? {
        lastHash: undefined,
        push: (body) => this.send(dataMessage(this.protocol, id, body)),
        replan: () => {
          op.stop = undefined;
          if (!op.cancelled && !this.closed) void this.run(id, op, request, session, readAfter, subscriber);
        },
      };
      const cancelled = () => op.cancelled || this.closed;
      const stop = joined
        // Joins across databases: answered as a query when a table of any of them changed (joinedLiveQuery.ts).
        ? await startJoinedLiveQuery({
          run: async () => (await this.execute(session, request, readAfter)).body,
          timers: this.live.timers, intervalMs: this.ctx.config.liveQueries.refetchIntervalMs, cancelled, isStale: () => this.ctx.state.current !== cache,
          reads: joinedReads(field.plan as RemoteJoinPlan, 'source' in field ? field.source : undefined),
          watch: (source, text) => this.live.joinedWatch(source, text, cache),
          errorBody: (e) => this.live.errorBody(e),
          stats: this.live.joined,
        }, subscriber)
        : field.kind === 'ext:stream'
          ? await this.live.stream(session, field.plan as StreamPlan, variables, subscriber, cancelled, cache, 'source' in field ? field.source : undefined)
          : await this.live.subscribe(session, field as LiveRootField, variables, subscriber, cancelled, cache, readAfter);
      if (op.cancelled || this.closed) stop();
      else op.stop = stop;
    } catch (e) {
      if (op.cancelled || this.closed) return;
      this.ops.delete(id);
      this.sendError(id, e);
      if (this.protocol === 'graphql-ws') this.send(completeMessage(this.protocol, id));
    }
  }

  private stop(id: string): void {
    const op = this.ops.get(id);
    if (!op) return;
    op.cancelled = true;
    op.stop?.();
    this.ops.delete(id);
  }

  /** graphql-ws `error` for a start the connection state refuses, then `complete`. */
  private startFailed(id: string, message: string): void {
    const err = new ApiError('start-failed', message);
    this.send(errorMessage(this.protocol, id, this.legacyErrors ? err.toQueryBody(false) : err.toGraphqlError(false)));
    this.send(completeMessage(this.protocol, id));
  }

  /** The `error` message of an operation that could not run. */
  private sendError(id: string, e: unknown): void {
    const err = e instanceof ApiError ? e : isStackOverflow(e) ? errors.nestedTooDeeply() : new ApiError('unexpected', 'unexpected error', { status: 500, internal: String(e) });
    if (err.code === 'unexpected' && !(e instanceof ApiError)) this.ctx.logger.error({ type: 'websocket-log', err: e }, 'websocket operation failed');
    const dev = this.ctx.config.devMode;
    let payload: unknown;
    if (this.protocol === 'graphql-transport-ws') payload = [err.toGraphqlError(dev)];
    else payload = this.legacyErrors ? err.toQueryBody(dev) : { errors: [err.toGraphqlError(dev)] };
    this.send(errorMessage(this.protocol, id, payload));
  }

  private send(text: string): void {
    if (this.closed || this.socket.readyState !== OPEN) return;
    if (this.socket.bufferedAmount > wsLimits.maxBufferedBytes) {
      this.ctx.logger.warn({ type: 'websocket-log', buffered: this.socket.bufferedAmount }, 'websocket client too slow: connection dropped');
      this.socket.terminate();
      this.onClose();
      return;
    }
    this.socket.send(text);
  }

  private close(code: number, reason: string): void {
    if (this.socket.readyState === OPEN) this.socket.close(code, truncateReason(reason));
    this.onClose();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    for (const op of this.ops.values()) {
      op.cancelled = true;
      op.stop?.();
    }
    this.ops.clear();
    this.live.timers.clear(this.expiryTimer);
    this.expiryTimer = undefined;
    this.release();
  }
}

/** The handshake's headers, minus the WebSocket ones (and the cookie when CORS is disabled, as Hasura). */
function handshakeHeaders(req: IncomingMessage, ctx: EngineContext): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || DROPPED_HEADERS.has(k)) continue;
    if (k === 'cookie' && ctx.config.disableCors) continue;
    out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

/** Whether `headers` has a header named `key`, the session headers compared in either spelling (`x-hasura-*` as `x-svc-*`). */
/** Close reasons are limited to 123 bytes. */
function truncateReason(reason: string): string {
  let r = reason;
  while (Buffer.byteLength(r) > 123) r = r.slice(0, -1);
  return r;
}
