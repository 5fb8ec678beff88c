/** The aggregate functions the IR may name, checked before they are written into SQL text. */
import { sql, type SqlFragment } from './fragment.js';

const AGGREGATE_FUNCTIONS = new Set([
  'sum', 'avg', 'min', 'max', 'stddev', 'stddev_pop', 'stddev_samp', 'var_pop', 'var_samp', 'variance',
]);

/** `op(arg)` for one of Hasura's aggregate operators. */
export function aggregateCall(op: string, arg: SqlFragment): SqlFragment {
  if (!AGGREGATE_FUNCTIONS.has(op)) throw new TypeError(`unknown aggregate function ${op}`);
  return sql`${sql.unsafeRaw(op)}(${arg})`;
}
