/**
 * How a tracked table appears in the GraphQL schema: as an enum table (`set_table_is_enum`), its custom
 * root field names and custom column names (`set_table_custom_fields`, Hasura v1.3's name for
 * `set_table_customization`), and its computed fields (`add_computed_field` with a function of the
 * table's row type; drop). Each form previews the metadata operation.
 */
import { useState } from 'react';
import { exportMetadata, refOf, tableKey, type TableRef } from '../api';
import { DataTable, ErrorBox, Section, TextField, useLoad } from '../components';
import { ChangeForm, Spinner } from '../schema/ChangeForm';
import { functions, tableInfo, type FunctionInfo } from '../schema/catalog';
import { SqlGenError } from '../sqlGen';
import { sourceView, useSource } from '../sources';

const ROOT_FIELDS = ['select', 'select_by_pk', 'select_aggregate', 'insert', 'insert_one', 'update', 'update_by_pk', 'delete', 'delete_by_pk'] as const;

async function load(source: string, schema: string, table: string) {
  const t = { schema, name: table };
  const [md, info, fns] = await Promise.all([exportMetadata().then((m) => sourceView(m, source)), tableInfo(schema, table, source), functions(source)]);
  const entry = (md.tables ?? []).find((x: any) => tableKey(refOf(x.table)) === tableKey(t));
  return { entry, columns: (info?.columns ?? []).map((c) => c.name), functions: fns };
}

export function TableGraphqlPage({ schema, table }: { schema: string; table: string }) {
  const t = { schema, name: table };
  const source = useSource();
  const data = useLoad(() => load(source, schema, table), [source, schema, table]);
  if (data.loading && !data.data) return <Spinner label="loading…" />;
  if (data.error) return <ErrorBox error={data.error} />;
  const d = data.data!;
  if (!d.entry) {
    return (
      <div>
        <h1>{schema}.{table}: GraphQL</h1>
        <ChangeForm label="Track the table" submitLabel="Track table" onDone={data.reload} build={() => ({ migration: '', metadata: [{ type: 'track_table', args: { table: t } }] })}>
          <p className="muted">{schema}.{table} is not tracked: it is not in the GraphQL schema.</p>
        </ChangeForm>
      </div>
    );
  }
  return (
    <div>
      <h1>{schema}.{table}: GraphQL</h1>
      <EnumSection table={t} isEnum={d.entry.is_enum === true} onDone={data.reload} />
      <CustomNames key={JSON.stringify(d.entry.configuration ?? {})} table={t} columns={d.columns} configuration={d.entry.configuration} onDone={data.reload} />
      <ComputedFields table={t} existing={d.entry.computed_fields ?? []} functions={d.functions} onDone={data.reload} />
    </div>
  );
}

function EnumSection({ table, isEnum, onDone }: { table: TableRef; isEnum: boolean; onDone: () => void }) {
  return (
    <Section title="Enum table">
      <ChangeForm label="Enum table" submitLabel={isEnum ? 'Stop using as an enum' : 'Set as enum table'} onDone={onDone}
        build={() => ({ migration: '', metadata: [{ type: 'set_table_is_enum', args: { table, is_enum: !isEnum } }] })}>
        <p className="muted">
          {isEnum ? 'This table is an enum: its values are a GraphQL enum type, and columns referencing it take that type.'
            : 'An enum table has a text primary key (the values) and at most one other column (their descriptions); the columns that reference it become of a GraphQL enum type.'}
        </p>
      </ChangeForm>
    </Section>
  );
}

