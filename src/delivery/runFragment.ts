/**
 * Runs a fragment whose parameters are all known values (`sql.value`) on a connection: the
 * compiled text with the values bound in order. For the engine's own catalog/queue statements.
 */
import type { DbClient, QueryResultRows } from '../execution/index.js';
import { compile, type SqlFragment } from '../sql/index.js';

export function runFragment(client: DbClient, f: SqlFragment): Promise<QueryResultRows> {
  const { text, params } = compile(f);
  const values = params.map((p) => (p.source.kind === 'value' ? p.source.value : null));
  return client.query(text, values);
}
