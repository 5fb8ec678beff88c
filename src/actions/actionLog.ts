/**
 * The async action log `hdb_catalog.hdb_action_log` (DECISIONS 6, Hasura's `31_to_32.sql` columns
 * plus the delivery queue's `tries`, `next_retry_at` and lease `locked_at`, `locked_by`) and its
 * worker (DECISIONS 18), a queue of the shared delivery engine (`delivery/`): it claims `created`
 * rows — and `processing` rows whose lease expired (a killed engine's work) — `FOR UPDATE SKIP
 * LOCKED`, calls the handlers outside any transaction (`execute`: the handler call with its output
 * checks), and the engine writes each flush's outcomes in one statement over `unnest`, guarded by
 * `locked_by = me`: `completed` with the output in `response_payload`, or `error` with the error in
 * `errors` (tried once, as Hasura). Woken by NOTIFY on `svc_action_log` (sent after an async
 * mutation's row committed, by any engine); polls every `fetchIntervalMs` as the backstop.
 */
import type { Logger } from 'pino';
import { ApiError, inHasuraMode } from '../core/index.js';
import type { DatabaseWatch, Db, DbClient } from '../execution/index.js';
import { runFragment, startDeliveryWorker, type DeliveryWorker, type Job, type JobResult, type QueueAdapter } from '../delivery/index.js';
import type { SchemaCache } from '../metadata/index.js';
import { sql } from '../sql/index.js';
import { callHandler, handlerBody, HANDLER_TIMEOUT_MS } from './callHandler.js';

const CREATE = [
  sql`CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_action_log (
     id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
     action_name text,
     input_payload jsonb NOT NULL,
     request_headers jsonb NOT NULL,
     session_variables jsonb NOT NULL,
     response_payload jsonb,
     errors jsonb,
     created_at timestamptz NOT NULL DEFAULT now(),
     response_received_at timestamptz,
     status text NOT NULL CHECK (status IN ('created', 'processing', 'completed', 'error')),
     locked_at timestamptz,
     locked_by text,
     tries integer NOT NULL DEFAULT 0,
     next_retry_at timestamptz
   )`,
  // Logs created before the worker became a delivery queue.
  sql`ALTER TABLE hdb_catalog.hdb_action_log ADD COLUMN IF NOT EXISTS tries integer NOT NULL DEFAULT 0, ADD COLUMN IF NOT EXISTS next_retry_at timestamptz`,
  sql`CREATE INDEX IF NOT EXISTS hdb_action_log_pending ON hdb_catalog.hdb_action_log (created_at) WHERE status IN ('created', 'processing')`,
];

/** Creates the log table once, however many engines start together (an advisory lock serialises them). */
export async function createActionLogTable(db: Db): Promise<void> {
  await db.transaction({}, async (c) => {
    await runFragment(c, sql`SELECT pg_advisory_xact_lock(hashtext('svc_hdb_action_log'))`);
    for (const s of CREATE) await runFragment(c, s);
  });
}

/** Inserts a `created` row; resolves to its id. */
export async function insertActionLog(
  db: DbClient, action: string, input: unknown, session: Record<string, string>, headers: Record<string, string>,
): Promise<string> {
  const r = await runFragment(db, sql`INSERT INTO hdb_catalog.hdb_action_log (action_name, input_payload, session_variables, request_headers, status)
    VALUES (${sql.value(action)}, ${sql.value(JSON.stringify(input))}::jsonb, ${sql.value(JSON.stringify(session))}::jsonb, ${sql.value(JSON.stringify(headers))}::jsonb, 'created') RETURNING id::text AS id`);
  return String(r.rows[0].id);
}

export interface ActionWorkerOptions {
  db: Db;
  cache: () => SchemaCache;
  logger: Logger;
  instanceId: string;
  /** Poll interval when idle (ms). */
  fetchIntervalMs: number;
  /** Longest pause of the poll while idle and notifications verifiably arrive (delivery worker's `idleBackoffMaxMs`). */
  idlePollMaxIntervalMs?: number;
  /** Seconds without a heartbeat after which another engine's claims are taken over. */
  heartbeatTimeoutSeconds: number;
  /** Handler calls in flight at most. */
  concurrency: number;
  /** Hasura-compatible session variables: the handler body's session_variables get `x-hasura-*` twins. */
  hasuraSession?: boolean;
  /** LISTEN on this channel (at `databaseUrl`) and wake on each notification: rows created by other engines. */
  channel?: string;
  databaseUrl?: string;
  userAgent: string;
  /** The engine's database watch (delivery worker option of the same name). */
  watch?: DatabaseWatch;
}

