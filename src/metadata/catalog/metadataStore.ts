/**
 * Load and save of the one metadata document in `hdb_catalog.hdb_metadata`. Saving bumps
 * `resource_version` and notifies `svc_schema_update`, so other instances can reload.
 */
import { randomUUID } from 'node:crypto';
import type { DbClient } from '../../execution/index.js';
import type { Metadata } from '../model/metadata.js';
import { emptyMetadata } from '../model/metadata.js';
import { decodeMetadata } from '../model/decodeMetadata.js';
import { encodeMetadata } from '../model/encodeMetadata.js';
import { METADATA_LOCK_KEY } from './locks.js';

/** This process's id in schema-update notifications. */
export const INSTANCE_ID = randomUUID();
export const SCHEMA_UPDATE_CHANNEL = 'svc_schema_update';

export interface StoredMetadata {
  metadata: Metadata;
  resourceVersion: number;
}

/** Reads the stored document (empty metadata when the row is missing). */
export async function loadMetadata(c: DbClient): Promise<StoredMetadata> {
  const r = await c.query('SELECT metadata::text AS metadata, resource_version FROM hdb_catalog.hdb_metadata WHERE id = 1');
  if (r.rows.length === 0) return { metadata: emptyMetadata(), resourceVersion: 0 };
  const row = r.rows[0] as { metadata: string; resource_version: number };
  return { metadata: decodeMetadata(JSON.parse(row.metadata)), resourceVersion: Number(row.resource_version) };
}

/** Writes the document, bumps resource_version, notifies; returns the new resource_version. */
export async function saveMetadata(c: DbClient, md: Metadata): Promise<number> {
  const text = JSON.stringify(encodeMetadata(md, { storage: true }));
  const r = await c.query(
    `INSERT INTO hdb_catalog.hdb_metadata (id, metadata, resource_version) VALUES (1, $1::json, 1)
     ON CONFLICT (id) DO UPDATE SET metadata = EXCLUDED.metadata, resource_version = hdb_catalog.hdb_metadata.resource_version + 1
     RETURNING resource_version`,
    [text],
  );
  const version = Number((r.rows[0] as { resource_version: number }).resource_version);
  await c.query('SELECT pg_notify($1, $2)', [
    SCHEMA_UPDATE_CHANNEL,
    JSON.stringify({ instance_id: INSTANCE_ID, occurred_at: new Date().toISOString(), resource_version: version }),
  ]);
  return version;
}

/** Takes the metadata lock for the rest of the caller's transaction. */
export async function lockMetadata(c: DbClient): Promise<void> {
  await c.query('SELECT pg_advisory_xact_lock($1)', [METADATA_LOCK_KEY]);
}
