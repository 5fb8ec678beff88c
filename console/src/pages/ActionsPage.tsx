/**
 * Actions, as Hasura's console edits them: the action and its custom types written as SDL (parsed
 * into `create_action` / `update_action` and a `set_custom_types` that keeps the other types, both in
 * one bulk), handler, kind, headers and forwarded client headers. Per action: the roles allowed to
 * call it (grant / revoke), the relationships of its output type to tables, and a Node.js / Express
 * handler skeleton generated from its SDL. All custom types stay editable as one JSON document.
 */
import { useEffect, useState } from 'react';
import { exportMetadata, refOf, tableKey } from '../api';
import { actionToSdl, expressSkeleton, mergeTypes, parseActionSdl, parseTypesSdl, typesToSdl, type CustomRelationship, type CustomTypes } from '../actionSdl';
import { DataTable, ErrorBox, Field, JsonEditor, Section, TextField, useAction, useLoad } from '../components';
import { UrlConfField, urlConfInput, urlConfValue } from '../webhookField';
import { buildOp, bulkOf, confirmOp, jsonField, opOf, OpPreview, sendOp, Spinner, type Op } from '../preview';

const EMPTY = {
  sdl: 'type Mutation {\n  actionName(arg1: String!): ActionOutput\n}\n',
  types: 'type ActionOutput {\n  id: Int\n}\n',
  kind: 'synchronous', handler: urlConfInput(''), headers: '[]', forward: false, comment: '',
};

const signature = (a: any) => `${a.name}(${(a.definition.arguments ?? []).map((x: any) => `${x.name}: ${x.type}`).join(', ')}): ${a.definition.output_type}`;
const baseName = (t: string) => t.replace(/[[\]!\s]/g, '');

/** `waiting`: the custom types are being saved; the action (which may use them) waits for them. */
function ActionForm({ md, editing, onDone, waiting }: { md: any; editing: any | null; onDone: () => void; waiting: boolean }) {
  const act = useAction();
  const types: CustomTypes = md?.custom_types ?? {};
  // The form starts from the action being edited (ActionForm is keyed by it, so a new edit is a new form:
  // its fields are there in the first render, never the previous form's for a frame).
  const [form, setForm] = useState(() => {
    if (!editing) return EMPTY;
    const d = editing.definition;
    return {
      sdl: actionToSdl(editing.name, d, editing.comment), types: typesToSdl(types, d), kind: d.kind ?? 'synchronous', handler: urlConfInput(d.handler),
      headers: JSON.stringify(d.headers ?? [], null, 2), forward: Boolean(d.forward_client_headers), comment: editing.comment ?? '',
    };
  });
  const set = (k: keyof typeof EMPTY, v: unknown) => setForm({ ...form, [k]: v });
  let sig: ReturnType<typeof parseActionSdl> | undefined;
  const built = buildOp(() => {
    sig = parseActionSdl(form.sdl);
    if (editing && sig.name !== editing.name) throw new Error(`an action cannot be renamed (${editing.name}): drop it and create ${sig.name}`);
    const added = parseTypesSdl(form.types);
    const ops: Op[] = [];
    if (Object.values(added).some((l) => l?.length)) ops.push(opOf('set_custom_types', mergeTypes(types, added)));
    const definition = {
      type: sig.type, ...(sig.type === 'mutation' ? { kind: form.kind } : {}), arguments: sig.arguments, output_type: sig.output_type,
      handler: urlConfValue(form.handler), headers: jsonField('Handler headers', form.headers, []), forward_client_headers: form.forward,
    };
    const comment = form.comment || sig.description;
    ops.push(opOf(editing ? 'update_action' : 'create_action', { name: sig.name, definition, ...(comment ? { comment } : {}) }));
    return bulkOf(ops);
  });
  let codegen = '';
  try {
    codegen = expressSkeleton(parseActionSdl(form.sdl), mergeTypes(types, parseTypesSdl(form.types)), form.handler.kind === 'url' ? form.handler.text : '');
  } catch {
    codegen = '';
  }
  return (
    <Section title={editing ? `Edit action ${editing.name}` : 'Create an action'}>
      <form aria-label={editing ? 'Edit an action' : 'Create an action'} onSubmit={(e) => {
        e.preventDefault();
        if (built.op) void act.run(() => sendOp(built.op!)).then((ok) => { if (ok) { setForm(EMPTY); onDone(); } });
      }}>
        <div className="split">
          <Field label="Action definition (SDL)" hint='one field of "type Mutation" or "type Query"'>{(id) => <textarea id={id} className="code" rows={6} spellCheck={false} value={form.sdl} onChange={(e) => set('sdl', e.target.value)} />}</Field>
          <Field label="Types definition (SDL)" hint="type, input, enum and scalar definitions; they replace custom types of the same name">{(id) => <textarea id={id} className="code" rows={6} spellCheck={false} value={form.types} onChange={(e) => set('types', e.target.value)} />}</Field>
        </div>
        <div className="row">
          <UrlConfField name="Handler" value={form.handler} onChange={(v) => set('handler', v)} placeholder="http://127.0.0.1:3000/handler or {{ENV}}/path" />
          <label className="field">Kind<select value={form.kind} disabled={sig?.type === 'query'} onChange={(e) => set('kind', e.target.value)}><option>synchronous</option><option>asynchronous</option></select></label>
          <TextField label="Comment" value={form.comment} onChange={(v) => set('comment', v)} />
          <label><input type="checkbox" checked={form.forward} onChange={(e) => set('forward', e.target.checked)} /> forward client headers</label>
        </div>
        <JsonEditor label="Handler headers" value={form.headers} onChange={(v) => set('headers', v)} rows={2} hint='[{"name": "x-key", "value_from_env": "MY_KEY"}]' />
        <OpPreview built={built} />
        <ErrorBox error={act.error} />
        <button type="submit" className="primary" disabled={act.busy || waiting || !built.op}>{editing ? 'Save action' : 'Create action'}</button>
        <Spinner on={act.busy} />
        {editing ? <button type="button" onClick={onDone}>Cancel</button> : null}
      </form>
      {codegen ? (
        <details>
          <summary>Handler skeleton (Node.js / Express)</summary>
          <pre className="log code" aria-label="Handler skeleton" tabIndex={0}>{codegen}</pre>
          <button type="button" onClick={() => {
            const url = URL.createObjectURL(new Blob([codegen], { type: 'text/javascript' }));
            const a = document.createElement('a');
            a.href = url;
            a.download = 'handler.mjs';
            a.click();
            URL.revokeObjectURL(url);
          }}>Download handler.mjs</button>
        </details>
      ) : null}
    </Section>
  );
}

