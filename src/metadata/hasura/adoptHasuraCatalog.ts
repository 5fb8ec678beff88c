/**
 * Takes over a Hasura v1.3 catalog (version 43), with the operator's consent
 * (`--adopt-hasura-catalog`): imports the metadata held in its v1 tables into the engine's
 * `hdb_catalog.hdb_metadata` (a table Hasura v1.3 does not have), mapping `X-Hasura-*` to
 * `x-svc-*`, adds the engine's lease columns to Hasura's queue tables so events, scheduled events
 * and async actions Hasura left pending are delivered by the engine, and drops Hasura's capture
 * triggers (the engine installs its own at start; Hasura recreates its own when it starts). Hasura's rows, its
 * `hdb_version` row and its tables are left as they are (nullable columns added only), so Hasura
 * v1.3 can still start on the database. Runs inside the caller's catalog transaction.
 */
import type { DbClient } from '../../execution/index.js';
import { decodeMetadata } from '../model/decodeMetadata.js';
import { saveMetadata } from '../catalog/metadataStore.js';
import { importHasuraMetadata } from './mapHasuraMetadata.js';
import { readHasuraV1Catalog } from './readHasuraV1Catalog.js';

export interface AdoptionReport {
  adopted_from: string;
  imported: Record<string, number>;
  mapped: string[];
  not_imported: string[];
  /** Hasura's own capture triggers (`notify_hasura_*`) removed; the engine's capture replaces them. */
  hasura_capture_triggers_dropped: number;
  /** Hasura v2's cron triggers (from its document, `X-Hasura-*` mapped), for the engine to install in hdb_cron_triggers. */
  cron_triggers?: unknown[];
}

/** Nullable columns (and the pending-row indexes) the engine's delivery queues use, on Hasura's tables. */
const QUEUE_COLUMNS = [
  ['event_log', 'ADD COLUMN IF NOT EXISTS locked_at timestamptz, ADD COLUMN IF NOT EXISTS locked_by text, ADD COLUMN IF NOT EXISTS archived boolean NOT NULL DEFAULT false'],
  ['hdb_cron_events', 'ADD COLUMN IF NOT EXISTS locked_at timestamptz, ADD COLUMN IF NOT EXISTS locked_by text'],
  ['hdb_scheduled_events', 'ADD COLUMN IF NOT EXISTS locked_at timestamptz, ADD COLUMN IF NOT EXISTS locked_by text'],
  ['hdb_action_log', 'ADD COLUMN IF NOT EXISTS locked_at timestamptz, ADD COLUMN IF NOT EXISTS locked_by text, ADD COLUMN IF NOT EXISTS tries integer NOT NULL DEFAULT 0, ADD COLUMN IF NOT EXISTS next_retry_at timestamptz'],
] as const;

async function exists(c: DbClient, table: string): Promise<boolean> {
  return (await c.query('SELECT to_regclass($1) IS NOT NULL AS present', [`hdb_catalog.${table}`])).rows[0].present === true;
}

export function count(md: Record<string, any>): Record<string, number> {
  const tables = (md.tables ?? []) as Record<string, unknown[] | undefined>[];
  const per = (k: string): number => tables.reduce((n, t) => n + (t[k]?.length ?? 0), 0);
  return {
    tables: tables.length,
    relationships: per('object_relationships') + per('array_relationships'),
    permissions: per('insert_permissions') + per('select_permissions') + per('update_permissions') + per('delete_permissions'),
    computed_fields: per('computed_fields'),
    remote_relationships: per('remote_relationships'),
    event_triggers: per('event_triggers'),
    functions: md.functions?.length ?? 0,
    function_permissions: ((md.functions ?? []) as Array<{ permissions?: unknown[] }>).reduce((n, f) => n + (Array.isArray(f.permissions) ? f.permissions.length : 0), 0),
    remote_schemas: md.remote_schemas?.length ?? 0,
    actions: md.actions?.length ?? 0,
    custom_types: Object.values(md.custom_types ?? {}).reduce((n: number, v) => n + (Array.isArray(v) ? v.length : 0), 0),
    query_collections: md.query_collections?.length ?? 0,
    allowlist: md.allowlist?.length ?? 0,
  };
}

/**
 * What both adoptions do after the import: the engine's lease columns on Hasura's queue tables, and
 * Hasura's capture triggers (functions in `hdb_views` for v1, `hdb_catalog` for v2) dropped, since they
 * would record every change a second time beside the engine's own. Returns how many were dropped.
 */
export async function readyHasuraQueues(c: DbClient): Promise<number> {
  for (const [table, alter] of QUEUE_COLUMNS) {
    if (await exists(c, table)) await c.query(`ALTER TABLE hdb_catalog.${table} ${alter}`);
  }
  const hasuraTriggers = await c.query(
    `SELECT format('DROP TRIGGER %I ON %s', t.tgname, t.tgrelid::regclass) AS stmt
       FROM pg_catalog.pg_trigger t JOIN pg_catalog.pg_proc p ON p.oid = t.tgfoid JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname IN ('hdb_views', 'hdb_catalog') AND t.tgname LIKE 'notify_hasura_%' AND NOT t.tgisinternal`,
  );
  for (const r of hasuraTriggers.rows as { stmt: string }[]) await c.query(r.stmt);
  return hasuraTriggers.rows.length;
}

/** Imports Hasura v1.3's metadata and readies its queue tables; returns what was imported and what was not. */
export async function adoptHasuraV1Catalog(c: DbClient, version: string): Promise<AdoptionReport> {
  const exported = await readHasuraV1Catalog(c);
  const { metadata, mapped, unsupported } = importHasuraMetadata(exported);
  const md = decodeMetadata(metadata);
  await saveMetadata(c, md);
  const dropped = await readyHasuraQueues(c);
  const crons = (await exists(c, 'hdb_cron_triggers')) ? (await c.query('SELECT count(*)::int AS n FROM hdb_catalog.hdb_cron_triggers')).rows[0].n : 0;
  const imported = { ...count(metadata), cron_triggers: Number(crons) };
  if (await exists(c, 'hdb_remote_schema_permission')) {
    const n = Number((await c.query('SELECT count(*)::int AS n FROM hdb_catalog.hdb_remote_schema_permission')).rows[0].n);
    if (n > 0) unsupported.push(`hdb_remote_schema_permission: ${n} remote schema permission(s) not imported (re-create them with add_remote_schema_permissions)`);
  }
  return {
    adopted_from: `Hasura v1.3 catalog (hdb_catalog.hdb_version ${version})`,
    imported,
    mapped,
    not_imported: unsupported,
    hasura_capture_triggers_dropped: dropped,
  };
}
