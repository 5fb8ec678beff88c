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
 */

/** Name of the trigger (on each watched table) and of its function in `hdb_catalog`. */
export const LIVE_CHANGE_TRIGGER = 'svc_live_change';

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
     UPDATE hdb_catalog.svc_live_change AS c SET version = c.version + 1
      WHERE c.relid = TG_RELID AND c.slot = (SELECT s.slot FROM hdb_catalog.svc_live_change s
                                              WHERE s.relid = TG_RELID FOR UPDATE SKIP LOCKED LIMIT 1);
     IF NOT FOUND THEN
       INSERT INTO hdb_catalog.svc_live_change AS c (relid, slot) VALUES (TG_RELID, floor(random() * 2147483647)::int)
       ON CONFLICT (relid, slot) DO UPDATE SET version = c.version + 1;
     END IF;
     RETURN NULL;
   END;
   $svc$`,
];
