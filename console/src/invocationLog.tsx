/**
 * The invocation log of one event (an event trigger's, a cron trigger's or a one-off scheduled
 * event's): each attempt's HTTP status, the request sent and the response received, read from the
 * hdb_catalog log table the caller names.
 */
import { lit, runSql } from './api';
import { DataTable, ErrorBox, Section, useLoad } from './components';
import { Spinner } from './preview';

const pretty = (text: string | null): string => {
  if (text === null) return '';
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
};

export type LogTable = 'event_invocation_logs' | 'hdb_cron_event_invocation_logs' | 'hdb_scheduled_event_invocation_logs';

const invocationsSql = (table: LogTable, eventId: string) => `SELECT l.id, l.status::text, l.created_at::text, l.request::text, l.response::text
 FROM hdb_catalog.${table} l WHERE l.event_id = ${lit(eventId)} ORDER BY l.created_at DESC LIMIT 20`;

/** `version` changes when the event was tried again: the log is read again. */
export function InvocationLog({ title, table, eventId, version = '', source }: { title: string; table: LogTable; eventId: string; version?: string; source?: string }) {
  const sql = invocationsSql(table, eventId);
  // An event trigger's log is in the database of its table (`source`); the scheduled events' in the engine's.
  const inv = useLoad(() => runSql(sql, { readOnly: true, ...(source !== undefined ? { source } : {}) }), [sql, version, source]);
  const rows = inv.data?.rows ?? [];
  return (
    <Section title={title} actions={<><Spinner on={inv.loading} /><button type="button" onClick={inv.reload}>Refresh invocations</button></>}>
      <ErrorBox error={inv.error} />
      <DataTable
        columns={['invocation', 'HTTP status', 'at', 'request', 'response']}
        rows={rows.map((r) => [r[0], r[1], r[2], <pre key="q" className="log" aria-label={`request of invocation ${r[0]}`}>{pretty(r[3])}</pre>, <pre key="s" className="log" aria-label={`response of invocation ${r[0]}`}>{pretty(r[4])}</pre>])}
      />
    </Section>
  );
}