/** The channel async mutations NOTIFY after their log row committed. */
export const ACTION_LOG_CHANNEL = 'svc_action_log';

interface Claimed { action_name: string; input_payload: unknown; session_variables: Record<string, string> | null; request_headers: Record<string, string> | null }

/** Calls the handler of one claimed row; the output, or the error as the result reads it, as `response`. */
async function execute(cache: () => SchemaCache, job: Job, hasuraSession: boolean): Promise<JobResult> {
  const row = job.row as unknown as Claimed;
  const vars = row.session_variables ?? {};
  // A row Hasura wrote before the engine took the database over names the role x-hasura-role.
  const role = vars['x-svc-role'] ?? vars['x-hasura-role'] ?? 'admin';
  const session = inHasuraMode({ role, isAdmin: role === 'admin', vars }, hasuraSession);
  const started = performance.now();
  const latencyMs = () => Math.round((performance.now() - started) * 100) / 100;
  try {
    const action = cache().actions?.get(row.action_name);
    if (!action) throw new ApiError('not-exists', `action ${JSON.stringify(row.action_name)} does not exist`, { path: '$' });
    const answer = await callHandler(action, handlerBody(action, row.input_payload, session), session, row.request_headers ?? {});
    return { ok: true, status: 200, response: JSON.stringify(answer.output ?? null), latencyMs: latencyMs(), log: { action: row.action_name } };
  } catch (e) {
    const err = e instanceof ApiError ? e : new ApiError('unexpected', 'unexpected error', { internal: String(e) });
    return {
      ok: false, status: err.status ?? 500, latencyMs: latencyMs(), error: err.message, log: { action: row.action_name },
      response: JSON.stringify({ code: err.code, error: err.message, path: err.path }),
    };
  }
}

/** hdb_action_log as a delivery queue. */
export function actionLogQueue(cache: () => SchemaCache, hasuraSession = false): QueueAdapter {
  return {
    name: 'async_action',
    table: {
      table: { schema: 'hdb_catalog', name: 'hdb_action_log' },
      idType: 'uuid',
      pending: sql`t.status IN ('created', 'processing')`,
      setOutcome: (ok) => sql`status = CASE WHEN ${ok} THEN 'completed' ELSE 'error' END,
    response_payload = CASE WHEN ${ok} THEN o.response::jsonb END,
    errors = CASE WHEN ${ok} THEN NULL ELSE o.response::jsonb END,
    response_received_at = now()`,
      returning: sql`t.action_name, t.input_payload, t.session_variables, t.request_headers`,
      orderBy: sql`t.created_at`,
      claimSet: sql`status = 'processing'`,
      releaseSet: sql`status = 'created'`,
    },
    claimFilter: () => undefined,
    execute: (job) => execute(cache, job, hasuraSession),
  };
}

/** Starts this engine's async-action worker (stop it at shutdown; `wake()` after a local async mutation). */
export function startActionWorker(o: ActionWorkerOptions): DeliveryWorker {
  return startDeliveryWorker({
    queue: actionLogQueue(o.cache, o.hasuraSession === true),
    db: o.db,
    logger: o.logger,
    instanceId: o.instanceId,
    concurrency: o.concurrency,
    fetchIntervalMs: o.fetchIntervalMs,
    heartbeatTimeoutSeconds: o.heartbeatTimeoutSeconds,
    batchSize: 20,
    // Log rows are written only by engines, each followed by a NOTIFY: the poll may rest while notifications arrive.
    idleBackoffMaxMs: o.idlePollMaxIntervalMs,
    channel: o.channel,
    databaseUrl: o.databaseUrl,
    userAgent: o.userAgent,
    watch: o.watch,
  });
}
