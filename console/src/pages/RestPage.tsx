/**
 * REST endpoints: create one from a query of a collection, or from a new query written here (added
 * to a collection, `allowed-queries` by default, in the same bulk), with a name, a URL template with
 * `:variables` and methods; edit (drop and create in one bulk), drop; try an endpoint over HTTP from the page; and
 * the engine's OpenAPI document of them (`GET /api/swagger/json`).
 */
import { useState } from 'react';
import { exportMetadata, openApiDocument, restCall } from '../api';
import { parse } from 'graphql';
import { DataTable, ErrorBox, Field, JsonEditor, Section, TextField, useAction, useLoad } from '../components';
import { buildOp, bulkOf, confirmOp, jsonField, opOf, OpPreview, sendOp, Spinner, type Op } from '../preview';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const NEW = '(new)';
/** A new query is kept where Hasura's console keeps the queries of its REST endpoints. */
const NEW_COLLECTION = 'allowed-queries';
const EMPTY = { name: '', url: '', methods: ['GET'] as string[], query: '', comment: '', editing: false, text: '', collection: NEW_COLLECTION };

function TryEndpoint({ endpoints }: { endpoints: any[] }) {
  const [t, setT] = useState({ method: 'GET', path: '', body: '' });
  const [answer, setAnswer] = useState<{ status: number; text: string } | null>(null);
  const act = useAction();
  const pretty = (text: string) => {
    try {
      return JSON.stringify(JSON.parse(text), null, 2);
    } catch {
      return text;
    }
  };
  return (
    <Section title="Try an endpoint">
      <form aria-label="Try an endpoint" onSubmit={(e) => {
        e.preventDefault();
        void act.run(async () => setAnswer(await restCall(t.method, t.path, t.method === 'GET' || t.method === 'DELETE' ? undefined : jsonField('Request body', t.body, {}))));
      }}>
        <div className="row">
          <label className="field">Method<select value={t.method} onChange={(e) => setT({ ...t, method: e.target.value })}>{METHODS.map((m) => <option key={m}>{m}</option>)}</select></label>
          <TextField label="Path after /api/rest/" value={t.path} onChange={(v) => setT({ ...t, path: v })} placeholder={endpoints[0]?.url?.replace(/:([A-Za-z_]\w*)/g, '1') ?? 'authors/1?limit=5'} />
          <div className="field"><button type="submit" disabled={act.busy}>Call</button></div>
          <Spinner on={act.busy} />
        </div>
        {t.method !== 'GET' && t.method !== 'DELETE' ? <JsonEditor label="Request body" value={t.body} onChange={(v) => setT({ ...t, body: v })} rows={2} /> : null}
      </form>
      <ErrorBox error={act.error} />
      {answer ? <pre className="log code" aria-label="Endpoint answer" tabIndex={0}>{`HTTP ${answer.status}\n${pretty(answer.text)}`}</pre> : null}
    </Section>
  );
}

