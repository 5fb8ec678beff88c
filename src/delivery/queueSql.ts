/**
 * The SQL of a queue, built from its `QueueTable` (DECISIONS 18):
 * - claim: one READ COMMITTED statement, a CTE selecting due rows `FOR UPDATE SKIP LOCKED`, then an
 *   UPDATE stamping `locked_at`/`locked_by`. A row locked by an instance without a fresh heartbeat
 *   in `hdb_catalog.svc_instances` (crashed, stopped, or never registered) is claimable again.
 * - finish: a batch of attempt outcomes over `unnest`: `tries + 1`, the lease dropped, delivered /
 *   failed-for-good / retry at `now() + coalesce(retry_after, interval)` decided in SQL (Hasura's
 *   retryOrSetError: retries exhausted and no Retry-After → error); only rows this instance still
 *   holds are updated, and one invocation-log row per attempt is inserted (when the queue has a log table).
 * - release: put claimed rows back untouched.
 */
import { sql, type SqlFragment } from '../sql/index.js';
import type { QueueTable } from './queueTable.js';

export function claimStatement(q: QueueTable, opts: { instanceId: string; limit: number; heartbeatTimeoutSeconds: number; filter?: SqlFragment; liveInstances?: readonly string[] }): SqlFragment {
  const t = sql.table(q.table);
  const filter = opts.filter ? sql` AND ${opts.filter}` : sql.empty;
  const held = opts.liveInstances ? heldElsewhere(opts.liveInstances, opts.heartbeatTimeoutSeconds) : liveHolder(sql`t.locked_by`, opts.heartbeatTimeoutSeconds);
  return sql`WITH due AS (
  SELECT t.id FROM ${t} AS t
  WHERE ${q.pending} AND (t.next_retry_at IS NULL OR t.next_retry_at <= now())
    AND (t.locked_at IS NULL OR NOT ${held})${filter}
  ORDER BY ${q.orderBy} LIMIT ${sql.int(opts.limit)}
  FOR UPDATE SKIP LOCKED)
UPDATE ${t} AS t SET locked_at = now(), locked_by = ${sql.value(opts.instanceId, 'text')}${q.claimSet ? sql`, ${q.claimSet}` : sql.empty}
FROM due WHERE t.id = due.id
RETURNING t.id::text AS id, t.tries, ${q.returning}`;
}

/** True when `holder` names an instance whose heartbeat is younger than `timeoutSeconds` (database clock). */
export function liveHolder(holder: SqlFragment, timeoutSeconds: number): SqlFragment {
  return sql`EXISTS (SELECT 1 FROM hdb_catalog.svc_instances AS i
      WHERE i.instance_id = ${holder} AND i.heartbeat_at > now() - make_interval(secs => ${sql.value(timeoutSeconds, 'float8')}))`;
}

/**
 * The lease of a queue in a database without `hdb_catalog.svc_instances` (an event log in another
 * source's database): held while its holder is among `live` (read from the engine's own database just
 * before the claim) or was claimed within the timeout (an engine that registered after `live` was read).
 */
export function heldElsewhere(live: readonly string[], timeoutSeconds: number): SqlFragment {
  return sql`(t.locked_by = ANY(${sql.value(live, 'text[]')}) OR t.locked_at > now() - make_interval(secs => ${sql.value(timeoutSeconds, 'float8')}))`;
}

/** The instances whose heartbeat in `hdb_catalog.svc_instances` is younger than `timeoutSeconds`. */
export function liveInstancesStatement(timeoutSeconds: number): SqlFragment {
  return sql`SELECT coalesce(array_agg(instance_id), '{}') AS ids FROM hdb_catalog.svc_instances
  WHERE heartbeat_at > now() - make_interval(secs => ${sql.value(timeoutSeconds, 'float8')})`;
}

