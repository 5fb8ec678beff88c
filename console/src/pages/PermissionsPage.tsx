/**
 * Permissions: for a tracked table, the role × action (insert / select / update / delete) matrix;
 * a cell opens the editor — columns, the row filter and check as JSON boolean expressions (checked
 * as JSON while typing), column presets, the select limit and aggregation flag. Saving drops and
 * re-creates the permission in one bulk call, so a refused change leaves the old one; the engine's
 * error is shown next to the field its path names. "Try it" runs a query as a role.
 */
import { useEffect, useState } from 'react';
import { bulk, EngineError, exportMetadata, graphql, lit, query, refOf, runSql, tableKey, type TableRef } from '../api';
import { DataTable, ErrorBox, Field, JsonEditor, Section, TextField, useAction, useLoad } from '../components';

const ACTIONS = ['insert', 'select', 'update', 'delete'] as const;
type Action = (typeof ACTIONS)[number];

interface Editing {
  role: string;
  action: Action;
}

/**
 * Which form field an engine error belongs to: the one its JSON path names
 * (`…permission.filter._eq`), else the JSON field whose text holds the name the message is about
 * (`unknown operator: _nosuch`, `column "x" does not exist`), else the form as a whole.
 */
function fieldOf(e: unknown, texts: Record<string, string>): string {
  if (!(e instanceof EngineError)) return 'form';
  for (const f of ['filter', 'check', 'columns', 'set', 'limit']) if (new RegExp(`\\.${f}\\b`).test(e.path ?? '')) return f;
  const names = [...e.message.matchAll(/"([^"]+)"|: ([_A-Za-z][_0-9A-Za-z]*)\s*$/g)].map((m) => m[1] ?? m[2]).filter((n) => n && !/^(table|role|user)$/.test(n));
  for (const n of names.reverse()) {
    const hits = Object.keys(texts).filter((f) => texts[f].includes(`"${n}"`));
    if (hits.length === 1) return hits[0];
  }
  return 'form';
}

function Editor({ table, columns, editing, existing, onDone }: { table: TableRef; columns: string[]; editing: Editing; existing: any; onDone: () => void }) {
  const { role, action } = editing;
  const p = existing?.permission ?? {};
  const [cols, setCols] = useState<string[]>(p.columns === '*' ? columns : (p.columns ?? []));
  const [filter, setFilter] = useState(JSON.stringify(p.filter ?? {}, null, 2));
  const [check, setCheck] = useState(JSON.stringify(p.check ?? {}, null, 2));
  const [set, setSet] = useState(JSON.stringify(p.set ?? {}, null, 2));
  const [limit, setLimit] = useState(p.limit !== undefined ? String(p.limit) : '');
  const [agg, setAgg] = useState(Boolean(p.allow_aggregations));
  const act = useAction();
  const texts: Record<string, string> = {};
  if (action !== 'insert') texts.filter = filter;
  if (action === 'insert' || action === 'update') Object.assign(texts, { check, set });
  const errFor = (f: string) => (act.error && fieldOf(act.error, texts) === f ? act.error : undefined);
  const save = () => act.run(async () => {
    const permission: Record<string, unknown> = {};
    if (action !== 'delete') permission.columns = cols;
    if (action === 'select' || action === 'update' || action === 'delete') permission.filter = JSON.parse(filter || '{}');
    if (action === 'insert' || action === 'update') {
      permission.check = JSON.parse(check || '{}');
      const s = JSON.parse(set || '{}');
      if (Object.keys(s).length > 0) permission.set = s;
    }
    if (action === 'select') {
      if (limit !== '') permission.limit = Number(limit);
      permission.allow_aggregations = agg;
    }
    const ops = [];
    if (existing) ops.push({ type: `drop_${action}_permission`, args: { table, role } });
    ops.push({ type: `create_${action}_permission`, args: { table, role, permission } });
    await bulk(ops);
    onDone();
  });
  const helper = <span>columns: {columns.join(', ')} · operators: _eq _neq _gt _lt _gte _lte _in _nin _like _ilike _is_null, _and _or _not · session variables: "X-Svc-User-Id"</span>;
  return (
    <Section title={`${action} permission for role ${role}`}>
      <form aria-label={`${action} permission for ${role}`} onSubmit={(e) => { e.preventDefault(); void save(); }}>
        {action !== 'delete' ? (
          <Field label="Columns" error={errFor('columns')}>
            {(id) => (
              <div id={id} role="group" className="row">
                {columns.map((c) => (
                  <label key={c}><input type="checkbox" checked={cols.includes(c)} onChange={(e) => setCols(e.target.checked ? [...cols, c] : cols.filter((x) => x !== c))} /> {c}</label>
                ))}
                <button type="button" className="link" onClick={() => setCols(cols.length === columns.length ? [] : columns)}>toggle all</button>
              </div>
            )}
          </Field>
        ) : null}
        {action !== 'insert' ? <JsonEditor label="Row filter" value={filter} onChange={setFilter} error={errFor('filter')} hint={helper} /> : null}
        {action === 'insert' || action === 'update' ? <JsonEditor label="Check" value={check} onChange={setCheck} error={errFor('check')} hint={action === 'insert' ? helper : undefined} /> : null}
        {action === 'insert' || action === 'update' ? <JsonEditor label="Column presets" value={set} onChange={setSet} rows={3} error={errFor('set')} hint='e.g. {"user_id": "X-Svc-User-Id"}' /> : null}
        {action === 'select' ? (
          <div className="row">
            <TextField label="Row limit" type="number" value={limit} onChange={setLimit} error={errFor('limit')} />
            <label><input type="checkbox" checked={agg} onChange={(e) => setAgg(e.target.checked)} /> allow aggregation queries</label>
          </div>
        ) : null}
        {errFor('form') ? <ErrorBox error={act.error} /> : null}
        <button type="submit" className="primary" disabled={act.busy}>Save permission</button>{' '}
        {existing ? <button type="button" className="danger" disabled={act.busy} onClick={() => act.run(async () => { await query(`drop_${action}_permission`, { table, role }); onDone(); })}>Delete permission</button> : null}{' '}
        <button type="button" onClick={onDone}>Close</button>
      </form>
    </Section>
  );
}

