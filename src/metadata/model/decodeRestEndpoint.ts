/**
 * REST endpoints (Hasura v2's `rest_endpoints`, `create_rest_endpoint`): `{name, url, methods,
 * definition: {query: {collection_name, query_name}}, comment}`. The URL template is segments
 * joined by `/`, a segment `:name` capturing a variable; empty segments, unnamed and duplicate
 * variables are refused with Hasura's messages. The whole-document checks (`assertRestEndpointsValid`):
 * names unique, each query present in its collection, one operation and not a subscription, and no
 * two endpoints that one request could match (same methods, every segment equal or a variable).
 */
import { parse, Kind, type OperationDefinitionNode } from 'graphql';
import { ApiError, pathKey } from '../../core/index.js';
import type { Metadata, RestEndpoint, RestMethod } from './metadata.js';
import { arrayOf, asObject, asString, optional, parseError, required } from './json.js';
import { asNonEmptyText } from './decodeQueryCollection.js';

export const REST_METHODS: readonly RestMethod[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** One segment of a URL template: a literal, or the variable it captures. */
export type UrlSegment = { literal: string } | { variable: string };

const badRequest = (message: string, path: string) => new ApiError('bad-request', message, { path });

/** The segments of `url`; refuses empty segments, unnamed and duplicate variables. */
export function parseUrlTemplate(url: string, path = '$.args'): UrlSegment[] {
  const parts = url.split('/');
  if (parts.some((p) => p === '' || p === ':')) throw badRequest(`Empty segments or unnamed variables are not allowed: ${url}`, path);
  const segments = parts.map((p): UrlSegment => (p.startsWith(':') ? { variable: p.slice(1) } : { literal: p }));
  const vars = segments.flatMap((s) => ('variable' in s ? [s.variable] : []));
  if (new Set(vars).size !== vars.length) throw badRequest(`Duplicate variables found in endpoint paths: ${url}`, path);
  return segments;
}

function asMethod(v: unknown, path: string): RestMethod {
  const s = asString(v, path);
  if (!(REST_METHODS as readonly string[]).includes(s)) throw parseError(`Method "${s}" not supported; expected one of ${REST_METHODS.join(', ')}`, path);
  return s as RestMethod;
}

export function decodeRestEndpoint(v: unknown, path: string): RestEndpoint {
  const o = asObject(v, path);
  const name = required(o, 'name', path, asNonEmptyText);
  const url = required(o, 'url', path, (x, p) => {
    const s = asString(x, p);
    if (s === '') throw parseError('empty string not allowed', '$.url');
    return s;
  });
  parseUrlTemplate(url, '$.args');
  const methods = required(o, 'methods', path, arrayOf(asMethod));
  if (methods.length === 0) throw parseError('expected a non-empty list of methods', pathKey(path, 'methods'));
  if (new Set(methods).size !== methods.length) throw parseError('duplicate methods', pathKey(path, 'methods'));
  const definition = required(o, 'definition', path, (d, p) => {
    const q = required(asObject(d, p), 'query', p, (x, qp) => {
      const qo = asObject(x, qp);
      return { collection_name: required(qo, 'collection_name', qp, asNonEmptyText), query_name: required(qo, 'query_name', qp, asNonEmptyText) };
    });
    return { query: q };
  });
  const comment = optional(o, 'comment', path, (x, p) => (x === null ? null : asString(x, p)));
  const out: RestEndpoint = { name, url, methods, definition };
  if (comment !== undefined) out.comment = comment;
  return out;
}

/** The query text an endpoint runs (from its collection), or undefined when it is not there. */
export function restEndpointQuery(md: Metadata, ep: RestEndpoint): string | undefined {
  const { collection_name, query_name } = ep.definition.query;
  return md.query_collections?.find((c) => c.name === collection_name)?.definition.queries.find((q) => q.name === query_name)?.query;
}

/** The one operation of a stored query's text (undefined when there is not exactly one). */
export function singleOperation(query: string): OperationDefinitionNode | undefined {
  const ops = parse(query, { noLocation: true }).definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  return ops.length === 1 ? ops[0] : undefined;
}

/** Whether one request path could match both templates. */
function overlaps(a: readonly UrlSegment[], b: readonly UrlSegment[]): boolean {
  return a.length === b.length && a.every((s, i) => 'variable' in s || 'variable' in b[i] || s.literal === (b[i] as { literal: string }).literal);
}

/** The checks of every endpoint against the whole document (create_rest_endpoint, replace_metadata). */
export function assertRestEndpointsValid(md: Metadata, path = '$.args'): void {
  const eps = md.rest_endpoints ?? [];
  const seen = new Set<string>();
  eps.forEach((ep, i) => {
    const at = `${pathKey(pathKey(path, 'rest_endpoints'), i)}`;
    if (seen.has(ep.name)) throw new ApiError('already-exists', `Endpoint with name: ${ep.name} already exists`, { path: at });
    seen.add(ep.name);
    const { collection_name, query_name } = ep.definition.query;
    const query = restEndpointQuery(md, ep);
    if (query === undefined) {
      throw new ApiError('not-exists', `in endpoint ${ep.name}: query with name ${query_name} not found in collection ${collection_name}`, { path: `${at}.definition.query` });
    }
    const op = singleOperation(query);
    if (!op) throw new ApiError('bad-request', `in endpoint ${ep.name}: query with name ${query_name} must hold exactly one operation`, { path: `${at}.definition.query` });
    if (op.operation === 'subscription') throw new ApiError('bad-request', `in endpoint ${ep.name}: query with name ${query_name} is a subscription`, { path: `${at}.definition.query` });
  });
  const parsed = eps.map((ep) => ({ ep, segments: parseUrlTemplate(ep.url, path) }));
  for (const a of parsed) {
    const clash = parsed.filter((b) => b !== a && overlaps(a.segments, b.segments) && b.ep.methods.some((m) => a.ep.methods.includes(m)));
    if (clash.length > 0) {
      const urls = [a, ...clash].map((x) => x.ep.url).sort();
      throw new ApiError('bad-request', `Ambiguous URL paths: ${urls.join(', ')}`, { path });
    }
  }
}
