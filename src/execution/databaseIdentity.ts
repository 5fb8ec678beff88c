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

export async function databaseIdentity(db: Pick<Db, 'query'>): Promise<DatabaseIdentity> {
  const row = (await db.query(IDENTITY)).rows[0] as { system: string | null; database: string };
  return { system: row.system ?? '', database: row.database };
}

const identities = new WeakMap<Db, Promise<string>>();

/** Whether two pools reach the same database (identities read once per pool; a failed read is tried again next time). */
export async function sameDatabase(a: Db, b: Db): Promise<boolean> {
  const id = (db: Db) => {
    let p = identities.get(db);
    if (!p) {
      // Without a system identifier (not readable) a pool is only itself.
      p = databaseIdentity(db).then((i) => (i.system === '' ? `?${Math.random()}` : `${i.system}/${i.database}`));
      identities.set(db, p);
      p.catch(() => identities.delete(db));
    }
    return p;
  };
  return a === b || (await id(a)) === (await id(b));
}

/** Whether two connections (clients in a transaction, say) reach the same database: one query on each. */
export async function sameDatabaseOf(a: Pick<Db, 'query'>, b: Pick<Db, 'query'>): Promise<boolean> {
  const [x, y] = [await databaseIdentity(a), await databaseIdentity(b)];
  return x.system !== '' && x.system === y.system && x.database === y.database;
}
