/**
 * Settings, as Hasura's console has them: metadata export (a JSON download), import (a JSON file
 * sent as `replace_metadata` after its preview; the engine's error shown with the objects it names),
 * reload (optionally re-fetching remote schemas and re-creating event triggers), the inconsistent
 * objects (drop one, or all), and reset (`clear_metadata`).
 */
import { useState } from 'react';
import { EngineError, exportMetadata, query } from '../api';
import { DataTable, ErrorBox, Field, Section, useAction, useLoad } from '../components';
import { confirmOp, opOf, OpPreview, sendOp, Spinner, type Op } from '../preview';
import { onSource } from '../sources';

/** The operation that drops one inconsistent object, where its type has one: on the object's database (`definition.source`). */
function dropOpOf(o: { type: string; definition: any; name?: string }): Op | undefined {
  const op = dropOpOfObject(o);
  const source = o.definition?.source;
  return op && typeof source === 'string' ? onSource(op, source) : op;
}

function dropOpOfObject(o: { type: string; definition: any; name?: string }): Op | undefined {
  const d = o.definition ?? {};
  const table = d.table;
  switch (o.type) {
    case 'table': return opOf('untrack_table', { table: d.table ?? d, cascade: true });
    case 'object_relation':
    case 'array_relation': return opOf('drop_relationship', { table, relationship: d.name });
    case 'insert_permission':
    case 'select_permission':
    case 'update_permission':
    case 'delete_permission': return opOf(`drop_${o.type}`, { table, role: d.role });
    case 'event_trigger': return opOf('delete_event_trigger', { name: d.configuration?.name ?? d.name });
    case 'remote_schema': return opOf('remove_remote_schema', { name: d.name });
    case 'remote_relationship': return opOf('delete_remote_relationship', { table, name: d.name });
    case 'computed_field': return opOf('drop_computed_field', { table, name: d.name });
    case 'function': return opOf('untrack_function', { function: d.function ?? d });
    case 'action': return opOf('drop_action', { name: d.name });
    case 'action_permission': return opOf('drop_action_permission', { action: d.action, role: d.role });
    case 'cron_trigger': return opOf('delete_cron_trigger', { name: d.name });
    case 'rest_endpoint': return opOf('drop_rest_endpoint', { name: d.name });
    case 'inherited_role': return opOf('drop_inherited_role', { role_name: d.role_name });
    case 'source': return d.name === 'default' ? undefined : opOf('drop_source', { name: d.name, cascade: true });
    default: return undefined;
  }
}

const describe = (o: any): string => o.name ?? o.definition?.name ?? o.definition?.configuration?.name ?? (typeof o.definition?.table === 'object' ? o.definition.table.name : '') ?? '';

