/**
 * SQL: run_sql on the database chosen in the Database list (`source`) with the result as a table (or the command's status), errors from Postgres shown. In
 * migrations mode (project.ts) "This is a migration" (ticked by itself for SQL that changes the schema,
 * as in Hasura's console) with its name and an optional down SQL makes the run a migration of the project, written to that database's migrations folder.
 */
import { useState } from 'react';
import { exportMetadata, query } from '../api';
import { DataTable, ErrorBox, Field, Section, TextField, useAction, useLoad } from '../components';
import { consoleProject, looksLikeSchemaChange, migrationHeaders, snakeName } from '../project';
import { Spinner } from '../spinner';
import { DEFAULT_SOURCE, sourcesOf } from '../sources';

export function SqlPage() {
  const [sql, setSql] = useState('SELECT now();');
  const [cascade, setCascade] = useState(false);
  const [readOnly, setReadOnly] = useState(false);
  const [result, setResult] = useState<{ columns: string[]; rows: Array<Array<string | null>> } | { status: string } | null>(null);
  const project = consoleProject();
  const md = useLoad(exportMetadata);
  const sources = md.data ? sourcesOf(md.data).map((s) => s.name) : [DEFAULT_SOURCE];
  // The project's database when it is a source, else `default`.
  const [source, setSource] = useState(project?.database ?? DEFAULT_SOURCE);
  const database = sources.includes(source) ? source : DEFAULT_SOURCE;
  // undefined: follow the SQL (ticked when it changes the schema) until the user ticks or unticks it.
  const [migrationChoice, setMigrationChoice] = useState<boolean | undefined>(undefined);
  const isMigration = !readOnly && (migrationChoice ?? looksLikeSchemaChange(sql));
  const [migrationName, setMigrationName] = useState('run_sql_migration');
  const [down, setDown] = useState('');
  const act = useAction();
  const run = () => act.run(async () => {
    setResult(null);
    const headers = project && !readOnly ? migrationHeaders(isMigration ? { name: snakeName(migrationName) || 'run_sql_migration', down } : false) : undefined;
    const r = await query('run_sql', { source: database, sql, cascade, read_only: readOnly }, headers);
    if (r.result_type === 'TuplesOk') {
      const [head, ...rows] = r.result;
      setResult({ columns: head, rows });
    } else setResult({ status: 'command completed' });
  });
  return (
    <div>
      <h1>SQL</h1>
      <Section title="Run SQL">
        <form aria-label="Run SQL" onSubmit={(e) => { e.preventDefault(); void run(); }}>
          <Field label="Database">{(id) => <select id={id} value={database} onChange={(e) => setSource(e.target.value)}>{sources.map((s) => <option key={s}>{s}</option>)}</select>}</Field>
          <Field label="SQL">{(id) => <textarea id={id} className="code" rows={10} value={sql} spellCheck={false} onChange={(e) => setSql(e.target.value)} onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); void run(); } }} />}</Field>
          <div className="row">
            <label><input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} /> cascade metadata</label>
            <label><input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> read only</label>
            {project ? <label><input type="checkbox" checked={isMigration} disabled={readOnly} onChange={(e) => setMigrationChoice(e.target.checked)} /> This is a migration</label> : null}
            <button type="submit" className="primary" disabled={act.busy}>Run</button>
            {act.busy ? <Spinner label="running…" /> : null}
            <span className="hint">Ctrl+Enter runs</span>
          </div>
          {project && isMigration ? (
            <div className="row">
              <TextField label="Migration name" value={migrationName} onChange={setMigrationName} />
              <Field label="Down SQL (optional)" hint={`written to migrations/${database}/<version>_${snakeName(migrationName) || 'run_sql_migration'}/down.sql; without it, a note that the migration is not reversible`}>
                {(id) => <textarea id={id} className="code" rows={2} cols={60} value={down} spellCheck={false} onChange={(e) => setDown(e.target.value)} />}
              </Field>
            </div>
          ) : null}
        </form>
        <ErrorBox error={act.error} />
      </Section>
      {result && 'columns' in result ? <Section title={`Result (${result.rows.length} rows)`}><DataTable columns={result.columns} rows={result.rows} /></Section> : null}
      {result && 'status' in result ? <p className="ok" role="status">{result.status}</p> : null}
    </div>
  );
}
