/**
 * Decoders of the scheduled-trigger operations (Hasura v1.3 `CreateCronTrigger`,
 * `CreateScheduledEvent`, `STRetryConf`): unknown keys, a cron expression that does not parse (5
 * fields, UTC), a `schedule_at` that is not an ISO-8601 timestamp and malformed headers are
 * `parse-failed` at their path, so the request changes nothing. `retry_conf` gets Hasura's defaults
 * (0 retries, 10 s interval, 60 s timeout, 6 h tolerance).
 */
import { CronExpressionParser } from 'cron-parser';
import { ApiError, pathKey } from '../core/index.js';
import { arrayOf, asBool, asInt, asObject, asString, asUrlConf, decodeWebhookHeader, optional, parseError, rejectUnknownKeys, required } from '../metadata/index.js';
import type { WebhookHeaderConf } from '../metadata/index.js';
import { resolveHeaders, resolveUrlConf, type UrlConf } from '../webhooks/index.js';

export interface ScheduledRetryConf {
  num_retries: number;
  retry_interval_seconds: number;
  timeout_seconds: number;
  tolerance_seconds: number;
}

export const DEFAULT_SCHEDULED_RETRY_CONF: Readonly<ScheduledRetryConf> = Object.freeze({
  num_retries: 0,
  retry_interval_seconds: 10,
  timeout_seconds: 60,
  tolerance_seconds: 21600,
});

/** A cron trigger as stored in hdb_cron_triggers and exported. */
export interface CronTriggerDef {
  name: string;
  webhook: UrlConf;
  schedule: string;
  payload: unknown;
  headers: WebhookHeaderConf[];
  retry_conf: ScheduledRetryConf;
  include_in_metadata: boolean;
  comment: string | null;
}

export interface ScheduledEventDef {
  webhook: UrlConf;
  /** ISO-8601 UTC. */
  schedule_at: string;
  payload: unknown;
  headers: WebhookHeaderConf[];
  retry_conf: ScheduledRetryConf;
  comment: string | null;
}

const RETRY_KEYS = ['num_retries', 'retry_interval_seconds', 'timeout_seconds', 'tolerance_seconds'] as const;
const CRON_KEYS = ['name', 'webhook', 'schedule', 'payload', 'headers', 'retry_conf', 'include_in_metadata', 'comment', 'replace'];
const EVENT_KEYS = ['webhook', 'schedule_at', 'payload', 'headers', 'retry_conf', 'comment'];

function nonNegative(v: unknown, path: string): number {
  const n = asInt(v, path);
  if (n < 0) throw parseError('expected a non-negative integer', path);
  return n;
}

export function decodeRetryConf(v: unknown, path: string): ScheduledRetryConf {
  const o = asObject(v, path);
  rejectUnknownKeys(o, RETRY_KEYS, 'retry_conf', path);
  const out = { ...DEFAULT_SCHEDULED_RETRY_CONF };
  for (const k of RETRY_KEYS) {
    const n = optional(o, k, path, nonNegative);
    if (n !== undefined) out[k] = n;
  }
  if (out.timeout_seconds === 0) throw parseError('timeout_seconds must be greater than 0', pathKey(path, 'timeout_seconds'));
  return out;
}

/** A 5-field cron expression, evaluated in UTC. */
export function decodeCronSchedule(v: unknown, path: string): string {
  const s = asString(v, path).trim();
  const fields = s.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) throw parseError(`invalid cron expression "${s}": expected 5 fields (minute hour day-of-month month day-of-week)`, path);
  try {
    CronExpressionParser.parse(s, { tz: 'UTC' }).next();
  } catch (e) {
    throw parseError(`invalid cron expression "${s}": ${(e as Error).message}`, path);
  }
  return s;
}

const ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}(:?\d{2})?)?$/i;

