/**
 * The change signal of live queries, `hdb_catalog.svc_live_change`: one row per (table, slot)
 * holding a counter that a statement-level trigger (`svc_live_change`, installed by the live-query
 * machinery only on tracked tables that live queries read) bumps in the writer's own transaction.
 * The bump becomes visible exactly when the writer's rows do, so an engine that reads a new counter
 * value and then runs a query sees the rows too. A table has as many slot rows as it ever had
 * concurrent writers: a writer bumps the first slot no other open transaction holds (`SKIP
 * LOCKED`), or adds a slot, so writers never wait for each other's commit. The sum of a table's
 * slots grows with every committed write. The function is SECURITY DEFINER so any role that may write the table
 * may bump its counter.
 *
 * What changed, for narrowing reruns to the subscribers a change concerns: where Postgres allows
 * transition tables, the counter is bumped instead by three statement-level triggers
 * (`svc_live_rows_insert|update|delete`, function `svc_live_rows`) that also append one row to
 * `hdb_catalog.svc_live_log`: the writer's transaction id, the table, and the old and new images of
 * the changed rows as a jsonb array, or NULL when the statement changed more than LIVE_LOG_MAX_ROWS
 * rows (the reader then reruns everything on that table); `svc_live_change` is then left with
 * TRUNCATE (a bump, no log row). One log row per bump, so a reader can tell from the counters
 * whether the log it read is complete. Readers prune old log rows (changeWatcher.ts).
 */

/** Name of the trigger (on each watched table) and of its function in `hdb_catalog`. */
export const LIVE_CHANGE_TRIGGER = 'svc_live_change';

/** The row-capture triggers, one per event (a trigger with transition tables has one event). */
export const LIVE_ROWS_TRIGGERS = { INSERT: 'svc_live_rows_insert', UPDATE: 'svc_live_rows_update', DELETE: 'svc_live_rows_delete' } as const;

/** Statements changing more rows than this log no images (their table's subscribers all rerun). */
export const LIVE_LOG_MAX_ROWS = 100;

/** The counter bump (plpgsql): the first slot no open transaction holds, or a new slot. */
const BUMP = `UPDATE hdb_catalog.svc_live_change AS c SET version = c.version + 1
      WHERE c.relid = TG_RELID AND c.slot = (SELECT s.slot FROM hdb_catalog.svc_live_change s
                                              WHERE s.relid = TG_RELID FOR UPDATE SKIP LOCKED LIMIT 1);
     IF NOT FOUND THEN
       INSERT INTO hdb_catalog.svc_live_change AS c (relid, slot) VALUES (TG_RELID, floor(random() * 2147483647)::int)
       ON CONFLICT (relid, slot) DO UPDATE SET version = c.version + 1;
     END IF;`;

/** One log row: the images of `rows` (a transition-table query), or NULL beyond the bound. */
const logRows = (rows: string, bound: number) =>
  `INSERT INTO hdb_catalog.svc_live_log (relid, rows)
       SELECT TG_RELID, CASE WHEN count(*) > ${bound} THEN NULL ELSE coalesce(jsonb_agg(to_jsonb(r)), '[]') END
         FROM (${rows} LIMIT ${bound + 1}) r;`;

/** Catalog steps of the change signal (idempotent; run by migrateCatalog after the base layout). */
export const LIVE_CHANGE_STEPS = [
  `CREATE TABLE IF NOT EXISTS hdb_catalog.svc_live_change (
     relid oid NOT NULL,
     slot integer NOT NULL,
     version bigint NOT NULL DEFAULT 1,
     PRIMARY KEY (relid, slot)
   ) WITH (fillfactor = 50)`,
  `CREATE OR REPLACE FUNCTION hdb_catalog.svc_live_change() RETURNS trigger
   LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $svc$
   BEGIN
     ${BUMP}
     RETURN NULL;
   END;
   $svc$`,
  `CREATE TABLE IF NOT EXISTS hdb_catalog.svc_live_log (
     xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
     relid oid NOT NULL,
     rows jsonb
   )`,
  `CREATE INDEX IF NOT EXISTS svc_live_log_xid ON hdb_catalog.svc_live_log (xid)`,
  `CREATE OR REPLACE FUNCTION hdb_catalog.svc_live_rows() RETURNS trigger
   LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $svc$
   BEGIN
     ${BUMP}
     IF TG_OP = 'INSERT' THEN
       ${logRows('SELECT * FROM svc_new', LIVE_LOG_MAX_ROWS)}
     ELSIF TG_OP = 'DELETE' THEN
       ${logRows('SELECT * FROM svc_old', LIVE_LOG_MAX_ROWS)}
     ELSE
       ${logRows('SELECT * FROM svc_old UNION ALL SELECT * FROM svc_new', 2 * LIVE_LOG_MAX_ROWS)}
     END IF;
     RETURN NULL;
   END;
   $svc$`,
];

/**
 * The change signal in another source's database (as Hasura v2 keeps per-source state in that
 * database's `hdb_catalog`): the schema and the steps above, when the counters are missing. Run by
 * the live-query machinery under its advisory lock, before the first change trigger there.
 */
export async function ensureLiveChangeCatalog(c: { query(text: string): Promise<{ rows: Array<Record<string, unknown>> }> }): Promise<void> {
  const r = await c.query("SELECT to_regclass('hdb_catalog.svc_live_log') IS NOT NULL AND to_regprocedure('hdb_catalog.svc_live_rows()') IS NOT NULL AS present");
  if (r.rows[0]?.present === true) return;
  await c.query('CREATE SCHEMA IF NOT EXISTS hdb_catalog');
  for (const step of LIVE_CHANGE_STEPS) await c.query(step);
}
