import { ApiError } from '../core/index.js';
import { evalKriti, KritiError, parseKriti, transformFunctions, type KritiNode } from './kriti/index.js';
import type { RequestTransform, ResponseTransform, WebhookRequest } from './transformTypes.js';

/** Parsed templates by source (metadata templates are few and reused on every call). */
const parsed = new Map<string, KritiNode>();
function parse(src: string): KritiNode {
  let node = parsed.get(src);
  if (!node) {
    node = parseKriti(src);
    if (parsed.size >= 2000) parsed.clear();
    parsed.set(src, node);
  }
  return node;
}

/** Percent-encoding of a form or query component: everything but RFC 3986's unreserved characters. */
export function escapeComponent(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

export interface TransformContext {
  /** The session variables of the request (`$session_variables`, `getSessionVariable`), or null. */
  sessionVariables: Record<string, unknown> | null;
}

/** The request failed to transform: Hasura's `validation-failed` "Request Transformation Failed" with the Kriti errors. */
export function transformError(which: 'Request' | 'Response', e: KritiError): ApiError {
  return new ApiError('validation-failed', `${which} Transformation Failed`, { status: 400, path: '$', internal: [e.toJSON()] });
}

/**
 * The template variables of a request transform, as Hasura's docs define them: `$body` (the payload the engine
 * would send), `$base_url` (the webhook URL), `$session_variables`, `$query_params` (of the webhook URL).
 */
export function requestBindings(req: WebhookRequest, ctx: TransformContext): Record<string, unknown> {
  let queryParams: Record<string, string> = {};
  try {
    queryParams = Object.fromEntries(new URL(req.url).searchParams);
  } catch {
    // an invalid URL has no query parameters; the call reports the URL itself
  }
  return { $body: req.body ?? null, $base_url: req.url, $session_variables: ctx.sessionVariables, $query_params: queryParams };
}

/** Applies a request transform; throws a `validation-failed` ApiError (with the Kriti error and its position). */
export function applyRequestTransform(rt: RequestTransform, req: WebhookRequest, ctx: TransformContext): WebhookRequest {
  const bindings = requestBindings(req, ctx);
  const fns = transformFunctions(ctx.sessionVariables);
  const run = (template: string): unknown => evalKriti(parse(template), bindings, fns);
  const interpolate = (template: string): string => asText(run(`"${template}"`));
  try {
    const out: WebhookRequest = { ...req, headers: { ...req.headers } };
    if (rt.method) out.method = rt.method;
    if (rt.url) out.url = interpolate(rt.url);
    if (rt.query_params !== undefined && rt.query_params !== null) {
      let search: string;
      if (typeof rt.query_params === 'string') search = interpolate(rt.query_params).replace(/^\?/, '');
      else {
        search = Object.entries(rt.query_params)
          .map(([k, v]) => (v === null ? escapeComponent(interpolate(k)) : `${escapeComponent(interpolate(k))}=${escapeComponent(interpolate(v))}`))
          .join('&');
      }
      const hash = out.url.indexOf('#');
      const base = (hash >= 0 ? out.url.slice(0, hash) : out.url).split('?')[0]!;
      out.url = search ? `${base}?${search}` : base;
    }
    const body = rt.body;
    if (typeof body === 'string') {
      const value = run(body);
      if (rt.content_type === 'application/x-www-form-urlencoded') {
        out.body = formEncode(value);
        out.bodyKind = 'raw';
        out.headers['content-type'] = 'application/x-www-form-urlencoded';
      } else {
        out.body = value;
        out.bodyKind = 'json';
      }
    } else if (body) {
      if (body.action === 'transform') {
        out.body = run(body.template);
        out.bodyKind = 'json';
      } else if (body.action === 'remove') {
        out.body = undefined;
        out.bodyKind = 'none';
        delete out.headers['content-type'];
      } else {
        out.body = Object.entries(body.form_template).map(([k, t]) => `${escapeComponent(k)}=${escapeComponent(interpolate(t))}`).join('&');
        out.bodyKind = 'raw';
        out.headers['content-type'] = 'application/x-www-form-urlencoded';
      }
    }
    const rh = rt.request_headers;
    if (rh) {
      for (const name of rh.remove_headers ?? []) delete out.headers[name.toLowerCase()];
      for (const [name, t] of Object.entries(rh.add_headers ?? {})) out.headers[name.toLowerCase()] = interpolate(t);
    }
    return out;
  } catch (e) {
    if (e instanceof KritiError) throw transformError('Request', e);
    throw e;
  }
}

/** An object as `k=v&…` (strings as they are, other values as JSON text). */
function formEncode(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return escapeComponent(asText(value));
  return Object.entries(value).map(([k, v]) => `${escapeComponent(k)}=${escapeComponent(asText(v))}`).join('&');
}

/**
 * Applies a response transform to a handler's answer: `$body` is the answer, `$request` the request variables
 * (`$body`, `$base_url`, `$session_variables`, `$query_params` of the request), `$session_variables`, and
 * `$response.status` the HTTP status. `remove` gives null. Throws "Response Transformation Failed".
 */
export function applyResponseTransform(
  rt: ResponseTransform, responseBody: unknown, request: Record<string, unknown>, status: number, ctx: TransformContext,
): unknown {
  const body = rt.body;
  if (body === undefined || body === null) return responseBody;
  if (typeof body === 'object' && body.action === 'remove') return null;
  const template = typeof body === 'string' ? body : body.template;
  const bindings = { $body: responseBody, $request: request, $session_variables: ctx.sessionVariables, $response: { status } };
  try {
    return evalKriti(parse(template), bindings, transformFunctions(ctx.sessionVariables));
  } catch (e) {
    if (e instanceof KritiError) throw transformError('Response', e);
    throw e;
  }
}
