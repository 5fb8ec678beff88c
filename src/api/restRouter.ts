/**
 * The REST endpoints of a schema cache, ready to match (built once per cache): each endpoint's
 * URL segments, methods, stored query text and its one operation. `matchRest` finds the endpoint
 * of a request path: found (with the captured variables), the methods the path does allow (405),
 * or nothing (404). The metadata checks guarantee at most one endpoint per (path, method).
 */
import type { OperationDefinitionNode } from 'graphql';
import type { RestEndpoint, RestMethod, SchemaCache, UrlSegment } from '../metadata/index.js';
import { parseUrlTemplate, restEndpointQuery, singleOperation } from '../metadata/index.js';

export interface RestRoute {
  endpoint: RestEndpoint;
  segments: UrlSegment[];
  query: string;
  operation: OperationDefinitionNode;
}

const routes = new WeakMap<SchemaCache, RestRoute[]>();

/** The endpoints of `cache` (those whose query is missing or not one operation are left out). */
export function restRoutes(cache: SchemaCache): RestRoute[] {
  let list = routes.get(cache);
  if (!list) {
    list = [];
    for (const endpoint of cache.metadata.rest_endpoints ?? []) {
      const query = restEndpointQuery(cache.metadata, endpoint);
      const operation = query === undefined ? undefined : singleOperation(query);
      if (query !== undefined && operation) list.push({ endpoint, segments: parseUrlTemplate(endpoint.url), query, operation });
    }
    routes.set(cache, list);
  }
  return list;
}

export type RestMatch =
  | { kind: 'found'; route: RestRoute; captured: Array<[string, string]> }
  | { kind: 'method'; allowed: RestMethod[] }
  | { kind: 'none' };

/** The endpoint serving `method` at `path` (segments already URL-decoded). */
export function matchRest(cache: SchemaCache, method: string, path: readonly string[]): RestMatch {
  const allowed: RestMethod[] = [];
  for (const route of restRoutes(cache)) {
    const { segments } = route;
    if (segments.length !== path.length) continue;
    if (!segments.every((s, i) => 'variable' in s || s.literal === path[i])) continue;
    if ((route.endpoint.methods as string[]).includes(method)) {
      const captured = segments.flatMap((s, i): Array<[string, string]> => ('variable' in s ? [[s.variable, path[i]!]] : []));
      return { kind: 'found', route, captured };
    }
    allowed.push(...route.endpoint.methods);
  }
  return allowed.length > 0 ? { kind: 'method', allowed } : { kind: 'none' };
}
