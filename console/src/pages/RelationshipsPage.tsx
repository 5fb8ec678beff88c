/**
 * A table's relationships: the ones it has (object, array, remote) with drop; the ones its foreign
 * keys suggest, each added with one click (name editable, the metadata shown in the row); a manual
 * object or array relationship (remote table and column mapping); a relationship to a table of any
 * database (Hasura v2's remote-source relationship: `create_remote_relationship` with
 * `definition.to_source`, its field mapping chosen from both tables' columns); a remote relationship
 * to a remote schema (the table's fields that feed it and the remote field with its `$column` arguments).
 */
import { useState } from 'react';
import { exportMetadata, refOf, sourceQuery, tableKey, type TableRef } from '../api';
import { DataTable, ErrorBox, JsonEditor, Section, TextField, useAction, useLoad } from '../components';
import { ChangeForm, Spinner } from '../schema/ChangeForm';
import { foreignKeys, tableInfo } from '../schema/catalog';
import { suggestRelationships } from '../schema/relationshipSuggestions';
import { SqlGenError } from '../sqlGen';
import { dataHref, sourcesOf, sourceView, useSource } from '../sources';

async function load(source: string, schema: string, table: string) {
  const t = { schema, name: table };
  const [full, fks, info] = await Promise.all([exportMetadata(), foreignKeys(source), tableInfo(schema, table, source)]);
  const md = sourceView(full, source);
  const entry = (md.tables ?? []).find((x: any) => tableKey(refOf(x.table)) === tableKey(t));
  const trackedTables: TableRef[] = (md.tables ?? []).map((x: any) => refOf(x.table));
  const tracked = new Set(trackedTables.map(tableKey));
  const columns = (info?.columns ?? []).map((c) => c.name);
  return {
    entry,
    trackedTables,
    columns,
    remoteSchemas: (md.remote_schemas ?? []).map((r: any) => r.name as string),
    // Every database's tracked tables: the targets of a relationship to another database.
    sourceTables: sourcesOf(full).map((s) => ({ source: s.name, tables: s.tables.map((x: any) => refOf(x.table)) as TableRef[] })),
    suggestions: entry ? suggestRelationships(t, entry, fks, tracked, columns) : [],
  };
}

type Existing = { kind: 'object' | 'array' | 'remote'; name: string; definition: unknown };

export function RelationshipsPage({ schema, table }: { schema: string; table: string }) {
  const t = { schema, name: table };
  const source = useSource();
  const data = useLoad(() => load(source, schema, table), [source, schema, table]);
  const act = useAction();
  const [names, setNames] = useState<Record<string, string>>({});
  const [dropping, setDropping] = useState<Existing | null>(null);
  if (data.loading && !data.data) return <Spinner label="loading relationships…" />;
  if (data.error) return <ErrorBox error={data.error} />;
  const d = data.data!;
  if (!d.entry) return <p className="muted">{schema}.{table} is not tracked: track it on the <a href={dataHref(source)}>Data</a> page first.</p>;
  const existing: Existing[] = [
    ...(d.entry.object_relationships ?? []).map((r: any) => ({ kind: 'object' as const, name: r.name, definition: r.using })),
    ...(d.entry.array_relationships ?? []).map((r: any) => ({ kind: 'array' as const, name: r.name, definition: r.using })),
    ...(d.entry.remote_relationships ?? []).map((r: any) => ({ kind: 'remote' as const, name: r.name, definition: r.definition ?? r })),
  ];
  const done = () => {
    setDropping(null);
    data.reload();
  };
  return (
    <div>
      <h1>{schema}.{table}: relationships</h1>
      <Section title="Relationships">
        <DataTable
          columns={['name', 'kind', 'definition']}
          rows={existing.map((r) => [r.name, r.kind, <code key="d">{JSON.stringify(r.definition)}</code>])}
          actions={(i) => <button type="button" className="danger" aria-label={`Drop relationship ${existing[i].name}`} onClick={() => setDropping(existing[i])}>Drop</button>}
        />
        {dropping ? (
          <ChangeForm key={dropping.name} label={`Drop relationship ${dropping.name}`} submitLabel={`Drop relationship ${dropping.name}`} danger onCancel={() => setDropping(null)} onDone={done}
            build={() => ({ migration: '', metadata: [dropping.kind === 'remote' ? { type: 'delete_remote_relationship', args: { table: t, name: dropping.name } } : { type: 'drop_relationship', args: { table: t, relationship: dropping.name } }] })} />
        ) : null}
      </Section>
      <Section title="Suggested from foreign keys">
        <ErrorBox error={act.error} />
        <DataTable
          columns={['kind', 'to', 'name', 'metadata']}
          rows={d.suggestions.map((s) => {
            const key = `${s.kind}:${s.constraint}`;
            return [s.kind, tableKey(s.target), <input key="n" aria-label={`Name of the ${s.kind} relationship to ${tableKey(s.target)}`} value={names[key] ?? s.name} onChange={(e) => setNames({ ...names, [key]: e.target.value })} />,
              <code key="m">{JSON.stringify({ type: `create_${s.kind}_relationship`, args: { table: t, name: names[key] ?? s.name, using: s.using } })}</code>];
          })}
          actions={(i) => {
            const s = d.suggestions[i];
            const name = names[`${s.kind}:${s.constraint}`] ?? s.name;
            return <button type="button" disabled={act.busy} aria-label={`Add ${s.kind} relationship to ${tableKey(s.target)}`} onClick={() => act.run(() => sourceQuery(source, `create_${s.kind}_relationship`, { table: t, name, using: s.using })).then((ok) => ok && data.reload())}>Add</button>;
          }}
        />
        {act.busy ? <Spinner label="adding…" /> : null}
      </Section>
      <ManualRelationship table={t} columns={d.columns} tables={d.trackedTables} onDone={data.reload} />
      <SourceRelationship table={t} columns={d.columns} targets={d.sourceTables} onDone={data.reload} />
      <RemoteRelationship table={t} columns={d.columns} remoteSchemas={d.remoteSchemas} onDone={data.reload} />
    </div>
  );
}

