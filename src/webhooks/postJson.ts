/**
 * The engine's one outbound HTTP client: POST a JSON body to a webhook with a timeout, and report
 * what happened as a value (never throws). Connections are kept alive per origin (one agent per
 * protocol, `maxSockets` bounded by the caller's concurrency), the response body is read up to a cap
 * (the rest is drained and dropped, `truncated` says so) and the latency measured.
 *
 *   const r = await postJson({ url, headers: { 'x-a': '1' }, body: '{"id":1}', timeoutMs: 60_000 });
 *   r.kind === 'response' ? r.status : r.message   // 'timeout' | connection error text
 */
import http from 'node:http';
import https from 'node:https';
import { injectTraceHeaders, traced, tracingOn } from '../tracing/index.js';

export interface PostJsonRequest {
  url: string;
  /** Extra headers (Content-Type and User-Agent are set unless given here). */
  headers: Record<string, string>;
  /** The body, already serialised (JSON unless a `content-type` header says otherwise; '' for none). */
  body: string;
  /** The HTTP method (default POST; a request transform may set another). */
  method?: string;
  timeoutMs: number;
  userAgent?: string;
  /** Bytes of the response body kept (default 64 KiB). */
  maxResponseBytes?: number;
}

export type WebhookResult =
  | {
      kind: 'response';
      status: number;
      headers: Record<string, string>;
      /** The response headers as sent (names in their original case, in order). */
      rawHeaders: Array<{ name: string; value: string }>;
      body: string;
      truncated: boolean;
      latencyMs: number;
    }
  | { kind: 'error'; message: string; timedOut: boolean; latencyMs: number; /** The URL could not be parsed (nothing was sent). */ invalidUrl?: boolean };

const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 256 });
const httpsAgent = new https.Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 256 });

/** Closes idle keep-alive sockets (engine shutdown). */
export function closeWebhookAgents(): void {
  httpAgent.destroy();
  httpsAgent.destroy();
}

function flatHeaders(h: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function pairs(raw: string[]): Array<{ name: string; value: string }> {
  const out: Array<{ name: string; value: string }> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push({ name: raw[i], value: raw[i + 1] });
  return out;
}

/**
 * POSTs `req.body`; resolves with the answer or the error (see the module comment). While tracing
 * is on, the call is a client span and carries the trace's `traceparent`.
 */
export function postJson(req: PostJsonRequest): Promise<WebhookResult> {
  if (!tracingOn()) return send(req);
  let host = req.url;
  try {
    host = new URL(req.url).host;
  } catch {
    // an invalid URL fails in send() with its own message
  }
  const method = req.method ?? 'POST';
  return traced(`${method} ${host}`, { 'http.request.method': method, 'url.full': req.url }, async (note) => {
    const headers = { ...req.headers };
    injectTraceHeaders(headers);
    const r = await send({ ...req, headers });
    if (r.kind === 'response') note.set('http.response.status_code', r.status);
    else note.set('error.type', r.timedOut ? 'timeout' : 'connection');
    return r;
  }, 'client');
}

function send(req: PostJsonRequest): Promise<WebhookResult> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
  const cap = req.maxResponseBytes ?? 64 * 1024;
  return new Promise((resolve) => {
    let done = false;
    const finish = (r: WebhookResult) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(r);
    };
    let url: URL;
    try {
      url = new URL(req.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`unsupported protocol ${url.protocol}`);
    } catch (e) {
      resolve({ kind: 'error', message: `invalid webhook URL: ${(e as Error).message}`, timedOut: false, latencyMs: 0, invalidUrl: true });
      return;
    }
    const body = Buffer.from(req.body, 'utf8');
    const headers: Record<string, string | number> = {
      ...(body.length > 0 ? { 'content-type': 'application/json' } : {}),
      'user-agent': req.userAgent ?? 'svc-graphql-engine',
      ...req.headers,
      'content-length': body.length,
    };
    const mod = url.protocol === 'https:' ? https : http;
    const r = mod.request(url, { method: req.method ?? 'POST', headers, agent: url.protocol === 'https:' ? httpsAgent : httpAgent }, (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      let truncated = false;
      res.on('data', (c: Buffer) => {
        if (kept >= cap) {
          truncated = true;
          return;
        }
        const slice = kept + c.length > cap ? c.subarray(0, cap - kept) : c;
        if (slice.length < c.length) truncated = true;
        chunks.push(slice);
        kept += slice.length;
      });
      res.on('end', () =>
        finish({
          kind: 'response',
          status: res.statusCode ?? 0,
          headers: flatHeaders(res.headers),
          rawHeaders: pairs(res.rawHeaders),
          body: Buffer.concat(chunks).toString('utf8'),
          truncated,
          latencyMs: elapsed(),
        }),
      );
      res.on('error', (e) => finish({ kind: 'error', message: e.message, timedOut: false, latencyMs: elapsed() }));
    });
    const timer = setTimeout(() => {
      finish({ kind: 'error', message: `timeout after ${req.timeoutMs} ms`, timedOut: true, latencyMs: elapsed() });
      r.destroy();
    }, req.timeoutMs);
    r.on('error', (e) => finish({ kind: 'error', message: e.message, timedOut: false, latencyMs: elapsed() }));
    r.end(body);
  });
}
