/**
 * The auth webhook (`--auth-hook`, `--auth-hook-mode`), as Hasura documents it (DECISIONS 8).
 * GET: the client's headers are forwarded, minus the common ones listed below. POST: a JSON body
 * `{headers: {…all client headers…}, request: <the client's GraphQL request>}` (`request` left out
 * when the client body is not JSON). The hook answers 200 with a JSON object of string session
 * variables (must hold `x-svc-role`; may hold `Cache-Control: max-age=N` or `Expires` for an
 * expiry), 401 to deny; anything else is an error. Under `--hasura-compat` the answer may name the
 * variables `X-Hasura-*` (both spellings of one with different values: an invalid answer).
 */
import { request as httpRequest } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { ApiError, conflictingSessionNames, roleSession, svcSessionName } from '../core/index.js';
import type { Session } from '../core/index.js';
import type { AuthLogger } from './authLogger.js';
import { expiryFromHeaders } from './cacheExpiry.js';

export interface WebhookSettings {
  url: string;
  mode: 'GET' | 'POST';
  userAgent: string;
  timeoutMs: number;
  /** `--hasura-compat`: the answer's `X-Hasura-*` keys count as their `X-Svc-*` twins. */
  hasuraCompat?: boolean;
}

/** Client headers Hasura does not forward to a GET hook (plus hop-by-hop headers Node must not resend). */
const IGNORED_HEADERS = new Set([
  'content-length', 'content-type', 'content-md5', 'user-agent', 'host', 'origin', 'referer', 'accept',
  'accept-encoding', 'accept-language', 'accept-datetime', 'cache-control', 'connection', 'dnt',
  'transfer-encoding', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer', 'proxy-connection', 'http2-settings',
]);

interface HookReply {
  status: number;
  body: string;
}

function call(settings: WebhookSettings, headers: OutgoingHttpHeaders, body: string | undefined): Promise<HookReply> {
  const url = new URL(settings.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: settings.mode, headers, timeout: settings.timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${settings.timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Asks the hook about one request; returns the session and, when the hook gave one, its expiry. */
export async function sessionFromWebhook(
  settings: WebhookSettings,
  clientHeaders: IncomingHttpHeaders,
  clientRequest: unknown,
  logger: AuthLogger,
): Promise<{ session: Session; expiresAt?: Date }> {
  let headers: OutgoingHttpHeaders;
  let body: string | undefined;
  if (settings.mode === 'GET') {
    headers = {};
    for (const [k, v] of Object.entries(clientHeaders)) if (v !== undefined && !IGNORED_HEADERS.has(k.toLowerCase())) headers[k] = v;
    headers['user-agent'] = settings.userAgent;
  } else {
    const all: Record<string, string> = {};
    for (const [k, v] of Object.entries(clientHeaders)) if (v !== undefined) all[k] = Array.isArray(v) ? v.join(', ') : v;
    const payload: Record<string, unknown> = { headers: all };
    if (clientRequest !== undefined) payload.request = clientRequest;
    body = JSON.stringify(payload);
    headers = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': settings.userAgent };
  }

  let reply: HookReply;
  try {
    reply = await call(settings, headers, body);
  } catch (e) {
    logger.error({ type: 'webhook-log', url: settings.url, method: settings.mode, error: (e as Error).message }, 'auth webhook request failed');
    throw new ApiError('unexpected', 'webhook authentication request failed', { status: 500, internal: { url: settings.url, error: (e as Error).message } });
  }
  const log = { type: 'webhook-log', url: settings.url, method: settings.mode, status: reply.status };
  if (reply.status === 401) {
    logger.info(log, 'auth webhook denied the request');
    throw new ApiError('access-denied', 'Authentication hook unauthorized this request', { status: 401 });
  }
  if (reply.status !== 200) {
    logger.error({ ...log, response: reply.body.slice(0, 1000) }, 'auth webhook answered neither 200 nor 401');
    throw new ApiError('unexpected', 'Invalid response from authorization hook', { status: 500, internal: { status: reply.status, body: reply.body.slice(0, 1000) } });
  }
  const vars = parseReply(reply.body);
  const lower: Record<string, string> = {};
  let cacheControl: string | undefined;
  let expires: string | undefined;
  for (const [k, v] of Object.entries(vars)) {
    const key = settings.hasuraCompat ? svcSessionName(k) : k;
    if (key === 'cache-control') cacheControl = v;
    else if (key === 'expires') expires = v;
    else if (!key.startsWith('x-svc-')) continue;
    else if (lower[key] !== undefined && lower[key] !== v) {
      throw new ApiError('unexpected', `Invalid response from authorization hook: ${conflictingSessionNames('session variables', key).message}`, { status: 500 });
    } else lower[key] = v;
  }
  const role = lower['x-svc-role'];
  if (role === undefined || role === '') {
    const name = settings.hasuraCompat ? 'x-hasura-role' : 'x-svc-role';
    throw new ApiError('invalid-params', `${name} not found in session variables returned by the auth webhook`);
  }
  const seconds = expiryFromHeaders(cacheControl, expires);
  logger.info(log, 'auth webhook accepted the request');
  return { session: roleSession(role, lower), expiresAt: seconds === undefined ? undefined : new Date(Date.now() + seconds * 1000) };
}

/** The 200 body: a JSON object of strings, keys lower-cased. */
function parseReply(text: string): Record<string, string> {
  const invalid = (why: string) => new ApiError('unexpected', `Invalid response from authorization hook: ${why}`, { status: 500 });
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw invalid(`not valid JSON: ${(e as Error).message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw invalid('expected a JSON object of session variables');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(doc as Record<string, unknown>)) {
    if (typeof v !== 'string') throw invalid(`Error in $['${k}']: expected String, but encountered ${v === null ? 'Null' : Array.isArray(v) ? 'Array' : typeof v === 'object' ? 'Object' : typeof v === 'number' ? 'Number' : 'Boolean'}`);
    out[k.toLowerCase()] = v;
  }
  return out;
}