export function MetadataPage() {
  const inc = useLoad(() => query('get_inconsistent_metadata', {}));
  const act = useAction();
  const [status, setStatus] = useState('');
  const [file, setFile] = useState<{ name: string; doc?: unknown; problem?: string } | null>(null);
  const [allowInconsistent, setAllowInconsistent] = useState(false);
  const [reloadOpts, setReloadOpts] = useState({ remotes: true, triggers: false });
  const run = (op: Op, done: string) => act.run(() => sendOp(op)).then((ok) => {
    if (ok) setStatus(done);
    inc.reload();
    return ok;
  });
  const download = async () => {
    const m = await exportMetadata();
    const url = URL.createObjectURL(new Blob([JSON.stringify(m, null, 2)], { type: 'application/json' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'metadata.json';
    a.click();
    URL.revokeObjectURL(url);
    setStatus('metadata exported');
  };
  const importOp = file?.doc !== undefined ? opOf('replace_metadata', allowInconsistent ? { metadata: file.doc, allow_inconsistent_metadata: true } : file.doc) : undefined;
  const reload = opOf('reload_metadata', { reload_remote_schemas: reloadOpts.remotes, reload_sources: true, recreate_event_triggers: reloadOpts.triggers });
  const reset = opOf('clear_metadata', {});
  const dropAll = opOf('drop_inconsistent_metadata', {});
  const objects: any[] = inc.data?.inconsistent_objects ?? [];
  const internal = act.error instanceof EngineError && act.error.internal !== undefined ? act.error.internal : undefined;
  return (
    <div>
      <h1>Metadata <Spinner on={inc.loading || act.busy} /></h1>
      <ErrorBox error={inc.error} />
      <ErrorBox error={act.error} />
      {internal ? <pre className="log code" aria-label="Details of the error">{JSON.stringify(internal, null, 2)}</pre> : null}
      {status ? <p className="ok" role="status">{status}</p> : null}
      <Section title="Export and import">
        <div className="row">
          <button type="button" onClick={() => void act.run(download)}>Export metadata</button>
          <Field label="Import metadata (JSON)">
            {(id) => (
              <input id={id} type="file" accept="application/json,.json" onChange={async (e) => {
                const f = e.target.files?.[0];
                if (!f) return;
                const text = await f.text();
                e.target.value = '';
                try {
                  setFile({ name: f.name, doc: JSON.parse(text) });
                } catch (err) {
                  setFile({ name: f.name, problem: `${f.name} is not JSON: ${(err as Error).message}` });
                }
              }} />
            )}
          </Field>
        </div>
        {file ? (
          <form aria-label="Import metadata" onSubmit={(e) => { e.preventDefault(); if (importOp) void run(importOp, `metadata imported from ${file.name}`).then((ok) => ok && setFile(null)); }}>
            <label><input type="checkbox" checked={allowInconsistent} onChange={(e) => setAllowInconsistent(e.target.checked)} /> allow inconsistent metadata</label>
            <OpPreview built={importOp ? { op: importOp } : { problem: file.problem }} label="Metadata to import" />
            <button type="submit" className="primary" disabled={act.busy || !importOp}>Import {file.name}</button>{' '}
            <button type="button" onClick={() => setFile(null)}>Cancel</button>
          </form>
        ) : null}
      </Section>
      <Section title="Reload">
        <form aria-label="Reload metadata" onSubmit={(e) => { e.preventDefault(); void run(reload, 'metadata reloaded'); }}>
          <div className="row">
            <label><input type="checkbox" checked={reloadOpts.remotes} onChange={(e) => setReloadOpts({ ...reloadOpts, remotes: e.target.checked })} /> reload all remote schemas</label>
            <label><input type="checkbox" checked={reloadOpts.triggers} onChange={(e) => setReloadOpts({ ...reloadOpts, triggers: e.target.checked })} /> recreate event triggers</label>
            <button type="submit" disabled={act.busy}>Reload metadata</button>
          </div>
          <OpPreview built={{ op: reload }} />
        </form>
      </Section>
      <Section title={`Inconsistent objects (${objects.length})`} actions={objects.length > 0 ? <button type="button" className="danger" onClick={() => confirmOp('Drop every inconsistent object from the metadata?', dropAll) && void run(dropAll, 'inconsistent objects dropped')}>Drop inconsistent objects</button> : null}>
        <DataTable
          columns={['type', 'name', 'definition', 'reason']}
          rows={objects.map((o) => [o.type, describe(o), <code key="d">{JSON.stringify(o.definition)}</code>, o.reason])}
          actions={(i) => {
            const op = dropOpOf(objects[i]);
            return op ? <button type="button" className="danger" aria-label={`Drop ${objects[i].type} ${describe(objects[i])}`} onClick={() => confirmOp(`Drop ${objects[i].type} ${describe(objects[i])}?`, op) && void run(op, `${objects[i].type} ${describe(objects[i])} dropped`)}>Drop</button> : null;
          }}
        />
      </Section>
      <Section title="Reset">
        <p className="muted">Clears the metadata: every table untracked, every trigger, action, remote schema and permission gone. The database's tables and rows stay.</p>
        <button type="button" className="danger" disabled={act.busy} onClick={() => confirmOp('Reset (clear) all metadata?', reset) && void run(reset, 'metadata reset')}>Reset metadata</button>
      </Section>
    </div>
  );
}