function CustomNames({ table, columns, configuration, onDone }: { table: TableRef; columns: string[]; configuration: any; onDone: () => void }) {
  const [roots, setRoots] = useState<Record<string, string>>(() => ({ ...(configuration?.custom_root_fields ?? {}) }));
  const [cols, setCols] = useState<Record<string, string>>(() => ({ ...(configuration?.custom_column_names ?? {}) }));
  const clean = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, (v ?? '').trim()]).filter(([, v]) => v));
  return (
    <Section title="Custom root fields and column names">
      <ChangeForm label="Custom names" submitLabel="Save custom names" onDone={onDone}
        build={() => ({ migration: '', metadata: [{ type: 'set_table_custom_fields', args: { table, custom_root_fields: clean(roots), custom_column_names: clean(cols) } }] })}>
        <h3>Root fields</h3>
        <div className="row">
          {ROOT_FIELDS.map((f) => <TextField key={f} label={`Root field ${f}`} value={roots[f] ?? ''} placeholder="default" onChange={(v) => setRoots({ ...roots, [f]: v })} />)}
        </div>
        <h3>Column names</h3>
        <div className="row">
          {columns.map((c) => <TextField key={c} label={`GraphQL name of ${c}`} value={cols[c] ?? ''} placeholder={c} onChange={(v) => setCols({ ...cols, [c]: v })} />)}
        </div>
      </ChangeForm>
    </Section>
  );
}

function ComputedFields({ table, existing, functions: fns, onDone }: { table: TableRef; existing: any[]; functions: FunctionInfo[]; onDone: () => void }) {
  const [name, setName] = useState('');
  const [fn, setFn] = useState('');
  const [tableArgument, setTableArgument] = useState('');
  const [comment, setComment] = useState('');
  const [dropping, setDropping] = useState<string | null>(null);
  // Functions whose argument list mentions the table's row type come first: those are the candidates.
  const rowType = new RegExp(`\\b${table.name.replace(/[^\w]/g, '.')}\\b`);
  const candidates = [...fns].sort((a, b) => Number(rowType.test(b.args)) - Number(rowType.test(a.args)));
  return (
    <Section title="Computed fields">
      <DataTable
        columns={['name', 'function', 'comment']}
        rows={existing.map((c) => [c.name, tableKey(refOf(c.definition?.function)), c.comment ?? null])}
        actions={(i) => <button type="button" className="danger" aria-label={`Drop computed field ${existing[i].name}`} onClick={() => setDropping(existing[i].name)}>Drop</button>}
      />
      {dropping ? (
        <ChangeForm key={dropping} label={`Drop computed field ${dropping}`} submitLabel={`Drop computed field ${dropping}`} danger onCancel={() => setDropping(null)} onDone={() => { setDropping(null); onDone(); }}
          build={() => ({ migration: '', metadata: [{ type: 'drop_computed_field', args: { table, name: dropping } }] })} />
      ) : null}
      <ChangeForm label="Add a computed field" submitLabel="Add computed field" onDone={() => { setName(''); onDone(); }}
        build={() => {
          const f = candidates[Number(fn)];
          if (!name.trim()) throw new SqlGenError('name the computed field', 'name');
          if (fn === '' || !f) throw new SqlGenError('choose the function', 'function');
          const definition: Record<string, unknown> = { function: { schema: f.schema, name: f.name } };
          if (tableArgument.trim()) definition.table_argument = tableArgument.trim();
          return { migration: '', metadata: [{ type: 'add_computed_field', args: { table, name: name.trim(), definition, ...(comment ? { comment } : {}) } }] };
        }}>
        <div className="row">
          <TextField label="Computed field name" value={name} onChange={setName} />
          <label className="field">Function
            <select value={fn} onChange={(e) => setFn(e.target.value)}>
              <option value="">(choose a function)</option>
              {candidates.map((f, i) => <option key={i} value={String(i)}>{f.schema}.{f.name}({f.args}) → {f.returns}</option>)}
            </select>
          </label>
          <TextField label="Table argument" value={tableArgument} placeholder="the first argument" onChange={setTableArgument} />
          <TextField label="Computed field comment" value={comment} onChange={setComment} />
        </div>
      </ChangeForm>
    </Section>
  );
}
