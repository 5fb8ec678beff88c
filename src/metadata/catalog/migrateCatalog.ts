/**
 * Creates or checks the engine's schema `hdb_catalog` at start: `hdb_version` (one row, only in a
 * catalog the engine created), `svc_catalog` (the engine's catalog version, and what it was adopted
 * from), `hdb_metadata` (the one metadata JSON document) and `svc_check_violation` (permission
 * checks), the engine registry `svc_instances` (instances.ts) and the live-query change counters
 * `svc_live_change` (liveChanges.ts). It first recognises what is there (catalog/recogniseCatalog.ts) and never rewrites a
 * catalog it does not own. Idempotent; runs under a transaction-level advisory lock so engines
 * starting together against one database do not race.
 *
 * Like Hasura, it also creates the `pgcrypto` extension (in `public`) when the server has it and
 * it is not installed yet, so migrations written for Hasura can call `gen_random_uuid()` and
 * `crypt()` unqualified. A role not allowed to create it (error inside a savepoint) is not fatal.
 */
import type { Db, DbClient } from '../../execution/index.js';
import { CHECK_VIOLATION_FUNCTION_SQL } from '../../sql/index.js';
import { CATALOG_LOCK_KEY } from './locks.js';
import { INSTANCE_STEPS } from './instances.js';
import { LIVE_CHANGE_STEPS } from './liveChanges.js';
import { HASURA_V1_ADOPTABLE, recogniseCatalog, type CatalogKind } from './recogniseCatalog.js';
import { adoptHasuraV1Catalog, type AdoptionReport } from '../hasura/adoptHasuraCatalog.js';
import { adoptHasuraV2Catalog, SVC_METADATA_TABLE } from '../hasura/adoptHasuraV2Catalog.js';
import type { MetadataTable } from './metadataStore.js';

/** The catalog layout this engine writes (kept in `hdb_catalog.svc_catalog`). */
export const CATALOG_VERSION = '1';

/** The engine's `hdb_version` row, only in a catalog the engine created (never in one it adopted). */
const VERSION_STEPS = [
  `CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_version (
     hasura_uuid uuid PRIMARY KEY DEFAULT (md5(random()::text || clock_timestamp()::text)::uuid),
     version text NOT NULL,
     upgraded_on timestamptz NOT NULL,
     cli_state jsonb NOT NULL DEFAULT '{}'::jsonb,
     console_state jsonb NOT NULL DEFAULT '{}'::jsonb
   )`,
  'CREATE UNIQUE INDEX IF NOT EXISTS hdb_version_one_row ON hdb_catalog.hdb_version ((version IS NOT NULL))',
];

const STEPS = [
  `CREATE TABLE IF NOT EXISTS hdb_catalog.hdb_metadata (
     id integer PRIMARY KEY,
     metadata json NOT NULL,
     resource_version integer NOT NULL DEFAULT 1
   )`,
  // Which engine catalog version this is, and what it was adopted from (Hasura's own row stays in hdb_version).
  `CREATE TABLE IF NOT EXISTS hdb_catalog.svc_catalog (
     version text NOT NULL,
     adopted_from text,
     adopted_at timestamptz,
     adoption_report jsonb
   )`,
  'CREATE UNIQUE INDEX IF NOT EXISTS svc_catalog_one_row ON hdb_catalog.svc_catalog ((version IS NOT NULL))',
  // Called by mutation statements when a row fails its permission check (sql/mutationOutput.ts).
  CHECK_VIOLATION_FUNCTION_SQL,
];

const EMPTY_METADATA = `INSERT INTO hdb_catalog.hdb_metadata (id, metadata, resource_version)
  VALUES (1, '{"version":2,"tables":[]}', 1) ON CONFLICT (id) DO NOTHING`;

/** The engine will not start on this catalog: one line naming what was found and what to do. */
export class CatalogRefusedError extends Error {
  override name = 'CatalogRefusedError';
}

export interface CatalogOptions {
  /** Consent to take over a Hasura v1.3 catalog (`--adopt-hasura-catalog`). */
  adoptHasura?: boolean;
}

export interface CatalogOutcome {
  /** What `hdb_catalog` held when the engine started. */
  found: CatalogKind;
  /** Set when this start adopted a Hasura catalog. */
  adoption?: AdoptionReport;
  /** Where the engine's catalog came from, when it was adopted (this start or an earlier one). */
  adoptedFrom?: string;
  /** Where the engine's metadata document is: `svc_metadata` in a catalog adopted from Hasura v2 (whose `hdb_metadata` stays Hasura's). */
  metadataTable: MetadataTable;
}

const ADOPTED_FROM_V2 = 'Hasura v2';


