/**
 * Creates or upgrades the engine's own schema `hdb_catalog` at start: `hdb_version` (one row),
 * `hdb_metadata` (the one metadata JSON document) and `svc_check_violation` (permission checks). Idempotent; runs under a transaction-level
 * advisory lock so engines starting together against one database do not race.
 */
import type { Db } from '../../execution/index.js';
import { CHECK_VIOLATION_FUNCTION_SQL } from '../../sql/index.js';
import { CATALOG_LOCK_KEY } from './locks.js';

/** The catalog layout this engine writes. */
export const CATALOG_VERSION = '1';

const STEPS = [
  'CREATE SCHEMA IF NOT EXISTS hdb_catalog',
  `CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_version (
     hasura_uuid uuid PRIMARY KEY DEFAULT (md5(random()::text || clock_timestamp()::text)::uuid),
     version text NOT NULL,
     upgraded_on timestamptz NOT NULL,
     cli_state jsonb NOT NULL DEFAULT '{}'::jsonb,
     console_state jsonb NOT NULL DEFAULT '{}'::jsonb
   )`,
  'CREATE UNIQUE INDEX IF NOT EXISTS hdb_version_one_row ON hdb_catalog.hdb_version ((version IS NOT NULL))',
  `CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_metadata (
     id integer PRIMARY KEY,
     metadata json NOT NULL,
     resource_version integer NOT NULL DEFAULT 1
   )`,
  `INSERT INTO hdb_catalog.hdb_metadata (id, metadata, resource_version)
     VALUES (1, '{"version":2,"tables":[]}', 1) ON CONFLICT (id) DO NOTHING`,
  // Called by mutation statements when a row fails its permission check (sql/mutationOutput.ts).
  CHECK_VIOLATION_FUNCTION_SQL,
];

/** Brings `hdb_catalog` to the current layout (safe to call on every start, concurrently). */
export async function migrateCatalog(db: Db): Promise<void> {
  await db.transaction({}, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [CATALOG_LOCK_KEY]);
    for (const step of STEPS) await c.query(step);
    const r = await c.query('SELECT version FROM hdb_catalog.hdb_version');
    if (r.rows.length === 0) {
      await c.query('INSERT INTO hdb_catalog.hdb_version (version, upgraded_on) VALUES ($1, now())', [CATALOG_VERSION]);
    } else if (r.rows[0].version !== CATALOG_VERSION) {
      await c.query('UPDATE hdb_catalog.hdb_version SET version = $1, upgraded_on = now()', [CATALOG_VERSION]);
    }
  });
}
