/** Remote schemas: list, add (URL, headers, forwarded client headers, timeout), reload, remove. */
import { useState } from 'react';
import { exportMetadata, query } from '../api';
import { DataTable, ErrorBox, JsonEditor, Section, TextField, useAction, useLoad, parseJson } from '../components';

export function RemoteSchemasPage() {
  const md = useLoad(exportMetadata);
  const act = useAction();
  const [status, setStatus] = useState('');
  const remotes: any[] = md.data?.remote_schemas ?? [];
  const [form, setForm] = useState({ name: '', url: '', headers: '[]', forward: false, timeout: '60', comment: '' });
  const run = (fn: () => Promise<unknown>, done: string) => act.run(fn).then((ok) => { if (ok) setStatus(done); md.reload(); });
  return (
    <div>
      <h1>Remote schemas</h1>
      <ErrorBox error={md.error ?? act.error} />
      {status ? <p className="ok" role="status">{status}</p> : null}
      <Section title="Remote schemas">
        <DataTable
          columns={['name', 'url', 'forward client headers', 'timeout (s)', 'comment']}
          rows={remotes.map((r) => [r.name, r.definition.url ?? `env: ${r.definition.url_from_env}`, r.definition.forward_client_headers ? 'yes' : 'no', String(r.definition.timeout_seconds ?? 60), r.comment ?? ''])}
          actions={(i) => (
            <>
              <button type="button" onClick={() => void run(() => query('reload_remote_schema', { name: remotes[i].name }), `${remotes[i].name} reloaded`)}>Reload</button>
              <button type="button" className="danger" onClick={() => confirm(`Remove ${remotes[i].name}?`) && run(() => query('remove_remote_schema', { name: remotes[i].name }), `${remotes[i].name} removed`)}>Remove</button>
            </>
          )}
        />
      </Section>
      <Section title="Add a remote schema">
        <form aria-label="Add a remote schema" onSubmit={(e) => {
          e.preventDefault();
          void run(() => query('add_remote_schema', { name: form.name, comment: form.comment || undefined, definition: { url: form.url, headers: parseJson(form.headers, []), forward_client_headers: form.forward, timeout_seconds: Number(form.timeout) } }), `${form.name} added`);
        }}>
          <div className="row">
            <TextField label="Remote schema name" value={form.name} onChange={(v) => setForm({ ...form, name: v })} />
            <TextField label="GraphQL server URL" value={form.url} onChange={(v) => setForm({ ...form, url: v })} />
            <TextField label="Timeout (s)" type="number" value={form.timeout} onChange={(v) => setForm({ ...form, timeout: v })} />
            <TextField label="Comment" value={form.comment} onChange={(v) => setForm({ ...form, comment: v })} />
            <label><input type="checkbox" checked={form.forward} onChange={(e) => setForm({ ...form, forward: e.target.checked })} /> forward client headers</label>
          </div>
          <JsonEditor label="Headers to the remote" value={form.headers} onChange={(v) => setForm({ ...form, headers: v })} rows={2} />
          <button type="submit" className="primary" disabled={act.busy}>Add remote schema</button>
        </form>
      </Section>
    </div>
  );
}
