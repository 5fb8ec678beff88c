/** The explain API's wrapper: the plan Postgres would use for a compiled statement. */
import { sql, type SqlFragment } from './fragment.js';

/** `EXPLAIN (FORMAT TEXT) <statement>`, with the statement's parameters unchanged. */
export function explain(statement: SqlFragment, opts: { analyze?: boolean } = {}): SqlFragment {
  return opts.analyze ? sql`EXPLAIN (ANALYZE, FORMAT TEXT) ${statement}` : sql`EXPLAIN (FORMAT TEXT) ${statement}`;
}
