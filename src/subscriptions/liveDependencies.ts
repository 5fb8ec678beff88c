/**
 * What a live query reads, asked of Postgres itself: the multiplexed statement (its parameters
 * replaced by typed NULLs) becomes a temporary view inside a transaction that is rolled back, and
 * the view's recorded dependencies (pg_depend) are followed through views, operators and
 * SQL-standard function bodies down to base tables. So relationships, permission filters (EXISTS
 * over other tables), views and inlined functions are all covered, exactly as Postgres resolved
 * them. The answer is either the tables to watch, or why the statement cannot be watched:
 *
 *   - a function that may read the database and whose body Postgres does not record (plpgsql,
 *     plain `LANGUAGE sql` text) — immutable functions and the built-ins are fine;
 *   - a materialized view, foreign table or partitioned table (writes to them fire no trigger of
 *     the parent, or no trigger at all);
 *   - a table the metadata does not track (the engine installs triggers only on tracked tables).
 *
 * Such a live query keeps the refetch interval.
 */
import type { DbClient } from '../execution/index.js';
import { mapParamRefs } from '../sql/index.js';

export type LiveDependencies = { watch: true; relids: number[]; tables: string[] } | { watch: false; reason: string };

const DEPENDENCY_SQL = `WITH RECURSIVE edges(classid, objid, refclassid, refobjid) AS (
    SELECT d.classid, d.objid, d.refclassid, d.refobjid FROM pg_depend d
     WHERE d.deptype = 'n' AND d.classid IN ('pg_rewrite'::regclass, 'pg_proc'::regclass)
    UNION ALL
    SELECT 'pg_class'::regclass, r.ev_class, 'pg_rewrite'::regclass, r.oid
      FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class WHERE c.relkind = 'v'
    UNION ALL
    SELECT 'pg_operator'::regclass, o.oid, 'pg_proc'::regclass, o.oprcode FROM pg_operator o
  ), obj(classid, objid) AS (
    SELECT 'pg_class'::regclass::oid, 'pg_temp.svc_live_dependencies'::regclass::oid
    UNION
    SELECT e.refclassid, e.refobjid FROM obj JOIN edges e ON e.classid = obj.classid AND e.objid = obj.objid
      LEFT JOIN pg_proc p ON obj.classid = 'pg_proc'::regclass AND p.oid = obj.objid
     WHERE obj.classid <> 'pg_proc'::regclass
        OR (row_to_json(p) ->> 'prosqlbody') IS NOT NULL
  )
  SELECT 'rel' AS kind, c.oid::int8 AS oid, c.relkind::text AS relkind, n.nspname AS schema, c.relname AS name, NULL AS volatile, false AS body
    FROM obj JOIN pg_class c ON obj.classid = 'pg_class'::regclass AND c.oid = obj.objid JOIN pg_namespace n ON n.oid = c.relnamespace
  UNION ALL
  SELECT 'proc', p.oid::int8, NULL, n.nspname, p.proname, p.provolatile::text, (row_to_json(p) ->> 'prosqlbody') IS NOT NULL
    FROM obj JOIN pg_proc p ON obj.classid = 'pg_proc'::regclass AND p.oid = obj.objid JOIN pg_namespace n ON n.oid = p.pronamespace`;

const BUILTIN_SCHEMAS = new Set(['pg_catalog', 'information_schema']);

/**
 * The base tables `statement` reads, or why it cannot be watched. `tracked(schema, name)` says
 * whether the metadata tracks a table. Runs in `c`'s transaction, which the caller rolls back or
 * commits (the temporary view is dropped either way).
 */
export async function liveDependencies(c: DbClient, statement: string, tracked: (schema: string, name: string) => boolean): Promise<LiveDependencies> {
  const viewText = mapParamRefs(statement, () => 'NULL');
  await c.queryRaw(`CREATE TEMPORARY VIEW svc_live_dependencies AS ${viewText}`);
  try {
    const r = await c.query(DEPENDENCY_SQL);
    const relids: number[] = [];
    const tables: string[] = [];
    for (const row of r.rows) {
      const schema = String(row.schema);
      const name = String(row.name);
      if (row.kind === 'proc') {
        if (BUILTIN_SCHEMAS.has(schema) || row.volatile === 'i' || row.body === true) continue;
        return { watch: false, reason: `reads function ${schema}.${name}, whose tables Postgres does not record` };
      }
      switch (row.relkind) {
        case 'v':
        case 'i':
        case 'I':
        case 'S':
        case 'c':
          continue;
        case 'r':
          if (!tracked(schema, name)) return { watch: false, reason: `reads ${schema}.${name}, which is not tracked` };
          relids.push(Number(row.oid));
          tables.push(`${schema}.${name}`);
          continue;
        default:
          return { watch: false, reason: `reads ${schema}.${name} (relkind ${String(row.relkind)}), whose writes fire no trigger` };
      }
    }
    return { watch: true, relids, tables };
  } finally {
    await c.queryRaw('DROP VIEW IF EXISTS pg_temp.svc_live_dependencies');
  }
}
