/**
 * One delivery attempt as the queue stores it (DECISIONS 2): success is any 2xx; the status is the
 * HTTP status, 1000 for a network error or timeout, 1001 for a URL that cannot be parsed; `Retry-After` (integer seconds > 0) of a
 * non-2xx answer replaces the retry interval. The invocation log keeps `request {payload, headers,
 * version: "2"}` (headers from env redacted) and `response {type: webhook_response | client_error,
 * data, version: "2"}` with the body already capped by the HTTP client. A plan's `transformResponse`
 * (an event trigger's `response_transform`) reshapes a 2xx body before it is logged; when it fails, the
 * attempt fails with status 500 and the error as a `client_error` (Hasura's `HOther`), retried as any failure.
 */
import { redactedHeaders, type WebhookResult } from '../webhooks/index.js';
import type { FinishRow } from './queueSql.js';
import type { DeliveryPlan, Job } from './queueTable.js';

export interface AttemptOutcome extends FinishRow {
  /** For the structured log line. */
  latencyMs: number;
  error?: string;
}

/** Integer seconds > 0 from a Retry-After header, else null (HTTP dates are not honoured, as Hasura). */
function retryAfterSeconds(v: string | undefined): number | null {
  if (v === undefined || !/^\s*\d+\s*$/.test(v)) return null;
  const n = Number(v);
  return n > 0 && n <= 2_000_000_000 ? n : null;
}

export function attemptOutcome(job: Job, plan: DeliveryPlan, r: WebhookResult): AttemptOutcome {
  const request = `{"payload":${plan.logBody ?? plan.body},"headers":${JSON.stringify(redactedHeaders(plan.headers))},"version":"2"}`;
  const base = { id: job.id, dead: false, numRetries: plan.numRetries, intervalSec: plan.intervalSec, request, latencyMs: r.latencyMs };
  if (r.kind === 'error') {
    return {
      ...base,
      ok: false,
      status: r.invalidUrl ? 1001 : 1000,
      retryAfter: null,
      response: JSON.stringify({ type: 'client_error', data: { message: r.message }, version: '2' }),
      error: r.message,
    };
  }
  const ok = r.status >= 200 && r.status < 300;
  const shaped = ok && plan.transformResponse ? plan.transformResponse(r.status, r.body) : undefined;
  if (shaped && 'error' in shaped) {
    return {
      ...base,
      ok: false,
      status: 500,
      retryAfter: null,
      response: JSON.stringify({ type: 'client_error', data: { message: shaped.error }, version: '2' }),
      error: shaped.error,
    };
  }
  const headers = Object.entries(r.headers).map(([name, value]) => ({ name, value }));
  return {
    ...base,
    ok,
    status: r.status,
    retryAfter: ok ? null : retryAfterSeconds(r.headers['retry-after']),
    response: JSON.stringify({ type: 'webhook_response', data: { status: r.status, headers, body: shaped ? shaped.body : r.body, ...(r.truncated ? { truncated: true } : {}) }, version: '2' }),
  };
}

/** A row the queue gave up on without calling the webhook (e.g. past its tolerance). */
export function deadOutcome(job: Job, reason: string): AttemptOutcome {
  return {
    id: job.id,
    ok: false,
    dead: true,
    status: 500,
    retryAfter: null,
    numRetries: 0,
    intervalSec: 0,
    request: 'null',
    response: JSON.stringify({ type: 'client_error', data: { message: reason }, version: '2' }),
    latencyMs: 0,
    error: reason,
  };
}