function Permissions({ action, onChange }: { action: any; onChange: () => void }) {
  const act = useAction();
  const [role, setRole] = useState('');
  const grant = opOf('create_action_permission', { action: action.name, role });
  const roles: any[] = action.permissions ?? [];
  return (
    <Section title={`Permissions of ${action.name}`}>
      <DataTable columns={['role', 'comment']} rows={roles.map((p) => [p.role, p.comment ?? ''])}
        actions={(i) => {
          const op = opOf('drop_action_permission', { action: action.name, role: roles[i].role });
          return <button type="button" className="danger" aria-label={`Revoke ${roles[i].role}`} onClick={() => confirmOp(`Revoke ${roles[i].role} from ${action.name}?`, op) && void act.run(() => sendOp(op)).then(onChange)}>Revoke</button>;
        }} />
      <form aria-label="Allow a role" onSubmit={(e) => { e.preventDefault(); void act.run(() => sendOp(grant)).then((ok) => { if (ok) { setRole(''); onChange(); } }); }}>
        <div className="row">
          <TextField label="Role" value={role} onChange={setRole} />
          <div className="field"><button type="submit" disabled={act.busy || !role}>Allow role</button></div>
          <Spinner on={act.busy} />
        </div>
        <OpPreview built={{ op: grant }} />
        <ErrorBox error={act.error} />
      </form>
    </Section>
  );
}

