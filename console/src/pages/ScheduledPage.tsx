/**
 * Scheduled triggers. Cron triggers (read from hdb_catalog.hdb_cron_triggers, so those kept out of
 * the metadata show too): create, edit (`create_cron_trigger` with `replace`), delete, their upcoming
 * and past events and each event's invocation log. One-off scheduled events: create, edit (while
 * still scheduled: the old event is deleted and the new one created in one bulk, which fails whole
 * if the event was picked up meanwhile), delete, and their invocation logs. The engine serves no
 * `delete_scheduled_event`; its rows are deleted with run_sql, as docs/hasura-compatibility.md says.
 */
import { useState } from 'react';
import { lit, runSql } from '../api';
import { DataTable, ErrorBox, JsonEditor, Section, TextField, useAction, useLoad } from '../components';
import { InvocationLog } from '../invocationLog';
import { UrlConfField, urlConfInput, urlConfValue } from '../webhookField';
import { buildOp, bulkOf, confirmOp, jsonField, opOf, OpPreview, sendOp, Spinner, type Op } from '../preview';

const CRON_SQL = 'SELECT name, cron_schedule, webhook_conf::text, include_in_metadata::text, comment, payload::text, retry_conf::text, header_conf::text FROM hdb_catalog.hdb_cron_triggers ORDER BY name';
const ONE_OFF_SQL = `SELECT e.id, e.scheduled_time::text, e.status, e.tries, e.webhook_conf::text, e.comment,
    (SELECT l.status::text FROM hdb_catalog.hdb_scheduled_event_invocation_logs l WHERE l.event_id = e.id ORDER BY l.created_at DESC LIMIT 1),
    e.payload::text, e.retry_conf::text, e.header_conf::text
  FROM hdb_catalog.hdb_scheduled_events e ORDER BY e.scheduled_time DESC LIMIT 50`;

const parse = (text: string | null): any => {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return text;
  }
};
/** webhook_conf is the URL itself, or `{webhook}` / `{from_env}`. */
const webhookText = (conf: string | null): string => {
  const v = parse(conf);
  return typeof v === 'string' ? v : v?.from_env ? `env: ${v.from_env}` : (v?.webhook ?? v?.url ?? '');
};

interface Retry { retries: string; interval: string; timeout: string; tolerance: string }
const RETRY: Retry = { retries: '0', interval: '10', timeout: '60', tolerance: '21600' };
const retryOf = (r: any): Retry => ({ retries: String(r?.num_retries ?? 0), interval: String(r?.retry_interval_seconds ?? 10), timeout: String(r?.timeout_seconds ?? 60), tolerance: String(r?.tolerance_seconds ?? 21600) });
const retryConf = (r: Retry) => ({ num_retries: Number(r.retries), retry_interval_seconds: Number(r.interval), timeout_seconds: Number(r.timeout), tolerance_seconds: Number(r.tolerance) });

function RetryFields({ value, onChange }: { value: Retry; onChange: (r: Retry) => void }) {
  return (
    <div className="row">
      <TextField label="Retries" type="number" value={value.retries} onChange={(v) => onChange({ ...value, retries: v })} />
      <TextField label="Retry interval (s)" type="number" value={value.interval} onChange={(v) => onChange({ ...value, interval: v })} />
      <TextField label="Timeout (s)" type="number" value={value.timeout} onChange={(v) => onChange({ ...value, timeout: v })} />
      <TextField label="Tolerance (s)" type="number" value={value.tolerance} onChange={(v) => onChange({ ...value, tolerance: v })} />
    </div>
  );
}

