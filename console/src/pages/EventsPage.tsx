/**
 * Event triggers of every database (source): list, create on a table of any database (its operations
 * carry the `source`; the trigger's capture and event log live in that database), edit (`create_event_trigger` with `replace`) and delete; the form
 * covers the table, the operations and their columns, the webhook (URL or environment variable),
 * headers, the retry configuration and a request transform (JSON). Per trigger: its event log
 * (pending, delivered, failed, from that database's hdb_catalog.event_log) with redeliver, each event's invocation
 * log with the request sent and the response received, and — when the trigger allows it — a manual
 * invocation from a row of its table or from a payload typed by hand.
 */
import { useState } from 'react';
import { exportMetadata, lit, refOf, runSql, sourceQuery, tableKey, type TableRef } from '../api';
import { DataTable, ErrorBox, JsonEditor, Section, TextField, useAction, useLoad } from '../components';
import { buildOp, confirmOp, jsonField, opOf, OpPreview, sendOp, Spinner } from '../preview';
import { InvocationLog } from '../invocationLog';
import { DEFAULT_SOURCE, onSource, sourcesOf } from '../sources';

const eventsSql = (trigger: string) => `SELECT e.id, CASE WHEN e.delivered THEN 'delivered' WHEN e.error THEN 'failed' ELSE 'pending' END, e.tries, e.created_at::text,
   (SELECT l.status::text FROM hdb_catalog.event_invocation_logs l WHERE l.event_id = e.id ORDER BY l.created_at DESC LIMIT 1), e.payload->>'op'
 FROM hdb_catalog.event_log e WHERE e.trigger_name = ${lit(trigger)} ORDER BY e.created_at DESC LIMIT 50`;

function RowInvoke({ trigger, table, source, onDone }: { trigger: string; table: TableRef; source: string; onDone: () => void }) {
  const data = useLoad(() => sourceQuery(source, 'select', { table, columns: ['*'], limit: 10 }) as Promise<Array<Record<string, unknown>>>, [source, tableKey(table)]);
  const act = useAction();
  const rows = data.data ?? [];
  const cols = rows.length ? Object.keys(rows[0]) : [];
  return (
    <div aria-label={`Rows of ${tableKey(table)}`} role="group">
      <h3>Invoke from a row of {tableKey(table)} <Spinner on={data.loading || act.busy} /></h3>
      <ErrorBox error={data.error ?? act.error} />
      <DataTable
        columns={cols}
        rows={rows.map((r) => cols.map((c) => (r[c] === null ? null : typeof r[c] === 'object' ? JSON.stringify(r[c]) : String(r[c]))))}
        actions={(i) => {
          const op = onSource(opOf('invoke_event_trigger', { name: trigger, payload: rows[i] }), source);
          return <button type="button" aria-label={`Invoke ${trigger} on row ${i + 1}`} disabled={act.busy} onClick={() => confirmOp(`Invoke ${trigger} with this row?`, op) && void act.run(() => sendOp(op)).then(onDone)}>Invoke</button>;
        }}
      />
    </div>
  );
}

function Events({ trigger, manual, table, source }: { trigger: string; manual: boolean; table: TableRef; source: string }) {
  const ev = useLoad(() => runSql(eventsSql(trigger), { readOnly: true, source }), [source, trigger]);
  const act = useAction();
  const [payload, setPayload] = useState('{}');
  const [event, setEvent] = useState<string | null>(null);
  const invoke = buildOp(() => onSource(opOf('invoke_event_trigger', { name: trigger, payload: jsonField('Manual payload', payload, {}) }), source));
  return (
    <>
      <Section title={`Events of ${trigger}${source !== DEFAULT_SOURCE ? ` (${source})` : ''}`} actions={<><Spinner on={ev.loading || act.busy} /><button type="button" onClick={ev.reload}>Refresh</button></>}>
        <ErrorBox error={ev.error ?? act.error} />
        <DataTable
          columns={['id', 'status', 'tries', 'created at', 'last HTTP status', 'op']}
          rows={ev.data?.rows ?? []}
          actions={(i) => {
            const id = ev.data!.rows[i][0]!;
            const op = onSource(opOf('redeliver_event', { event_id: id }), source);
            return (
              <>
                <button type="button" aria-label={`Invocations of ${id}`} onClick={() => setEvent(id)}>Invocations</button>
                <button type="button" aria-label={`Redeliver ${id}`} disabled={act.busy} onClick={() => confirmOp(`Redeliver event ${id}?`, op) && void act.run(() => sendOp(op)).then(() => { ev.reload(); setEvent(id); })}>Redeliver</button>
              </>
            );
          }}
        />
        {manual ? (
          <>
            <RowInvoke trigger={trigger} table={table} source={source} onDone={ev.reload} />
            <form aria-label={`Invoke ${trigger}`} onSubmit={(e) => { e.preventDefault(); if (invoke.op) void act.run(() => sendOp(invoke.op!)).then(ev.reload); }}>
              <JsonEditor label="Manual payload" value={payload} onChange={setPayload} rows={3} />
              <OpPreview built={invoke} />
              <button type="submit" disabled={act.busy || !invoke.op}>Invoke</button>
            </form>
          </>
        ) : null}
      </Section>
      {event ? <InvocationLog key={event} version={String(ev.data?.rows.find((r) => r[0] === event)?.[2] ?? '')} title={`Invocations of event ${event}`} table="event_invocation_logs" eventId={event} source={source} /> : null}
    </>
  );
}

