/**
 * Load and save of the one metadata document in `hdb_catalog.hdb_metadata` — or, in a catalog adopted
 * from Hasura v2 (whose own document is in `hdb_metadata`, left untouched), `hdb_catalog.svc_metadata`.
 * Saving (or touching, for schema-only changes) bumps `resource_version` and notifies
 * `svc_schema_update`, so other instances reload (metadata/schemaSync.ts).
 */
import { randomUUID } from 'node:crypto';
import type { DbClient } from '../../execution/index.js';
import type { Metadata } from '../model/metadata.js';
import { emptyMetadata } from '../model/metadata.js';
import { decodeStoredInline, decodeStoredMetadata, encodeStoredBytes } from './storedDocument.js';
import { METADATA_LOCK_KEY } from './locks.js';

/** This process's id in schema-update notifications (each engine's AppState has its own). */
export const INSTANCE_ID = randomUUID();
export const SCHEMA_UPDATE_CHANNEL = 'svc_schema_update';

/** Where the engine's metadata document lives (catalog/migrateCatalog.ts decides at start). */
export type MetadataTable = 'hdb_metadata' | 'svc_metadata';

/** The table's qualified name: one of two fixed identifiers, never user input. */
const qualified = (t: MetadataTable): string => (t === 'svc_metadata' ? 'hdb_catalog.svc_metadata' : 'hdb_catalog.hdb_metadata');

export interface StoredMetadata {
  metadata: Metadata;
  resourceVersion: number;
}

/**
 * Reads the stored document (empty metadata when the row is missing). `onThisThread`: decoded here
 * whatever its size (an engine starting serves no one its decoding could stall, and it saves
 * starting the thread and handing the decoded document back).
 */
export async function loadMetadata(c: DbClient, table: MetadataTable = 'hdb_metadata', opts: { onThisThread?: boolean } = {}): Promise<StoredMetadata> {
  const r = await c.query(`SELECT metadata::text AS metadata, resource_version FROM ${qualified(table)} WHERE id = 1`);
  if (r.rows.length === 0) return { metadata: emptyMetadata(), resourceVersion: 0 };
  const row = r.rows[0] as { metadata: string; resource_version: number };
  const metadata = opts.onThisThread === true ? decodeStoredInline(row.metadata) : await decodeStoredMetadata(row.metadata);
  return { metadata, resourceVersion: Number(row.resource_version) };
}

/**
 * Writes the document, bumps resource_version, notifies as `instanceId` (the engine's, see
 * AppState.instanceId; this process's by default); returns the new resource_version.
 */
export async function saveMetadata(c: DbClient, md: Metadata, instanceId: string = INSTANCE_ID, table: MetadataTable = 'hdb_metadata'): Promise<number> {
  return writeStoredText(c, await encodeStoredBytes(md), instanceId, table);
}

/**
 * `saveMetadata` of an encoded document: its statements are all sent on `c` before this returns (nothing
 * waits for an answer in between), so statements sent on `c` afterwards (a savepoint, the COMMIT) follow them.
 */
export function writeStoredText(c: DbClient, text: string | Buffer, instanceId: string = INSTANCE_ID, table: MetadataTable = 'hdb_metadata'): Promise<number> {
  // A large document is compressed with lz4 where the server has it (PostgreSQL 14+ built with it): for the
  // rest of this transaction only, the column itself unchanged. Postgres's default, pglz, spends ~60–90 ms
  // on an 11 MB document, lz4 ~10; any reader decompresses either.
  const lz4 = text.length >= LZ4_MIN_CHARS ? c.query(LZ4_FOR_THIS_TRANSACTION) : undefined;
  lz4?.catch(() => undefined);
  const saved = c.query(
    `WITH saved AS (
       INSERT INTO ${qualified(table)} AS m (id, metadata, resource_version) VALUES (1, $1::json, 1)
       ON CONFLICT (id) DO UPDATE SET metadata = EXCLUDED.metadata, resource_version = m.resource_version + 1
       RETURNING resource_version)
     SELECT resource_version, pg_notify($2, ${NOTIFY_PAYLOAD}) FROM saved`,
    [text, SCHEMA_UPDATE_CHANNEL, instanceId, new Date().toISOString()],
  );
  return (async () => {
    await lz4;
    const r = await saved;
    return Number((r.rows[0] as { resource_version: number }).resource_version);
  })();
}

/** The schema-update payload of `notifySchemaUpdate` made in SQL from `saved`'s row ($3: instance id, $4: time). */
const NOTIFY_PAYLOAD = `'{"instance_id":' || to_json($3::text)::text || ',"occurred_at":' || to_json($4::text)::text || ',"resource_version":' || resource_version || '}'`;

/** From this size on, the document is written with lz4 (a small one is not worth the extra statement). */
const LZ4_MIN_CHARS = 256 * 1024;

/** `default_toast_compression` set to lz4 for the transaction, when the server offers it (else nothing). */
const LZ4_FOR_THIS_TRANSACTION = `SELECT pg_catalog.set_config('default_toast_compression', 'lz4', true)
  FROM pg_catalog.pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)`;

/**
 * Records a schema change that left the metadata document as it was (run_sql DDL, reload):
 * bumps resource_version and notifies, so other instances rebuild too. Returns the new version.
 */
export async function touchMetadata(c: DbClient, instanceId: string = INSTANCE_ID, table: MetadataTable = 'hdb_metadata'): Promise<number> {
  const r = await c.query(`UPDATE ${qualified(table)} SET resource_version = resource_version + 1 WHERE id = 1 RETURNING resource_version`);
  const version = r.rows.length === 0 ? 0 : Number((r.rows[0] as { resource_version: number }).resource_version);
  await notifySchemaUpdate(c, version, instanceId);
  return version;
}

/** The schema-update payload: `{instance_id, occurred_at, resource_version}` (sent at COMMIT). */
async function notifySchemaUpdate(c: DbClient, version: number, instanceId: string): Promise<void> {
  await c.query('SELECT pg_notify($1, $2)', [
    SCHEMA_UPDATE_CHANNEL,
    JSON.stringify({ instance_id: instanceId, occurred_at: new Date().toISOString(), resource_version: version }),
  ]);
}

/**
 * The stored resource_version (0 when the row is missing). With `prepare`, through the hot path's
 * prepared-statement reader (the per-request check of --strict-schema-sync); never with prepared
 * statements turned off (PgBouncer 1.18 does not manage them).
 */
export async function currentResourceVersion(c: DbClient, table: MetadataTable = 'hdb_metadata', prepare = false): Promise<number> {
  const text = await c.queryJsonText(`SELECT resource_version::text FROM ${qualified(table)} WHERE id = 1`, [], { prepare });
  return text === null ? 0 : Number(text);
}

/** Takes the metadata lock for the rest of the caller's transaction. */
export async function lockMetadata(c: DbClient): Promise<void> {
  await c.query('SELECT pg_advisory_xact_lock($1)', [METADATA_LOCK_KEY]);
}