/** An ISO-8601 timestamp (no zone = UTC) → ISO-8601 UTC. */
export function decodeTimestamp(v: unknown, path: string): string {
  const s = asString(v, path).trim();
  if (!ISO.test(s)) throw parseError(`could not parse timestamp "${s}": expected ISO-8601, e.g. 2020-01-01T00:00:00Z`, path);
  const zoned = /(Z|[+-]\d{2}(:?\d{2})?)$/i.test(s.slice(10)) ? s : `${s}Z`;
  const t = Date.parse(zoned.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  if (!Number.isFinite(t)) throw parseError(`could not parse timestamp "${s}"`, path);
  return new Date(t).toISOString();
}

/** Refuses a webhook or header whose environment variable is not set now (Hasura resolves at creation). */
export function assertEnvResolvable(webhook: UrlConf, headers: readonly WebhookHeaderConf[], path: string, env: NodeJS.ProcessEnv): void {
  const u = resolveUrlConf(webhook, env);
  if (u.missing.length > 0) throw new ApiError('not-found', `environment variable '${u.missing[0]}' not set`, { path: pathKey(path, 'webhook') });
  const h = resolveHeaders(headers, env);
  if (h.missing.length > 0) throw new ApiError('not-found', `environment variable '${h.missing[0]}' not set`, { path: pathKey(path, 'headers') });
}

export function decodeCronTrigger(v: unknown, path: string): CronTriggerDef & { replace: boolean } {
  const o = asObject(v, path);
  rejectUnknownKeys(o, CRON_KEYS, 'cron trigger', path);
  const name = required(o, 'name', path, asString);
  // Hasura's cron trigger name is any non-empty text (`TriggerName` is a `NonEmptyText`; only event
  // trigger names are restricted): `Cleanup notification logs` is a name. It is only ever a bound value.
  if (name === '') throw parseError('empty string not allowed', pathKey(path, 'name'));
  return {
    name,
    webhook: required(o, 'webhook', path, asUrlConf),
    schedule: required(o, 'schedule', path, decodeCronSchedule),
    payload: o.payload === undefined ? null : o.payload,
    headers: optional(o, 'headers', path, arrayOf(decodeWebhookHeader)) ?? [],
    retry_conf: optional(o, 'retry_conf', path, decodeRetryConf) ?? { ...DEFAULT_SCHEDULED_RETRY_CONF },
    include_in_metadata: required(o, 'include_in_metadata', path, asBool),
    comment: optional(o, 'comment', path, asString) ?? null,
    replace: optional(o, 'replace', path, asBool) ?? false,
  };
}

export function decodeScheduledEvent(v: unknown, path: string): ScheduledEventDef {
  const o = asObject(v, path);
  rejectUnknownKeys(o, EVENT_KEYS, 'scheduled event', path);
  return {
    webhook: required(o, 'webhook', path, asUrlConf),
    schedule_at: required(o, 'schedule_at', path, decodeTimestamp),
    payload: o.payload === undefined ? null : o.payload,
    headers: optional(o, 'headers', path, arrayOf(decodeWebhookHeader)) ?? [],
    retry_conf: optional(o, 'retry_conf', path, decodeRetryConf) ?? { ...DEFAULT_SCHEDULED_RETRY_CONF },
    comment: optional(o, 'comment', path, asString) ?? null,
  };
}

/** The exported form: defaults and empty values left out (Hasura's export of v1.3). */
export function encodeCronTrigger(t: CronTriggerDef): Record<string, unknown> {
  const out: Record<string, unknown> = { name: t.name, webhook: t.webhook, schedule: t.schedule };
  if (t.payload !== null && t.payload !== undefined) out.payload = t.payload;
  if (t.headers.length > 0) out.headers = t.headers;
  if (RETRY_KEYS.some((k) => t.retry_conf[k] !== DEFAULT_SCHEDULED_RETRY_CONF[k])) out.retry_conf = t.retry_conf;
  out.include_in_metadata = t.include_in_metadata;
  if (t.comment !== null) out.comment = t.comment;
  return out;
}
