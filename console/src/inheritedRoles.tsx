/**
 * Inherited roles (Hasura v2): the list of roles made of other roles, a form to create one or edit
 * its member roles (`add_inherited_role`, which replaces an existing role's set) and a button to drop
 * one (`drop_inherited_role`). The metadata JSON is shown before it is sent; the engine's error
 * (a cycle, an unknown member, conflicting permissions) is shown with the form.
 */
import { useState } from 'react';
import { query } from './api';
import { DataTable, ErrorBox, Section, TextField, useAction } from './components';
import { Preview } from './permissionEditor';

interface InheritedRole {
  role_name: string;
  role_set: string[];
}

export function InheritedRoles({ inherited, roles, onChange }: { inherited: InheritedRole[]; roles: string[]; onChange: () => void }) {
  const [name, setName] = useState('');
  const [members, setMembers] = useState<string[]>([]);
  const [extra, setExtra] = useState('');
  const [dropping, setDropping] = useState<string | null>(null);
  const act = useAction();
  const isEdit = inherited.some((r) => r.role_name === name.trim());
  const extraMembers = extra.split(',').map((s) => s.trim()).filter(Boolean);
  const roleSet = [...new Set([...members, ...extraMembers])];
  const op = { type: 'add_inherited_role', args: { role_name: name.trim(), role_set: roleSet } };
  const drop = dropping ? { type: 'drop_inherited_role', args: { role_name: dropping } } : undefined;
  const candidates = roles.filter((r) => r !== name.trim());
  return (
    <Section title="Inherited roles">
      <DataTable
        caption="Roles made of other roles: a request with the role gets what any member role may see"
        columns={['role', 'member roles']}
        rows={inherited.map((r) => [r.role_name, r.role_set.join(', ')])}
        actions={(i) => (
          <>
            <button type="button" aria-label={`Edit inherited role ${inherited[i].role_name}`} onClick={() => { setName(inherited[i].role_name); setMembers(inherited[i].role_set); setExtra(''); setDropping(null); }}>Edit</button>
            <button type="button" className="danger" aria-label={`Drop inherited role ${inherited[i].role_name}`} onClick={() => setDropping(inherited[i].role_name)}>Drop</button>
          </>
        )}
      />
      {drop ? (
        <div className="confirm" role="group" aria-label="Confirm dropping the inherited role">
          <Preview label="Metadata JSON to send for the drop" value={drop} />
          <button type="button" className="danger" disabled={act.busy} onClick={() => act.run(async () => { await query(drop.type, drop.args); setDropping(null); onChange(); })}>Confirm drop</button>{' '}
          <button type="button" onClick={() => setDropping(null)}>Keep it</button>
        </div>
      ) : null}
      <form aria-label="Create or edit an inherited role" onSubmit={(e) => { e.preventDefault(); void act.run(async () => { await query(op.type, op.args); setName(''); setMembers([]); setExtra(''); onChange(); }); }}>
        <div className="row">
          <TextField label="Inherited role name" value={name} onChange={setName} />
          <div role="group" aria-label="Member roles" className="row">
            {candidates.map((r) => (
              <label key={r}><input type="checkbox" checked={members.includes(r)} onChange={(e) => setMembers(e.target.checked ? [...members, r] : members.filter((x) => x !== r))} /> {r}</label>
            ))}
          </div>
          <TextField label="Other member roles (comma separated)" value={extra} onChange={setExtra} />
        </div>
        <Preview label="Metadata JSON to send for the inherited role" value={op} />
        <ErrorBox error={act.error} />
        <button type="submit" className="primary" disabled={act.busy || !name.trim() || roleSet.length === 0}>{act.busy ? <span className="spinner" aria-hidden="true" /> : null}{isEdit ? 'Save inherited role' : 'Create inherited role'}</button>
      </form>
    </Section>
  );
}
