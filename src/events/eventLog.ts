/**
 * Writes of the metadata operations on the event log: `invoke_event_trigger` (a MANUAL event,
 * `{op: "MANUAL", data: {old: null, new: <payload>}, session_variables}`), `redeliver_event` (tries
 * reset, error and lease cleared: delivered again as a first try).
 */
import type { DbClient } from '../execution/index.js';
import type { EventTriggerInfo } from '../metadata/index.js';
import { sql } from '../sql/index.js';
import { runFragment } from '../delivery/index.js';
import { eventTablesExist } from './eventTables.js';

export async function insertManualEvent(client: DbClient, t: EventTriggerInfo, payload: unknown, sessionVars: Record<string, string>): Promise<string> {
  const body = { op: 'MANUAL', data: { old: null, new: payload }, session_variables: sessionVars };
  const r = await runFragment(
    client,
    sql`INSERT INTO hdb_catalog.event_log (schema_name, table_name, trigger_name, payload)
        VALUES (${sql.value(t.table.schema, 'text')}, ${sql.value(t.table.name, 'text')}, ${sql.value(t.name, 'text')}, ${sql.value(JSON.stringify(body), 'jsonb')})
        RETURNING id`,
  );
  return String(r.rows[0].id);
}

/** Resets the event for delivery; false when no such event exists. */
export async function redeliverEvent(client: DbClient, eventId: string): Promise<boolean> {
  if (!(await eventTablesExist(client))) return false;
  const r = await runFragment(
    client,
    sql`UPDATE hdb_catalog.event_log SET delivered = false, error = false, tries = 0, next_retry_at = NULL, locked_at = NULL, locked_by = NULL, archived = false
        WHERE id = ${sql.value(eventId, 'text')}`,
  );
  return (r.rowCount ?? 0) > 0;
}