const OPS = ['insert', 'update', 'delete'] as const;
const EMPTY = {
  source: DEFAULT_SOURCE, name: '', table: '', webhookKind: 'url', webhook: '', insert: true, update: false, delete: false, insertCols: '*', updateCols: '*', deleteCols: '*',
  manual: false, retries: '0', interval: '10', timeout: '60', headers: '[]', transform: '', comment: '',
};
type Form = typeof EMPTY;

const colsOf = (text: string): '*' | string[] => (text.trim() === '*' || text.trim() === '' ? '*' : text.split(',').map((c) => c.trim()).filter(Boolean));
const colsText = (c: unknown): string => (Array.isArray(c) ? c.join(', ') : '*');

function formOf(t: any): Form {
  const d = t.definition ?? {};
  return {
    source: t.source, name: t.name, table: tableKey(t.table), webhookKind: t.webhook_from_env ? 'env' : 'url', webhook: t.webhook_from_env ?? t.webhook ?? '',
    insert: Boolean(d.insert), update: Boolean(d.update), delete: Boolean(d.delete),
    insertCols: colsText(d.insert?.columns), updateCols: colsText(d.update?.columns), deleteCols: colsText(d.delete?.columns),
    manual: Boolean(d.enable_manual), retries: String(t.retry_conf?.num_retries ?? 0), interval: String(t.retry_conf?.interval_sec ?? 10), timeout: String(t.retry_conf?.timeout_sec ?? 60),
    headers: JSON.stringify(t.headers ?? [], null, 2), transform: t.request_transform ? JSON.stringify(t.request_transform, null, 2) : '', comment: t.comment ?? '',
  };
}

