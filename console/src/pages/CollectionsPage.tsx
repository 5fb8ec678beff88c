/**
 * Query collections and the allow-list: create and drop collections, add, edit (drop and add in one
 * bulk) and drop their queries (each checked as GraphQL before it is sent), and put collections on
 * or off the allow-list. Whether the engine enforces the allow-list (--enable-allowlist) is read
 * from the config API.
 */
import { useState } from 'react';
import { parse } from 'graphql';
import { engineConfig, exportMetadata } from '../api';
import { DataTable, ErrorBox, Field, Section, TextField, useAction, useLoad } from '../components';
import { buildOp, bulkOf, confirmOp, opOf, OpPreview, sendOp, Spinner, type Op } from '../preview';

const Q_EMPTY = { collection: '', name: '', query: '', editing: false };

export function CollectionsPage() {
  const md = useLoad(exportMetadata);
  const config = useLoad(engineConfig);
  const act = useAction();
  const [status, setStatus] = useState('');
  const [coll, setColl] = useState({ name: '', comment: '' });
  const [q, setQ] = useState(Q_EMPTY);
  const collections: any[] = md.data?.query_collections ?? [];
  const allowed = new Set<string>((md.data?.allowlist ?? []).map((a: any) => a.collection));
  const run = (op: Op, done: string) => act.run(() => sendOp(op)).then((ok) => { if (ok) setStatus(done); md.reload(); return ok; });
  const create = opOf('create_query_collection', { name: coll.name, ...(coll.comment ? { comment: coll.comment } : {}), definition: { queries: [] } });
  const addQuery = buildOp(() => {
    if (!q.collection) throw new Error('choose a collection');
    try {
      parse(q.query);
    } catch (e) {
      throw new Error(`the query is not GraphQL: ${(e as Error).message}`);
    }
    const add = opOf('add_query_to_collection', { collection_name: q.collection, query_name: q.name, query: q.query });
    return q.editing ? bulkOf([opOf('drop_query_from_collection', { collection_name: q.collection, query_name: q.name }), add]) : add;
  });
  return (
    <div>
      <h1>Query collections and the allow-list <Spinner on={md.loading || act.busy} /></h1>
      <ErrorBox error={md.error ?? act.error} />
      {status ? <p className="ok" role="status">{status}</p> : null}
      {config.data ? <p className="muted">The allow-list is {config.data.is_allow_list_enabled ? 'enforced by this engine: only the queries of its collections run (admin excepted)' : 'not enforced by this engine (start it with --enable-allowlist to enforce it)'}.</p> : null}
      <Section title="Collections">
        <DataTable
          columns={['collection', 'queries', 'in allow-list', 'comment']}
          rows={collections.map((c) => [c.name, (
            <ul key="q" className="plain">
              {(c.definition?.queries ?? []).map((x: any) => {
                const drop = opOf('drop_query_from_collection', { collection_name: c.name, query_name: x.name });
                return (
                  <li key={x.name}>
                    <strong>{x.name}</strong>: <code>{x.query}</code>{' '}
                    <button type="button" className="link" aria-label={`Edit query ${x.name} of ${c.name}`} onClick={() => setQ({ collection: c.name, name: x.name, query: x.query, editing: true })}>edit</button>{' '}
                    <button type="button" className="link" aria-label={`Drop query ${x.name} of ${c.name}`} onClick={() => confirmOp(`Drop query ${x.name}?`, drop) && void run(drop, 'query dropped')}>drop</button>
                  </li>
                );
              })}
            </ul>
          ), allowed.has(c.name) ? 'yes' : 'no', c.comment ?? ''])}
          actions={(i) => {
            const c = collections[i];
            const off = opOf('drop_collection_from_allowlist', { collection: c.name });
            const on = opOf('add_collection_to_allowlist', { collection: c.name });
            const drop = opOf('drop_query_collection', { collection: c.name, cascade: true });
            return (
              <>
                {allowed.has(c.name)
                  ? <button type="button" aria-label={`Remove ${c.name} from the allow-list`} onClick={() => confirmOp(`Remove ${c.name} from the allow-list?`, off) && void run(off, 'removed from the allow-list')}>Remove from allow-list</button>
                  : <button type="button" aria-label={`Add ${c.name} to the allow-list`} onClick={() => confirmOp(`Add ${c.name} to the allow-list?`, on) && void run(on, 'added to the allow-list')}>Add to allow-list</button>}
                <button type="button" className="danger" aria-label={`Drop collection ${c.name}`} onClick={() => confirmOp(`Drop collection ${c.name} (and its allow-list entry and REST endpoints)?`, drop) && void run(drop, 'collection dropped')}>Drop</button>
              </>
            );
          }}
        />
      </Section>
      <Section title="Create a collection">
        <form aria-label="Create a collection" onSubmit={(e) => { e.preventDefault(); void run(create, 'collection created').then((ok) => ok && setColl({ name: '', comment: '' })); }}>
          <div className="row">
            <TextField label="Collection name" value={coll.name} onChange={(v) => setColl({ ...coll, name: v })} />
            <TextField label="Comment" value={coll.comment} onChange={(v) => setColl({ ...coll, comment: v })} />
            <div className="field"><button type="submit" disabled={act.busy || !coll.name}>Create collection</button></div>
          </div>
          <OpPreview built={{ op: create }} />
        </form>
      </Section>
      <Section title={q.editing ? `Edit query ${q.name} of ${q.collection}` : 'Add a query to a collection'}>
        <form aria-label={q.editing ? 'Edit a query of a collection' : 'Add a query to a collection'} onSubmit={(e) => { e.preventDefault(); if (addQuery.op) void run(addQuery.op, q.editing ? 'query saved' : 'query added').then((ok) => ok && setQ(Q_EMPTY)); }}>
          <div className="row">
            <Field label="Collection">{(id) => <select id={id} value={q.collection} disabled={q.editing} onChange={(e) => setQ({ ...q, collection: e.target.value })}><option value="">(choose)</option>{collections.map((c) => <option key={c.name}>{c.name}</option>)}</select>}</Field>
            <Field label="Query name">{(id) => <input id={id} value={q.name} readOnly={q.editing} onChange={(e) => setQ({ ...q, name: e.target.value })} />}</Field>
          </div>
          <Field label="Query">{(id) => <textarea id={id} className="code" rows={4} spellCheck={false} value={q.query} onChange={(e) => setQ({ ...q, query: e.target.value })} />}</Field>
          <OpPreview built={addQuery} />
          <button type="submit" disabled={act.busy || !addQuery.op}>{q.editing ? 'Save query' : 'Add query'}</button>
          {q.editing ? <button type="button" onClick={() => setQ(Q_EMPTY)}>Cancel</button> : null}
        </form>
      </Section>
    </div>
  );
}
