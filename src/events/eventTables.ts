/**
 * The event tables in `hdb_catalog` (DECISIONS 3, identifiers kept from Hasura): `event_triggers`
 * (one row per trigger, its configuration as exported), `event_log` (one row per captured change)
 * and `event_invocation_logs` (one row per delivery attempt). Created when the first trigger is
 * defined, dropped when the last one goes (`clear_metadata`, `delete_event_trigger`). `event_log`
 * carries the lease (`locked_at`, `locked_by`) and `archived` (events of deleted triggers), and a
 * partial index on pending rows keeps claims cheap however much history accumulates.
 * Another source's database gets the event log and invocation logs only (`createSourceEventTables`).
 */
import type { DbClient } from '../execution/index.js';

const CREATE = [
  `CREATE TABLE IF NOT EXISTS hdb_catalog.event_triggers (
     name text PRIMARY KEY,
     type text NOT NULL DEFAULT 'table',
     schema_name text NOT NULL,
     table_name text NOT NULL,
     configuration json,
     comment text
   )`,
  `CREATE TABLE IF NOT EXISTS hdb_catalog.event_log (
     id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
     schema_name text NOT NULL,
     table_name text NOT NULL,
     trigger_name text NOT NULL,
     payload jsonb NOT NULL,
     delivered boolean NOT NULL DEFAULT false,
     error boolean NOT NULL DEFAULT false,
     tries integer NOT NULL DEFAULT 0,
     created_at timestamptz NOT NULL DEFAULT now(),
     locked_at timestamptz,
     locked_by text,
     next_retry_at timestamptz,
     archived boolean NOT NULL DEFAULT false
   )`,
  'CREATE INDEX IF NOT EXISTS event_log_trigger_name ON hdb_catalog.event_log (trigger_name)',
  `CREATE INDEX IF NOT EXISTS event_log_pending ON hdb_catalog.event_log (created_at)
     WHERE NOT delivered AND NOT error AND NOT archived`,
  `CREATE TABLE IF NOT EXISTS hdb_catalog.event_invocation_logs (
     id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
     event_id text REFERENCES hdb_catalog.event_log (id) ON DELETE CASCADE,
     status integer,
     request json,
     response json,
     created_at timestamptz NOT NULL DEFAULT now()
   )`,
  'CREATE INDEX IF NOT EXISTS event_invocation_logs_event_id ON hdb_catalog.event_invocation_logs (event_id)',
];

const DROP = 'DROP TABLE IF EXISTS hdb_catalog.event_invocation_logs, hdb_catalog.event_log, hdb_catalog.event_triggers';

/**
 * In another source's database: `hdb_catalog` (made when missing) with the event log and the
 * invocation logs only, as Hasura v2 keeps per source (the trigger definitions stay in the metadata).
 */
const CREATE_SOURCE = ['CREATE SCHEMA IF NOT EXISTS hdb_catalog', ...CREATE.slice(1)];

export async function eventTablesExist(client: DbClient): Promise<boolean> {
  const r = await client.query("SELECT to_regclass('hdb_catalog.event_log') IS NOT NULL AS present");
  return r.rows[0].present === true;
}

export async function createEventTables(client: DbClient): Promise<void> {
  for (const s of CREATE) await client.query(s);
}

export async function dropEventTables(client: DbClient): Promise<void> {
  await client.query(DROP);
}

export async function createSourceEventTables(client: DbClient): Promise<void> {
  for (const s of CREATE_SOURCE) await client.query(s);
}

/** The event tables of another source's database, and its `hdb_catalog` when nothing else is left in it. */
export async function dropSourceEventTables(client: DbClient): Promise<void> {
  await client.query('DROP TABLE IF EXISTS hdb_catalog.event_invocation_logs, hdb_catalog.event_log');
  await dropEmptyCatalog(client);
}

/** Another source's `hdb_catalog`, when none of its tables or functions is left (made by the engine, or emptied). */
export async function dropEmptyCatalog(client: DbClient): Promise<void> {
  const r = await client.query(`SELECT NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'hdb_catalog')
      AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'hdb_catalog') AS empty`);
  if (r.rows[0].empty === true) await client.query('DROP SCHEMA IF EXISTS hdb_catalog');
}
