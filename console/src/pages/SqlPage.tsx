/** SQL: run_sql with the result as a table (or the command's status), errors from Postgres shown. */
import { useState } from 'react';
import { query } from '../api';
import { DataTable, ErrorBox, Field, Section, useAction } from '../components';

export function SqlPage() {
  const [sql, setSql] = useState('SELECT now();');
  const [cascade, setCascade] = useState(false);
  const [readOnly, setReadOnly] = useState(false);
  const [result, setResult] = useState<{ columns: string[]; rows: Array<Array<string | null>> } | { status: string } | null>(null);
  const act = useAction();
  const run = () => act.run(async () => {
    setResult(null);
    const r = await query('run_sql', { sql, cascade, read_only: readOnly });
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
          <Field label="SQL">{(id) => <textarea id={id} className="code" rows={10} value={sql} spellCheck={false} onChange={(e) => setSql(e.target.value)} onKeyDown={(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); void run(); } }} />}</Field>
          <div className="row">
            <label><input type="checkbox" checked={cascade} onChange={(e) => setCascade(e.target.checked)} /> cascade metadata</label>
            <label><input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} /> read only</label>
            <button type="submit" className="primary" disabled={act.busy}>Run</button>
            <span className="hint">Ctrl+Enter runs</span>
          </div>
        </form>
        <ErrorBox error={act.error} />
      </Section>
      {result && 'columns' in result ? <Section title={`Result (${result.rows.length} rows)`}><DataTable columns={result.columns} rows={result.rows} /></Section> : null}
      {result && 'status' in result ? <p className="ok" role="status">{result.status}</p> : null}
    </div>
  );
}
