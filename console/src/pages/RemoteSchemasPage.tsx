/**
 * Remote schemas: add, edit, reload, remove. The engine has no `update_remote_schema`; an edit is
 * one bulk (atomic) that deletes the remote relationships pointing at the remote, removes it, adds
 * it with the new definition and puts its permissions and those relationships back. Per remote: its
 * permissions per role as SDL (`add_remote_schema_permissions`, applied with
 * --enable-remote-schema-permissions) and the relationships from tables to it.
 */
import { useState } from 'react';
import { exportMetadata, refOf, tableKey } from '../api';
import { DataTable, ErrorBox, Field, JsonEditor, Section, TextField, useAction, useLoad } from '../components';
import { buildOp, bulkOf, confirmOp, jsonField, opOf, OpPreview, sendOp, Spinner, type Op } from '../preview';

const EMPTY = { name: '', urlKind: 'url', url: '', headers: '[]', forward: false, timeout: '60', comment: '' };

/** The remote relationships of every table that point at `remote`. */
const relationshipsTo = (md: any, remote: string) => (md?.tables ?? []).flatMap((t: any) =>
  (t.remote_relationships ?? []).filter((r: any) => r.definition?.remote_schema === remote).map((r: any) => ({ table: refOf(t.table), name: r.name, definition: r.definition })));

function RemoteForm({ md, editing, onDone }: { md: any; editing: any | null; onDone: (msg: string) => void }) {
  const act = useAction();
  // The form starts from the remote schema being edited (RemoteForm is keyed by it: its fields are there
  // in the first render, never the previous form's for a frame).
  const [form, setForm] = useState(() => {
    if (!editing) return EMPTY;
    const d = editing.definition;
    return { name: editing.name, urlKind: d.url_from_env ? 'env' : 'url', url: d.url_from_env ?? d.url ?? '', headers: JSON.stringify(d.headers ?? [], null, 2), forward: Boolean(d.forward_client_headers), timeout: String(d.timeout_seconds ?? 60), comment: editing.comment ?? '' };
  });
  const built = buildOp(() => {
    const add = opOf('add_remote_schema', {
      name: form.name, ...(form.comment ? { comment: form.comment } : {}),
      definition: { ...(form.urlKind === 'env' ? { url_from_env: form.url } : { url: form.url }), headers: jsonField('Headers to the remote', form.headers, []), forward_client_headers: form.forward, timeout_seconds: Number(form.timeout) },
    });
    if (!editing) return add;
    const rels = relationshipsTo(md, editing.name);
    const ops: Op[] = [
      ...rels.map((r: any) => opOf('delete_remote_relationship', { name: r.name, table: r.table })),
      opOf('remove_remote_schema', { name: editing.name }),
      add,
      ...(editing.permissions ?? []).map((p: any) => opOf('add_remote_schema_permissions', { remote_schema: editing.name, role: p.role, definition: p.definition, ...(p.comment ? { comment: p.comment } : {}) })),
      ...rels.map((r: any) => opOf('create_remote_relationship', { name: r.name, table: r.table, ...r.definition })),
    ];
    return bulkOf(ops);
  });
  return (
    <Section title={editing ? `Edit remote schema ${editing.name}` : 'Add a remote schema'}>
      <form aria-label={editing ? 'Edit a remote schema' : 'Add a remote schema'} onSubmit={(e) => {
        e.preventDefault();
        const name = form.name;
        if (built.op) void act.run(() => sendOp(built.op!)).then((ok) => { if (ok) { setForm(EMPTY); onDone(`${name} ${editing ? 'saved' : 'added'}`); } });
      }}>
        <div className="row">
          <label className="field">Remote schema name<input value={form.name} readOnly={Boolean(editing)} onChange={(e) => setForm({ ...form, name: e.target.value })} /></label>
          <label className="field">URL from<select value={form.urlKind} onChange={(e) => setForm({ ...form, urlKind: e.target.value })}><option value="url">URL</option><option value="env">environment variable</option></select></label>
          {form.urlKind === 'env'
            ? <TextField label="GraphQL server URL environment variable" value={form.url} onChange={(v) => setForm({ ...form, url: v })} />
            : <TextField label="GraphQL server URL" value={form.url} onChange={(v) => setForm({ ...form, url: v })} />}
          <TextField label="Timeout (s)" type="number" value={form.timeout} onChange={(v) => setForm({ ...form, timeout: v })} />
          <TextField label="Comment" value={form.comment} onChange={(v) => setForm({ ...form, comment: v })} />
          <label><input type="checkbox" checked={form.forward} onChange={(e) => setForm({ ...form, forward: e.target.checked })} /> forward client headers</label>
        </div>
        <JsonEditor label="Headers to the remote" value={form.headers} onChange={(v) => setForm({ ...form, headers: v })} rows={2} hint='[{"name": "authorization", "value_from_env": "REMOTE_TOKEN"}]' />
        <OpPreview built={built} />
        <ErrorBox error={act.error} />
        <button type="submit" className="primary" disabled={act.busy || !built.op}>{editing ? 'Save remote schema' : 'Add remote schema'}</button>
        <Spinner on={act.busy} />
        {editing ? <button type="button" onClick={() => onDone('')}>Cancel</button> : null}
      </form>
    </Section>
  );
}

