/**
 * Metadata: export (download) / import (replace_metadata) / reload / clear, the inconsistent
 * objects with a drop button, and the query collections and the allow-list.
 */
import { useState } from 'react';
import { exportMetadata, query } from '../api';
import { DataTable, ErrorBox, Field, Section, TextField, useAction, useLoad } from '../components';

export function MetadataPage() {
  const md = useLoad(exportMetadata);
  const inc = useLoad(() => query('get_inconsistent_metadata', {}));
  const act = useAction();
  const [status, setStatus] = useState('');
  const [coll, setColl] = useState('');
  const [q, setQ] = useState({ collection: '', name: '', query: '' });
  const reloadAll = () => {
    md.reload();
    inc.reload();
  };
  const run = (fn: () => Promise<unknown>, done: string) => act.run(fn).then((ok) => {
    if (ok) setStatus(done);
    reloadAll();
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
  const collections: any[] = md.data?.query_collections ?? [];
  const allowed = new Set((md.data?.allowlist ?? []).map((a: any) => a.collection));
  const objects: any[] = inc.data?.inconsistent_objects ?? [];
  return (
    <div>
      <h1>Metadata</h1>
      <ErrorBox error={md.error ?? inc.error} />
      <ErrorBox error={act.error} />
      {status ? <p className="ok" role="status">{status}</p> : null}
      <Section title="Export, import, reload, clear">
        <div className="row">
          <button type="button" onClick={() => void act.run(download)}>Export metadata</button>
          <Field label="Import metadata (JSON)">
            {(id) => (
              <input id={id} type="file" accept="application/json,.json" onChange={async (e) => {
                const f = e.target.files?.[0];
                if (!f) return;
                const text = await f.text();
                e.target.value = '';
                if (!confirm('Replace all metadata with this file?')) return;
                void run(async () => query('replace_metadata', JSON.parse(text)), 'metadata imported');
              }} />
            )}
          </Field>
          <button type="button" onClick={() => void run(() => query('reload_metadata', {}), 'metadata reloaded')}>Reload metadata</button>
          <button type="button" className="danger" onClick={() => confirm('Clear all metadata (tables stay in the database)?') && run(() => query('clear_metadata', {}), 'metadata cleared')}>Clear metadata</button>
        </div>
      </Section>
      <Section title={`Inconsistent objects (${objects.length})`} actions={objects.length > 0 ? <button type="button" className="danger" onClick={() => void run(() => query('drop_inconsistent_metadata', {}), 'inconsistent objects dropped')}>Drop inconsistent objects</button> : null}>
        <DataTable columns={['type', 'definition', 'reason']} rows={objects.map((o) => [o.type, <code key="d">{JSON.stringify(o.definition)}</code>, o.reason])} />
      </Section>
      <Section title="Query collections and the allow-list">
        <DataTable
          columns={['collection', 'queries', 'in allow-list']}
          rows={collections.map((c) => [c.name, <ul key="q">{(c.definition?.queries ?? []).map((x: any) => <li key={x.name}><strong>{x.name}</strong>: <code>{x.query}</code> <button type="button" className="link" onClick={() => void run(() => query('drop_query_from_collection', { collection_name: c.name, query_name: x.name }), 'query dropped')}>drop</button></li>)}</ul>, allowed.has(c.name) ? 'yes' : 'no'])}
          actions={(i) => {
            const c = collections[i];
            return (
              <>
                {allowed.has(c.name)
                  ? <button type="button" onClick={() => void run(() => query('drop_collection_from_allowlist', { collection: c.name }), 'removed from the allow-list')}>Remove from allow-list</button>
                  : <button type="button" onClick={() => void run(() => query('add_collection_to_allowlist', { collection: c.name }), 'added to the allow-list')}>Add to allow-list</button>}
                <button type="button" className="danger" onClick={() => void run(() => query('drop_query_collection', { collection: c.name, cascade: true }), 'collection dropped')}>Drop</button>
              </>
            );
          }}
        />
        <form className="row" aria-label="Create a collection" onSubmit={(e) => { e.preventDefault(); void run(() => query('create_query_collection', { name: coll, definition: { queries: [] } }), 'collection created'); setColl(''); }}>
          <TextField label="New collection" value={coll} onChange={setColl} />
          <div className="field"><button type="submit">Create collection</button></div>
        </form>
        <form aria-label="Add a query to a collection" onSubmit={(e) => { e.preventDefault(); void run(() => query('add_query_to_collection', { collection_name: q.collection, query_name: q.name, query: q.query }), 'query added'); }}>
          <div className="row">
            <Field label="Collection">{(id) => <select id={id} value={q.collection} onChange={(e) => setQ({ ...q, collection: e.target.value })}><option value="">(choose)</option>{collections.map((c) => <option key={c.name}>{c.name}</option>)}</select>}</Field>
            <TextField label="Query name" value={q.name} onChange={(v) => setQ({ ...q, name: v })} />
          </div>
          <Field label="Query">{(id) => <textarea id={id} className="code" rows={3} value={q.query} onChange={(e) => setQ({ ...q, query: e.target.value })} />}</Field>
          <button type="submit">Add query</button>
        </form>
      </Section>
    </div>
  );
}
