/**
 * A table's columns on the Modify tab: add a column; edit one (rename, retype, nullability, default,
 * comment: only what changed goes into the SQL, the rename last); drop one (its down adds it back
 * from the catalog's definition). Each through a ChangeForm with its preview.
 */
import { useState } from 'react';
import { DataTable, Section } from '../components';
import { addColumn, addConstraint, combine, dropColumn, renameColumn, retypeColumn, setColumnComment, setDefault, setIdentity, setNullable, SqlGenError, type SqlChange, type TableName } from '../sqlGen';
import { ChangeForm } from './ChangeForm';
import type { CatalogColumn } from './catalog';
import { specOf } from './catalog';
import { ColumnFields, columnSpec, defaultOf, emptyColumn, TypeList, type ColumnDraft } from './columnFields';

const draftOf = (c: CatalogColumn): ColumnDraft => ({
  name: c.name,
  type: c.type,
  nullable: c.nullable,
  unique: false,
  default: c.identity ? '' : c.default ?? '',
  defaultIsSql: true,
  identity: c.identity === 'a' ? 'always' : c.identity === 'd' ? 'by default' : '',
  comment: c.comment ?? '',
});

/** The SQL of editing column `c` into `d`: retype, nullability, identity and default, unique, comment, then the rename. */
export function editColumnSql(t: TableName, c: CatalogColumn, d: ColumnDraft): SqlChange {
  const parts: SqlChange[] = [];
  if (d.type.trim() !== c.type) parts.push(retypeColumn(t, c.name, d.type, c.type));
  if (d.nullable !== c.nullable) parts.push(setNullable(t, c.name, d.nullable));
  const before = c.identity ? '' : c.default ?? '';
  const identity = c.identity === 'a' ? 'always' : c.identity === 'd' ? 'by default' : undefined;
  if ((d.identity || undefined) !== identity && identity) parts.push(setIdentity(t, c.name, d.identity || undefined, identity));
  if (d.default !== before) parts.push(setDefault(t, c.name, defaultOf(d.default, d.defaultIsSql), c.default ?? undefined));
  // An identity comes after the default is gone (a column cannot have both).
  if ((d.identity || undefined) !== identity && !identity) parts.push(setIdentity(t, c.name, d.identity || undefined, identity));
  if (d.unique) parts.push(addConstraint(t, { kind: 'unique', columns: [c.name] }));
  if (d.comment !== (c.comment ?? '')) parts.push(setColumnComment(t, c.name, d.comment, c.comment ?? undefined));
  if (d.name.trim() !== c.name) parts.push(renameColumn(t, c.name, d.name.trim()));
  if (parts.length === 0) throw new SqlGenError('nothing changed yet', 'column');
  return combine(parts);
}

type Pending = { kind: 'edit'; column: CatalogColumn; draft: ColumnDraft } | { kind: 'drop'; column: CatalogColumn; cascade: boolean } | { kind: 'add'; draft: ColumnDraft } | null;

export function ColumnsSection({ table, columns, onChanged }: { table: TableName; columns: CatalogColumn[]; onChanged: () => void }) {
  const [pending, setPending] = useState<Pending>(null);
  const done = () => {
    setPending(null);
    onChanged();
  };
  const tag = `${table.schema}_${table.name}`;
  return (
    <Section title="Columns" actions={<button type="button" onClick={() => setPending({ kind: 'add', draft: emptyColumn() })}>Add a column</button>}>
      <TypeList />
      <DataTable
        columns={['name', 'type', 'nullable', 'default', 'comment']}
        rows={columns.map((c) => [c.name, c.type, c.nullable ? 'yes' : 'no', c.identity ? `identity (${c.identity === 'a' ? 'always' : 'by default'})` : c.default ?? '', c.comment ?? ''])}
        actions={(i) => (
          <>
            <button type="button" aria-label={`Edit column ${columns[i].name}`} onClick={() => setPending({ kind: 'edit', column: columns[i], draft: draftOf(columns[i]) })}>Edit</button>
            <button type="button" className="danger" aria-label={`Drop column ${columns[i].name}`} onClick={() => setPending({ kind: 'drop', column: columns[i], cascade: false })}>Drop</button>
          </>
        )}
      />
      {pending?.kind === 'add' ? (
        <ChangeForm label="Add a column" submitLabel="Add column" onCancel={() => setPending(null)} onDone={done}
          build={() => {
            const spec = columnSpec(pending.draft);
            if (!spec.name) throw new SqlGenError('name the column', 'name');
            return { migration: `alter_table_${tag}_add_column_${spec.name}`, sql: addColumn(table, spec) };
          }}>
          <ColumnFields label="New column" value={pending.draft} onChange={(d) => setPending({ kind: 'add', draft: d })} />
        </ChangeForm>
      ) : null}
      {pending?.kind === 'edit' ? (
        <ChangeForm key={pending.column.name} label={`Edit column ${pending.column.name}`} submitLabel="Save column" onCancel={() => setPending(null)} onDone={done}
          build={() => {
            const renamed = pending.draft.name.trim() !== pending.column.name;
            return { migration: `alter_table_${tag}_${renamed ? 'rename' : 'alter'}_column_${pending.column.name}`, sql: editColumnSql(table, pending.column, pending.draft) };
          }}>
          <ColumnFields label={`Column ${pending.column.name}`} value={pending.draft} onChange={(d) => setPending({ ...pending, draft: d })} />
        </ChangeForm>
      ) : null}
      {pending?.kind === 'drop' ? (
        <ChangeForm key={`drop-${pending.column.name}`} label={`Drop column ${pending.column.name}`} submitLabel={`Drop column ${pending.column.name}`} danger onCancel={() => setPending(null)} onDone={done}
          build={() => ({ migration: `alter_table_${tag}_drop_column_${pending.column.name}`, cascade: pending.cascade, sql: dropColumn(table, pending.column.name, specOf(pending.column), { cascade: pending.cascade }) })}>
          <label className="inline-check"><input type="checkbox" checked={pending.cascade} onChange={(e) => setPending({ ...pending, cascade: e.target.checked })} />cascade (also drop what depends on it: views, relationships, permissions)</label>
        </ChangeForm>
      ) : null}
    </Section>
  );
}