function ManualRelationship({ table, columns, tables, onDone }: { table: TableRef; columns: string[]; tables: TableRef[]; onDone: () => void }) {
  const [kind, setKind] = useState<'object' | 'array'>('object');
  const [name, setName] = useState('');
  const [remote, setRemote] = useState('');
  const [pairs, setPairs] = useState<Array<{ from: string; to: string }>>([{ from: '', to: '' }]);
  const reset = () => {
    setName('');
    setPairs([{ from: '', to: '' }]);
    onDone();
  };
  return (
    <Section title="Add a manual relationship">
      <ChangeForm label="Add a manual relationship" submitLabel="Add relationship" onDone={reset}
        build={() => {
          const target = tables[Number(remote)];
          if (!name.trim()) throw new SqlGenError('name the relationship', 'name');
          if (remote === '' || !target) throw new SqlGenError('choose the remote table', 'remote table');
          const mapping = pairs.filter((p) => p.from && p.to.trim());
          if (mapping.length === 0) throw new SqlGenError('map at least one column', 'column mapping');
          return { migration: '', metadata: [{ type: `create_${kind}_relationship`, args: { table, name: name.trim(), using: { manual_configuration: { remote_table: target, column_mapping: Object.fromEntries(mapping.map((p) => [p.from, p.to.trim()])) } } } }] };
        }}>
        <div className="row">
          <label className="field">Relationship kind<select value={kind} onChange={(e) => setKind(e.target.value as 'object' | 'array')}><option value="object">object</option><option value="array">array</option></select></label>
          <TextField label="Relationship name" value={name} onChange={setName} />
          <label className="field">Remote table
            <select value={remote} onChange={(e) => setRemote(e.target.value)}>
              <option value="">(choose a table)</option>
              {tables.map((r, j) => <option key={j} value={String(j)}>{tableKey(r)}</option>)}
            </select>
          </label>
        </div>
        {pairs.map((p, i) => (
          <div className="row" key={i} role="group" aria-label={`Column pair ${i + 1}`}>
            <label className="field">From column<select aria-label={`Mapping ${i + 1} from`} value={p.from} onChange={(e) => setPairs(pairs.map((x, j) => (j === i ? { ...x, from: e.target.value } : x)))}><option value="">(column)</option>{columns.map((c) => <option key={c}>{c}</option>)}</select></label>
            <label className="field">To remote column<input aria-label={`Mapping ${i + 1} to`} value={p.to} onChange={(e) => setPairs(pairs.map((x, j) => (j === i ? { ...x, to: e.target.value } : x)))} /></label>
          </div>
        ))}
        <button type="button" onClick={() => setPairs([...pairs, { from: '', to: '' }])}>Add a column pair</button>
      </ChangeForm>
    </Section>
  );
}

