/**
 * Scheduled triggers: cron triggers (list from hdb_catalog, create, delete, their upcoming and past
 * events with status) and one-off scheduled events (create, list with status and last invocation).
 */
import { useState } from 'react';
import { lit, query, runSql } from '../api';
import { DataTable, ErrorBox, JsonEditor, Section, TextField, useAction, useLoad, parseJson } from '../components';

const safe = (sql: string) => runSql(sql, { readOnly: true }).catch(() => ({ columns: [], rows: [] as Array<Array<string | null>> }));

function CronEvents({ name }: { name: string }) {
  const ev = useLoad(() => safe(`SELECT e.id, e.scheduled_time::text, e.status, e.tries,
      (SELECT l.status::text FROM hdb_catalog.hdb_cron_event_invocation_logs l WHERE l.event_id = e.id ORDER BY l.created_at DESC LIMIT 1)
    FROM hdb_catalog.hdb_cron_events e WHERE e.trigger_name = ${lit(name)}
    ORDER BY (e.status = 'scheduled') DESC, CASE WHEN e.status = 'scheduled' THEN e.scheduled_time END ASC, e.scheduled_time DESC LIMIT 20`), [name]);
  return (
    <Section title={`Events of ${name}`} actions={<button type="button" onClick={ev.reload}>Refresh</button>}>
      <DataTable columns={['id', 'scheduled time', 'status', 'tries', 'last HTTP status']} rows={ev.data?.rows ?? []} />
    </Section>
  );
}

export function ScheduledPage() {
  const crons = useLoad(() => safe('SELECT name, cron_schedule, webhook_conf::text, include_in_metadata::text, comment FROM hdb_catalog.hdb_cron_triggers ORDER BY name'));
  const oneOff = useLoad(() => safe(`SELECT e.id, e.scheduled_time::text, e.status, e.tries, e.webhook_conf::text, e.comment,
      (SELECT l.status::text FROM hdb_catalog.hdb_scheduled_event_invocation_logs l WHERE l.event_id = e.id ORDER BY l.created_at DESC LIMIT 1)
    FROM hdb_catalog.hdb_scheduled_events e ORDER BY e.scheduled_time DESC LIMIT 50`));
  const act = useAction();
  const [open, setOpen] = useState<string | null>(null);
  const [cron, setCron] = useState({ name: '', webhook: '', schedule: '*/5 * * * *', payload: '{}', include: true, comment: '' });
  const [one, setOne] = useState({ webhook: '', at: new Date(Date.now() + 60_000).toISOString(), payload: '{}', comment: '' });
  const rows = crons.data?.rows ?? [];
  return (
    <div>
      <h1>Scheduled triggers</h1>
      <ErrorBox error={act.error} />
      <Section title="Cron triggers">
        <DataTable
          columns={['name', 'schedule', 'webhook', 'in metadata', 'comment']}
          rows={rows.map((r) => [r[0], r[1], JSON.parse(r[2] ?? 'null')?.url ?? r[2], r[3], r[4]])}
          actions={(i) => (
            <>
              <button type="button" aria-label={`Events of ${rows[i][0]}`} onClick={() => setOpen(rows[i][0]!)}>Events</button>
              <button type="button" className="danger" onClick={() => confirm(`Delete cron trigger ${rows[i][0]}?`) && act.run(() => query('delete_cron_trigger', { name: rows[i][0] })).then(crons.reload)}>Delete</button>
            </>
          )}
        />
      </Section>
      {open ? <CronEvents key={open} name={open} /> : null}
      <Section title="Create a cron trigger">
        <form aria-label="Create a cron trigger" onSubmit={(e) => { e.preventDefault(); void act.run(() => query('create_cron_trigger', { name: cron.name, webhook: cron.webhook, schedule: cron.schedule, payload: parseJson(cron.payload, {}), include_in_metadata: cron.include, comment: cron.comment || undefined })).then((ok) => { if (ok) { crons.reload(); setOpen(cron.name); } }); }}>
          <div className="row">
            <TextField label="Name" value={cron.name} onChange={(v) => setCron({ ...cron, name: v })} />
            <TextField label="Webhook URL" value={cron.webhook} onChange={(v) => setCron({ ...cron, webhook: v })} />
            <TextField label="Cron schedule (UTC)" value={cron.schedule} onChange={(v) => setCron({ ...cron, schedule: v })} />
            <TextField label="Comment" value={cron.comment} onChange={(v) => setCron({ ...cron, comment: v })} />
            <label><input type="checkbox" checked={cron.include} onChange={(e) => setCron({ ...cron, include: e.target.checked })} /> include in metadata</label>
          </div>
          <JsonEditor label="Cron payload" value={cron.payload} onChange={(v) => setCron({ ...cron, payload: v })} rows={2} />
          <button type="submit" className="primary" disabled={act.busy}>Create cron trigger</button>
        </form>
      </Section>
      <Section title="One-off scheduled events" actions={<button type="button" onClick={oneOff.reload}>Refresh</button>}>
        <DataTable columns={['id', 'scheduled time', 'status', 'tries', 'webhook', 'comment', 'last HTTP status']} rows={(oneOff.data?.rows ?? []).map((r) => [r[0], r[1], r[2], r[3], JSON.parse(r[4] ?? 'null')?.url ?? r[4], r[5], r[6]])} />
        <form aria-label="Create a scheduled event" onSubmit={(e) => { e.preventDefault(); void act.run(() => query('create_scheduled_event', { webhook: one.webhook, schedule_at: one.at, payload: parseJson(one.payload, {}), comment: one.comment || undefined })).then(oneOff.reload); }}>
          <div className="row">
            <TextField label="Webhook URL" value={one.webhook} onChange={(v) => setOne({ ...one, webhook: v })} />
            <TextField label="At (ISO time)" value={one.at} onChange={(v) => setOne({ ...one, at: v })} />
            <TextField label="Comment" value={one.comment} onChange={(v) => setOne({ ...one, comment: v })} />
          </div>
          <JsonEditor label="Event payload" value={one.payload} onChange={(v) => setOne({ ...one, payload: v })} rows={2} />
          <button type="submit" className="primary" disabled={act.busy}>Schedule event</button>
        </form>
      </Section>
    </div>
  );
}
