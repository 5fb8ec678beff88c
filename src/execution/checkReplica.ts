/**
 * The start-up check of a read replica: it must answer, be a hot standby (`pg_is_in_recovery()`),
 * and hold the primary's database: the same cluster (`system_identifier` of `pg_control_system()`,
 * which a standby made by pg_basebackup shares with its primary) and the same database name.
 * Anything else refuses the start with one line naming the replica (host:port/database, never the
 * password).
 */
import pg from 'pg';
import { DatabaseConnectionError, connectionFailureCause } from './connectionFailure.js';
import { replicaName } from './readReplicas.js';

const IDENTITY = `SELECT pg_is_in_recovery() AS recovery, current_database() AS database,
  (SELECT system_identifier::text FROM pg_control_system()) AS system`;

interface Identity {
  recovery: boolean;
  database: string;
  system: string;
}

async function identity(url: string, timeoutMs: number): Promise<Identity> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.query(IDENTITY)).rows[0] as Identity;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Throws DatabaseConnectionError (one line) unless every replica URL is a standby of `primaryUrl`'s database. */
export async function checkReadReplicas(primaryUrl: string, replicaUrls: readonly string[], timeoutMs = 10_000): Promise<void> {
  let primary: Identity;
  try {
    primary = await identity(primaryUrl, timeoutMs);
  } catch (e) {
    throw new DatabaseConnectionError(`cannot check read replicas: the primary did not answer: ${connectionFailureCause(e, primaryUrl)}`);
  }
  for (const url of replicaUrls) {
    const name = replicaName(url);
    let r: Identity;
    try {
      r = await identity(url, timeoutMs);
    } catch (e) {
      throw new DatabaseConnectionError(`read replica ${name}: ${connectionFailureCause(e, url)}`);
    }
    if (r.system !== primary.system) throw new DatabaseConnectionError(`read replica ${name} is another database cluster (system identifier ${r.system}, the primary's is ${primary.system})`);
    if (r.database !== primary.database) throw new DatabaseConnectionError(`read replica ${name} is database "${r.database}", the primary's is "${primary.database}"`);
    if (!r.recovery) throw new DatabaseConnectionError(`read replica ${name} is not a standby (pg_is_in_recovery() is false): it is the primary itself, or a promoted copy that no longer follows it`);
  }
}
