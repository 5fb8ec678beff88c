/**
 * Modify a table or view: its columns, constraints and indexes (schema/ColumnsSection,
 * schema/ConstraintsSection); rename it, set its comment, drop it (a table's drop is not reversible;
 * a view's down recreates it from pg_get_viewdef). Every change is previewed before it runs.
 */
import { useState } from 'react';
import { ErrorBox, Field, Section, TextField, useLoad } from '../components';
import { ChangeForm, Spinner } from '../schema/ChangeForm';
import { relations, tableInfo, type TableInfo } from '../schema/catalog';
import { ColumnsSection } from '../schema/ColumnsSection';
import { ConstraintsSection } from '../schema/ConstraintsSection';
import { dataHref, useSource } from '../sources';
import { dropTable, dropView, renameTable, replaceView, setTableComment, SqlGenError } from '../sqlGen';

export function ModifyTablePage({ schema, table }: { schema: string; table: string }) {
  const source = useSource();
  const info = useLoad(async () => ({ info: await tableInfo(schema, table, source), tables: (await relations(source)).filter((r) => r.kind === 'table') }), [source, schema, table]);
  const t = { schema, name: table };
  if (info.loading && !info.data) return <Spinner label="loading the table…" />;
  if (info.error) return <ErrorBox error={info.error} />;
  const ti = info.data?.info;
  if (!ti) return <p className="error" role="alert">{schema}.{table} does not exist.</p>;
  return (
    <div>
      <h1>{schema}.{table} <span className="tag">{ti.kind}</span></h1>
      {ti.kind === 'view' ? <ViewDefinition key={ti.viewDefinition ?? ''} schema={schema} view={table} definition={ti.viewDefinition ?? ''} onChanged={info.reload} /> : null}
      <ColumnsSection table={t} columns={ti.columns} onChanged={info.reload} />
      {ti.kind === 'table' ? <ConstraintsSection table={t} constraints={ti.constraints} indexes={ti.indexes} tables={info.data!.tables} onChanged={info.reload} /> : null}
      <TableSection info={ti} schema={schema} table={table} onChanged={info.reload} />
    </div>
  );
}

function TableSection({ info, schema, table, onChanged }: { info: TableInfo; schema: string; table: string; onChanged: () => void }) {
  const t = { schema, name: table };
  const [comment, setComment] = useState(info.comment ?? '');
  const [name, setName] = useState(table);
  const [dropping, setDropping] = useState(false);
  const [cascade, setCascade] = useState(false);
  const kind = info.kind === 'view' ? 'view' : 'table';
  const source = useSource();
  return (
    <Section title={kind === 'view' ? 'View' : 'Table'}>
      <ChangeForm label={`Comment of the ${kind}`} submitLabel="Save comment" onDone={onChanged}
        build={() => {
          if (comment === (info.comment ?? '')) throw new SqlGenError('the comment is unchanged', 'comment');
          const sql = setTableComment(t, comment, info.comment ?? undefined);
          return { migration: `alter_table_${schema}_${table}_comment`, sql: kind === 'view' ? { up: sql.up.replace('COMMENT ON TABLE', 'COMMENT ON VIEW'), down: sql.down!.replace('COMMENT ON TABLE', 'COMMENT ON VIEW') } : sql };
        }}>
        <TextField label={`${kind === 'view' ? 'View' : 'Table'} comment`} value={comment} onChange={setComment} />
      </ChangeForm>
      {kind === 'table' ? (
        <ChangeForm label="Rename the table" submitLabel="Rename table" onDone={() => { window.location.hash = dataHref(source, schema, name.trim(), 'modify'); }}
          build={() => {
            if (name.trim() === table) throw new SqlGenError('type the new name', 'name');
            return { migration: `rename_table_${schema}_${table}`, sql: renameTable(t, name.trim()) };
          }}>
          <TextField label="New table name" value={name} onChange={setName} />
        </ChangeForm>
      ) : null}
      {!dropping ? (
        <button type="button" className="danger" onClick={() => setDropping(true)}>Drop this {kind}…</button>
      ) : (
        <ChangeForm label={`Drop ${kind}`} submitLabel={`Drop ${kind} ${schema}.${table}`} danger onCancel={() => setDropping(false)} onDone={() => { window.location.hash = dataHref(source); }}
          build={() => ({
            migration: `drop_${kind}_${schema}_${table}`,
            cascade,
            sql: kind === 'view' ? dropView(t, info.viewDefinition ?? undefined) : dropTable(t, { cascade }),
          })}>
          {kind === 'table' ? <label className="inline-check"><input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} />cascade (also drop the views, foreign keys and metadata that depend on it)</label> : null}
        </ChangeForm>
      )}
    </Section>
  );
}

function ViewDefinition({ schema, view, definition, onChanged }: { schema: string; view: string; definition: string; onChanged: () => void }) {
  const [query, setQuery] = useState(definition.trim());
  return (
    <Section title="View definition">
      <ChangeForm label="Replace the view's query" submitLabel="Replace view" onDone={onChanged}
        build={() => {
          if (query.trim().replace(/;\s*$/, '') === definition.trim().replace(/;\s*$/, '')) throw new SqlGenError('the query is unchanged', 'query');
          return { migration: `replace_view_${schema}_${view}`, sql: replaceView({ schema, name: view }, query, definition) };
        }}>
        <Field label="View query">{(id) => <textarea id={id} className="code" rows={6} value={query} spellCheck={false} onChange={(e) => setQuery(e.target.value)} />}</Field>
      </ChangeForm>
    </Section>
  );
}