/** The next 15 occurrences and the last 20 past ones (delivered, failed, dead), each with its last HTTP status. */
const cronEventsSql = (name: string) => {
  const cols = `e.id, e.scheduled_time::text, e.status, e.tries,
      (SELECT l.status::text FROM hdb_catalog.hdb_cron_event_invocation_logs l WHERE l.event_id = e.id ORDER BY l.created_at DESC LIMIT 1)`;
  return `(SELECT ${cols} FROM hdb_catalog.hdb_cron_events e WHERE e.trigger_name = ${lit(name)} AND e.status IN ('scheduled', 'locked') ORDER BY e.scheduled_time ASC LIMIT 15)
  UNION ALL
  (SELECT ${cols} FROM hdb_catalog.hdb_cron_events e WHERE e.trigger_name = ${lit(name)} AND e.status NOT IN ('scheduled', 'locked') ORDER BY e.scheduled_time DESC LIMIT 20)`;
};

/** `version` changes when the trigger was edited: its events are read again (without remounting). */
function CronEvents({ name, version }: { name: string; version: string }) {
  const ev = useLoad(() => runSql(cronEventsSql(name), { readOnly: true }), [name, version]);
  const [event, setEvent] = useState<string | null>(null);
  const rows = ev.data?.rows ?? [];
  return (
    <>
      <Section title={`Events of ${name}`} actions={<><Spinner on={ev.loading} /><button type="button" onClick={ev.reload}>Refresh</button></>}>
        <ErrorBox error={ev.error} />
        <DataTable columns={['id', 'scheduled time', 'status', 'tries', 'last HTTP status']} rows={rows}
          actions={(i) => <button type="button" aria-label={`Invocations of ${rows[i][0]}`} onClick={() => setEvent(rows[i][0])}>Invocations</button>} />
      </Section>
      {event ? <InvocationLog key={event} title={`Invocations of event ${event}`} table="hdb_cron_event_invocation_logs" eventId={event} /> : null}
    </>
  );
}

const CRON_EMPTY = { name: '', webhook: urlConfInput(''), schedule: '*/5 * * * *', payload: '{}', headers: '[]', include: true, comment: '', retry: RETRY };

