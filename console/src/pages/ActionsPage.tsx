/**
 * Actions and custom types: the actions with their definitions and permissions, create / update /
 * drop an action (name, type, kind, arguments, output type, handler, headers, forwarded client
 * headers), grant or revoke a role, and the custom types as one JSON document (set_custom_types).
 */
import { useEffect, useState } from 'react';
import { exportMetadata, query } from '../api';
import { DataTable, ErrorBox, JsonEditor, Section, TextField, useAction, useLoad, parseJson } from '../components';

const EMPTY = { name: '', type: 'mutation', kind: 'synchronous', args: '[{"name": "id", "type": "Int!"}]', output: '', handler: '', headers: '[]', forward: false, comment: '' };

export function ActionsPage() {
  const md = useLoad(exportMetadata);
  const act = useAction();
  const actions: any[] = md.data?.actions ?? [];
  const [types, setTypes] = useState('{}');
  const [form, setForm] = useState(EMPTY);
  const [editing, setEditing] = useState<string | null>(null);
  const [role, setRole] = useState('');
  useEffect(() => setTypes(JSON.stringify(md.data?.custom_types ?? {}, null, 2)), [md.data]);
  const set = (k: string, v: unknown) => setForm({ ...form, [k]: v });
  const edit = (a: any) => {
    setEditing(a.name);
    const d = a.definition;
    setForm({ name: a.name, type: d.type ?? 'mutation', kind: d.kind ?? 'synchronous', args: JSON.stringify(d.arguments ?? [], null, 2), output: d.output_type ?? '', handler: d.handler ?? '', headers: JSON.stringify(d.headers ?? [], null, 2), forward: Boolean(d.forward_client_headers), comment: a.comment ?? '' });
  };
  const definition = () => ({
    type: form.type, kind: form.type === 'query' ? undefined : form.kind, arguments: parseJson(form.args, []), output_type: form.output, handler: form.handler, headers: parseJson(form.headers, []), forward_client_headers: form.forward,
  });
  return (
    <div>
      <h1>Actions</h1>
      <ErrorBox error={md.error ?? act.error} />
      <Section title="Actions">
        <DataTable
          columns={['name', 'type', 'kind', 'signature', 'handler', 'roles']}
          rows={actions.map((a) => [a.name, a.definition.type ?? 'mutation', a.definition.kind ?? 'synchronous', `${a.name}(${(a.definition.arguments ?? []).map((x: any) => `${x.name}: ${x.type}`).join(', ')}): ${a.definition.output_type}`, a.definition.handler, (a.permissions ?? []).map((p: any) => p.role).join(', ')])}
          actions={(i) => (
            <>
              <button type="button" onClick={() => edit(actions[i])}>Edit</button>
              <button type="button" className="danger" onClick={() => confirm(`Drop action ${actions[i].name}?`) && act.run(() => query('drop_action', { name: actions[i].name, clear_data: true })).then(md.reload)}>Drop</button>
            </>
          )}
        />
      </Section>
      <Section title={editing ? `Update action ${editing}` : 'Create an action'}>
        <form aria-label={editing ? 'Update action' : 'Create an action'} onSubmit={(e) => {
          e.preventDefault();
          void act.run(() => query(editing ? 'update_action' : 'create_action', { name: form.name, definition: definition(), comment: form.comment || undefined })).then((ok) => { if (ok) { md.reload(); setEditing(null); setForm(EMPTY); } });
        }}>
          <div className="row">
            <TextField label="Action name" value={form.name} onChange={(v) => set('name', v)} />
            <label className="field">Type<select value={form.type} onChange={(e) => set('type', e.target.value)}><option>mutation</option><option>query</option></select></label>
            <label className="field">Kind<select value={form.kind} disabled={form.type === 'query'} onChange={(e) => set('kind', e.target.value)}><option>synchronous</option><option>asynchronous</option></select></label>
            <TextField label="Output type" value={form.output} onChange={(v) => set('output', v)} placeholder="UserId!" />
            <TextField label="Handler URL" value={form.handler} onChange={(v) => set('handler', v)} placeholder="http://127.0.0.1:3000/handler or {{ENV}}/path" />
          </div>
          <JsonEditor label="Arguments" value={form.args} onChange={(v) => set('args', v)} rows={3} />
          <JsonEditor label="Handler headers" value={form.headers} onChange={(v) => set('headers', v)} rows={2} hint='[{"name": "x-key", "value_from_env": "MY_KEY"}]' />
          <div className="row">
            <label><input type="checkbox" checked={form.forward} onChange={(e) => set('forward', e.target.checked)} /> forward client headers</label>
            <TextField label="Comment" value={form.comment} onChange={(v) => set('comment', v)} />
          </div>
          <button type="submit" className="primary" disabled={act.busy}>{editing ? 'Update action' : 'Create action'}</button>{' '}
          {editing ? <button type="button" onClick={() => { setEditing(null); setForm(EMPTY); }}>Cancel</button> : null}
        </form>
      </Section>
      <Section title="Action permissions">
        <form className="row" aria-label="Action permission" onSubmit={(e) => e.preventDefault()}>
          <label className="field">Action<select value={form.name} onChange={(e) => set('name', e.target.value)}><option value="">(choose)</option>{actions.map((a) => <option key={a.name}>{a.name}</option>)}</select></label>
          <TextField label="Role" value={role} onChange={setRole} />
          <div className="field"><button type="button" onClick={() => void act.run(() => query('create_action_permission', { action: form.name, role })).then(md.reload)}>Allow role</button></div>
          <div className="field"><button type="button" className="danger" onClick={() => void act.run(() => query('drop_action_permission', { action: form.name, role })).then(md.reload)}>Revoke role</button></div>
        </form>
      </Section>
      <Section title="Custom types">
        <form aria-label="Custom types" onSubmit={(e) => { e.preventDefault(); void act.run(() => query('set_custom_types', parseJson(types, {}))).then(md.reload); }}>
          <JsonEditor label="Custom types (scalars, enums, input_objects, objects)" value={types} onChange={setTypes} rows={12} />
          <button type="submit" className="primary" disabled={act.busy}>Save custom types</button>
        </form>
      </Section>
    </div>
  );
}
