/**
 * One GraphQL request to a remote schema over the engine's outbound client (`webhooks/postJson`),
 * bounded by the remote's `timeout_seconds`. Transport failures become ApiErrors with Hasura v1.3's
 * wording (`ResponseTimeout`, HTTP exception...); a GraphQL answer is returned as `{data, errors}`.
 */
import { ApiError } from '../core/index.js';
import { postJson } from '../webhooks/index.js';

export interface RemoteAnswer {
  data: Record<string, unknown> | null;
  errors: unknown[] | undefined;
  /** Response headers of the remote (Set-Cookie is passed back to the client). */
  headers: Record<string, string>;
}

export interface RemoteCall {
  url: string;
  headers: Record<string, string>;
  timeoutSeconds: number;
  body: { query: string; variables?: Record<string, unknown>; operationName?: string };
}

const MAX_REMOTE_RESPONSE = 64 * 1024 * 1024;

/** POSTs the query; throws an ApiError (code `unexpected`) when the remote cannot be used. */
export async function callRemote(call: RemoteCall): Promise<RemoteAnswer> {
  const r = await postJson({
    url: call.url,
    headers: call.headers,
    body: JSON.stringify(call.body),
    timeoutMs: call.timeoutSeconds * 1000,
    maxResponseBytes: MAX_REMOTE_RESPONSE,
  });
  if (r.kind === 'error') {
    if (r.timedOut) throw new ApiError('unexpected', 'ResponseTimeout', { internal: { url: call.url } });
    throw new ApiError('unexpected', `HTTP exception occurred while sending the request to ${call.url}`, { internal: { message: r.message } });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(r.body);
  } catch {
    throw new ApiError('unexpected', `Invalid response from remote server (HTTP ${r.status}): expecting a JSON object`, { internal: { body: r.body.slice(0, 1000) } });
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ApiError('unexpected', 'Invalid response from remote server: expecting a JSON object', { internal: { body: r.body.slice(0, 1000) } });
  }
  const o = parsed as Record<string, unknown>;
  const data = typeof o.data === 'object' && o.data !== null && !Array.isArray(o.data) ? (o.data as Record<string, unknown>) : null;
  const errors = Array.isArray(o.errors) && o.errors.length > 0 ? o.errors : undefined;
  if (!data && !errors) {
    throw new ApiError('unexpected', `Invalid response from remote server (HTTP ${r.status}): "data" and "errors" are both absent`, { internal: { body: r.body.slice(0, 1000) } });
  }
  return { data, errors, headers: r.headers };
}
