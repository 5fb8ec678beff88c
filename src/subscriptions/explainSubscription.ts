/**
 * Explain for a subscription: the multiplexed statement the poller runs (parameters `$1`, `$2`
 * as they are bound), and Postgres's plan for it with the caller's values as a one-cohort batch.
 */
import type { Session } from '../core/index.js';
import type { EngineContext } from '../appState.js';
import type { ReadDb } from '../execution/index.js';
import { batchValues, cohortVariables, multiplexedStatement, varsElement, type LiveRootField } from './multiplexedQuery.js';

const EXAMPLE_COHORT_ID = '00000000-0000-0000-0000-000000000000';

export async function explainSubscription(
  ctx: EngineContext, session: Session, field: LiveRootField, variables: Record<string, unknown>, analyze = false,
  db: Pick<ReadDb, 'query'> = ctx.db,
): Promise<{ sql: string; plan: string[] }> {
  const statement = multiplexedStatement(field);
  const values = batchValues([{ id: EXAMPLE_COHORT_ID, varsElement: varsElement(cohortVariables(field, variables, session)) }]);
  const r = await db.query((analyze ? 'EXPLAIN (ANALYZE, BUFFERS) ' : 'EXPLAIN ') + statement, values);
  return { sql: statement, plan: r.rows.map((row) => String(row['QUERY PLAN'])) };
}