export function EventsPage() {
  const md = useLoad(exportMetadata);
  const act = useAction();
  const sources = sourcesOf(md.data);
  const triggers = sources.flatMap((s) => s.tables.flatMap((t) => (t.event_triggers ?? []).map((et: any) => ({ ...et, table: refOf(t.table), source: s.name }))));
  const [form, setForm] = useState<Form>(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const set = (k: keyof Form, v: unknown) => setForm({ ...form, [k]: v });
  // The tables of the database the form is on.
  const tables: any[] = sources.find((s) => s.name === form.source)?.tables ?? [];
  const built = buildOp(() => {
    const table = tables.map((t) => refOf(t.table)).find((t) => tableKey(t) === form.table);
    if (!table) throw new Error('choose a table');
    const transform = jsonField('Request transform', form.transform);
    return onSource(opOf('create_event_trigger', {
      name: form.name, table,
      ...(form.webhookKind === 'env' ? { webhook_from_env: form.webhook } : { webhook: form.webhook }),
      ...Object.fromEntries(OPS.filter((o) => form[o]).map((o) => [o, { columns: colsOf(form[`${o}Cols`]) }])),
      enable_manual: form.manual,
      retry_conf: { num_retries: Number(form.retries), interval_sec: Number(form.interval), timeout_sec: Number(form.timeout) },
      headers: jsonField('Headers', form.headers, []),
      ...(transform ? { request_transform: transform } : {}),
      ...(form.comment ? { comment: form.comment } : {}),
      ...(editing ? { replace: true } : {}),
    }), form.source);
  });
  const reset = () => { setEditing(null); setForm(EMPTY); };
  // A trigger is known by its database and name (`<source>/<name>`).
  const keyOf = (t: { source: string; name: string }) => `${t.source}/${t.name}`;
  const openTrigger = triggers.find((t) => keyOf(t) === open);
  return (
    <div>
      <h1>Event triggers <Spinner on={md.loading} /></h1>
      <ErrorBox error={md.error} />
      <Section title="Triggers">
        <DataTable
          columns={['name', 'database', 'table', 'operations', 'webhook']}
          rows={triggers.map((t) => [t.name, t.source, tableKey(t.table), OPS.filter((o) => t.definition?.[o]).concat(t.definition?.enable_manual ? ['manual' as never] : []).join(', '), t.webhook ?? (t.webhook_from_env ? `env: ${t.webhook_from_env}` : '')])}
          actions={(i) => {
            const t = triggers[i];
            const del = onSource(opOf('delete_event_trigger', { name: t.name }), t.source);
            return (
              <>
                <button type="button" aria-label={`Events of ${t.name}`} onClick={() => setOpen(keyOf(t))}>Events</button>
                <button type="button" aria-label={`Edit ${t.name}`} onClick={() => { setEditing(t.name); setForm(formOf(t)); }}>Edit</button>
                <button type="button" className="danger" aria-label={`Delete ${t.name}`} onClick={() => confirmOp(`Delete trigger ${t.name}?`, del) && void act.run(() => sendOp(del)).then(() => { if (open === keyOf(t)) setOpen(null); md.reload(); })}>Delete</button>
              </>
            );
          }}
        />
      </Section>
      {openTrigger ? <Events key={open} trigger={openTrigger.name} manual={Boolean(openTrigger.definition?.enable_manual)} table={openTrigger.table} source={openTrigger.source} /> : null}
      <Section title={editing ? `Edit trigger ${editing}` : 'Create a trigger'}>
        <form aria-label={editing ? 'Edit an event trigger' : 'Create an event trigger'} onSubmit={(e) => {
          e.preventDefault();
          if (built.op) void act.run(() => sendOp(built.op!)).then((ok) => { if (ok) { md.reload(); reset(); } });
        }}>
          <div className="row">
            <TextField label="Name" value={form.name} onChange={(v) => set('name', v)} />
            <label className="field">Database<select value={form.source} disabled={Boolean(editing)} onChange={(e) => setForm({ ...form, source: e.target.value, table: '' })}>{sources.map((s) => <option key={s.name}>{s.name}</option>)}</select></label>
            <label className="field">Table<select value={form.table} disabled={Boolean(editing)} onChange={(e) => set('table', e.target.value)}><option value="">(choose)</option>{tables.map((t) => <option key={tableKey(refOf(t.table))}>{tableKey(refOf(t.table))}</option>)}</select></label>
            <label className="field">Webhook from<select value={form.webhookKind} onChange={(e) => set('webhookKind', e.target.value)}><option value="url">URL</option><option value="env">environment variable</option></select></label>
            {form.webhookKind === 'env'
              ? <TextField label="Webhook environment variable" value={form.webhook} onChange={(v) => set('webhook', v)} placeholder="EVENT_WEBHOOK_URL" />
              : <TextField label="Webhook URL" value={form.webhook} onChange={(v) => set('webhook', v)} placeholder="http://127.0.0.1:3000/hook" />}
          </div>
          <fieldset className="row">
            <legend>Operations and the columns they watch (* for all, or a comma-separated list)</legend>
            {OPS.map((o) => (
              <div key={o} className="field">
                <label><input type="checkbox" checked={form[o]} onChange={(e) => set(o, e.target.checked)} /> {o}</label>
                <input aria-label={`${o} columns`} value={form[`${o}Cols`]} disabled={!form[o]} onChange={(e) => set(`${o}Cols`, e.target.value)} />
              </div>
            ))}
            <label><input type="checkbox" checked={form.manual} onChange={(e) => set('manual', e.target.checked)} /> manual</label>
          </fieldset>
          <div className="row">
            <TextField label="Retries" type="number" value={form.retries} onChange={(v) => set('retries', v)} />
            <TextField label="Retry interval (s)" type="number" value={form.interval} onChange={(v) => set('interval', v)} />
            <TextField label="Timeout (s)" type="number" value={form.timeout} onChange={(v) => set('timeout', v)} />
            <TextField label="Comment" value={form.comment} onChange={(v) => set('comment', v)} />
          </div>
          <JsonEditor label="Headers" value={form.headers} onChange={(v) => set('headers', v)} rows={2} hint='[{"name": "x-key", "value": "v"}] or value_from_env' />
          <JsonEditor label="Request transform" value={form.transform} onChange={(v) => set('transform', v)} rows={3} hint='optional, e.g. {"version": 2, "method": "PUT", "body": {"action": "transform", "template": "{\"id\": {{$body.event.data.new.id}}}"}} (see docs/transforms.md)' />
          <OpPreview built={built} />
          <ErrorBox error={act.error} />
          <button type="submit" className="primary" disabled={act.busy || !built.op}>{editing ? 'Save trigger' : 'Create trigger'}</button>
          <Spinner on={act.busy} />
          {editing ? <button type="button" onClick={reset}>Cancel</button> : null}
        </form>
      </Section>
    </div>
  );
}
