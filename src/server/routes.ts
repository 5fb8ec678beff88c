/**
 * The route table: (method, path) → the handler exported under that name by `api/index.ts`.
 * Handlers are looked up by name when the server starts, so an endpoint whose handler does not
 * exist yet, or whose API is not enabled (`--enabled-apis`), is simply not routed (404).
 */
import type { EnabledApi } from '../config/index.js';
import type { Handler, WsHandler } from '../api/index.js';

export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path; a path ending in `/*` also matches everything below it (the console's files). */
  path: string;
  /** Export name in api/index.ts. */
  handler: string;
  /** The API that must be enabled; absent → always served. */
  api?: EnabledApi;
}

export const ROUTES: readonly RouteSpec[] = [
  { method: 'GET', path: '/healthz', handler: 'healthz' },
  // The web console (404 unless enabled): its page, its built assets, and `/` redirected to it.
  { method: 'GET', path: '/', handler: 'consoleRedirect' },
  { method: 'GET', path: '/console', handler: 'consoleAssets' },
  { method: 'GET', path: '/console/*', handler: 'consoleAssets' },
  { method: 'GET', path: '/v1/version', handler: 'version' },
  { method: 'GET', path: '/v1/metrics', handler: 'v1Metrics' },
  { method: 'POST', path: '/v1/query', handler: 'v1Query', api: 'metadata' },
  { method: 'POST', path: '/v1/metadata', handler: 'v1Metadata', api: 'metadata' },
  { method: 'POST', path: '/v2/query', handler: 'v2Query', api: 'metadata' },
  { method: 'POST', path: '/v1/graphql', handler: 'v1Graphql', api: 'graphql' },
  // GraphQL over HTTP: queries in the URL of a GET (mutations refused with 405 by the handler)
  { method: 'GET', path: '/v1/graphql', handler: 'v1Graphql', api: 'graphql' },
  { method: 'POST', path: '/v1alpha1/graphql', handler: 'v1Graphql', api: 'graphql' },
  { method: 'GET', path: '/v1alpha1/graphql', handler: 'v1Graphql', api: 'graphql' },
  // The Relay API (beta): its own schema per role, the same pipeline.
  { method: 'POST', path: '/v1beta1/relay', handler: 'v1beta1Relay', api: 'graphql' },
  // REST endpoints (stored queries at URL templates) and their OpenAPI document.
  ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map((method): RouteSpec => ({ method, path: '/api/rest/*', handler: 'restEndpoint', api: 'graphql' })),
  { method: 'GET', path: '/api/swagger/json', handler: 'swaggerJson', api: 'metadata' },
  { method: 'POST', path: '/v1/graphql/explain', handler: 'v1GraphqlExplain', api: 'metadata' },
  { method: 'GET', path: '/v1alpha1/config', handler: 'v1alpha1Config', api: 'config' },
  { method: 'POST', path: '/v1alpha1/pg_dump', handler: 'v1alpha1PgDump', api: 'pgdump' },
];

/** WebSocket endpoints (GraphQL subscriptions): path → export name in api/index.ts (served when present). */
export const WS_ROUTES: Readonly<Record<string, string>> = {
  '/v1/graphql': 'v1GraphqlWs',
  '/v1alpha1/graphql': 'v1GraphqlWs',
  '/v1beta1/relay': 'v1beta1RelayWs',
};

/** path → method → handler (a `/*` path holds its prefix's routes). */
export type RouteTable = ReadonlyMap<string, ReadonlyMap<string, Handler>>;

/** The methods of `path`: its own route, else the nearest `/*` route above it. */
export function lookupRoute(table: RouteTable, path: string): { route: string; methods: ReadonlyMap<string, Handler> } | undefined {
  const exact = table.get(path);
  if (exact) return { route: path, methods: exact };
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) {
    const route = `${path.slice(0, i)}/*`;
    const methods = table.get(route);
    if (methods) return { route, methods };
  }
  return undefined;
}

/**
 * The table of the enabled routes. With `before`, the handlers of the API routes (those naming an
 * `api`: GraphQL, metadata, config, pg_dump) await it first (--strict-schema-sync's catch-up); the
 * others (health, version, metrics, console) never do.
 */
export function buildRouteTable(api: Readonly<Record<string, unknown>>, enabled: ReadonlySet<EnabledApi>, before?: () => Promise<void>): RouteTable {
  const table = new Map<string, Map<string, Handler>>();
  for (const r of ROUTES) {
    const handler = api[r.handler] as Handler | undefined;
    if (typeof handler !== 'function') continue;
    if (r.api !== undefined && !enabled.has(r.api)) continue;
    let methods = table.get(r.path);
    if (!methods) table.set(r.path, (methods = new Map()));
    methods.set(r.method, before === undefined || r.api === undefined ? handler : (rc, ctx) => before().then(() => handler(rc, ctx)));
  }
  return table;
}

/** path → subscription handler, for the handlers that exist, when the GraphQL API is enabled (empty otherwise). */
export function wsHandlersOf(api: Readonly<Record<string, unknown>>, enabled: ReadonlySet<EnabledApi>): ReadonlyMap<string, WsHandler> {
  const out = new Map<string, WsHandler>();
  if (!enabled.has('graphql')) return out;
  for (const [path, name] of Object.entries(WS_ROUTES)) {
    const h = api[name];
    if (typeof h === 'function') out.set(path, h as WsHandler);
  }
  return out;
}
