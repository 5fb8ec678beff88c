/**
 * Create a view: schema, name and its query; tracked in the same request when asked (a `bulk` of
 * run_sql and track_table). The SQL and its down (DROP VIEW) are previewed as you type.
 */
import { useState } from 'react';
import { Field, Section, TextField } from '../components';
import { ChangeForm } from '../schema/ChangeForm';
import { createView, SqlGenError } from '../sqlGen';
import { dataHref, useSource } from '../sources';

export function CreateViewPage() {
  const [schema, setSchema] = useState('public');
  const [name, setName] = useState('');
  const [sql, setSql] = useState('');
  const [track, setTrack] = useState(true);
  const source = useSource();
  return (
    <div>
      <h1>Create a view{source !== 'default' ? ` in ${source}` : ''}</h1>
      <p><a href={dataHref(source)}>← all tables</a></p>
      <Section title="New view">
        <ChangeForm label="Create a view" submitLabel="Create view" onDone={() => { window.location.hash = dataHref(source); }}
          build={() => {
            if (!name.trim()) throw new SqlGenError('name the view', 'name');
            const v = { schema: schema.trim(), name: name.trim() };
            return { migration: `create_view_${v.schema}_${v.name}`, sql: createView(v, sql), metadata: track ? [{ type: 'track_table', args: { table: v } }] : [] };
          }}>
          <div className="row">
            <TextField label="View schema" value={schema} onChange={setSchema} />
            <TextField label="View name" value={name} onChange={setName} />
          </div>
          <Field label="View query">{(id) => <textarea id={id} className="code" rows={6} value={sql} spellCheck={false} placeholder="SELECT … FROM …" onChange={(e) => setSql(e.target.value)} />}</Field>
          <p><label className="inline-check"><input type="checkbox" checked={track} onChange={(e) => setTrack(e.target.checked)} />Track the view</label></p>
        </ChangeForm>
      </Section>
    </div>
  );
}
