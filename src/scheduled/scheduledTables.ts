/**
 * The scheduled-trigger tables in `hdb_catalog` (DECISIONS 4, identifiers kept from Hasura):
 * `hdb_cron_triggers` (one row per cron trigger: the source of truth, as in Hasura v1.3; exported
 * when `include_in_metadata`), `hdb_cron_events` (materialised occurrences, UNIQUE (trigger_name,
 * scheduled_time) so two generators never duplicate one, deleted with their trigger),
 * `hdb_scheduled_events` (one-off events) and one invocation-log table per queue. Both queues carry
 * the delivery lease (`locked_at`, `locked_by`, `next_retry_at`); `status` is scheduled → locked →
 * delivered | error, or dead (found later than `tolerance_seconds`). Partial indexes on pending rows
 * keep claims cheap however much history accumulates. Created idempotently at boot and by the ops.
 */
import type { DbClient } from '../execution/index.js';

const STATUS = `status text NOT NULL DEFAULT 'scheduled' CHECK (status IN ('scheduled','locked','delivered','error','dead'))`;

const CREATE = `
CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_cron_triggers (
  name text PRIMARY KEY,
  webhook_conf json NOT NULL,
  cron_schedule text NOT NULL,
  payload json,
  retry_conf json NOT NULL,
  header_conf json NOT NULL DEFAULT '[]',
  include_in_metadata boolean NOT NULL DEFAULT false,
  comment text
);
CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_cron_events (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  trigger_name text NOT NULL REFERENCES hdb_catalog.hdb_cron_triggers (name) ON UPDATE CASCADE ON DELETE CASCADE,
  scheduled_time timestamptz NOT NULL,
  ${STATUS},
  tries integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  next_retry_at timestamptz,
  locked_at timestamptz,
  locked_by text,
  UNIQUE (trigger_name, scheduled_time)
);
CREATE INDEX IF NOT EXISTS hdb_cron_events_pending ON hdb_catalog.hdb_cron_events (scheduled_time) WHERE status IN ('scheduled','locked');
CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_cron_event_invocation_logs (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  event_id text REFERENCES hdb_catalog.hdb_cron_events (id) ON DELETE CASCADE,
  status integer,
  request json,
  response json,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS hdb_cron_event_invocation_logs_event_id ON hdb_catalog.hdb_cron_event_invocation_logs (event_id);
CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_scheduled_events (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  webhook_conf json NOT NULL,
  scheduled_time timestamptz NOT NULL,
  retry_conf json NOT NULL,
  payload json,
  header_conf json NOT NULL DEFAULT '[]',
  ${STATUS},
  tries integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  next_retry_at timestamptz,
  comment text,
  locked_at timestamptz,
  locked_by text
);
CREATE INDEX IF NOT EXISTS hdb_scheduled_events_pending ON hdb_catalog.hdb_scheduled_events (scheduled_time) WHERE status IN ('scheduled','locked');
CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_scheduled_event_invocation_logs (
  id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  event_id text REFERENCES hdb_catalog.hdb_scheduled_events (id) ON DELETE CASCADE,
  status integer,
  request json,
  response json,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS hdb_scheduled_event_invocation_logs_event_id ON hdb_catalog.hdb_scheduled_event_invocation_logs (event_id);
`;

// A catalog adopted from Hasura v2 has the queue tables but not hdb_cron_triggers (v2 keeps cron triggers in its document).
const PRESENT = "SELECT to_regclass('hdb_catalog.hdb_scheduled_event_invocation_logs') IS NOT NULL AND to_regclass('hdb_catalog.hdb_cron_triggers') IS NOT NULL AS present";

/**
 * Creates the tables when missing (cheap when present: one catalog lookup). `client` must be in a
 * transaction: a transaction-scoped advisory lock keeps two booting engines from racing on the DDL.
 */
export async function ensureScheduledTables(client: DbClient): Promise<void> {
  if ((await client.query(PRESENT)).rows[0].present === true) return;
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', ['svc_scheduled_tables']);
  if ((await client.query(PRESENT)).rows[0].present === true) return;
  for (const stmt of CREATE.split(';').map((x) => x.trim()).filter(Boolean)) await client.query(stmt);
}
