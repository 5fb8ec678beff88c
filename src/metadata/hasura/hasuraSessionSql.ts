/**
 * SQL written for Hasura reads the session as `current_setting('hasura.user')` with `x-hasura-*`
 * keys; this engine sets `svc.user` with `x-svc-*` keys, so such SQL silently reads NULL. These
 * find it, so the operator is told when it is applied (run_sql) and at start (function and
 * trigger bodies already in the database).
 */
import type { DbClient } from '../../execution/index.js';

const READS_HASURA_SESSION = /hasura\.user|x-hasura-/i;

/** True when `text` reads Hasura's session: the setting `hasura.user`, or `x-hasura-*` keys (of it or of a session argument). */
export function readsHasuraSession(text: string): boolean {
  return READS_HASURA_SESSION.test(text);
}

/** What to tell the user about SQL reading `hasura.user`; `where` names it. */
export function hasuraSessionWarning(where: string): string {
  return `${where} reads Hasura's session (current_setting('hasura.user'), x-hasura-* keys), which this engine gives SQL only with --hasura-session-variables=true (on by default for a database adopted from Hasura; otherwise it sets svc.user and session arguments with x-svc-* keys): that SQL reads NULL here; turn the mode on, or read svc.user and x-svc-* keys instead`;
}

/** Functions (trigger functions included) outside Hasura's and the engine's schemas whose body reads Hasura's session. */
export async function findHasuraSessionReaders(c: DbClient): Promise<string[]> {
  const r = await c.query(
    `SELECT format('%I.%I', n.nspname, p.proname) AS name
       FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      WHERE (p.prosrc ILIKE '%hasura.user%' OR p.prosrc ILIKE '%x-hasura-%')
        AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'hdb_catalog', 'hdb_views')
      ORDER BY 1`,
  );
  return (r.rows as { name: string }[]).map((x) => x.name);
}

/** Of the functions named `schema.name` in `keys`, those (any overload) whose body reads Hasura's session. */
export async function hasuraSessionReadersAmong(c: DbClient, keys: readonly string[]): Promise<string[]> {
  const r = await c.query(
    `SELECT DISTINCT format('%I.%I', n.nspname, p.proname) AS name
       FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname || '.' || p.proname = ANY($1::text[]) AND (p.prosrc ILIKE '%hasura.user%' OR p.prosrc ILIKE '%x-hasura-%')
      ORDER BY 1`,
    [keys],
  );
  return (r.rows as { name: string }[]).map((x) => x.name);
}