function v1Adoptable(version: string): boolean {
  const n = Number(version);
  return n >= HASURA_V1_ADOPTABLE.from && n <= HASURA_V1_ADOPTABLE.to;
}

/** Why the engine refuses `found`, in one line. */
function refusal(found: CatalogKind): string {
  switch (found.kind) {
    case 'hasura-v1':
      return v1Adoptable(found.version)
        ? `hdb_catalog belongs to Hasura v1.3 (catalog version ${found.version}, metadata in hdb_table & co.); nothing was changed. Start with --adopt-hasura-catalog (SVC_GRAPHQL_ADOPT_HASURA_CATALOG=true) to import its metadata and serve it (Hasura can still start on the database afterwards; docs/moving-from-hasura.md)`
        : `hdb_catalog belongs to Hasura v1 at catalog version ${found.version}; nothing was changed. The engine adopts catalog versions ${HASURA_V1_ADOPTABLE.from}-${HASURA_V1_ADOPTABLE.to} (Hasura v1.3): upgrade Hasura to v1.3 on it first, then start with --adopt-hasura-catalog`;
    case 'hasura-v2':
      return `hdb_catalog belongs to Hasura v2 (catalog version ${found.version}, hdb_catalog.hdb_metadata); nothing was changed. Start with --adopt-hasura-catalog (SVC_GRAPHQL_ADOPT_HASURA_CATALOG=true) to import the metadata of its sources and serve it (Hasura's own rows are left as they are; docs/moving-from-hasura.md)`;
    case 'unknown':
      return `hdb_catalog holds a catalog version this engine does not know (${found.version}); nothing was changed. Point the engine at a database of its own, or remove that catalog if nothing uses it`;
    default:
      return '';
  }
}

/**
 * Creates or checks `hdb_catalog` (safe to call on every start, concurrently). A catalog the engine
 * does not own is never altered: a Hasura v1.3 one is adopted when `adoptHasura`, anything else
 * (or v1.3 without consent) stops the start with a `CatalogRefusedError`.
 */
export async function migrateCatalog(db: Db, options: CatalogOptions = {}): Promise<CatalogOutcome> {
  return db.transaction({}, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1)', [CATALOG_LOCK_KEY]);
    const found = await recogniseCatalog(c, CATALOG_VERSION);
    const adoptable = ((found.kind === 'hasura-v1' && v1Adoptable(found.version)) || found.kind === 'hasura-v2') && options.adoptHasura === true;
    if (found.kind !== 'empty' && found.kind !== 'engine' && !adoptable) throw new CatalogRefusedError(refusal(found));
    await c.query('CREATE SCHEMA IF NOT EXISTS hdb_catalog');
    const owned = found.kind === 'empty' || (found.kind === 'engine' && found.adoptedFrom === undefined);
    if (owned) for (const step of VERSION_STEPS) await c.query(step);
    for (const step of STEPS) await c.query(step);
    for (const step of INSTANCE_STEPS) await c.query(step);
    for (const step of LIVE_CHANGE_STEPS) await c.query(step);
    await createPgcrypto(c);
    if (owned && (await c.query('SELECT 1 FROM hdb_catalog.hdb_version')).rows.length === 0) {
      await c.query('INSERT INTO hdb_catalog.hdb_version (version, upgraded_on) VALUES ($1, now())', [CATALOG_VERSION]);
    }
    if (found.kind === 'hasura-v1' || found.kind === 'hasura-v2') {
      const adoption = found.kind === 'hasura-v1' ? await adoptHasuraV1Catalog(c, found.version) : await adoptHasuraV2Catalog(c, found.version);
      await c.query('INSERT INTO hdb_catalog.svc_catalog (version, adopted_from, adopted_at, adoption_report) VALUES ($1, $2, now(), $3)', [
        CATALOG_VERSION,
        adoption.adopted_from,
        JSON.stringify(adoption),
      ]);
      return { found, adoption, adoptedFrom: adoption.adopted_from, metadataTable: found.kind === 'hasura-v2' ? 'svc_metadata' : 'hdb_metadata' };
    }
    const adoptedFrom = found.kind === 'engine' ? found.adoptedFrom : undefined;
    if (adoptedFrom?.startsWith(ADOPTED_FROM_V2)) {
      // Hasura's hdb_metadata is not the engine's: its document stays in svc_metadata.
      await c.query(SVC_METADATA_TABLE);
      return { found, adoptedFrom, metadataTable: 'svc_metadata' };
    }
    await c.query(EMPTY_METADATA);
    await c.query('INSERT INTO hdb_catalog.svc_catalog (version) VALUES ($1) ON CONFLICT DO NOTHING', [CATALOG_VERSION]);
    return adoptedFrom !== undefined ? { found, adoptedFrom, metadataTable: 'hdb_metadata' } : { found, metadataTable: 'hdb_metadata' };
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
