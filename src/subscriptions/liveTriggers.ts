/**
 * The change triggers of live queries (`svc_live_change`, see metadata/catalog/liveChanges.ts):
 * installed when a live query first reads a tracked table, dropped when the table is no longer
 * tracked. The engine owns these triggers as it owns event-trigger capture triggers; tables no live
 * query has read carry none, so their writes cost nothing extra.
 *
 * `watchStatement` runs in one transaction: the statement's dependencies (liveDependencies.ts),
 * then, under an advisory lock shared by all engines, `CREATE TRIGGER` on the tables that lack
 * it. CREATE TRIGGER waits for the table's in-flight writers, so every write committed after the
 * installation bumps the counter and every write committed before it is seen by the subscriber's
 * first query, which runs afterwards. `lock_timeout` bounds that wait: a table busy for longer
 * leaves the statement on the refetch interval.
 *
 * Where Postgres allows transition tables, the counter of INSERT/UPDATE/DELETE is bumped by the
 * row-capture triggers (`LIVE_ROWS_TRIGGERS`, metadata/catalog/liveChanges.ts), which also log the
 * changed rows so a change reruns only the subscribers it concerns, and `svc_live_change` keeps
 * TRUNCATE. Where Postgres refuses them (inheritance children), `svc_live_change` counts every
 * event alone: every change to that table then reruns all its cohorts. A table that carries the
 * counter alone (installed by an earlier version) gets the capture triggers at its next watch.
 */
import { sameDatabaseOf, type Db, type DbClient } from '../execution/index.js';
import { ensureLiveChangeCatalog, LIVE_CHANGE_LOCK_KEY, LIVE_CHANGE_TRIGGER, LIVE_ROWS_TRIGGERS, type SchemaCache } from '../metadata/index.js';
import { compile, sql, type SqlFragment } from '../sql/index.js';
import { liveDependencies, type LiveDependencies } from './liveDependencies.js';

/** How long trigger installation waits for a table's writers before giving up. */
const LOCK_TIMEOUT = '5s';

const isTracked = (cache: SchemaCache) => (schema: string, name: string): boolean => cache.tables.get(`${schema}.${name}`)?.kind === 'table';

/**
 * The tables `statement` reads, their triggers installed; or why it keeps the refetch interval.
 * `onSource`: `db` is another source's database, whose `hdb_catalog` gets the counters first when
 * it has none (metadata/catalog/liveChanges.ts `ensureLiveChangeCatalog`); `cache` is that source's.
 */
export async function watchStatement(db: Db, statement: string, cache: SchemaCache, onSource = false): Promise<LiveDependencies> {
  try {
    return await db.transaction({}, async (c) => {
      await c.query(`SELECT set_config('lock_timeout', $1, true)`, [LOCK_TIMEOUT]);
      const deps = await liveDependencies(c, statement, isTracked(cache));
      if (!deps.watch || deps.relids.length === 0) return deps;
      const missing = () =>
        c.query(
          `SELECT n.nspname AS schema, c.relname AS name,
                  EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = $2) AS counted,
                  EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = $3) AS captured
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.oid = ANY($1::oid[])
              AND NOT (EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = $2)
                   AND EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.tgname = $3))`,
          [deps.relids, LIVE_CHANGE_TRIGGER, LIVE_ROWS_TRIGGERS.INSERT],
        );
      if ((await missing()).rows.length === 0) return deps;
      await c.query('SELECT pg_advisory_xact_lock($1)', [LIVE_CHANGE_LOCK_KEY]);
      if (onSource) await ensureLiveChangeCatalog(c);
      for (const row of (await missing()).rows) {
        const table = sql.ident(String(row.schema), String(row.name));
        if (row.captured !== true && (await installRowCapture(c, table, row.counted === true))) continue;
        if (row.counted !== true) await c.query(counterTrigger(table, row.captured === true ? 'TRUNCATE' : 'INSERT OR UPDATE OR DELETE OR TRUNCATE'));
      }
      return deps;
    });
  } catch (e) {
    return { watch: false, reason: `its change triggers could not be installed: ${(e as Error).message}` };
  }
}

const counterTrigger = (table: SqlFragment, events: string): string =>
  compile(sql`CREATE TRIGGER ${sql.ident(LIVE_CHANGE_TRIGGER)} AFTER ${sql.unsafeRaw(events)} ON ${table}
    FOR EACH STATEMENT EXECUTE FUNCTION hdb_catalog.svc_live_change()`).text;

/**
 * The row-capture triggers of `table` and its TRUNCATE-only counter (replacing the counter of
 * every event when `counted`), in a savepoint: false (nothing changed) when Postgres refuses them.
 */