export function RestPage() {
  const md = useLoad(exportMetadata);
  const act = useAction();
  const [status, setStatus] = useState('');
  const [form, setForm] = useState(EMPTY);
  const [openApi, setOpenApi] = useState<unknown>();
  const oa = useAction();
  const endpoints: any[] = md.data?.rest_endpoints ?? [];
  const queries = (md.data?.query_collections ?? []).flatMap((c: any) => (c.definition?.queries ?? []).map((q: any) => ({ collection: c.name, name: q.name, key: `${c.name}.${q.name}` })));
  const built = buildOp(() => {
    if (form.methods.length === 0) throw new Error('choose at least one method');
    const before: Op[] = form.editing ? [opOf('drop_rest_endpoint', { name: form.name })] : [];
    let q: { collection: string; name: string } | undefined = queries.find((x: any) => x.key === form.query);
    if (form.query === NEW) {
      // A new query: added to a collection (created when missing) in the same bulk, under the endpoint's name.
      if (!form.name) throw new Error('name the endpoint (the new query gets its name)');
      try {
        parse(form.text);
      } catch (e) {
        throw new Error(`the query is not GraphQL: ${(e as Error).message}`);
      }
      q = { collection: form.collection, name: form.name };
      if (!(md.data?.query_collections ?? []).some((c: any) => c.name === form.collection)) before.push(opOf('create_query_collection', { name: form.collection, definition: { queries: [] } }));
      before.push(opOf('add_query_to_collection', { collection_name: q.collection, query_name: q.name, query: form.text }));
    }
    if (!q) throw new Error('choose a query of a collection, or write a new one');
    const create = opOf('create_rest_endpoint', { name: form.name, url: form.url, methods: form.methods, definition: { query: { collection_name: q.collection, query_name: q.name } }, ...(form.comment ? { comment: form.comment } : {}) });
    return bulkOf([...before, create]);
  });
  return (
    <div>
      <h1>REST endpoints <Spinner on={md.loading} /></h1>
      <ErrorBox error={md.error ?? act.error} />
      {status ? <p className="ok" role="status">{status}</p> : null}
      <Section title="Endpoints">
        <DataTable
          columns={['name', 'URL', 'methods', 'query', 'comment']}
          rows={endpoints.map((e) => [e.name, `/api/rest/${e.url}`, (e.methods ?? []).join(', '), `${e.definition?.query?.collection_name}.${e.definition?.query?.query_name}`, e.comment ?? ''])}
          actions={(i) => {
            const e = endpoints[i];
            const drop = opOf('drop_rest_endpoint', { name: e.name });
            return (
              <>
                <button type="button" aria-label={`Edit ${e.name}`} onClick={() => setForm({ ...EMPTY, name: e.name, url: e.url, methods: e.methods ?? [], query: `${e.definition?.query?.collection_name}.${e.definition?.query?.query_name}`, comment: e.comment ?? '', editing: true })}>Edit</button>
                <button type="button" className="danger" aria-label={`Drop ${e.name}`} onClick={() => confirmOp(`Drop endpoint ${e.name}?`, drop) && void act.run(() => sendOp(drop)).then((ok) => { if (ok) setStatus(`${e.name} dropped`); md.reload(); })}>Drop</button>
              </>
            );
          }}
        />
      </Section>
      <Section title={form.editing ? `Edit endpoint ${form.name}` : 'Create an endpoint'}>
        <form aria-label={form.editing ? 'Edit a REST endpoint' : 'Create a REST endpoint'} onSubmit={(e) => {
          e.preventDefault();
          const name = form.name;
          if (built.op) void act.run(() => sendOp(built.op!)).then((ok) => { if (ok) { setStatus(`${name} saved`); setForm(EMPTY); } md.reload(); });
        }}>
          <div className="row">
            <label className="field">Endpoint name<input value={form.name} readOnly={form.editing} onChange={(e) => setForm({ ...form, name: e.target.value })} /></label>
            <TextField label="URL template (after /api/rest/)" value={form.url} onChange={(v) => setForm({ ...form, url: v })} placeholder="authors/:id" />
            <label className="field">Query<select value={form.query} onChange={(e) => setForm({ ...form, query: e.target.value })}><option value="">(choose)</option>{queries.map((q: any) => <option key={q.key} value={q.key}>{q.key}</option>)}<option value={NEW}>a new query…</option></select></label>
            <TextField label="Comment" value={form.comment} onChange={(v) => setForm({ ...form, comment: v })} />
          </div>
          {form.query === NEW ? (
            <>
              <TextField label="Collection of the new query" value={form.collection} onChange={(v) => setForm({ ...form, collection: v })} />
              <Field label="GraphQL query">{(id) => <textarea id={id} className="code" rows={4} spellCheck={false} value={form.text} onChange={(e) => setForm({ ...form, text: e.target.value })} placeholder="query author_by_id($id: Int!) { author_by_pk(id: $id) { id name } }" />}</Field>
            </>
          ) : null}
          <fieldset className="row">
            <legend>Methods</legend>
            {METHODS.map((m) => (
              <label key={m}><input type="checkbox" checked={form.methods.includes(m)} onChange={(e) => setForm({ ...form, methods: e.target.checked ? [...form.methods, m] : form.methods.filter((x) => x !== m) })} /> {m}</label>
            ))}
          </fieldset>
          <OpPreview built={built} />
          <button type="submit" className="primary" disabled={act.busy || !built.op}>{form.editing ? 'Save endpoint' : 'Create endpoint'}</button>
          <Spinner on={act.busy} />
          {form.editing ? <button type="button" onClick={() => setForm(EMPTY)}>Cancel</button> : null}
        </form>
      </Section>
      <TryEndpoint endpoints={endpoints} />
      <Section title="OpenAPI" actions={<><Spinner on={oa.busy} /><button type="button" onClick={() => void oa.run(async () => setOpenApi(await openApiDocument()))}>Show OpenAPI document</button></>}>
        <ErrorBox error={oa.error} />
        <p className="muted">GET /api/swagger/json (admin only): an OpenAPI 3.0 document of these endpoints.</p>
        {openApi ? <pre className="log code" aria-label="OpenAPI document" tabIndex={0}>{JSON.stringify(openApi, null, 2)}</pre> : null}
      </Section>
    </div>
  );
}
