/**
 * `hdb_cron_events` and `hdb_scheduled_events` as `delivery/` queues. A claim takes rows whose time
 * has come (`scheduled_time <= now()`, retries at `next_retry_at`) and that are not later than their
 * `tolerance_seconds` on a first try (those are marked `dead` by the scheduler, never delivered); it
 * sets `status = 'locked'`, an outcome sets delivered / error (retries exhausted) / scheduled (retry).
 * The configuration travels with the claim (the trigger row is joined for cron events), so every
 * instance delivers with what is committed, with no cache to go stale. Body (DECISIONS 4):
 *
 *   {"id", "name" (cron only), "scheduled_time", "payload", "comment" (when set), "created_at" (one-off only)}
 *
 * with times as Postgres prints them in UTC plus `T`/`Z` (`2020-01-01T00:00:00Z`).
 */
import type { DeliveryPlan, Job, QueueAdapter, QueueTable } from '../delivery/index.js';
import type { WebhookHeaderConf } from '../metadata/index.js';
import { sql, type SqlFragment } from '../sql/index.js';
import { isUrlConf, resolveHeaders, resolveUrlConf } from '../webhooks/index.js';
import { DEFAULT_SCHEDULED_RETRY_CONF, type ScheduledRetryConf } from './decodeScheduled.js';

const isoText = (col: string): SqlFragment => sql.unsafeRaw(`replace((${col} AT TIME ZONE 'UTC')::text, ' ', 'T') || 'Z'`);

const common = {
  idType: 'text' as const,
  pending: sql`t.status IN ('scheduled', 'locked')`,
  setOutcome: (ok: SqlFragment, dead: SqlFragment) => sql`status = CASE WHEN ${ok} THEN 'delivered' WHEN ${dead} THEN 'error' ELSE 'scheduled' END`,
  orderBy: sql`t.scheduled_time`,
  claimSet: sql`status = 'locked'`,
  releaseSet: sql`status = 'scheduled'`,
};

export const CRON_EVENTS_QUEUE: QueueTable = {
  ...common,
  table: { schema: 'hdb_catalog', name: 'hdb_cron_events' },
  logTable: { schema: 'hdb_catalog', name: 'hdb_cron_event_invocation_logs' },
  returning: sql`t.trigger_name, ${isoText('t.scheduled_time')} AS scheduled_time_text,
    (SELECT json_build_object('webhook', ct.webhook_conf, 'payload', ct.payload, 'headers', ct.header_conf, 'retry_conf', ct.retry_conf, 'comment', ct.comment)::text
       FROM hdb_catalog.hdb_cron_triggers ct WHERE ct.name = t.trigger_name) AS conf`,
};

export const SCHEDULED_EVENTS_QUEUE: QueueTable = {
  ...common,
  table: { schema: 'hdb_catalog', name: 'hdb_scheduled_events' },
  logTable: { schema: 'hdb_catalog', name: 'hdb_scheduled_event_invocation_logs' },
  returning: sql`${isoText('t.scheduled_time')} AS scheduled_time_text, ${isoText('t.created_at')} AS created_at_text,
    json_build_object('webhook', t.webhook_conf, 'payload', t.payload, 'headers', t.header_conf, 'retry_conf', t.retry_conf, 'comment', t.comment)::text AS conf`,
};

/** Tolerance of a row's configuration in SQL (`retry_conf` json), default 6 h. */
const tolerance = (retryConf: string): SqlFragment =>
  sql`make_interval(secs => coalesce((${sql.unsafeRaw(retryConf)} ->> 'tolerance_seconds')::float8, ${sql.value(DEFAULT_SCHEDULED_RETRY_CONF.tolerance_seconds, 'float8')}))`;

/** Due now and, on a first try, within tolerance. */
const CRON_DUE = sql`t.scheduled_time <= now() AND (t.tries > 0 OR EXISTS (SELECT 1 FROM hdb_catalog.hdb_cron_triggers ct
  WHERE ct.name = t.trigger_name AND t.scheduled_time >= now() - ${tolerance('ct.retry_conf')}))`;
const ONE_OFF_DUE = sql`t.scheduled_time <= now() AND (t.tries > 0 OR t.scheduled_time >= now() - ${tolerance('t.retry_conf')})`;