async function installRowCapture(c: DbClient, table: SqlFragment, counted: boolean): Promise<boolean> {
  await c.queryRaw('SAVEPOINT svc_live_rows');
  try {
    if (counted) await c.query(compile(sql`DROP TRIGGER ${sql.ident(LIVE_CHANGE_TRIGGER)} ON ${table}`).text);
    await c.query(counterTrigger(table, 'TRUNCATE'));
    for (const [event, name] of Object.entries(LIVE_ROWS_TRIGGERS)) {
      const transition = event === 'INSERT' ? sql`NEW TABLE AS svc_new` : event === 'DELETE' ? sql`OLD TABLE AS svc_old` : sql`OLD TABLE AS svc_old NEW TABLE AS svc_new`;
      await c.query(compile(sql`CREATE TRIGGER ${sql.ident(name)} AFTER ${sql.unsafeRaw(event)} ON ${table} REFERENCING ${transition}
        FOR EACH STATEMENT EXECUTE FUNCTION hdb_catalog.svc_live_rows()`).text);
    }
    await c.queryRaw('RELEASE SAVEPOINT svc_live_rows');
    return true;
  } catch {
    await c.queryRaw('ROLLBACK TO SAVEPOINT svc_live_rows');
    return false;
  }
}

/**
 * Drops the change triggers (and counters) of tables `cache` no longer tracks. Runs inside the
 * metadata change's transaction, like the capture triggers' sync.
 */
export async function syncLiveTriggers(c: DbClient, cache: SchemaCache): Promise<void> {
  await dropTriggersExcept(c, isTracked(cache));
}

/** Drops the change triggers (and counters) of the tables `keep` does not name. */
async function dropTriggersExcept(c: DbClient, keep: (schema: string, name: string) => boolean): Promise<void> {
  const r = await c.query(
    `SELECT t.tgrelid::int8 AS relid, n.nspname AS schema, c.relname AS name FROM pg_trigger t
       JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE t.tgname = $1 AND t.tgfoid = to_regprocedure('hdb_catalog.svc_live_change()')`,
    [LIVE_CHANGE_TRIGGER],
  );
  for (const row of r.rows) {
    if (keep(String(row.schema), String(row.name))) continue;
    const table = sql.ident(String(row.schema), String(row.name));
    for (const name of [LIVE_CHANGE_TRIGGER, ...Object.values(LIVE_ROWS_TRIGGERS)]) {
      await c.query(compile(sql`DROP TRIGGER IF EXISTS ${sql.ident(name)} ON ${table}`).text);
    }
    await c.query('DELETE FROM hdb_catalog.svc_live_change WHERE relid = $1', [row.relid]);
  }
}

/**
 * After a metadata change, the change triggers of another source's tables that it no longer tracks
 * (only sources where a table was untracked are visited: each costs a transaction there).
 */
export async function syncSourceLiveTriggers<C>(
  next: SchemaCache, previous: SchemaCache, clientFor: (name: string, connection: C) => Promise<DbClient>, connectionOf: (cache: SchemaCache, name: string) => C | undefined,
  engine: DbClient,
): Promise<void> {
  for (const [name, before] of previous.sources ?? []) {
    const now = next.sources?.get(name);
    if (!now || ![...before.tables.keys()].some((k) => !now.tables.has(k))) continue;
    const connection = connectionOf(next, name);
    if (connection === undefined) continue;
    const c = await clientFor(name, connection);
    // The engine's own database under another name: its triggers follow `default`'s tables (syncLiveTriggers).
    if (await sameDatabaseOf(c, engine)) continue;
    const present = await c.query("SELECT to_regprocedure('hdb_catalog.svc_live_change()') IS NOT NULL AS present");
    if (present.rows[0].present === true) await syncLiveTriggers(c, now);
  }
}

/**
 * A source left the metadata: the change triggers on its tables and its change counters go from its
 * database (its `hdb_catalog` goes with the last of the engine's objects there: events/syncSourceEventTriggers.ts).
 */
export async function dropLiveChanges(c: DbClient): Promise<void> {
  const present = await c.query("SELECT to_regprocedure('hdb_catalog.svc_live_change()') IS NOT NULL AS present");
  if (present.rows[0].present !== true) return;
  await dropTriggersExcept(c, () => false);
  // Triggers of other kinds may still use the functions (the engine's only, but whoever added them): CASCADE is not used.
  await c.query('DROP FUNCTION IF EXISTS hdb_catalog.svc_live_rows(), hdb_catalog.svc_live_change()');
  await c.query('DROP TABLE IF EXISTS hdb_catalog.svc_live_log, hdb_catalog.svc_live_change');
}
