/**
 * What a queue tells the generic worker. A queue table has the columns `id` (text or uuid),
 * `tries` int, `next_retry_at` timestamptz, `locked_at` timestamptz, `locked_by` text, and an
 * invocation-log table `(event_id, status int, request json, response json)`.
 *
 * ## Adding a queue (e.g. cron events)
 * 1. Give the table the columns above (+ a partial index on the pending rows).
 * 2. Write a `QueueAdapter`: `table` (pending predicate, how delivered/error are stored, extra
 *    columns a claim returns), `claimFilter()` (e.g. `scheduled_time <= now()`), and `plan(job)` that
 *    turns a claimed row into the HTTP request and its retry policy (`numRetries`, `intervalSec`),
 *    or `undefined` to put the row back untouched (its configuration is not known here yet).
 * 3. `startDeliveryWorker({ queue, db, logger, instanceId, concurrency, fetchIntervalMs, leaseSeconds,
 *    channel })` at boot, `worker.stop()` at shutdown; call `worker.wake()` (or a `Notifier` on the same
 *    channel, for other instances) after committing new rows.
 * Tolerance (deliver-by deadlines) fits in `plan`: return `{ dead: 'reason' }` to mark the row as error
 * without calling the webhook.
 *
 * A queue whose job is more than one POST of a prepared body (async actions: the handler call, its
 * output checks and the answer kept on the row) gives `execute(job)` instead of `plan`: the worker
 * claims, leases, limits concurrency and batches the outcomes as for the others, and `setOutcome` can
 * store what `execute` returned (`o.response`, a json value). Such a queue may have no `logTable`.
 */
import type { QualifiedName } from '../core/index.js';
import type { ResolvedHeader } from '../webhooks/index.js';
import type { SqlFragment } from '../sql/index.js';

export interface QueueTable {
  table: QualifiedName;
  /** `text` or `uuid`: the type of `id` (and of the log table's `event_id`). */
  idType: 'text' | 'uuid';
  /** The invocation-log table (one row per attempt); none: attempts are not logged apart. */
  logTable?: QualifiedName;
  /** Rows still to deliver, e.g. sql`NOT delivered AND NOT error AND NOT archived`. */
  pending: SqlFragment;
  /**
   * SET assignments for an attempt's outcome, given boolean SQL expressions `ok` (delivered) and
   * `dead` (failed for good): e.g. sql`delivered = ${ok}, error = ${dead}`. The attempt's columns are
   * in scope as `o.*` (`o.status` int, `o.response` json).
   */
  setOutcome(ok: SqlFragment, dead: SqlFragment): SqlFragment;
  /** Extra columns a claim returns, written against alias `t` (e.g. sql`t.trigger_name, t.payload::text AS payload`). */
  returning: SqlFragment;
  /** Claim order, e.g. sql`created_at`. */
  orderBy: SqlFragment;
  /** Extra SET assignments of a claim (e.g. sql`status = 'locked'`), for queues that show a claim in a status column. */
  claimSet?: SqlFragment;
  /** Extra SET assignments when a claimed row is put back untouched (e.g. sql`status = 'scheduled'`). */
  releaseSet?: SqlFragment;
}

/** A claimed row: `id`, `tries` so far, and the queue's extra columns. */
export interface Job {
  id: string;
  tries: number;
  row: Record<string, unknown>;
}

export interface DeliveryPlan {
  url: string;
  headers: ResolvedHeader[];
  /** The JSON body, serialised (the raw body when a request transform made it form-encoded or removed it). */
  body: string;
  /** Set by a request transform: the method (default POST) and the body as the invocation log records it (JSON text). */
  method?: string;
  logBody?: string;
  timeoutMs: number;
  numRetries: number;
  intervalSec: number;
  /** Extra fields of the structured log line (e.g. `{trigger: 't1'}`). */
  log: Record<string, unknown>;
  /**
   * A 2xx answer's body as the log keeps it (an event trigger's `response_transform`): the new body
   * text, or `{error}` when it cannot be reshaped (the attempt then fails with status 500 and is retried).
   */
  transformResponse?: (status: number, body: string) => { body: string } | { error: string };
}

export interface QueueAdapter {
  /** Name in log lines (`event`, `cron_event`...). */
  name: string;
  table: QueueTable;
  /** Extra claim condition on alias `t`, evaluated at each claim (undefined: none; null: claim nothing now). */
  claimFilter(): SqlFragment | undefined | null;
  /** The request for a job; undefined → release the row untouched; `{dead}` → mark it error, no call. */
  plan?(job: Job): DeliveryPlan | { dead: string } | undefined;
  /** Instead of `plan`: runs the job itself (never rejects) and says how it went. */
  execute?(job: Job): Promise<JobResult>;
}

/** What a queue's own `execute` did with a job (no retries: a failed one is failed for good). */
export interface JobResult {
  ok: boolean;
  /** Stored as the attempt's status (HTTP status, or 1000 when no answer came). */
  status: number;
  /** JSON text kept as the attempt's response (`o.response`). */
  response: string;
  latencyMs: number;
  /** Extra fields of the structured log line. */
  log?: Record<string, unknown>;
  error?: string;
}

export interface DeliveryStats {
  claimed: number;
  delivered: number;
  failed: number;
  inFlight: number;
}
