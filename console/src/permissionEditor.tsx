/**
 * The editor of one permission (a role and an action on a table): columns as checkboxes (with
 * "all columns"), computed fields (select), the row filter and the check each as a
 * boolean-expression builder beside its raw JSON (kept in sync both ways), column presets (a static
 * value or a session variable), row limit, aggregations, backend-only; cloning the permission to
 * other roles and actions; deleting it. The metadata JSON each button sends is shown before it is
 * sent; saving drops and re-creates the permission in one bulk call, so a refused change leaves the
 * old one, and the engine's error is shown next to the field its path names.
 */
import { useState } from 'react';
import { bulk, EngineError, type TableRef } from './api';
import { BoolExpBuilder, typedValue } from './boolExpBuilder';
import { ErrorBox, Field, JsonEditor, Section, TextField, useAction } from './components';
import type { Catalog } from './tableCatalog';
import { DEFAULT_SOURCE, onSource } from './sources';

export const ACTIONS = ['insert', 'select', 'update', 'delete'] as const;
export type Action = (typeof ACTIONS)[number];

type Op = { type: string; args: unknown; source?: string };
type Perm = Record<string, unknown>;

/**
 * Which form field an engine error belongs to: the one its JSON path names
 * (`…permission.filter._eq`), else the JSON field whose text holds the name the message is about
 * (`unknown operator: _nosuch`, `column "x" does not exist`), else the form as a whole.
 */
export function fieldOf(e: unknown, texts: Record<string, string>): string {
  if (!(e instanceof EngineError)) return 'form';
  for (const f of ['filter', 'check', 'columns', 'computed_fields', 'set', 'limit', 'backend_only']) if (new RegExp(`\\.${f}\\b`).test(e.path ?? '')) return f;
  const names = [...e.message.matchAll(/"([^"]+)"|: ([_A-Za-z][_0-9A-Za-z]*)\s*$/g)].map((m) => m[1] ?? m[2]).filter((n) => n && !/^(table|role|user)$/.test(n));
  for (const n of names.reverse()) {
    const hits = Object.keys(texts).filter((f) => texts[f].includes(`"${n}"`));
    if (hits.length === 1) return hits[0];
  }
  return 'form';
}

/** The permission of action `to` made from `p`, a permission of action `from` (for cloning). */
export function mapPermission(p: Perm, from: Action, to: Action, allColumns: string[]): Perm {
  if (from === to) return p;
  const filter = p.filter ?? p.check ?? {};
  const columns = p.columns ?? allColumns;
  const out: Perm = {};
  if (to !== 'delete') out.columns = columns;
  if (to === 'insert') out.check = filter;
  if (to === 'select' || to === 'update' || to === 'delete') out.filter = filter;
  if (to === 'update') out.check = from === 'insert' ? (p.check ?? {}) : {};
  if ((to === 'insert' || to === 'update') && (from === 'insert' || from === 'update') && p.set) out.set = p.set;
  if (to !== 'select' && from !== 'select' && p.backend_only) out.backend_only = true;
  return out;
}

/** The actions a permission of `from` can be cloned to: all of them, but a delete permission (no columns) only to delete. */
export const cloneTargets = (from: Action): Action[] => (from === 'delete' ? ['delete'] : [...ACTIONS]);

/** The ops that (re)create `permission` for each role × action, dropping what exists first. */
export function saveOps(table: TableRef, targets: Array<{ role: string; action: Action; exists: boolean; permission: Perm }>): Op[] {
  return targets.flatMap((t) => [
    ...(t.exists ? [{ type: `drop_${t.action}_permission`, args: { table, role: t.role } }] : []),
    { type: `create_${t.action}_permission`, args: { table, role: t.role, permission: t.permission } },
  ]);
}

interface Preset {
  column: string;
  kind: 'static' | 'session';
  value: string;
}

