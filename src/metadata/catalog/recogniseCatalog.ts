/**
 * What `hdb_catalog` holds before the engine touches it: nothing, the engine's own catalog, a
 * Hasura v1.x catalog (`hdb_version` + v1 tables such as `hdb_table`), a Hasura v2 catalog
 * (`hdb_metadata` + a v2 catalog version) or a version nobody here knows. Read-only.
 */
import type { DbClient } from '../../execution/index.js';

/**
 * The v1 catalog versions the engine adopts: Hasura v1.3's layout (metadata in `hdb_table`,
 * `hdb_permission`, … ; `event_log.locked` a boolean up to 40, a timestamp from 41). Hasura's
 * 42_to_43 step moves metadata into `hdb_metadata` (v2), so v1 vs v2 is told by the tables present.
 */
export const HASURA_V1_ADOPTABLE = { from: 40, to: 43 } as const;

/** The newest Hasura v2 catalog version known here (v2 catalogs start at 43, `hdb_metadata`). */
export const HASURA_V2_LAST_KNOWN = 48;

export type CatalogKind =
  | { kind: 'empty' }
  | { kind: 'engine'; version: string; adoptedFrom?: string }
  | { kind: 'hasura-v1'; version: string }
  | { kind: 'hasura-v2'; version: string }
  | { kind: 'unknown'; version: string };

const PROBE = `SELECT to_regclass('hdb_catalog.hdb_version') IS NOT NULL AS has_version,
  to_regclass('hdb_catalog.hdb_table') IS NOT NULL AS has_v1_tables,
  to_regclass('hdb_catalog.hdb_metadata') IS NOT NULL AS has_metadata,
  to_regclass('hdb_catalog.svc_catalog') IS NOT NULL AS has_marker`;

/** Classifies the catalog; `engineVersion` is the layout this engine writes. */
export async function recogniseCatalog(c: DbClient, engineVersion: string): Promise<CatalogKind> {
  const p = (await c.query(PROBE)).rows[0] as { has_version: boolean; has_v1_tables: boolean; has_metadata: boolean; has_marker: boolean };
  if (p.has_marker) {
    const r = await c.query('SELECT version, adopted_from FROM hdb_catalog.svc_catalog');
    const row = r.rows[0] as { version: string; adopted_from: string | null } | undefined;
    if (!row) return { kind: 'unknown', version: '(empty hdb_catalog.svc_catalog)' };
    if (row.version !== engineVersion) return { kind: 'unknown', version: `svc ${row.version}` };
    return row.adopted_from ? { kind: 'engine', version: row.version, adoptedFrom: row.adopted_from } : { kind: 'engine', version: row.version };
  }
  if (!p.has_version) return p.has_v1_tables || p.has_metadata ? { kind: 'unknown', version: '(no hdb_catalog.hdb_version)' } : { kind: 'empty' };
  const r = await c.query('SELECT version FROM hdb_catalog.hdb_version');
  const version = (r.rows[0] as { version: string } | undefined)?.version;
  if (version === undefined) return p.has_v1_tables ? { kind: 'unknown', version: '(no hdb_version row)' } : { kind: 'empty' };
  // Catalogs this engine wrote before it kept its version in svc_catalog: version 1, no v1 tables.
  if (version === engineVersion && !p.has_v1_tables) return { kind: 'engine', version };
  if (!/^\d+(\.\d+)?$/.test(version)) return { kind: 'unknown', version };
  const n = Number(version);
  if (p.has_v1_tables && n <= HASURA_V1_ADOPTABLE.to) return { kind: 'hasura-v1', version };
  if (p.has_metadata && !p.has_v1_tables && n >= HASURA_V1_ADOPTABLE.to && n <= HASURA_V2_LAST_KNOWN) return { kind: 'hasura-v2', version };
  return { kind: 'unknown', version };
}
