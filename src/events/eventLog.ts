/**
 * Writes of the metadata operations on the event log: `invoke_event_trigger` (a MANUAL event,
 * `{op: "MANUAL", data: <payload as given>, session_variables}` — Hasura v1.3's insertManualEvent
 * passes the payload to insert_event_log as the row data), `redeliver_event` (tries reset, error and
 * lease cleared: delivered again as a first try; refused while a delivery holds the event).
 */
import type { DbClient } from '../execution/index.js';
import type { EventTriggerInfo } from '../metadata/index.js';
import { sql } from '../sql/index.js';
import { runFragment } from '../delivery/index.js';
import { eventTablesExist } from './eventTables.js';

export async function insertManualEvent(client: DbClient, t: EventTriggerInfo, payload: unknown, sessionVars: Record<string, string>): Promise<string> {
  const body = { op: 'MANUAL', data: payload, session_variables: sessionVars };
  const r = await runFragment(
    client,
    sql`INSERT INTO hdb_catalog.event_log (schema_name, table_name, trigger_name, payload)
        VALUES (${sql.value(t.table.schema, 'text')}, ${sql.value(t.table.name, 'text')}, ${sql.value(t.name, 'text')}, ${sql.value(JSON.stringify(body), 'jsonb')})
        RETURNING id`,
  );
  return String(r.rows[0].id);
}

/**
 * Resets the event for delivery: `missing` when there is no such event, `busy` while a delivery
 * holds it (locked within the last 30 minutes, as Hasura's checkEvent), else `ok`.
 */
export async function redeliverEvent(client: DbClient, eventId: string): Promise<'ok' | 'missing' | 'busy'> {
  if (!(await eventTablesExist(client))) return 'missing';
  const r = await runFragment(
    client,
    sql`SELECT locked_at IS NOT NULL AND locked_at >= now() - interval '30 minutes' AS busy FROM hdb_catalog.event_log WHERE id = ${sql.value(eventId, 'text')} FOR UPDATE`,
  );
  if (r.rows.length === 0) return 'missing';
  if (r.rows[0].busy === true) return 'busy';
  await runFragment(
    client,
    sql`UPDATE hdb_catalog.event_log SET delivered = false, error = false, tries = 0, next_retry_at = NULL, locked_at = NULL, locked_by = NULL, archived = false
        WHERE id = ${sql.value(eventId, 'text')}`,
  );
  return 'ok';
}
