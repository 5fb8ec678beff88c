/**
 * A table's constraints and indexes on the Modify tab: add a primary key, unique, foreign key or check
 * constraint; create an index (columns, unique, method); drop either (reversible from the catalog's
 * definition). An index that backs a constraint is dropped with its constraint.
 */
import { useState } from 'react';
import { DataTable, Section, TextField } from '../components';
import { addConstraint, createIndex, dropConstraint, dropIndex, FK_ACTIONS, INDEX_METHODS, SqlGenError, type ConstraintSpec, type FkAction, type IndexMethod, type TableName } from '../sqlGen';
import { ChangeForm } from './ChangeForm';
import type { CatalogConstraint, CatalogIndex, Relation } from './catalog';
import { splitNames } from './columnFields';

const KINDS: Record<string, string> = { p: 'primary key', u: 'unique', f: 'foreign key', c: 'check', x: 'exclusion' };

interface ConstraintDraft {
  kind: ConstraintSpec['kind'];
  name: string;
  columns: string;
  checkSql: string;
  ref: string;
  refColumns: string;
  onUpdate: FkAction;
  onDelete: FkAction;
}

function specOf(d: ConstraintDraft, tables: Relation[]): ConstraintSpec {
  const name = d.name.trim() || undefined;
  switch (d.kind) {
    case 'check':
      return { kind: 'check', name, checkSql: d.checkSql };
    case 'foreign key': {
      const ref = tables[Number(d.ref)];
      if (d.ref === '' || !ref) throw new SqlGenError('choose the referenced table', 'references');
      return { kind: 'foreign key', name, columns: splitNames(d.columns), references: ref, refColumns: splitNames(d.refColumns), onUpdate: d.onUpdate, onDelete: d.onDelete };
    }
    default:
      return { kind: d.kind, name, columns: splitNames(d.columns) };
  }
}

type Pending =
  | { kind: 'add-constraint'; draft: ConstraintDraft }
  | { kind: 'drop-constraint'; c: CatalogConstraint }
  | { kind: 'add-index'; name: string; columns: string; unique: boolean; method: IndexMethod }
  | { kind: 'drop-index'; i: CatalogIndex }
  | null;

