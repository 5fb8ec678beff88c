/**
 * The async action log `hdb_catalog.hdb_action_log` (DECISIONS 6, Hasura's `31_to_32.sql` columns
 * plus a lease: `locked_at`, `locked_by`) and the worker that processes it (DECISIONS 18): claims
 * `created` rows — and `processing` rows whose lease expired (a killed engine's work) — with one
 * `UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)`, calls the handlers outside any
 * transaction, and writes all outcomes of a batch in one `UPDATE … FROM unnest(…)` guarded by
 * `locked_by = me`. Woken by NOTIFY on `svc_action_log` (sent after an async mutation's row
 * committed, by any engine); polls every `fetchIntervalMs` as the backstop.
 */
import type { Session } from '../core/index.js';
import { ApiError } from '../core/index.js';
import { listenChannel, type ChannelListener, type Db, type DbClient } from '../execution/index.js';
import { runFragment } from '../delivery/index.js';
import type { SchemaCache } from '../metadata/index.js';
import { sql } from '../sql/index.js';
import { callHandler, handlerBody } from './callHandler.js';

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
     locked_by text
   )`,
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
  db: DbClient;
  cache: () => SchemaCache;
  instanceId: string;
  /** Poll interval (0: no polling, wake-ups only). */
  fetchIntervalMs: number;
  leaseSeconds: number;
  batchSize?: number;
  onError?: (err: unknown) => void;
  /** LISTEN on this channel (at `databaseUrl`) and wake on each notification: rows created by other engines. */
  channel?: string;
  databaseUrl?: string;
}

/** The channel async mutations NOTIFY after their log row committed. */
export const ACTION_LOG_CHANNEL = 'svc_action_log';

export interface ActionWorker {
  wake(): void;
  stop(): Promise<void>;
  /** Resolves when the current pass (if any) has finished. */
  idle(): Promise<void>;
}

interface Claimed { id: string; action_name: string; input_payload: unknown; session_variables: Record<string, string>; request_headers: Record<string, string> }
interface Outcome { id: string; status: 'completed' | 'error'; payload: unknown; errors: unknown }

async function claim(o: ActionWorkerOptions): Promise<Claimed[]> {
  const r = await runFragment(o.db, sql`UPDATE hdb_catalog.hdb_action_log l SET status = 'processing', locked_at = now(), locked_by = ${sql.value(o.instanceId)}
    WHERE l.id IN (SELECT id FROM hdb_catalog.hdb_action_log
      WHERE status = 'created' OR (status = 'processing' AND locked_at < now() - make_interval(secs => ${sql.value(o.leaseSeconds)}::float8))
      ORDER BY created_at LIMIT ${sql.value(o.batchSize ?? 20)}::int FOR UPDATE SKIP LOCKED)
    RETURNING l.id::text AS id, l.action_name, l.input_payload, l.session_variables, l.request_headers`);
  return r.rows as unknown as Claimed[];
}

async function finish(o: ActionWorkerOptions, outcomes: Outcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await runFragment(o.db, sql`UPDATE hdb_catalog.hdb_action_log l
    SET status = u.status, response_payload = u.payload, errors = u.errors, response_received_at = now(), locked_at = NULL
    FROM unnest(${sql.value(outcomes.map((x) => x.id))}::uuid[], ${sql.value(outcomes.map((x) => x.status))}::text[],
                ${sql.value(outcomes.map((x) => (x.payload === undefined ? null : JSON.stringify(x.payload))))}::jsonb[],
                ${sql.value(outcomes.map((x) => (x.errors === undefined ? null : JSON.stringify(x.errors))))}::jsonb[]) AS u(id, status, payload, errors)
    WHERE l.id = u.id AND l.locked_by = ${sql.value(o.instanceId)}`);
}

async function process(o: ActionWorkerOptions, row: Claimed): Promise<Outcome> {
  const vars = row.session_variables ?? {};
  const role = vars['x-svc-role'] ?? 'admin';
  const session: Session = { role, isAdmin: role === 'admin', vars };
  try {
    const action = o.cache().actions?.get(row.action_name);
    if (!action) throw new ApiError('not-exists', `action ${JSON.stringify(row.action_name)} does not exist`, { path: '$' });
    const answer = await callHandler(action, handlerBody(action, row.input_payload, session), session, row.request_headers ?? {});
    return { id: row.id, status: 'completed', payload: answer.output, errors: undefined };
  } catch (e) {
    const err = e instanceof ApiError ? e : new ApiError('unexpected', 'unexpected error', { internal: String(e) });
    return { id: row.id, status: 'error', payload: undefined, errors: { code: err.code, error: err.message, path: err.path } };
  }
}

export function startActionWorker(o: ActionWorkerOptions): ActionWorker {
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  const pass = async () => {
    do {
      again = false;
      const rows = await claim(o);
      if (rows.length === 0) break;
      await finish(o, await Promise.all(rows.map((r) => process(o, r))));
      again = true;
    } while (!stopped && again);
  };
  const wake = () => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = pass().catch((e) => o.onError?.(e)).finally(() => {
      running = null;
    });
  };
  const timer = o.fetchIntervalMs > 0 ? setInterval(wake, o.fetchIntervalMs) : null;
  timer?.unref();
  let listener: ChannelListener | undefined;
  if (o.channel && o.databaseUrl) {
    listener = listenChannel(o.databaseUrl, o.channel, {
      onNotify: wake, onConnected: wake, onError: (err) => o.onError?.(err), applicationName: 'svc-graphql-engine-action-listener',
    });
  }
  wake();
  return {
    wake,
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await listener?.close();
      await running;
    },
    async idle() {
      await running;
    },
  };
}