function TryIt({ table, columns, roles }: { table: TableRef; columns: string[]; roles: string[] }) {
  const field = table.schema === 'public' ? table.name : `${table.schema}_${table.name}`;
  const [role, setRole] = useState(roles[0] ?? 'user');
  const [userId, setUserId] = useState('1');
  const [text, setText] = useState(`{ ${field} { ${columns.join(' ')} } }`);
  const [out, setOut] = useState<string>('');
  const act = useAction();
  useEffect(() => setText(`{ ${field} { ${columns.join(' ')} } }`), [field, columns.join(' ')]);
  return (
    <Section title="Try it: run a query as a role">
      <form aria-label="Try a query as a role" onSubmit={(e) => { e.preventDefault(); void act.run(async () => setOut(JSON.stringify(await graphql(text, undefined, { 'x-svc-role': role, 'x-svc-user-id': userId }), null, 2))); }}>
        <div className="row">
          <TextField label="Role (x-svc-role)" value={role} onChange={setRole} />
          <TextField label="User id (x-svc-user-id)" value={userId} onChange={setUserId} />
        </div>
        <Field label="Query">{(id) => <textarea id={id} className="code" rows={3} value={text} onChange={(e) => setText(e.target.value)} />}</Field>
        <button type="submit" className="primary" disabled={act.busy}>Run as role</button>
      </form>
      <ErrorBox error={act.error} />
      {out ? <pre className="code" aria-label="Query result">{out}</pre> : null}
    </Section>
  );
}

export function PermissionsPage({ initial }: { initial?: TableRef }) {
  const md = useLoad(exportMetadata);
  const tables: TableRef[] = (md.data?.tables ?? []).map((t: any) => refOf(t.table));
  const [sel, setSel] = useState<string>(initial ? tableKey(initial) : '');
  const key = sel || (tables[0] ? tableKey(tables[0]) : '');
  const table = tables.find((t) => tableKey(t) === key);
  const entry = (md.data?.tables ?? []).find((t: any) => tableKey(refOf(t.table)) === key);
  const cols = useLoad(async () => (table ? (await runSql(`SELECT column_name FROM information_schema.columns WHERE table_schema = ${lit(table.schema)} AND table_name = ${lit(table.name)} ORDER BY ordinal_position`, { readOnly: true })).rows.map((r) => r[0]!) : []), [key, table !== undefined]);
  const [newRole, setNewRole] = useState('');
  const [extraRoles, setExtraRoles] = useState<string[]>([]);
  const [editing, setEditing] = useState<Editing | null>(null);
  const permsOf = (a: Action): any[] => entry?.[`${a}_permissions`] ?? [];
  const roles = [...new Set([...ACTIONS.flatMap((a) => permsOf(a).map((p) => p.role)), ...extraRoles])].sort();
  const cell = (role: string, a: Action) => {
    const p = permsOf(a).find((x) => x.role === role);
    const label = !p ? 'none' : Object.keys(p.permission.filter ?? p.permission.check ?? {}).length === 0 ? 'full' : 'partial';
    return <button type="button" className="cell" aria-label={`${a} permission of ${role}: ${label}`} onClick={() => setEditing({ role, action: a })}>{label === 'none' ? '✖' : label === 'full' ? '✔' : '◐'} {label}</button>;
  };
  return (
    <div>
      <h1>Permissions</h1>
      <ErrorBox error={md.error ?? cols.error} />
      <Field label="Table">{(id) => <select id={id} value={key} onChange={(e) => { setSel(e.target.value); setEditing(null); }}>{tables.map((t) => <option key={tableKey(t)} value={tableKey(t)}>{tableKey(t)}</option>)}</select>}</Field>
      {table ? (
        <>
          <Section title={`Role × action for ${key}`}>
            <table className="matrix">
              <thead><tr><th scope="col">role</th>{ACTIONS.map((a) => <th key={a} scope="col">{a}</th>)}</tr></thead>
              <tbody>
                <tr><td>admin</td>{ACTIONS.map((a) => <td key={a}>✔ full</td>)}</tr>
                {roles.map((r) => <tr key={r}><td>{r}</td>{ACTIONS.map((a) => <td key={a}>{cell(r, a)}</td>)}</tr>)}
              </tbody>
            </table>
            <form className="row" aria-label="Add a role" onSubmit={(e) => { e.preventDefault(); if (newRole.trim()) { setExtraRoles([...extraRoles, newRole.trim()]); setNewRole(''); } }}>
              <TextField label="New role" value={newRole} onChange={setNewRole} />
              <div className="field"><button type="submit">Add role</button></div>
            </form>
          </Section>
          {editing ? (
            <Editor key={`${key}/${editing.role}/${editing.action}`} table={table} columns={cols.data ?? []} editing={editing} existing={permsOf(editing.action).find((p) => p.role === editing.role)} onDone={() => { setEditing(null); md.reload(); }} />
          ) : null}
          <TryIt table={table} columns={cols.data ?? []} roles={roles} />
        </>
      ) : <p className="muted">Track a table first (Data).</p>}
    </div>
  );
}
