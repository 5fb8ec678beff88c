/**
 * Takes over a Hasura v2 catalog, with the operator's consent (`--adopt-hasura-catalog`): reads
 * Hasura's metadata document from `hdb_catalog.hdb_metadata` (read only), imports its Postgres sources
 * (`default` as the engine's own database, the others with their connections; tables, relationships, permissions, computed fields, remote relationships, event
 * triggers, functions and their permissions) and its top-level parts (remote schemas, actions, custom types, query
 * collections, allow-list), mapping `X-Hasura-*` to `x-svc-*`, and stores the result in the engine's
 * own `hdb_catalog.svc_metadata`: Hasura's `hdb_metadata` and `hdb_version` rows stay as they are.
 * The queue tables get the engine's lease columns and Hasura's capture triggers are dropped, as for
 * v1.3 (adoptHasuraCatalog.ts). Runs inside the caller's catalog transaction; the event logs in the other
 * sources' databases are readied by server/startEngine.ts once their pools exist (`adoptSourceCatalogs`).
 */
import type { DbClient } from '../../execution/index.js';
import { decodeMetadata } from '../model/decodeMetadata.js';
import { entryKeyLabel, unsupportedMetadataKeys } from '../model/unsupportedMetadata.js';
import { saveMetadata } from '../catalog/metadataStore.js';
import { importHasuraMetadata } from './mapHasuraMetadata.js';
import { count, readyHasuraQueues, type AdoptionReport } from './adoptHasuraCatalog.js';

/** The engine's metadata table in a catalog adopted from Hasura v2 (hdb_metadata's layout, another name). */
export const SVC_METADATA_TABLE = `CREATE TABLE IF NOT EXISTS hdb_catalog.svc_metadata (
  id integer PRIMARY KEY,
  metadata json NOT NULL,
  resource_version integer NOT NULL DEFAULT 1
)`;

/** Imports Hasura v2's sources and global metadata; returns what was imported and what was not. */
export async function adoptHasuraV2Catalog(c: DbClient, version: string): Promise<AdoptionReport> {
  const r = await c.query('SELECT metadata::text AS metadata FROM hdb_catalog.hdb_metadata WHERE id = 1');
  const stored = (r.rows[0] as { metadata: string } | undefined)?.metadata;
  const doc = stored === undefined ? { version: 3, sources: [] } : (JSON.parse(stored) as Record<string, unknown>);
  const { metadata, mapped, unsupported } = importHasuraMetadata(doc);
  // Remote schema permissions are not acted on: named in the report, never dropped unsaid.
  for (const k of unsupportedMetadataKeys(metadata)) {
    const label = entryKeyLabel(k);
    if (label) unsupported.push(`${k}: not imported (${label})`);
  }
  // Cron triggers are rows of hdb_cron_triggers for this engine (scheduled/, later in the chain): handed
  // back for startEngine to install once the scheduled tables are there.
  const crons = Array.isArray(metadata.cron_triggers) ? (metadata.cron_triggers as unknown[]) : [];
  delete metadata.cron_triggers;
  const md = decodeMetadata(metadata);
  await c.query(SVC_METADATA_TABLE);
  await saveMetadata(c, md, undefined, 'svc_metadata');
  const dropped = await readyHasuraQueues(c);
  return {
    adopted_from: `Hasura v2 catalog (hdb_catalog.hdb_version ${version}, sources of hdb_catalog.hdb_metadata)`,
    imported: { ...count(metadata), cron_triggers: crons.length },
    mapped,
    not_imported: unsupported,
    hasura_capture_triggers_dropped: dropped,
    cron_triggers: crons,
  };
}
