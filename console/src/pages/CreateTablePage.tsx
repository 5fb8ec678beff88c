/**
 * Create a table: schema, name, comment; columns (type, nullable, unique, default, identity, comment);
 * primary key; foreign keys; check constraints; tracked in the same request (a `bulk` of run_sql and
 * track_table, as Hasura's console does). The SQL, its down and the metadata are previewed as you type.
 */
import { useState } from 'react';
import { useLoad, ErrorBox, Section, TextField } from '../components';
import { ChangeForm } from '../schema/ChangeForm';
import { relations, schemas } from '../schema/catalog';
import { ColumnFields, columnSpec, emptyColumn, splitNames, TypeList, type ColumnDraft } from '../schema/columnFields';
import { createTable, FK_ACTIONS, SqlGenError, type FkAction } from '../sqlGen';
import type { Change } from '../schema/change';
import { dataHref, useSource } from '../sources';

interface FkDraft {
  columns: string;
  ref: string;
  refColumns: string;
  onUpdate: FkAction;
  onDelete: FkAction;
}

export function CreateTablePage() {
  const source = useSource();
  const cat = useLoad(async () => ({ schemas: await schemas(source), relations: (await relations(source)).filter((r) => r.kind === 'table') }), [source]);
  const [schema, setSchema] = useState('public');
  const [name, setName] = useState('');
  const [comment, setComment] = useState('');
  const [columns, setColumns] = useState<ColumnDraft[]>([{ ...emptyColumn(), name: 'id', type: 'integer', nullable: false, identity: 'by default' }]);
  const [pk, setPk] = useState<string[]>(['id']);
  const [fks, setFks] = useState<FkDraft[]>([]);
  const [checks, setChecks] = useState<Array<{ name: string; sql: string }>>([]);
  const [track, setTrack] = useState(true);
  const names = columns.map((c) => c.name.trim()).filter(Boolean);
  const build = (): Change => {
    if (!name.trim()) throw new SqlGenError('name the table', 'name');
    const t = { schema: schema.trim(), name: name.trim() };
    const sql = createTable({
      ...t,
      comment: comment || undefined,
      columns: columns.map(columnSpec),
      primaryKey: pk.filter((c) => names.includes(c)),
      foreignKeys: fks.map((f) => {
        const ref = cat.data?.relations[Number(f.ref)];
        if (!ref) throw new SqlGenError('choose the table a foreign key references', 'foreign key');
        return { kind: 'foreign key' as const, columns: splitNames(f.columns), references: ref, refColumns: splitNames(f.refColumns), onUpdate: f.onUpdate, onDelete: f.onDelete };
      }),
      checks: checks.map((c) => ({ kind: 'check' as const, name: c.name || undefined, checkSql: c.sql })),
    });
    return { migration: `create_table_${t.schema}_${t.name}`, sql, metadata: track ? [{ type: 'track_table', args: { table: t } }] : [] };
  };
  const setFk = (i: number, p: Partial<FkDraft>) => setFks(fks.map((f, j) => (j === i ? { ...f, ...p } : f)));
  return (
    <div>
      <h1>Create a table{source !== 'default' ? ` in ${source}` : ''}</h1>
      <p><a href={dataHref(source)}>← all tables</a></p>
      <ErrorBox error={cat.error} />
      <TypeList />
      <Section title="New table">
        <ChangeForm label="Create a table" submitLabel="Create table" build={build} onDone={() => { window.location.hash = dataHref(source, schema.trim(), name.trim(), 'modify'); }}>
          <div className="row">
            <div className="field">
              <label htmlFor="ct-schema">Schema</label>
              <input id="ct-schema" list="ct-schemas" value={schema} onChange={(e) => setSchema(e.target.value)} />
              <datalist id="ct-schemas">{(cat.data?.schemas ?? []).map((s) => <option key={s} value={s} />)}</datalist>
            </div>
            <TextField label="Table name" value={name} onChange={setName} />
            <TextField label="Table comment" value={comment} onChange={setComment} />
          </div>
          <h3>Columns</h3>
          {columns.map((c, i) => (
            <ColumnFields key={i} label={`Column ${i + 1}`} value={c} onChange={(d) => setColumns(columns.map((x, j) => (j === i ? d : x)))} onRemove={columns.length > 1 ? () => setColumns(columns.filter((_, j) => j !== i)) : undefined} />
          ))}
          <button type="button" onClick={() => setColumns([...columns, emptyColumn()])}>Add a column</button>
          <h3>Primary key</h3>
          <div className="row" role="group" aria-label="Primary key">
            {names.map((c) => (
              <label key={c} className="inline-check"><input type="checkbox" aria-label={`primary key ${c}`} checked={pk.includes(c)} onChange={(e) => setPk(e.target.checked ? [...pk, c] : pk.filter((x) => x !== c))} />{c}</label>
            ))}
          </div>
          <h3>Foreign keys</h3>
          {fks.map((f, i) => (
            <div className="row" key={i} role="group" aria-label={`Foreign key ${i + 1}`}>
              <label className="field">Columns<input aria-label={`Foreign key ${i + 1} columns`} placeholder="author_id" value={f.columns} onChange={(e) => setFk(i, { columns: e.target.value })} /></label>
              <label className="field">References
                <select aria-label={`Foreign key ${i + 1} references`} value={f.ref} onChange={(e) => setFk(i, { ref: e.target.value })}>
                  <option value="">(choose a table)</option>
                  {(cat.data?.relations ?? []).map((r, j) => <option key={j} value={String(j)}>{r.schema}.{r.name}</option>)}
                </select>
              </label>
              <label className="field">Referenced columns<input aria-label={`Foreign key ${i + 1} referenced columns`} value={f.refColumns} onChange={(e) => setFk(i, { refColumns: e.target.value })} /></label>
              <label className="field">On update<select aria-label={`Foreign key ${i + 1} on update`} value={f.onUpdate} onChange={(e) => setFk(i, { onUpdate: e.target.value as FkAction })}>{FK_ACTIONS.map((a) => <option key={a}>{a}</option>)}</select></label>
              <label className="field">On delete<select aria-label={`Foreign key ${i + 1} on delete`} value={f.onDelete} onChange={(e) => setFk(i, { onDelete: e.target.value as FkAction })}>{FK_ACTIONS.map((a) => <option key={a}>{a}</option>)}</select></label>
              <button type="button" aria-label={`Remove foreign key ${i + 1}`} onClick={() => setFks(fks.filter((_, j) => j !== i))}>✕</button>
            </div>
          ))}
          <button type="button" onClick={() => setFks([...fks, { columns: '', ref: '', refColumns: 'id', onUpdate: 'restrict', onDelete: 'restrict' }])}>Add a foreign key</button>
          <h3>Check constraints</h3>
          {checks.map((c, i) => (
            <div className="row" key={i} role="group" aria-label={`Check ${i + 1}`}>
              <label className="field">Name<input aria-label={`Check ${i + 1} name`} value={c.name} placeholder="optional" onChange={(e) => setChecks(checks.map((x, j) => (j === i ? { ...x, name: e.target.value } : x)))} /></label>
              <label className="field">Expression<input aria-label={`Check ${i + 1} expression`} className="code" value={c.sql} placeholder="price > 0" onChange={(e) => setChecks(checks.map((x, j) => (j === i ? { ...x, sql: e.target.value } : x)))} /></label>
              <button type="button" aria-label={`Remove check ${i + 1}`} onClick={() => setChecks(checks.filter((_, j) => j !== i))}>✕</button>
            </div>
          ))}
          <button type="button" onClick={() => setChecks([...checks, { name: '', sql: '' }])}>Add a check</button>
          <p><label className="inline-check"><input type="checkbox" checked={track} onChange={(e) => setTrack(e.target.checked)} />Track the table (expose it over GraphQL)</label></p>
        </ChangeForm>
      </Section>
    </div>
  );
}
