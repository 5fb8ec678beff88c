/**
 * Creates or upgrades the engine's own schema `hdb_catalog` at start: `hdb_version` (one row),
 * `hdb_metadata` (the one metadata JSON document) and `svc_check_violation` (permission checks), and the engine registry `svc_instances` (instances.ts). Idempotent; runs under a transaction-level
 * advisory lock so engines starting together against one database do not race.
 *
 * Like Hasura, it also creates the `pgcrypto` extension (in `public`) when the server has it and
 * it is not installed yet, so migrations written for Hasura can call `gen_random_uuid()` and
 * `crypt()` unqualified. A role not allowed to create it (error inside a savepoint) is not fatal.
 */
import type { Db, DbClient } from '../../execution/index.js';
import { CHECK_VIOLATION_FUNCTION_SQL } from '../../sql/index.js';
import { CATALOG_LOCK_KEY } from './locks.js';
import { INSTANCE_STEPS } from './instances.js';

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
    for (const step of INSTANCE_STEPS) await c.query(step);
    await createPgcrypto(c);
    const r = await c.query('SELECT version FROM hdb_catalog.hdb_version');
    if (r.rows.length === 0) {
      await c.query('INSERT INTO hdb_catalog.hdb_version (version, upgraded_on) VALUES ($1, now())', [CATALOG_VERSION]);
    } else if (r.rows[0].version !== CATALOG_VERSION) {
      await c.query('UPDATE hdb_catalog.hdb_version SET version = $1, upgraded_on = now()', [CATALOG_VERSION]);
    }
  });
}

/** `CREATE EXTENSION pgcrypto SCHEMA public` when available and missing; skipped when not permitted. */
async function createPgcrypto(c: DbClient): Promise<void> {
  const r = await c.query(
    `SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_available_extensions WHERE name = 'pgcrypto') AS available,
            EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'pgcrypto') AS installed`,
  );
  const row = r.rows[0] as { available: boolean; installed: boolean } | undefined;
  if (!row?.available || row.installed) return;
  await c.query('SAVEPOINT svc_pgcrypto');
  try {
    await c.query('CREATE EXTENSION IF NOT EXISTS pgcrypto SCHEMA public');
    await c.query('RELEASE SAVEPOINT svc_pgcrypto');
  } catch {
    await c.query('ROLLBACK TO SAVEPOINT svc_pgcrypto'); // e.g. a role without CREATE on the database
  }
}
