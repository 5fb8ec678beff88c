/**
 * Which database a connection reaches, as the response cache's key names it: the cluster's
 * `system_identifier` (`pg_control_system()`: fixed at initdb, shared by a standby made by
 * pg_basebackup with its primary) and the database name. Two engines that answer from the same
 * database get the same identity; engines on other clusters or other databases never do.
 */
import type { Db } from './db.js';

export interface DatabaseIdentity {
  /** `system_identifier` of `pg_control_system()`, as text (a 64-bit number). */
  system: string;
  /** `current_database()`. */
  database: string;
}

const IDENTITY = 'SELECT (SELECT system_identifier::text FROM pg_control_system()) AS system, current_database() AS database';

export async function databaseIdentity(db: Db): Promise<DatabaseIdentity> {
  const row = (await db.query(IDENTITY)).rows[0] as { system: string | null; database: string };
  return { system: row.system ?? '', database: row.database };
}