const SDL_HINT = 'the part of the remote\'s schema the role sees, e.g. type Query { hello: String } ; @preset(value: "x-svc-user-id") on an argument fixes it from the session';

function Permissions({ remote, onChange }: { remote: any; onChange: () => void }) {
  const act = useAction();
  const perms: any[] = remote.permissions ?? [];
  const [role, setRole] = useState('');
  const [sdl, setSdl] = useState('type Query {\n}\n');
  const exists = perms.some((p) => p.role === role);
  const add = opOf('add_remote_schema_permissions', { remote_schema: remote.name, role, definition: { schema: sdl } });
  const built = buildOp(() => {
    if (!role) throw new Error('name the role');
    return exists ? bulkOf([opOf('drop_remote_schema_permissions', { remote_schema: remote.name, role }), add]) : add;
  });
  return (
    <Section title={`Permissions of ${remote.name}`}>
      <p className="hint">Applied when the engine runs with --enable-remote-schema-permissions (otherwise every role sees the whole remote).</p>
      <DataTable columns={['role', 'schema']} rows={perms.map((p) => [p.role, <pre key="s" className="log">{p.definition?.schema}</pre>])}
        actions={(i) => {
          const drop = opOf('drop_remote_schema_permissions', { remote_schema: remote.name, role: perms[i].role });
          return (
            <>
              <button type="button" aria-label={`Edit permission of ${perms[i].role}`} onClick={() => { setRole(perms[i].role); setSdl(perms[i].definition?.schema ?? ''); }}>Edit</button>
              <button type="button" className="danger" aria-label={`Drop permission of ${perms[i].role}`} onClick={() => confirmOp(`Drop the permission of ${perms[i].role}?`, drop) && void act.run(() => sendOp(drop)).then(onChange)}>Drop</button>
            </>
          );
        }} />
      <form aria-label="Remote schema permission" onSubmit={(e) => { e.preventDefault(); if (built.op) void act.run(() => sendOp(built.op!)).then((ok) => { if (ok) { setRole(''); onChange(); } }); }}>
        <TextField label="Role" value={role} onChange={setRole} />
        <Field label="Schema for the role (SDL)" hint={SDL_HINT}>{(id) => <textarea id={id} className="code" rows={5} spellCheck={false} value={sdl} onChange={(e) => setSdl(e.target.value)} />}</Field>
        <OpPreview built={built} />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy || !built.op}>{exists ? 'Save permission' : 'Add permission'}</button>
        <Spinner on={act.busy} />
      </form>
    </Section>
  );
}

const REL_EMPTY = { table: '', name: '', fields: '', remoteField: '{\n  "field": {"arguments": {"id": "$id"}}\n}' };