function Relationships({ action, md, onChange }: { action: any; md: any; onChange: () => void }) {
  const act = useAction();
  const types: CustomTypes = md?.custom_types ?? {};
  const outName = baseName(action.definition.output_type);
  const obj = types.objects?.find((o) => o.name === outName);
  const tables = (md?.tables ?? []).map((t: any) => refOf(t.table));
  const [rel, setRel] = useState({ name: '', type: 'object', table: '', mapping: '{}' });
  if (!obj) return <Section title={`Relationships of ${outName}`}><p className="muted">The output type {outName} is not an object type: it has no relationships.</p></Section>;
  const rels: CustomRelationship[] = obj.relationships ?? [];
  const withRels = (next: CustomRelationship[]): Op => opOf('set_custom_types', { ...types, objects: (types.objects ?? []).map((o) => (o.name === outName ? { ...o, relationships: next } : o)) });
  const built = buildOp(() => {
    const remote_table = tables.find((t: any) => tableKey(t) === rel.table);
    if (!remote_table) throw new Error('choose a table');
    if (!rel.name) throw new Error('name the relationship');
    return withRels([...rels.filter((r) => r.name !== rel.name), { name: rel.name, type: rel.type as 'object' | 'array', remote_table, field_mapping: jsonField('Field mapping', rel.mapping, {}) }]);
  });
  return (
    <Section title={`Relationships of ${outName}`}>
      <DataTable columns={['name', 'type', 'table', 'field mapping']} rows={rels.map((r) => [r.name, r.type, tableKey(refOf(r.remote_table)), JSON.stringify(r.field_mapping)])}
        actions={(i) => {
          const op = withRels(rels.filter((_, j) => j !== i));
          return <button type="button" className="danger" aria-label={`Remove relationship ${rels[i].name}`} onClick={() => confirmOp(`Remove relationship ${rels[i].name}?`, op) && void act.run(() => sendOp(op)).then(onChange)}>Remove</button>;
        }} />
      <form aria-label="Add an action relationship" onSubmit={(e) => { e.preventDefault(); if (built.op) void act.run(() => sendOp(built.op!)).then((ok) => { if (ok) { setRel({ name: '', type: 'object', table: '', mapping: '{}' }); onChange(); } }); }}>
        <div className="row">
          <TextField label="Relationship name" value={rel.name} onChange={(v) => setRel({ ...rel, name: v })} />
          <label className="field">Relationship type<select value={rel.type} onChange={(e) => setRel({ ...rel, type: e.target.value })}><option>object</option><option>array</option></select></label>
          <label className="field">Remote table<select value={rel.table} onChange={(e) => setRel({ ...rel, table: e.target.value })}><option value="">(choose)</option>{tables.map((t: any) => <option key={tableKey(t)}>{tableKey(t)}</option>)}</select></label>
        </div>
        <JsonEditor label="Field mapping" value={rel.mapping} onChange={(v) => setRel({ ...rel, mapping: v })} rows={2} hint={`{"<field of ${outName}>": "<column of the table>"}`} />
        <OpPreview built={built} />
        <ErrorBox error={act.error} />
        <button type="submit" disabled={act.busy || !built.op}>Add relationship</button>
        <Spinner on={act.busy} />
      </form>
    </Section>
  );
}

export function ActionsPage() {
  const md = useLoad(exportMetadata);
  const act = useAction();
  const actions: any[] = md.data?.actions ?? [];
  const [types, setTypes] = useState('{}');
  // What the user typed stays when the metadata is read again, until it is saved.
  const [typesEdited, setTypesEdited] = useState(false);
  const [editing, setEditing] = useState<string | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  useEffect(() => {
    if (!typesEdited) setTypes(JSON.stringify(md.data?.custom_types ?? {}, null, 2));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [md.data]);
  const typesAct = useAction();
  const typesOp = buildOp(() => opOf('set_custom_types', jsonField('Custom types', types, {})));
  const opened = actions.find((a) => a.name === open);
  return (
    <div>
      <h1>Actions <Spinner on={md.loading} /></h1>
      <ErrorBox error={md.error ?? act.error} />
      <Section title="Actions">
        <DataTable
          columns={['name', 'type', 'kind', 'signature', 'handler', 'roles']}
          rows={actions.map((a) => [a.name, a.definition.type ?? 'mutation', a.definition.kind ?? 'synchronous', signature(a), typeof a.definition.handler === 'string' ? a.definition.handler : `env: ${a.definition.handler?.from_env}`, (a.permissions ?? []).map((p: any) => p.role).join(', ')])}
          actions={(i) => {
            const a = actions[i];
            const op = opOf('drop_action', { name: a.name, clear_data: true });
            return (
              <>
                <button type="button" aria-label={`Permissions and relationships of ${a.name}`} onClick={() => setOpen(a.name)}>Permissions</button>
                <button type="button" aria-label={`Edit ${a.name}`} onClick={() => setEditing(a.name)}>Edit</button>
                <button type="button" className="danger" aria-label={`Drop ${a.name}`} onClick={() => confirmOp(`Drop action ${a.name}?`, op) && void act.run(() => sendOp(op)).then(() => { if (open === a.name) setOpen(null); md.reload(); })}>Drop</button>
              </>
            );
          }}
        />
      </Section>
      {opened ? <><Permissions action={opened} onChange={md.reload} /><Relationships action={opened} md={md.data} onChange={md.reload} /></> : null}
      <ActionForm key={editing ?? ''} waiting={typesAct.busy} md={md.data} editing={actions.find((a) => a.name === editing) ?? null} onDone={() => { setEditing(null); md.reload(); }} />
      <Section title="Custom types">
        <form aria-label="Custom types" onSubmit={(e) => { e.preventDefault(); if (typesOp.op) void typesAct.run(() => sendOp(typesOp.op!)).then((ok) => { if (ok) setTypesEdited(false); md.reload(); }); }}>
          <JsonEditor label="Custom types (scalars, enums, input_objects, objects)" value={types} onChange={(v) => { setTypes(v); setTypesEdited(true); }} rows={12} />
          <OpPreview built={typesOp} />
          <ErrorBox error={typesAct.error} />
          <button type="submit" className="primary" disabled={typesAct.busy || !typesOp.op}>Save custom types</button>
          <Spinner on={typesAct.busy} />
        </form>
      </Section>
    </div>
  );
}
