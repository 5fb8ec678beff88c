/**
 * Whether SQL just run made a table's writes able to read the session variables (a trigger, row
 * security, a rule... created on it): run_sql that does not rebuild the schema cache asks this for
 * the tables the live cache marks `sessionFreeWrites`, and rebuilds when one lost it, so mutations
 * set the session for them again from the next request on.
 */
import type { QualifiedTable } from '../../core/index.js';
import type { DbClient } from '../../execution/index.js';
import { SESSION_FREE_WRITES, SESSION_READERS } from './introspectionQuery.js';

const LOST_QUERY = `WITH session_readers AS (${SESSION_READERS})
SELECT count(*)::int AS lost
  FROM unnest($1::text[], $2::text[]) AS t(schema, name)
  JOIN pg_catalog.pg_namespace n ON n.nspname = t.schema
  JOIN pg_catalog.pg_class r ON r.relnamespace = n.oid AND r.relname = t.name
 WHERE NOT ${SESSION_FREE_WRITES}`;

/** True when one of `tables` (all session-free when last introspected) no longer is. */
export async function sessionFreeWritesLost(client: DbClient, tables: readonly QualifiedTable[]): Promise<boolean> {
  if (tables.length === 0) return false;
  const r = await client.query(LOST_QUERY, [tables.map((t) => t.schema), tables.map((t) => t.name)]);
  return Number((r.rows[0] as { lost: number }).lost) > 0;
}
