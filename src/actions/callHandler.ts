/**
 * One call of an action handler and the checks on its answer (DECISIONS 5, Hasura v1.3
 * `callWebhook`): POST `{action: {name}, input, session_variables}` with the configured headers
 * (and forwarded client headers); 2xx → the body must be an object (or array of objects, as the
 * output type says) whose keys are output fields and whose non-null fields are present; 4xx →
 * `{message, code?}` becomes the error; anything else → 500 "internal error". Errors carry the
 * request and response in `internal`, shown only to admin (never to other roles).
 */
import { ApiError, HASURA_PREFIX, withHasuraKeys, type Session } from '../core/index.js';
import type { ActionInfo, ActionOutputScalar, TypeRef } from '../metadata/index.js';
import { postJson, type PostJsonRequest } from '../webhooks/index.js';
import {
  applyRequestTransform, applyResponseTransform, requestBindings, type RequestTransform, type TransformContext, type WebhookRequest,
} from '../transforms/index.js';

export interface HandlerAnswer {
  /** The validated output (object, array of objects, or null). */
  output: unknown;
  /** `Set-Cookie` headers of the handler, passed back to the client. */
  setCookie: string[];
}

/** How long a handler may take to answer (as Hasura v1.3: 30 s). */
export const HANDLER_TIMEOUT_MS = 30_000;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The body the handler receives. */
export function handlerBody(action: ActionInfo, input: unknown, session: Session): Record<string, unknown> {
  return { action: { name: action.name }, input, session_variables: session.hasura ? withHasuraKeys(sessionVariables(session)) : sessionVariables(session) };
}

export function sessionVariables(session: Session): Record<string, string> {
  return { ...session.vars, 'x-svc-role': session.role };
}

export async function callHandler(
  action: ActionInfo, body: Record<string, unknown>, session: Session, clientHeaders: Record<string, string> = {},
): Promise<HandlerAnswer> {
  const headers: Record<string, string> = {};
  const shownHeaders: Array<{ name: string; value: string }> = [];
  for (const [k, v] of Object.entries(forwardedHeaders(action, clientHeaders, session))) {
    headers[k] = v;
    shownHeaders.push({ name: k, value: v });
  }
  for (const h of action.headers) {
    headers[h.name] = h.value;
    shownHeaders.push({ name: h.name, value: h.fromEnv ? '<from env>' : h.value });
  }
  const fail = (code: string, message: string, status: number, internal: unknown): ApiError => {
    const e = new ApiError(code, message, { status, path: '$', internal: session.isAdmin ? internal : undefined });
    e.exposeInternal = session.isAdmin;
    return e;
  };
  const def = action.meta.definition;
  let request: Record<string, unknown> = { url: action.url, body, headers: shownHeaders };
  let call: PostJsonRequest = { url: action.url, headers, body: JSON.stringify(body), timeoutMs: HANDLER_TIMEOUT_MS, maxResponseBytes: 100 * 1024 * 1024 };
  // no transform, no extra work: the context is built only for an action that has one
  const tctx = (): TransformContext => ({ sessionVariables: sessionVariables(session) });
  if (def.request_transform) {
    const transformed = transformRequest(action, def.request_transform, call, body, tctx());
    call = transformed.call;
    request = transformed.shown;
  }
  const r = await postJson(call);
  if (r.kind === 'error') throw fail('unexpected', 'http exception when calling webhook', 500, { error: r.message, request, response: null });
  let value: unknown;
  try {
    value = JSON.parse(r.body);
  } catch {
    throw fail('unexpected', 'not a valid json response from webhook', 500, {
      error: 'invalid json', request, response: { status: r.status, body: r.body, headers: r.rawHeaders },
    });
  }
  if (def.response_transform && r.status >= 200 && r.status < 300) {
    const original: WebhookRequest = { method: 'POST', url: action.url, headers: {}, body, bodyKind: 'json' };
    const c = tctx();
    value = applyResponseTransform(def.response_transform, value, requestBindings(original, c), r.status, c);
  }
  const response = { status: r.status, body: value, headers: r.rawHeaders };
  const internal = { error: 'unexpected response', request, response };
  if (r.status >= 200 && r.status < 300) {
    checkOutput(action, value, (code, msg) => fail(code, msg, 400, internal));
    const cookie = r.rawHeaders.filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => h.value);
    return { output: value, setCookie: cookie };
  }
  if (r.status >= 400 && r.status < 500) {
    if (!isObj(value) || typeof value.message !== 'string') throw fail('parse-failed', 'key "message" not found', 400, internal);
    const code = typeof value.code === 'string' ? value.code : 'unexpected';
    throw new ApiError(code, value.message, { status: 400, path: '$' });
  }
  throw fail('unexpected', 'internal error', 500, { ...internal, error: `expecting 2xx or 4xx status code, but found ${r.status}` });
}

/**
 * Client headers never forwarded: hop-by-hop ones, those describing the client's own request (as
 * Hasura's `commonClientHeadersIgnored`), and the admin secret (never leaves the engine).
 */
const SKIP_FORWARD = new Set([
  'host', 'content-length', 'content-type', 'content-md5', 'connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'user-agent',
  'origin', 'referer', 'accept', 'accept-encoding', 'accept-language', 'accept-datetime', 'cache-control', 'dnt', 'x-svc-admin-secret',
]);

/**
 * The client headers an action forwards (none unless `forward_client_headers`); a session read in
 * Hasura's words (`--hasura-compat`) forwards no `x-hasura-*` header: they are its session headers.
 */
