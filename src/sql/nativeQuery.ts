/** A native query's code as a FROM item. */
import type { NativeQuerySource } from '../ir/index.js';
import { valueSql } from './boolExp.js';
import { sql, type SqlFragment } from './fragment.js';

/**
 * `(<code>)`: the admin's SQL from the metadata (checked by Postgres when it was tracked, like
 * run_sql's text, hence `unsafeRaw`), every `{{arg}}` a bound parameter cast to its type: an
 * argument's value never becomes SQL text.
 */
export function nativeQuerySql(source: NativeQuerySource): SqlFragment {
  const parts = source.code.map((p) => ('text' in p ? sql.unsafeRaw(p.text) : sql`(${valueSql(p.arg)})`));
  return sql`(${sql.join(parts, '')}\n)`;
}