/** Marks first-try rows found later than their tolerance as `dead` (no call, no invocation log). */
export const MARK_DEAD: SqlFragment[] = [
  sql`UPDATE hdb_catalog.hdb_cron_events AS t SET status = 'dead' FROM hdb_catalog.hdb_cron_triggers ct
      WHERE ct.name = t.trigger_name AND t.status = 'scheduled' AND t.tries = 0 AND t.locked_at IS NULL
        AND t.scheduled_time < now() - ${tolerance('ct.retry_conf')}`,
  sql`UPDATE hdb_catalog.hdb_scheduled_events AS t SET status = 'dead'
      WHERE t.status = 'scheduled' AND t.tries = 0 AND t.locked_at IS NULL AND t.scheduled_time < now() - ${tolerance('t.retry_conf')}`,
];

/** The earliest future due time of unclaimed rows in both queues (for the scheduler's timer). */
export const NEXT_DUE = sql`SELECT min(d) AS next_due, now() AS db_now FROM (
  SELECT min(greatest(scheduled_time, coalesce(next_retry_at, scheduled_time))) AS d FROM hdb_catalog.hdb_cron_events
    WHERE status = 'scheduled' AND greatest(scheduled_time, coalesce(next_retry_at, scheduled_time)) > now()
  UNION ALL
  SELECT min(greatest(scheduled_time, coalesce(next_retry_at, scheduled_time))) FROM hdb_catalog.hdb_scheduled_events
    WHERE status = 'scheduled' AND greatest(scheduled_time, coalesce(next_retry_at, scheduled_time)) > now()) AS x`;

interface Conf {
  /** A `UrlConf` as stored (a URL string or `{from_env}`). */
  webhook: unknown;
  payload: unknown;
  headers: WebhookHeaderConf[] | null;
  retry_conf: Partial<ScheduledRetryConf> | null;
  comment: string | null;
}

/** The webhook body of one scheduled event (see the module comment). */
export function scheduledBody(job: Job, conf: Conf, name?: string): string {
  const body: Record<string, unknown> = { id: job.id };
  if (name !== undefined) body.name = name;
  body.scheduled_time = job.row.scheduled_time_text;
  body.payload = conf.payload ?? null;
  if (conf.comment !== null && conf.comment !== undefined) body.comment = conf.comment;
  if (job.row.created_at_text !== undefined) body.created_at = job.row.created_at_text;
  return JSON.stringify(body);
}

function planFor(job: Job, name: string | undefined, o: QueueOptions): DeliveryPlan | { dead: string } | undefined {
  if (job.row.conf === null || job.row.conf === undefined) return undefined; // trigger deleted meanwhile
  const conf = JSON.parse(String(job.row.conf)) as Conf;
  const rc = { ...DEFAULT_SCHEDULED_RETRY_CONF, ...(conf.retry_conf ?? {}) };
  const url = resolveUrlConf(isUrlConf(conf.webhook) ? conf.webhook : '', o.env);
  if (url.missing.length > 0) return { dead: `environment variable '${url.missing[0]}' not set` };
  const headers = resolveHeaders(conf.headers ?? [], o.env);
  if (headers.missing.length > 0) return { dead: `environment variable '${headers.missing[0]}' not set` };
  const timeoutMs = rc.timeout_seconds * 1000;
  return {
    url: url.url,
    headers: headers.headers,
    body: scheduledBody(job, conf, name),
    timeoutMs,
    numRetries: rc.num_retries,
    intervalSec: rc.retry_interval_seconds,
    log: name !== undefined ? { cron_trigger: name } : { scheduled_event: job.id },
  };
}

export interface QueueOptions {
  env: NodeJS.ProcessEnv;
}

export function cronEventQueue(o: QueueOptions): QueueAdapter {
  return {
    name: 'cron_event',
    table: CRON_EVENTS_QUEUE,
    claimFilter: () => CRON_DUE,
    plan: (job) => planFor(job, String(job.row.trigger_name), o),
  };
}

export function scheduledEventQueue(o: QueueOptions): QueueAdapter {
  return {
    name: 'scheduled_event',
    table: SCHEDULED_EVENTS_QUEUE,
    claimFilter: () => ONE_OFF_DUE,
    plan: (job) => planFor(job, undefined, o),
  };
}
