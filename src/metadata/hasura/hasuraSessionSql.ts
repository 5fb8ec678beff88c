/**
 * SQL written for Hasura reads the session as `current_setting('hasura.user')` with `x-hasura-*`
 * keys; this engine sets `svc.user` with `x-svc-*` keys, so such SQL silently reads NULL. These
 * find it, so the operator is told when it is applied (run_sql) and at start (function and
 * trigger bodies already in the database).
 */
import type { DbClient } from '../../execution/index.js';

const READS_HASURA_SESSION = /hasura\.user/i;

/** True when `text` reads Hasura's session setting. */
export function readsHasuraSession(text: string): boolean {
  return READS_HASURA_SESSION.test(text);
}

/** What to tell the user about SQL reading `hasura.user`; `where` names it. */
export function hasuraSessionWarning(where: string): string {
  return `${where} reads current_setting('hasura.user'), which this engine does not set (it sets svc.user, keys x-svc-*): that SQL reads NULL here; read current_setting('svc.user') and x-svc-* keys instead`;
}

/** Functions (trigger functions included) outside Hasura's and the engine's schemas whose body reads `hasura.user`. */
export async function findHasuraSessionReaders(c: DbClient): Promise<string[]> {
  const r = await c.query(
    `SELECT format('%I.%I', n.nspname, p.proname) AS name
       FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      WHERE p.prosrc ILIKE '%hasura.user%'
        AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'hdb_catalog', 'hdb_views')
      ORDER BY 1`,
  );
  return (r.rows as { name: string }[]).map((x) => x.name);
}
