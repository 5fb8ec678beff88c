/**
 * The depth of a queue, read when metrics are scraped: rows still to deliver (`pending`) and those of
 * them a claim could take right now (`due`: past any retry time, not leased, and through the queue's
 * claim filter, e.g. a scheduled time that has come). A queue whose table does not exist yet (created
 * lazily, dropped by clear_metadata) is empty.
 */
import type { DbClient } from '../execution/index.js';
import { isMissingTable } from './missingTable.js';
import { depthStatement } from './queueSql.js';
import type { QueueAdapter } from './queueTable.js';
import { runFragment } from './runFragment.js';

export interface QueueDepth {
  pending: number;
  due: number;
}

export async function queueDepth(db: DbClient, queue: QueueAdapter): Promise<QueueDepth> {
  try {
    const r = await runFragment(db, depthStatement(queue.table, queue.claimFilter()));
    const row = r.rows[0] ?? {};
    return { pending: Number(row.pending ?? 0), due: Number(row.due ?? 0) };
  } catch (e) {
    if (isMissingTable(e)) return { pending: 0, due: 0 };
    throw e;
  }
}