/** A relationship to a table of any database (the same one or another): `to_source`, mapping picked from both tables' columns. */
function SourceRelationship({ table, columns, targets, onDone }: { table: TableRef; columns: string[]; targets: Array<{ source: string; tables: TableRef[] }>; onDone: () => void }) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<'object' | 'array'>('object');
  const [target, setTarget] = useState('');
  const [pairs, setPairs] = useState<Array<{ from: string; to: string }>>([{ from: '', to: '' }]);
  // `["<source>", "<schema>.<table>"]`: a table of a database.
  const [toSource, toKey] = target ? (JSON.parse(target) as [string, string]) : ['', ''];
  const toTable = targets.find((x) => x.source === toSource)?.tables.find((x) => tableKey(x) === toKey);
  const toColumns = useLoad(async () => (toTable ? ((await tableInfo(toTable.schema, toTable.name, toSource))?.columns ?? []).map((c) => c.name) : []), [target]);
  return (
    <Section title="Add a relationship to a table of another database">
      <ChangeForm label="Add a relationship to another database" submitLabel="Add database relationship" onDone={() => { setName(''); setPairs([{ from: '', to: '' }]); onDone(); }}
        build={() => {
          if (!name.trim()) throw new SqlGenError('name the relationship', 'name');
          if (!toTable) throw new SqlGenError('choose the database and table to join', 'target table');
          const mapping = pairs.filter((p) => p.from && p.to);
          if (mapping.length === 0) throw new SqlGenError('map at least one column', 'field mapping');
          return { migration: '', metadata: [{ type: 'create_remote_relationship', args: { table, name: name.trim(), definition: { to_source: { source: toSource, table: toTable, relationship_type: kind, field_mapping: Object.fromEntries(mapping.map((p) => [p.from, p.to])) } } } }] };
        }}>
        <div className="row">
          <TextField label="Database relationship name" value={name} onChange={setName} />
          <label className="field">Database relationship kind<select value={kind} onChange={(e) => setKind(e.target.value as 'object' | 'array')}><option value="object">object</option><option value="array">array</option></select></label>
          <label className="field">Target database and table
            <select value={target} onChange={(e) => { setTarget(e.target.value); setPairs(pairs.map((p) => ({ ...p, to: '' }))); }}>
              <option value="">(choose a table)</option>
              {targets.map((x) => (
                <optgroup key={x.source} label={x.source}>
                  {x.tables.map((r) => <option key={tableKey(r)} value={JSON.stringify([x.source, tableKey(r)])}>{x.source}: {tableKey(r)}</option>)}
                </optgroup>
              ))}
            </select>
          </label>
        </div>
        {pairs.map((p, i) => (
          <div className="row" key={i} role="group" aria-label={`Field mapping ${i + 1}`}>
            <label className="field">Source column<select aria-label={`Field mapping ${i + 1} from`} value={p.from} onChange={(e) => setPairs(pairs.map((x, j) => (j === i ? { ...x, from: e.target.value } : x)))}><option value="">(column)</option>{columns.map((c) => <option key={c}>{c}</option>)}</select></label>
            <label className="field">Target column<select aria-label={`Field mapping ${i + 1} to`} value={p.to} onChange={(e) => setPairs(pairs.map((x, j) => (j === i ? { ...x, to: e.target.value } : x)))}><option value="">(column)</option>{(toColumns.data ?? []).map((c) => <option key={c}>{c}</option>)}</select></label>
          </div>
        ))}
        <ErrorBox error={toColumns.error} />
        <button type="button" onClick={() => setPairs([...pairs, { from: '', to: '' }])}>Add a field mapping</button>
      </ChangeForm>
    </Section>
  );
}

function RemoteRelationship({ table, columns, remoteSchemas, onDone }: { table: TableRef; columns: string[]; remoteSchemas: string[]; onDone: () => void }) {
  const [name, setName] = useState('');
  const [remote, setRemote] = useState('');
  const [fields, setFields] = useState<string[]>([]);
  const [remoteField, setRemoteField] = useState('');
  if (remoteSchemas.length === 0) return <Section title="Add a remote relationship"><p className="muted">No remote schema yet: add one on the <a href="#/remote-schemas">Remote schemas</a> page.</p></Section>;
  return (
    <Section title="Add a remote relationship">
      <ChangeForm label="Add a remote relationship" submitLabel="Add remote relationship" onDone={() => { setName(''); onDone(); }}
        build={() => {
          if (!name.trim()) throw new SqlGenError('name the relationship', 'name');
          if (!remote) throw new SqlGenError('choose the remote schema', 'remote schema');
          let rf: unknown;
          try {
            rf = JSON.parse(remoteField);
          } catch {
            throw new SqlGenError('the remote field is JSON: {"user": {"arguments": {"id": "$author_id"}}}', 'remote field');
          }
          return { migration: '', metadata: [{ type: 'create_remote_relationship', args: { name: name.trim(), table, hasura_fields: fields, remote_schema: remote, remote_field: rf } }] };
        }}>
        <div className="row">
          <TextField label="Remote relationship name" value={name} onChange={setName} />
          <label className="field">Remote schema<select value={remote} onChange={(e) => setRemote(e.target.value)}><option value="">(choose)</option>{remoteSchemas.map((r) => <option key={r}>{r}</option>)}</select></label>
        </div>
        <div className="row" role="group" aria-label="Fields sent to the remote schema">
          {columns.map((c) => <label key={c} className="inline-check"><input type="checkbox" aria-label={`send ${c}`} checked={fields.includes(c)} onChange={(e) => setFields(e.target.checked ? [...fields, c] : fields.filter((x) => x !== c))} />{c}</label>)}
        </div>
        <JsonEditor label="Remote field" rows={4} value={remoteField} onChange={setRemoteField} hint={'{"user": {"arguments": {"id": "$author_id"}}}: the root field, its arguments, $column for a value of this row'} />
      </ChangeForm>
    </Section>
  );
}