function Relationships({ remote, md, onChange }: { remote: any; md: any; onChange: () => void }) {
  const act = useAction();
  const rels = relationshipsTo(md, remote.name);
  const tables = (md?.tables ?? []).map((t: any) => refOf(t.table));
  const [rel, setRel] = useState(REL_EMPTY);
  const [editing, setEditing] = useState(false);
  const built = buildOp(() => {
    const table = tables.find((t: any) => tableKey(t) === rel.table);
    if (!table) throw new Error('choose a table');
    return opOf(editing ? 'update_remote_relationship' : 'create_remote_relationship', {
      name: rel.name, table, hasura_fields: rel.fields.split(',').map((f) => f.trim()).filter(Boolean), remote_schema: remote.name, remote_field: jsonField('Remote field', rel.remoteField, {}),
    });
  });
  return (
    <Section title={`Relationships to ${remote.name}`}>
      <DataTable columns={['table', 'name', 'columns', 'remote field']} rows={rels.map((r: any) => [tableKey(r.table), r.name, (r.definition.hasura_fields ?? []).join(', '), <code key="f">{JSON.stringify(r.definition.remote_field)}</code>])}
        actions={(i) => {
          const r = rels[i];
          const del = opOf('delete_remote_relationship', { name: r.name, table: r.table });
          return (
            <>
              <button type="button" aria-label={`Edit relationship ${r.name}`} onClick={() => { setEditing(true); setRel({ table: tableKey(r.table), name: r.name, fields: (r.definition.hasura_fields ?? []).join(', '), remoteField: JSON.stringify(r.definition.remote_field, null, 2) }); }}>Edit</button>
              <button type="button" className="danger" aria-label={`Delete relationship ${r.name}`} onClick={() => confirmOp(`Delete relationship ${r.name}?`, del) && void act.run(() => sendOp(del)).then(onChange)}>Delete</button>
            </>
          );
        }} />
      <form aria-label="Remote relationship" onSubmit={(e) => { e.preventDefault(); if (built.op) void act.run(() => sendOp(built.op!)).then((ok) => { if (ok) { setRel(REL_EMPTY); setEditing(false); onChange(); } }); }}>
        <div className="row">
          <label className="field">From table<select value={rel.table} disabled={editing} onChange={(e) => setRel({ ...rel, table: e.target.value })}><option value="">(choose)</option>{tables.map((t: any) => <option key={tableKey(t)}>{tableKey(t)}</option>)}</select></label>
          <label className="field">Relationship name<input value={rel.name} readOnly={editing} onChange={(e) => setRel({ ...rel, name: e.target.value })} /></label>
          <TextField label="Columns passed (comma-separated)" value={rel.fields} onChange={(v) => setRel({ ...rel, fields: v })} />
        </div>
        <JsonEditor label="Remote field" value={rel.remoteField} onChange={(v) => setRel({ ...rel, remoteField: v })} rows={3} hint='the remote root field and its arguments; "$column" passes a column of the row' />
        <OpPreview built={built} />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy || !built.op}>{editing ? 'Save relationship' : 'Add relationship'}</button>
        <Spinner on={act.busy} />
        {editing ? <button type="button" onClick={() => { setEditing(false); setRel(REL_EMPTY); }}>Cancel</button> : null}
      </form>
    </Section>
  );
}

export function RemoteSchemasPage() {
  const md = useLoad(exportMetadata);
  const act = useAction();
  const [status, setStatus] = useState('');
  const [editing, setEditing] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const remotes: any[] = md.data?.remote_schemas ?? [];
  const run = (op: Op, done: string) => act.run(() => sendOp(op)).then((ok) => { if (ok) setStatus(done); md.reload(); });
  const opened = remotes.find((r) => r.name === open);
  return (
    <div>
      <h1>Remote schemas <Spinner on={md.loading || act.busy} /></h1>
      <ErrorBox error={md.error ?? act.error} />
      {status ? <p className="ok" role="status">{status}</p> : null}
      <Section title="Remote schemas">
        <DataTable
          columns={['name', 'url', 'forward client headers', 'timeout (s)', 'roles', 'comment']}
          rows={remotes.map((r) => [r.name, r.definition.url ?? `env: ${r.definition.url_from_env}`, r.definition.forward_client_headers ? 'yes' : 'no', String(r.definition.timeout_seconds ?? 60), (r.permissions ?? []).map((p: any) => p.role).join(', '), r.comment ?? ''])}
          actions={(i) => {
            const r = remotes[i];
            const reload = opOf('reload_remote_schema', { name: r.name });
            const remove = opOf('remove_remote_schema', { name: r.name });
            return (
              <>
                <button type="button" aria-label={`Permissions and relationships of ${r.name}`} onClick={() => setOpen(r.name)}>Permissions</button>
                <button type="button" aria-label={`Edit ${r.name}`} onClick={() => { setEditing(r.name); setStatus(''); }}>Edit</button>
                <button type="button" onClick={() => void run(reload, `${r.name} reloaded`)}>Reload</button>
                <button type="button" className="danger" onClick={() => confirmOp(`Remove ${r.name}?`, remove) && void run(remove, `${r.name} removed`)}>Remove</button>
              </>
            );
          }}
        />
      </Section>
      {opened ? <><Permissions remote={opened} onChange={md.reload} /><Relationships remote={opened} md={md.data} onChange={md.reload} /></> : null}
      <RemoteForm key={editing ?? ''} md={md.data} editing={remotes.find((r) => r.name === editing) ?? null} onDone={(msg) => { setEditing(null); if (msg) setStatus(msg); md.reload(); }} />
    </div>
  );
}