export interface FinishRow {
  id: string;
  ok: boolean;
  /** When true the row is marked failed without considering retries (e.g. tolerance exceeded). */
  dead: boolean;
  status: number;
  retryAfter: number | null;
  numRetries: number;
  intervalSec: number;
  request: string;
  response: string;
}

export function finishStatement(q: QueueTable, instanceId: string, rows: readonly FinishRow[]): SqlFragment {
  const t = sql.table(q.table);
  const idArr = `${q.idType}[]`;
  const col = <K extends keyof FinishRow>(k: K, type: string) => sql.value(rows.map((r) => r[k]), type);
  const ok = sql`o.ok`;
  const dead = sql`(NOT o.ok AND (o.dead OR (t.tries >= o.num_retries AND o.retry_after IS NULL)))`;
  const update = sql`UPDATE ${t} AS t SET tries = t.tries + 1, locked_at = NULL, locked_by = NULL,
    next_retry_at = CASE WHEN ${ok} OR ${dead} THEN NULL
                         ELSE now() + make_interval(secs => coalesce(o.retry_after, o.interval_sec)) END,
    ${q.setOutcome(ok, dead)}
  FROM o WHERE t.id = o.id AND t.locked_by = ${sql.value(instanceId, 'text')}`;
  const attempts = sql`WITH o AS (
  SELECT * FROM unnest(${col('id', idArr)}, ${col('ok', 'bool[]')}, ${col('dead', 'bool[]')}, ${col('status', 'int4[]')},
    ${col('retryAfter', 'int4[]')}, ${col('numRetries', 'int4[]')}, ${col('intervalSec', 'int4[]')}, ${col('request', 'json[]')}, ${col('response', 'json[]')})
    AS o(id, ok, dead, status, retry_after, num_retries, interval_sec, request, response)
)`;
  if (!q.logTable) return sql`${attempts}
${update}`;
  return sql`${attempts}, u AS (
  ${update}
  RETURNING t.id
)
INSERT INTO ${sql.table(q.logTable)} (event_id, status, request, response)
SELECT o.id, o.status, o.request, o.response FROM o WHERE EXISTS (SELECT 1 FROM ${t} AS e WHERE e.id = o.id)`;
}

export function releaseStatement(q: QueueTable, instanceId: string, ids: readonly string[]): SqlFragment {
  return sql`UPDATE ${sql.table(q.table)} SET locked_at = NULL, locked_by = NULL${q.releaseSet ? sql`, ${q.releaseSet}` : sql.empty}
WHERE id = ANY(${sql.value(ids, `${q.idType}[]`)}) AND locked_by = ${sql.value(instanceId, 'text')}`;
}

/** Pending / delivered / failed counts per key column (for operators), e.g. per trigger. */
export function countsStatement(q: QueueTable, key: SqlFragment, delivered: SqlFragment, failed: SqlFragment): SqlFragment {
  return sql`SELECT ${key} AS key,
  count(*) FILTER (WHERE ${q.pending}) AS pending,
  count(*) FILTER (WHERE ${q.pending} AND t.locked_at IS NOT NULL) AS locked,
  count(*) FILTER (WHERE ${delivered}) AS delivered,
  count(*) FILTER (WHERE ${failed}) AS failed
FROM ${sql.table(q.table)} AS t GROUP BY 1 ORDER BY 1`;
}

/**
 * How many rows wait (`pending`) and how many of them a claim could take now (`due`; `filter` is the
 * queue's claim filter, null when it claims nothing now): the queue-depth gauge.
 */
export function depthStatement(q: QueueTable, filter: SqlFragment | undefined | null): SqlFragment {
  const claimable = filter === null ? sql`false` : sql`(t.next_retry_at IS NULL OR t.next_retry_at <= now()) AND t.locked_at IS NULL${filter ? sql` AND ${filter}` : sql.empty}`;
  return sql`SELECT count(*)::int AS pending, count(*) FILTER (WHERE ${claimable})::int AS due
FROM ${sql.table(q.table)} AS t WHERE ${q.pending}`;
}