export function forwardedHeaders(action: ActionInfo, clientHeaders: Record<string, string>, session?: Session): Record<string, string> {
  if (!action.meta.definition.forward_client_headers) return {};
  const skipHasura = session?.hasuraCompat === true;
  return Object.fromEntries(Object.entries(clientHeaders).filter(([k]) => !SKIP_FORWARD.has(k.toLowerCase()) && !(skipHasura && k.toLowerCase().startsWith(HASURA_PREFIX))));
}

/**
 * Hasura's checks of a 2xx answer against the output type: an object output as Hasura v1.3 checks
 * it, a scalar or enum output (Hasura v2) with `checkScalarOutput`.
 */
export function checkOutput(action: ActionInfo, value: unknown, fail: (code: string, message: string) => ApiError): void {
  const ob = action.outputObject;
  if (!ob) {
    checkScalarOutput(action.outputScalar!, action.output, value, fail);
    return;
  }
  const expectingArray = action.output.kind === 'list';
  const isObjList = Array.isArray(value) && value.every(isObj);
  if (!isObj(value) && !isObjList) throw fail('parse-failed', 'expecting object or array of objects for action webhook response');
  if (Array.isArray(value) && !expectingArray) throw fail('unexpected', 'expecting object for action webhook response but got array');
  if (isObj(value) && expectingArray) throw fail('unexpected', 'expecting array for action webhook response but got object');
  const fields = new Map(ob.fields.map((f) => [f.name, f]));
  for (const o of (Array.isArray(value) ? value : [value]) as Array<Record<string, unknown>>) {
    const extra = Object.keys(o).filter((k) => !fields.has(k));
    if (extra.length > 0) throw fail('unexpected', `unexpected fields in webhook response: ${extra.join(', ')}`);
    for (const f of ob.fields) {
      if (!f.type.nonNull) continue;
      if (!(f.name in o)) throw fail('unexpected', `field "${f.name}" expected in webhook response, but not found`);
      if (o[f.name] === null) throw fail('unexpected', `expecting not null value for field "${f.name}"`);
    }
  }
}

/**
 * Hasura v2's `validateResponse` for a scalar or enum output, level by level of the declared type:
 * null only where the type is nullable, an array where it is a list, and for a built-in scalar a JSON
 * value of its kind (a number for Int and Float, a string for String and ID, a boolean for Boolean).
 * A custom or Postgres scalar takes any JSON value, as Hasura; an enum (which Hasura passes unchecked)
 * must be one of its values, since the answer is typed by it.
 */
function checkScalarOutput(s: ActionOutputScalar, t: TypeRef, v: unknown, fail: (code: string, message: string) => ApiError): void {
  if (v === null || v === undefined) {
    if (t.nonNull) throw fail('unexpected', 'got null for the action webhook response');
    return;
  }
  if (t.kind === 'list') {
    if (!Array.isArray(v)) throw fail('unexpected', 'expecting array for the action webhook response');
    for (const x of v) checkScalarOutput(s, t.of, x, fail);
    return;
  }
  if (s.kind === 'custom') return;
  if (Array.isArray(v)) throw fail('unexpected', `got array for the action webhook response, expecting ${s.name}`);
  if (isObj(v)) throw fail('unexpected', `got object for the action webhook response, expecting ${s.name}`);
  const kind = typeof v === 'number' ? 'Number' : typeof v === 'boolean' ? 'Boolean' : 'String';
  if (s.kind === 'enum') {
    if (typeof v !== 'string') throw fail('unexpected', `got scalar ${kind} for the action webhook response, expecting ${s.name}`);
    if (!s.values.includes(v)) throw fail('unexpected', `got ${JSON.stringify(v)} for the action webhook response, expecting a value of enum ${s.name}`);
    return;
  }
  const fits = kind === 'Number' ? s.name === 'Int' || s.name === 'Float' : kind === 'Boolean' ? s.name === 'Boolean' : s.name === 'String' || s.name === 'ID';
  if (!fits) throw fail('unexpected', `got scalar ${kind} for the action webhook response, expecting ${s.name}`);
}

/**
 * The handler call with the action's request transform applied (`$body` the payload above, `$base_url` the
 * handler, `$session_variables`), and the request as errors show it (values of env headers hidden).
 */
function transformRequest(
  action: ActionInfo, rt: RequestTransform, call: PostJsonRequest, body: Record<string, unknown>, ctx: TransformContext,
): { call: PostJsonRequest; shown: Record<string, unknown> } {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  for (const [k, v] of Object.entries(call.headers)) headers[k.toLowerCase()] = v;
  const out = applyRequestTransform(rt, { method: 'POST', url: call.url, headers, body, bodyKind: 'json' }, ctx);
  const text = out.bodyKind === 'json' ? JSON.stringify(out.body ?? null) : out.bodyKind === 'raw' ? String(out.body) : '';
  const fromEnv = new Set(action.headers.filter((h) => h.fromEnv).map((h) => h.name.toLowerCase()));
  const shownHeaders = Object.entries(out.headers).map(([name, value]) => ({ name, value: fromEnv.has(name) ? '<from env>' : value }));
  return {
    call: { ...call, url: out.url, method: out.method, headers: out.headers, body: text },
    shown: { url: out.url, method: out.method, body: out.bodyKind === 'none' ? null : out.body, headers: shownHeaders },
  };
}
