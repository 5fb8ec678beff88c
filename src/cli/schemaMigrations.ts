/**
 * `hdb_catalog.schema_migrations(version bigint, dirty boolean)`: where Hasura's CLI records applied
 * migrations, and so where `migrate apply` and the console's migrations mode record them too.
 */
import type { EngineClient } from './client.js';

export const ENSURE_MIGRATIONS_TABLE = 'CREATE TABLE IF NOT EXISTS hdb_catalog.schema_migrations (version bigint NOT NULL PRIMARY KEY, dirty boolean NOT NULL)';

/** The SQL that records `version` as applied (an `up`) or removes it (a `down`). */
export const recordMigrationSql = (version: bigint, dir: 'up' | 'down'): string =>
  dir === 'up'
    ? `INSERT INTO hdb_catalog.schema_migrations (version, dirty) VALUES (${version}, false) ON CONFLICT (version) DO UPDATE SET dirty = false`
    : `DELETE FROM hdb_catalog.schema_migrations WHERE version = ${version}`;

/** run_sql args on `source` (a config-v3 project's `--database-name`; absent or `default`: the engine's own database). */
export const onSource = (source: string | undefined, args: Record<string, unknown>): Record<string, unknown> => {
  if (source === undefined || source === 'default') return args;
  // Another database keeps its own migration versions, in its own hdb_catalog (made on first use there).
  return { ...args, source, ...(args.sql === ENSURE_MIGRATIONS_TABLE ? { sql: `CREATE SCHEMA IF NOT EXISTS hdb_catalog; ${ENSURE_MIGRATIONS_TABLE}` } : {}) };
};

/** The versions applied to the database of `source` (its own hdb_catalog.schema_migrations, created when not there yet). */
export async function appliedVersions(client: EngineClient, source?: string): Promise<Set<bigint>> {
  const r = await client.query({
    type: 'bulk',
    args: [
      { type: 'run_sql', args: onSource(source, { sql: ENSURE_MIGRATIONS_TABLE }) },
      { type: 'run_sql', args: onSource(source, { sql: 'SELECT version FROM hdb_catalog.schema_migrations WHERE NOT dirty ORDER BY version', read_only: false }) },
    ],
  });
  const rows = ((r as any[])[1]?.result ?? []) as string[][];
  return new Set(rows.slice(1).map((row) => BigInt(row[0]!)));
}
