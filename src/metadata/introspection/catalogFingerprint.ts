/**
 * A fingerprint of the catalogs the introspection reads: row count and sum of row-version xids (`xmin`) of
 * each, as the reading transaction sees them. A row inserted, updated or deleted by DDL (committed elsewhere
 * or in that transaction) changes it, so an equal fingerprint means the same visible catalog rows and the
 * same introspection. One small query against the introspection itself; taken beside every introspection
 * that a build uses (start-up, reload, a metadata operation), so the next metadata operation can tell
 * without introspecting whether the database is as that build saw it.
 */
import type { DbClient } from '../../execution/index.js';
import type { DbSnapshot } from './types.js';

/** The catalogs the introspection query reads (directly, or through `pg_relation_is_updatable`, `format_type` and the comment functions). */
const FINGERPRINT_CATALOGS = ['pg_class', 'pg_attribute', 'pg_attrdef', 'pg_constraint', 'pg_namespace', 'pg_proc', 'pg_type', 'pg_enum', 'pg_inherits', 'pg_description', 'pg_rewrite', 'pg_trigger'];

const FINGERPRINT_QUERY = `SELECT concat_ws('/', ${FINGERPRINT_CATALOGS.map(
  (t) => `(SELECT count(*) || ':' || coalesce(sum(xmin::text::bigint), 0) FROM pg_catalog.${t})`,
).join(', ')}) AS fingerprint`;

export async function catalogFingerprint(client: DbClient): Promise<string> {
  const r = await client.query(FINGERPRINT_QUERY);
  return String(r.rows[0].fingerprint);
}

/** The fingerprint each snapshot's tables were introspected at (when it was taken beside them). */
const fingerprints = new WeakMap<DbSnapshot['tables'], string>();

export const recordFingerprint = (snapshot: DbSnapshot, fingerprint: string): void => {
  fingerprints.set(snapshot.tables, fingerprint);
};

export const fingerprintOf = (snapshot: DbSnapshot): string | undefined => fingerprints.get(snapshot.tables);