function CronTriggers() {
  const crons = useLoad(() => runSql(CRON_SQL, { readOnly: true }));
  const act = useAction();
  const [open, setOpen] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [cron, setCron] = useState(CRON_EMPTY);
  const rows = crons.data?.rows ?? [];
  const built = buildOp(() => opOf('create_cron_trigger', {
    name: cron.name, webhook: urlConfValue(cron.webhook), schedule: cron.schedule, payload: jsonField('Cron payload', cron.payload, {}),
    headers: jsonField('Cron headers', cron.headers, []), retry_conf: retryConf(cron.retry), include_in_metadata: cron.include,
    ...(cron.comment ? { comment: cron.comment } : {}), ...(editing ? { replace: true } : {}),
  }));
  const reset = () => { setEditing(null); setCron(CRON_EMPTY); };
  const edit = (r: Array<string | null>) => {
    setEditing(r[0]);
    setCron({ name: r[0]!, schedule: r[1]!, webhook: urlConfInput(parse(r[2])), include: r[3] === 'true', comment: r[4] ?? '', payload: JSON.stringify(parse(r[5]) ?? {}, null, 2), retry: retryOf(parse(r[6])), headers: JSON.stringify(parse(r[7]) ?? [], null, 2) });
  };
  return (
    <>
      <Section title="Cron triggers" actions={<Spinner on={crons.loading} />}>
        <ErrorBox error={crons.error} />
        <DataTable
          columns={['name', 'schedule', 'webhook', 'in metadata', 'comment']}
          rows={rows.map((r) => [r[0], r[1], webhookText(r[2]), r[3], r[4]])}
          actions={(i) => {
            const del = opOf('delete_cron_trigger', { name: rows[i][0] });
            return (
              <>
                <button type="button" aria-label={`Events of ${rows[i][0]}`} onClick={() => setOpen(rows[i][0]!)}>Events</button>
                <button type="button" aria-label={`Edit ${rows[i][0]}`} onClick={() => edit(rows[i])}>Edit</button>
                <button type="button" className="danger" aria-label={`Delete ${rows[i][0]}`} onClick={() => confirmOp(`Delete cron trigger ${rows[i][0]}?`, del) && void act.run(() => sendOp(del)).then(() => { if (open === rows[i][0]) setOpen(null); crons.reload(); })}>Delete</button>
              </>
            );
          }}
        />
      </Section>
      {open ? <CronEvents key={open} name={open} version={crons.data?.rows.find((r) => r[0] === open)?.[1] ?? ''} /> : null}
      <Section title={editing ? `Edit cron trigger ${editing}` : 'Create a cron trigger'}>
        <form aria-label={editing ? 'Edit a cron trigger' : 'Create a cron trigger'} onSubmit={(e) => {
          e.preventDefault();
          const name = cron.name;
          if (built.op) void act.run(() => sendOp(built.op!)).then((ok) => { if (ok) { crons.reload(); setOpen(name); reset(); } });
        }}>
          <div className="row">
            <label className="field">Name<input value={cron.name} readOnly={Boolean(editing)} onChange={(e) => setCron({ ...cron, name: e.target.value })} /></label>
            <UrlConfField name="Webhook" value={cron.webhook} onChange={(v) => setCron({ ...cron, webhook: v })} />
            <TextField label="Cron schedule (UTC)" value={cron.schedule} onChange={(v) => setCron({ ...cron, schedule: v })} />
            <TextField label="Comment" value={cron.comment} onChange={(v) => setCron({ ...cron, comment: v })} />
            <label><input type="checkbox" checked={cron.include} onChange={(e) => setCron({ ...cron, include: e.target.checked })} /> include in metadata</label>
          </div>
          <RetryFields value={cron.retry} onChange={(retry) => setCron({ ...cron, retry })} />
          <JsonEditor label="Cron payload" value={cron.payload} onChange={(v) => setCron({ ...cron, payload: v })} rows={2} />
          <JsonEditor label="Cron headers" value={cron.headers} onChange={(v) => setCron({ ...cron, headers: v })} rows={2} hint='[{"name": "x-key", "value": "v"}] or value_from_env' />
          <OpPreview built={built} />
          <ErrorBox error={act.error} />
          <button type="submit" className="primary" disabled={act.busy || !built.op}>{editing ? 'Save cron trigger' : 'Create cron trigger'}</button>
          <Spinner on={act.busy} />
          {editing ? <button type="button" onClick={reset}>Cancel</button> : null}
        </form>
      </Section>
    </>
  );
}

const inAMinute = () => new Date(Date.now() + 60_000).toISOString();
const ONE_EMPTY = { webhook: urlConfInput(''), at: '', payload: '{}', headers: '[]', comment: '', retry: RETRY };

/** Deletes a one-off event that is still scheduled; fails (and with it the bulk) if it is not. */
const deleteScheduledSql = (id: string, onlyScheduled: boolean) => onlyScheduled
  ? `DO $$ BEGIN DELETE FROM hdb_catalog.hdb_scheduled_events WHERE id = ${lit(id)} AND status = 'scheduled'; IF NOT FOUND THEN RAISE EXCEPTION 'scheduled event % is no longer scheduled', ${lit(id)}; END IF; END $$`
  : `DELETE FROM hdb_catalog.hdb_scheduled_events WHERE id = ${lit(id)}`;