const SESSION_RE = /^x-svc-/i;
const pretty = (v: unknown) => JSON.stringify(v, null, 2);
const parseOr = (text: string): unknown => {
  try {
    return text.trim() === '' ? {} : JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** A boolean expression edited with the builder and as raw JSON, the two kept in sync. */
function ExpEditor({ label, name, text, setText, catalog, table, error }: { label: string; name: string; text: string; setText: (t: string) => void; catalog: Catalog; table: TableRef; error: unknown }) {
  const value = parseOr(text);
  return (
    <div className="bx-pair">
      <div className="bx-side">
        <div className="bx-title">{label}: builder</div>
        {value !== undefined && typeof value === 'object' && value !== null && !Array.isArray(value) ? (
          <BoolExpBuilder catalog={catalog} table={table} name={name} value={value} onChange={(v) => setText(pretty(v))} />
        ) : <p className="muted">The JSON is not an object yet: fix it on the right to use the builder.</p>}
      </div>
      <JsonEditor label={label} value={text} onChange={setText} rows={8} error={error} hint="raw JSON, kept in sync with the builder" />
    </div>
  );
}

/** What a button will send, shown before it is sent (focusable, named for screen readers and tests). */
export function Preview({ label, value }: { label: string; value: unknown }) {
  return (
    <div className="field">
      <span className="field-label">{label}</span>
      <pre className="code preview" tabIndex={0} aria-label={label}>{typeof value === 'string' ? value : pretty(value)}</pre>
    </div>
  );
}

export interface EditorProps {
  table: TableRef;
  catalog: Catalog;
  role: string;
  action: Action;
  /** The table's permissions per action, as exported (`[{role, permission}]`). */
  perms: (a: Action) => Array<{ role: string; permission: Perm }>;
  roles: string[];
  onDone: () => void;
  /** The database of the table (its operations carry it). */
  source?: string;
}

export function PermissionEditor({ table, catalog, role, action, perms, roles, onDone, source = DEFAULT_SOURCE }: EditorProps) {
  const existing = perms(action).find((p) => p.role === role);
  const p: any = existing?.permission ?? {};
  const info = catalog.tables.get(`${table.schema}.${table.name}`);
  const columns = info?.columns.map((c) => c.name) ?? [];
  const [cols, setCols] = useState<string[]>(p.columns === '*' ? columns : (p.columns ?? []));
  const [computed, setComputed] = useState<string[]>(p.computed_fields ?? []);
  const [filter, setFilter] = useState(pretty(p.filter ?? {}));
  const [check, setCheck] = useState(pretty(p.check ?? {}));
  const [presets, setPresets] = useState<Preset[]>(Object.entries(p.set ?? {}).map(([column, v]) => ({ column, kind: typeof v === 'string' && SESSION_RE.test(v) ? 'session' : 'static', value: typeof v === 'string' ? v : JSON.stringify(v) })));
  const [limit, setLimit] = useState(p.limit !== undefined && p.limit !== null ? String(p.limit) : '');
  const [agg, setAgg] = useState(Boolean(p.allow_aggregations));
  const [backendOnly, setBackendOnly] = useState(Boolean(p.backend_only));
  const [cloneRoles, setCloneRoles] = useState<string[]>([]);
  const [cloneNewRole, setCloneNewRole] = useState('');
  const [cloneActions, setCloneActions] = useState<Action[]>([action]);
  const [armDelete, setArmDelete] = useState(false);
  const act = useAction();
  const cloneAct = useAction();

  const texts: Record<string, string> = {};
  if (action !== 'insert') texts.filter = filter;
  if (action === 'insert' || action === 'update') texts.check = check;
  const errFor = (f: string) => (act.error && fieldOf(act.error, texts) === f ? act.error : undefined);

  // The permission as the form stands; a JSON problem names the field instead.
  let problem: string | undefined;
  const permission: Perm = {};
  if (action !== 'delete') permission.columns = columns.filter((c) => cols.includes(c)).concat(cols.filter((c) => !columns.includes(c)));
  if (action === 'select' && computed.length > 0) permission.computed_fields = computed;
  if (action !== 'insert') {
    const f = parseOr(filter);
    if (f === undefined) problem = 'the row filter is not valid JSON';
    permission.filter = f ?? {};
  }
  if (action === 'insert' || action === 'update') {
    const c = parseOr(check);
    if (c === undefined) problem = 'the check is not valid JSON';
    permission.check = c ?? {};
    const set: Record<string, unknown> = {};
    for (const s of presets) {
      if (!s.column) continue;
      const type = info?.columns.find((c) => c.name === s.column)?.type ?? 'text';
      set[s.column] = s.kind === 'session' ? s.value : typedValue(s.value, type);
    }
    if (Object.keys(set).length > 0) permission.set = set;
  }
  if (action === 'select') {
    if (limit !== '') permission.limit = Number(limit);
    permission.allow_aggregations = agg;
  }
  if (action !== 'select' && backendOnly) permission.backend_only = true;

  const ops = saveOps(table, [{ role, action, exists: Boolean(existing), permission }]).map((o) => onSource(o, source));
  const dropOps: Op[] = [onSource({ type: `drop_${action}_permission`, args: { table, role } }, source)];
  const allCloneRoles = [...new Set([...cloneRoles, ...(cloneNewRole.trim() ? [cloneNewRole.trim()] : [])])];
  const cloneOps = saveOps(
    table,
    allCloneRoles.flatMap((r) => cloneActions.filter((a) => r !== role || a !== action).map((a) => ({ role: r, action: a, exists: perms(a).some((x) => x.role === r), permission: mapPermission(permission, action, a, columns) }))),
  ).map((o) => onSource(o, source));

  const save = () => act.run(async () => {
    if (problem) throw new EngineError('invalid-json', problem, undefined, 0);
    await bulk(ops);
    onDone();
  });
  const allChecked = columns.length > 0 && columns.every((c) => cols.includes(c));
  const otherRoles = roles.filter((r) => r !== role);

  return (
    <Section title={`${action} permission for role ${role}`}>
      <form aria-label={`${action} permission for ${role}`} onSubmit={(e) => { e.preventDefault(); void save(); }}>
        {action !== 'delete' ? (
          <Field label="Columns" error={errFor('columns')}>
            {(id) => (
              <div id={id} role="group" className="row">
                <label><input type="checkbox" checked={allChecked} onChange={(e) => setCols(e.target.checked ? columns : [])} /> all columns</label>
                {columns.map((c) => (
                  <label key={c}><input type="checkbox" checked={cols.includes(c)} onChange={(e) => setCols(e.target.checked ? [...cols, c] : cols.filter((x) => x !== c))} /> {c}</label>
                ))}
              </div>
            )}
          </Field>
        ) : null}
        {action === 'select' && (info?.computedFields.length ?? 0) > 0 ? (
          <Field label="Computed fields" error={errFor('computed_fields')}>
            {(id) => (
              <div id={id} role="group" className="row">
                {info!.computedFields.map((c) => (
                  <label key={c}><input type="checkbox" checked={computed.includes(c)} onChange={(e) => setComputed(e.target.checked ? [...computed, c] : computed.filter((x) => x !== c))} /> {c}</label>
                ))}
              </div>
            )}
          </Field>
        ) : null}
        {action !== 'insert' ? <ExpEditor label="Row filter" name="filter" text={filter} setText={setFilter} catalog={catalog} table={table} error={errFor('filter')} /> : null}
        {action === 'insert' || action === 'update' ? <ExpEditor label="Check" name="check" text={check} setText={setCheck} catalog={catalog} table={table} error={errFor('check')} /> : null}
        {action === 'insert' || action === 'update' ? (
          <Field label="Column presets" error={errFor('set')} hint="a static value, or a session variable (X-Svc-User-Id …) taken from the request">
            {(id) => (
              <div id={id} role="group">
                {presets.map((s, i) => {
                  const put = (x: Partial<Preset>) => setPresets(presets.map((y, j) => (j === i ? { ...y, ...x } : y)));
                  return (
                    <div key={i} className="row preset">
                      <select aria-label={`Preset ${i + 1} column`} value={s.column} onChange={(e) => put({ column: e.target.value })}>
                        <option value="">column…</option>
                        {columns.map((c) => <option key={c} value={c}>{c}</option>)}
                      </select>
                      <select aria-label={`Preset ${i + 1} kind`} value={s.kind} onChange={(e) => put({ kind: e.target.value as Preset['kind'] })}>
                        <option value="static">static value</option>
                        <option value="session">session variable</option>
                      </select>
                      <input aria-label={`Preset ${i + 1} value`} list={s.kind === 'session' ? `${id}-vars` : undefined} value={s.value} onChange={(e) => put({ value: e.target.value })} />
                      <button type="button" className="link" aria-label={`Remove preset ${i + 1}`} onClick={() => setPresets(presets.filter((_, j) => j !== i))}>✕</button>
                    </div>
                  );
                })}
                <datalist id={`${id}-vars`}>{catalog.sessionVariables.map((v) => <option key={v} value={v} />)}</datalist>
                <button type="button" onClick={() => setPresets([...presets, { column: '', kind: 'session', value: 'X-Svc-User-Id' }])}>Add preset</button>
              </div>
            )}
          </Field>
        ) : null}
        {action === 'select' ? (
          <div className="row">
            <TextField label="Row limit" type="number" value={limit} onChange={setLimit} error={errFor('limit')} />
            <label><input type="checkbox" checked={agg} onChange={(e) => setAgg(e.target.checked)} /> allow aggregation queries</label>
          </div>
        ) : (
          <label className="block"><input type="checkbox" checked={backendOnly} onChange={(e) => setBackendOnly(e.target.checked)} /> backend only (only for requests with the admin secret and <code>x-svc-use-backend-only-permissions: true</code>)</label>
        )}
        {errFor('backend_only') ? <ErrorBox error={act.error} /> : null}
        <Preview label="Metadata JSON to send" value={problem ? `(${problem})` : { type: 'bulk', args: ops }} />
        {errFor('form') ? <ErrorBox error={act.error} /> : null}
        <button type="submit" className="primary" disabled={act.busy}>{act.busy ? <span className="spinner" aria-hidden="true" /> : null}Save permission</button>{' '}
        {existing ? <button type="button" className="danger" disabled={act.busy} onClick={() => setArmDelete(true)}>Delete permission</button> : null}{' '}
        <button type="button" onClick={onDone}>Close</button>
        {armDelete ? (
          <div className="confirm" role="group" aria-label="Confirm deleting the permission">
            <Preview label="Metadata JSON to send for the delete" value={{ type: 'bulk', args: dropOps }} />
            <button type="button" className="danger" disabled={act.busy} onClick={() => act.run(async () => { await bulk(dropOps); onDone(); })}>Confirm delete</button>{' '}
            <button type="button" onClick={() => setArmDelete(false)}>Keep it</button>
          </div>
        ) : null}
      </form>
      <form className="clone" aria-label="Clone this permission" onSubmit={(e) => { e.preventDefault(); void cloneAct.run(async () => { await bulk(cloneOps); onDone(); }); }}>
        <h3>Clone to other roles</h3>
        <div className="row">
          <div role="group" aria-label="Clone to roles" className="row">
            {otherRoles.map((r) => (
              <label key={r}><input type="checkbox" checked={cloneRoles.includes(r)} onChange={(e) => setCloneRoles(e.target.checked ? [...cloneRoles, r] : cloneRoles.filter((x) => x !== r))} /> {r}</label>
            ))}
          </div>
          <TextField label="Clone to role (name)" value={cloneNewRole} onChange={setCloneNewRole} />
          <div role="group" aria-label="Clone as actions" className="row">
            {cloneTargets(action).map((a) => (
              <label key={a}><input type="checkbox" checked={cloneActions.includes(a)} onChange={(e) => setCloneActions(e.target.checked ? [...cloneActions, a] : cloneActions.filter((x) => x !== a))} /> as {a}</label>
            ))}
          </div>
        </div>
        {cloneOps.length > 0 ? <Preview label="Metadata JSON to send for the clone" value={problem ? `(${problem})` : { type: 'bulk', args: cloneOps }} /> : null}
        <ErrorBox error={cloneAct.error} />
        <button type="submit" disabled={cloneAct.busy || cloneOps.length === 0 || Boolean(problem)}>{cloneAct.busy ? <span className="spinner" aria-hidden="true" /> : null}Clone permission</button>
      </form>
    </Section>
  );
}
