/**
 * Permissions, on one database (the Database list; `#/permissions/<source>/<schema>/<table>`): for a
 * tracked table of it, the role × action (insert / select / update / delete) matrix;
 * a cell opens the permission editor (permissionEditor.tsx: columns, the row filter and check built
 * with the boolean-expression builder or as raw JSON, presets, limit, aggregations, backend-only,
 * clone, delete). Below, the inherited roles (inheritedRoles.tsx) and "Try it", a query run as a role.
 */
import { useEffect, useState } from 'react';
import { exportMetadata, graphql, refOf, tableKey, type TableRef } from '../api';
import { ErrorBox, Field, Section, TextField, useAction, useLoad } from '../components';
import { InheritedRoles } from '../inheritedRoles';
import { ACTIONS, PermissionEditor, type Action } from '../permissionEditor';
import { loadCatalog, rolesOf } from '../tableCatalog';
import { DEFAULT_SOURCE, sourcesOf, sourceView } from '../sources';

interface Editing {
  role: string;
  action: Action;
}

function TryIt({ table, columns, roles, prefix }: { table: TableRef; columns: string[]; roles: string[]; prefix: string }) {
  const field = `${prefix}${table.schema === 'public' ? table.name : `${table.schema}_${table.name}`}`;
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

export function PermissionsPage({ initial, source = DEFAULT_SOURCE }: { initial?: TableRef; source?: string }) {
  const full = useLoad(exportMetadata);
  // The pages below read the chosen database's tables as `tables` (roles and inherited roles are global).
  const md = { ...full, data: full.data ? sourceView(full.data, source) : undefined };
  const sourceNames = full.data ? sourcesOf(full.data).map((s) => s.name) : [source];
  const prefix: string = sourcesOf(full.data).find((s) => s.name === source)?.customization?.root_fields?.prefix ?? '';
  const tables: TableRef[] = (md.data?.tables ?? []).map((t: any) => refOf(t.table));
  const [sel, setSel] = useState<string>(initial ? tableKey(initial) : '');
  const key = sel || (tables[0] ? tableKey(tables[0]) : '');
  const table = tables.find((t) => tableKey(t) === key);
  const entry = (md.data?.tables ?? []).find((t: any) => tableKey(refOf(t.table)) === key);
  // Columns with types, relationships resolved to their tables, session variables in use: for the builder.
  const catalog = useLoad(async () => (md.data ? loadCatalog(md.data, source) : undefined), [full.data]);
  const columns = catalog.data?.tables.get(key)?.columns.map((c) => c.name) ?? [];
  const [newRole, setNewRole] = useState('');
  const [extraRoles, setExtraRoles] = useState<string[]>([]);
  const [editing, setEditing] = useState<Editing | null>(null);
  const permsOf = (a: Action): any[] => entry?.[`${a}_permissions`] ?? [];
  const inherited: Array<{ role_name: string; role_set: string[] }> = md.data?.inherited_roles ?? [];
  const inheritedNames = new Set(inherited.map((r) => r.role_name));
  const allRoles = [...new Set([...rolesOf(md.data), ...extraRoles])].sort();
  const roles = [...new Set([...ACTIONS.flatMap((a) => permsOf(a).map((p) => p.role)), ...extraRoles])].sort();
  const cell = (role: string, a: Action) => {
    const p = permsOf(a).find((x) => x.role === role);
    const label = !p ? 'none' : Object.keys(p.permission.filter ?? p.permission.check ?? {}).length === 0 ? 'full' : 'partial';
    return <button type="button" className="cell" aria-label={`${a} permission of ${role}: ${label}`} aria-pressed={editing?.role === role && editing.action === a} onClick={() => setEditing({ role, action: a })}>{label === 'none' ? '✖' : label === 'full' ? '✔' : '◐'} {label}</button>;
  };
  const busy = md.loading || catalog.loading;
  return (
    <div>
      <h1>Permissions</h1>
      {busy ? <p className="muted" role="status"><span className="spinner" aria-hidden="true" />loading…</p> : null}
      <ErrorBox error={md.error ?? catalog.error} />
      <Field label="Database">{(id) => <select id={id} value={source} onChange={(e) => { window.location.hash = e.target.value === DEFAULT_SOURCE ? '#/permissions' : `#/permissions/${encodeURIComponent(e.target.value)}`; }}>{sourceNames.map((s) => <option key={s}>{s}</option>)}</select>}</Field>
      <Field label="Table">{(id) => <select id={id} value={key} onChange={(e) => { setSel(e.target.value); setEditing(null); }}>{tables.map((t) => <option key={tableKey(t)} value={tableKey(t)}>{tableKey(t)}</option>)}</select>}</Field>
      {table ? (
        <>
          <Section title={`Role × action for ${key}`}>
            <table className="matrix">
              <thead><tr><th scope="col">role</th>{ACTIONS.map((a) => <th key={a} scope="col">{a}</th>)}</tr></thead>
              <tbody>
                <tr><td>admin</td>{ACTIONS.map((a) => <td key={a}>✔ full</td>)}</tr>
                {roles.map((r) => <tr key={r}><td>{r}</td>{ACTIONS.map((a) => <td key={a}>{cell(r, a)}</td>)}</tr>)}
                {inherited.filter((r) => !roles.includes(r.role_name)).map((r) => (
                  <tr key={r.role_name}><td>{r.role_name}</td><td colSpan={ACTIONS.length} className="muted">inherited from {r.role_set.join(', ')}</td></tr>
                ))}
              </tbody>
            </table>
            <form className="row" aria-label="Add a role" onSubmit={(e) => { e.preventDefault(); if (newRole.trim()) { setExtraRoles([...extraRoles, newRole.trim()]); setNewRole(''); } }}>
              <TextField label="New role" value={newRole} onChange={setNewRole} />
              <div className="field"><button type="submit">Add role</button></div>
            </form>
          </Section>
          {editing && catalog.data ? (
            <PermissionEditor
              key={`${key}/${editing.role}/${editing.action}`}
              table={table}
              source={source}
              catalog={catalog.data}
              role={editing.role}
              action={editing.action}
              perms={permsOf}
              roles={allRoles.filter((r) => !inheritedNames.has(r))}
              onDone={() => { setEditing(null); md.reload(); }}
            />
          ) : null}
          <TryIt table={table} columns={columns} roles={roles} prefix={prefix} />
        </>
      ) : <p className="muted">Track a table first (Data).</p>}
      {md.data ? <InheritedRoles inherited={inherited} roles={allRoles.filter((r) => !inheritedNames.has(r))} onChange={md.reload} /> : null}
    </div>
  );
}