function OneOffEvents() {
  const oneOff = useLoad(() => runSql(ONE_OFF_SQL, { readOnly: true }));
  const act = useAction();
  const [one, setOne] = useState(() => ({ ...ONE_EMPTY, at: inAMinute() }));
  const [editing, setEditing] = useState<string | null>(null);
  const [event, setEvent] = useState<string | null>(null);
  const rows = oneOff.data?.rows ?? [];
  const built = buildOp(() => {
    const create = opOf('create_scheduled_event', {
      webhook: urlConfValue(one.webhook), schedule_at: one.at, payload: jsonField('Event payload', one.payload, {}), headers: jsonField('Event headers', one.headers, []),
      retry_conf: retryConf(one.retry), ...(one.comment ? { comment: one.comment } : {}),
    });
    return editing ? bulkOf([opOf('run_sql', { sql: deleteScheduledSql(editing, true) }), create]) : create;
  });
  const reset = () => { setEditing(null); setOne({ ...ONE_EMPTY, at: inAMinute() }); };
  const edit = (r: Array<string | null>) => {
    setEditing(r[0]);
    setOne({ webhook: urlConfInput(parse(r[4])), at: new Date(r[1]!).toISOString(), comment: r[5] ?? '', payload: JSON.stringify(parse(r[7]) ?? {}, null, 2), retry: retryOf(parse(r[8])), headers: JSON.stringify(parse(r[9]) ?? [], null, 2) });
  };
  return (
    <>
      <Section title="One-off scheduled events" actions={<><Spinner on={oneOff.loading} /><button type="button" onClick={oneOff.reload}>Refresh one-off events</button></>}>
        <ErrorBox error={oneOff.error} />
        <DataTable
          columns={['id', 'scheduled time', 'status', 'tries', 'webhook', 'comment', 'last HTTP status']}
          rows={rows.map((r) => [r[0], r[1], r[2], r[3], webhookText(r[4]), r[5], r[6]])}
          actions={(i) => {
            const id = rows[i][0]!;
            const del = opOf('run_sql', { sql: deleteScheduledSql(id, false) });
            return (
              <>
                <button type="button" aria-label={`Invocations of ${id}`} onClick={() => setEvent(id)}>Invocations</button>
                {rows[i][2] === 'scheduled' ? <button type="button" aria-label={`Edit ${id}`} onClick={() => edit(rows[i])}>Edit</button> : null}
                <button type="button" className="danger" aria-label={`Delete ${id}`} onClick={() => confirmOp(`Delete scheduled event ${id} and its invocation log?`, del) && void act.run(() => sendOp(del)).then(() => { if (event === id) setEvent(null); oneOff.reload(); })}>Delete</button>
              </>
            );
          }}
        />
      </Section>
      {event ? <InvocationLog key={event} version={String(rows.find((r) => r[0] === event)?.[3] ?? '')} title={`Invocations of event ${event}`} table="hdb_scheduled_event_invocation_logs" eventId={event} /> : null}
      <Section title={editing ? `Edit scheduled event ${editing}` : 'Schedule a one-off event'}>
        <form aria-label={editing ? 'Edit a scheduled event' : 'Create a scheduled event'} onSubmit={(e) => {
          e.preventDefault();
          if (built.op) void act.run(() => sendOp(built.op as Op)).then((ok) => { oneOff.reload(); if (ok) reset(); });
        }}>
          <div className="row">
            <UrlConfField name="Webhook" value={one.webhook} onChange={(v) => setOne({ ...one, webhook: v })} />
            <TextField label="At (ISO time)" value={one.at} onChange={(v) => setOne({ ...one, at: v })} />
            <TextField label="Comment" value={one.comment} onChange={(v) => setOne({ ...one, comment: v })} />
          </div>
          <RetryFields value={one.retry} onChange={(retry) => setOne({ ...one, retry })} />
          <JsonEditor label="Event payload" value={one.payload} onChange={(v) => setOne({ ...one, payload: v })} rows={2} />
          <JsonEditor label="Event headers" value={one.headers} onChange={(v) => setOne({ ...one, headers: v })} rows={2} />
          <OpPreview built={built} />
          <ErrorBox error={act.error} />
          <button type="submit" className="primary" disabled={act.busy || !built.op}>{editing ? 'Save scheduled event' : 'Schedule event'}</button>
          <Spinner on={act.busy} />
          {editing ? <button type="button" onClick={reset}>Cancel</button> : null}
        </form>
      </Section>
    </>
  );
}

export function ScheduledPage() {
  return (
    <div>
      <h1>Scheduled triggers</h1>
      <CronTriggers />
      <OneOffEvents />
    </div>
  );
}
