/**
 * Event triggers: list / create / delete; per trigger its recent events (pending, delivered, failed,
 * read from hdb_catalog.event_log with the last invocation's status) with a redeliver button, and
 * a manual invocation when the trigger allows it.
 */
import { useState } from 'react';
import { exportMetadata, lit, query, refOf, runSql, tableKey } from '../api';
import { DataTable, ErrorBox, JsonEditor, Section, TextField, useAction, useLoad, parseJson } from '../components';

const eventsSql = (trigger: string) => `SELECT e.id, CASE WHEN e.delivered THEN 'delivered' WHEN e.error THEN 'failed' ELSE 'pending' END, e.tries, e.created_at::text,
   (SELECT l.status::text FROM hdb_catalog.event_invocation_logs l WHERE l.event_id = e.id ORDER BY l.created_at DESC LIMIT 1), e.payload->>'op'
 FROM hdb_catalog.event_log e WHERE e.trigger_name = ${lit(trigger)} ORDER BY e.created_at DESC LIMIT 50`;

function Events({ trigger, manual }: { trigger: string; manual: boolean }) {
  const ev = useLoad(() => runSql(eventsSql(trigger), { readOnly: true }).catch(() => ({ columns: [], rows: [] })), [trigger]);
  const act = useAction();
  const [payload, setPayload] = useState('{}');
  return (
    <Section title={`Events of ${trigger}`} actions={<button type="button" onClick={ev.reload}>Refresh</button>}>
      <ErrorBox error={ev.error ?? act.error} />
      <DataTable
        columns={['id', 'status', 'tries', 'created at', 'last HTTP status', 'op']}
        rows={ev.data?.rows ?? []}
        actions={(i) => {
          const id = ev.data!.rows[i][0]!;
          return <button type="button" aria-label={`Redeliver ${id}`} onClick={() => act.run(() => query('redeliver_event', { event_id: id })).then(ev.reload)}>Redeliver</button>;
        }}
      />
      {manual ? (
        <form aria-label={`Invoke ${trigger}`} onSubmit={(e) => { e.preventDefault(); void act.run(() => query('invoke_event_trigger', { name: trigger, payload: parseJson(payload, {}) })).then(ev.reload); }}>
          <JsonEditor label="Manual payload" value={payload} onChange={setPayload} rows={3} />
          <button type="submit">Invoke</button>
        </form>
      ) : null}
    </Section>
  );
}

export function EventsPage() {
  const md = useLoad(exportMetadata);
  const act = useAction();
  const tables: any[] = md.data?.tables ?? [];
  const triggers = tables.flatMap((t) => (t.event_triggers ?? []).map((et: any) => ({ ...et, table: refOf(t.table) })));
  const [form, setForm] = useState({ name: '', table: '', webhook: '', insert: true, update: false, delete: false, manual: false, retries: '0', interval: '10', timeout: '60', headers: '[]' });
  const [open, setOpen] = useState<string | null>(null);
  const set = (k: string, v: unknown) => setForm({ ...form, [k]: v });
  return (
    <div>
      <h1>Event triggers</h1>
      <ErrorBox error={md.error ?? act.error} />
      <Section title="Triggers">
        <DataTable
          columns={['name', 'table', 'operations', 'webhook']}
          rows={triggers.map((t) => [t.name, tableKey(t.table), ['insert', 'update', 'delete'].filter((o) => t.definition?.[o]).concat(t.definition?.enable_manual ? ['manual'] : []).join(', '), t.webhook ?? t.webhook_from_env ?? ''])}
          actions={(i) => (
            <>
              <button type="button" aria-label={`Events of ${triggers[i].name}`} onClick={() => setOpen(triggers[i].name)}>Events</button>
              <button type="button" className="danger" onClick={() => confirm(`Delete trigger ${triggers[i].name}?`) && act.run(() => query('delete_event_trigger', { name: triggers[i].name })).then(md.reload)}>Delete</button>
            </>
          )}
        />
      </Section>
      {open ? <Events key={open} trigger={open} manual={Boolean(triggers.find((t) => t.name === open)?.definition?.enable_manual)} /> : null}
      <Section title="Create a trigger">
        <form aria-label="Create an event trigger" onSubmit={(e) => {
          e.preventDefault();
          const table = tables.map((t) => refOf(t.table)).find((t) => tableKey(t) === form.table);
          void act.run(() => query('create_event_trigger', {
            name: form.name, table, webhook: form.webhook,
            insert: form.insert ? { columns: '*' } : undefined, update: form.update ? { columns: '*' } : undefined, delete: form.delete ? { columns: '*' } : undefined,
            enable_manual: form.manual, headers: parseJson(form.headers, []),
            retry_conf: { num_retries: Number(form.retries), interval_sec: Number(form.interval), timeout_sec: Number(form.timeout) },
          })).then((ok) => ok && md.reload());
        }}>
          <div className="row">
            <TextField label="Name" value={form.name} onChange={(v) => set('name', v)} />
            <label className="field">Table<select value={form.table} onChange={(e) => set('table', e.target.value)}><option value="">(choose)</option>{tables.map((t) => <option key={tableKey(refOf(t.table))}>{tableKey(refOf(t.table))}</option>)}</select></label>
            <TextField label="Webhook URL" value={form.webhook} onChange={(v) => set('webhook', v)} placeholder="http://127.0.0.1:3000/hook" />
          </div>
          <div className="row">
            {(['insert', 'update', 'delete', 'manual'] as const).map((o) => <label key={o}><input type="checkbox" checked={form[o]} onChange={(e) => set(o, e.target.checked)} /> {o}</label>)}
          </div>
          <div className="row">
            <TextField label="Retries" type="number" value={form.retries} onChange={(v) => set('retries', v)} />
            <TextField label="Retry interval (s)" type="number" value={form.interval} onChange={(v) => set('interval', v)} />
            <TextField label="Timeout (s)" type="number" value={form.timeout} onChange={(v) => set('timeout', v)} />
          </div>
          <JsonEditor label="Headers" value={form.headers} onChange={(v) => set('headers', v)} rows={2} hint='[{"name": "x-key", "value": "v"}] or value_from_env' />
          <button type="submit" className="primary" disabled={act.busy}>Create trigger</button>
        </form>
      </Section>
    </div>
  );
}
