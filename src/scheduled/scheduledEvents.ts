/**
 * One-off scheduled events (`create_scheduled_event`): one row in `hdb_catalog.hdb_scheduled_events`
 * with its own webhook template, headers and retry configuration (resolved again at delivery).
 */
import type { DbClient } from '../execution/index.js';
import { runFragment } from '../delivery/index.js';
import { sql } from '../sql/index.js';
import type { ScheduledEventDef } from './decodeScheduled.js';

/**
 * Inserts the event; returns its id. The tables exist from boot (startScheduledWorker), so the hot
 * path (thousands of events in one bulk) is one statement per event.
 */
export async function insertScheduledEvent(client: DbClient, e: ScheduledEventDef): Promise<string> {
  const r = await runFragment(
    client,
    sql`INSERT INTO hdb_catalog.hdb_scheduled_events (webhook_conf, scheduled_time, retry_conf, payload, header_conf, comment)
        VALUES (${sql.value(JSON.stringify(e.webhook), 'json')}, ${sql.value(e.schedule_at, 'timestamptz')}, ${sql.value(JSON.stringify(e.retry_conf), 'json')},
                ${sql.value(e.payload === null ? null : JSON.stringify(e.payload), 'json')}, ${sql.value(JSON.stringify(e.headers), 'json')}, ${sql.value(e.comment, 'text')})
        RETURNING id`,
  );
  return String(r.rows[0].id);
}