export function ConstraintsSection({ table, constraints, indexes, tables, onChanged }: { table: TableName; constraints: CatalogConstraint[]; indexes: CatalogIndex[]; tables: Relation[]; onChanged: () => void }) {
  const [pending, setPending] = useState<Pending>(null);
  const done = () => {
    setPending(null);
    onChanged();
  };
  const tag = `${table.schema}_${table.name}`;
  return (
    <>
      <Section title="Constraints" actions={<button type="button" onClick={() => setPending({ kind: 'add-constraint', draft: { kind: 'unique', name: '', columns: '', checkSql: '', ref: '', refColumns: 'id', onUpdate: 'restrict', onDelete: 'restrict' } })}>Add a constraint</button>}>
        <DataTable
          columns={['name', 'kind', 'definition']}
          rows={constraints.map((c) => [c.name, KINDS[c.kind] ?? c.kind, <code key="d">{c.definition}</code>])}
          actions={(i) => <button type="button" className="danger" aria-label={`Drop constraint ${constraints[i].name}`} onClick={() => setPending({ kind: 'drop-constraint', c: constraints[i] })}>Drop</button>}
        />
        {pending?.kind === 'add-constraint' ? (
          <ChangeForm label="Add a constraint" submitLabel="Add constraint" onCancel={() => setPending(null)} onDone={done}
            build={() => {
              const spec = specOf(pending.draft, tables);
              return { migration: `alter_table_${tag}_add_${spec.kind.replace(' ', '_')}`, sql: addConstraint(table, spec) };
            }}>
            <ConstraintFields draft={pending.draft} tables={tables} onChange={(draft) => setPending({ kind: 'add-constraint', draft })} />
          </ChangeForm>
        ) : null}
        {pending?.kind === 'drop-constraint' ? (
          <ChangeForm key={pending.c.name} label={`Drop constraint ${pending.c.name}`} submitLabel={`Drop constraint ${pending.c.name}`} danger onCancel={() => setPending(null)} onDone={done}
            build={() => ({ migration: `alter_table_${tag}_drop_constraint_${pending.c.name}`, sql: dropConstraint(table, pending.c.name, pending.c.definition) })} />
        ) : null}
      </Section>
      <Section title="Indexes" actions={<button type="button" onClick={() => setPending({ kind: 'add-index', name: '', columns: '', unique: false, method: 'btree' })}>Create an index</button>}>
        <DataTable
          columns={['name', 'definition']}
          rows={indexes.map((i) => [i.name, <code key="d">{i.definition}</code>])}
          actions={(n) => (indexes[n].constraint
            ? <span className="muted">with constraint {indexes[n].constraint}</span>
            : <button type="button" className="danger" aria-label={`Drop index ${indexes[n].name}`} onClick={() => setPending({ kind: 'drop-index', i: indexes[n] })}>Drop</button>)}
        />
        {pending?.kind === 'add-index' ? (
          <ChangeForm label="Create an index" submitLabel="Create index" onCancel={() => setPending(null)} onDone={done}
            build={() => {
              const cols = splitNames(pending.columns);
              const name = pending.name.trim() || `${table.name}_${cols.join('_')}_idx`;
              return { migration: `create_index_${name}`, sql: createIndex({ table, name, columns: cols, unique: pending.unique, method: pending.method }) };
            }}>
            <div className="row">
              <TextField label="Index name" value={pending.name} placeholder={`${table.name}_<columns>_idx`} onChange={(name) => setPending({ ...pending, name })} />
              <TextField label="Index columns" value={pending.columns} placeholder="a, b" onChange={(columns) => setPending({ ...pending, columns })} />
              <label className="field">Method<select value={pending.method} onChange={(e) => setPending({ ...pending, method: e.target.value as IndexMethod })}>{INDEX_METHODS.map((m) => <option key={m}>{m}</option>)}</select></label>
              <label className="inline-check"><input type="checkbox" checked={pending.unique} onChange={(e) => setPending({ ...pending, unique: e.target.checked })} />unique</label>
            </div>
          </ChangeForm>
        ) : null}
        {pending?.kind === 'drop-index' ? (
          <ChangeForm key={pending.i.name} label={`Drop index ${pending.i.name}`} submitLabel={`Drop index ${pending.i.name}`} danger onCancel={() => setPending(null)} onDone={done}
            build={() => ({ migration: `drop_index_${pending.i.name}`, sql: dropIndex(table.schema, pending.i.name, pending.i.definition) })} />
        ) : null}
      </Section>
    </>
  );
}

function ConstraintFields({ draft, tables, onChange }: { draft: ConstraintDraft; tables: Relation[]; onChange: (d: ConstraintDraft) => void }) {
  const set = (p: Partial<ConstraintDraft>) => onChange({ ...draft, ...p });
  return (
    <div className="row">
      <label className="field">Constraint kind
        <select value={draft.kind} onChange={(e) => set({ kind: e.target.value as ConstraintDraft['kind'] })}>
          {(['primary key', 'unique', 'foreign key', 'check'] as const).map((k) => <option key={k}>{k}</option>)}
        </select>
      </label>
      <TextField label="Constraint name" value={draft.name} placeholder="default name" onChange={(name) => set({ name })} />
      {draft.kind === 'check' ? (
        <TextField label="Check expression" value={draft.checkSql} placeholder="price > 0" onChange={(checkSql) => set({ checkSql })} />
      ) : (
        <TextField label="Constraint columns" value={draft.columns} placeholder="a, b" onChange={(columns) => set({ columns })} />
      )}
      {draft.kind === 'foreign key' ? (
        <>
          <label className="field">Referenced table
            <select value={draft.ref} onChange={(e) => set({ ref: e.target.value })}>
              <option value="">(choose a table)</option>
              {tables.map((r, j) => <option key={j} value={String(j)}>{r.schema}.{r.name}</option>)}
            </select>
          </label>
          <TextField label="Referenced columns" value={draft.refColumns} onChange={(refColumns) => set({ refColumns })} />
          <label className="field">On update<select value={draft.onUpdate} onChange={(e) => set({ onUpdate: e.target.value as FkAction })}>{FK_ACTIONS.map((a) => <option key={a}>{a}</option>)}</select></label>
          <label className="field">On delete<select value={draft.onDelete} onChange={(e) => set({ onDelete: e.target.value as FkAction })}>{FK_ACTIONS.map((a) => <option key={a}>{a}</option>)}</select></label>
        </>
      ) : null}
    </div>
  );
}
