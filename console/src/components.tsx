/** Small shared UI parts: labelled fields, buttons, error boxes, tables and a JSON editor with validation. */
import { useCallback, useEffect, useId, useState, type ReactNode } from 'react';
import { EngineError } from './api';

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as EngineError;
  return (
    <div className="error" role="alert">
      {e.code ? <strong>{e.code}: </strong> : null}
      {e.message ?? String(error)}
      {e.path ? <span className="muted"> (at {e.path})</span> : null}
    </div>
  );
}

export function Field({ label, children, hint, error }: { label: string; children: (id: string) => ReactNode; hint?: ReactNode; error?: unknown }) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {children(id)}
      {hint ? <div className="hint">{hint}</div> : null}
      <ErrorBox error={error} />
    </div>
  );
}

export function TextField({ label, value, onChange, placeholder, type = 'text', error }: { label: string; value: string; onChange: (v: string) => void; placeholder?: string; type?: string; error?: unknown }) {
  return <Field label={label} error={error}>{(id) => <input id={id} type={type} value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />}</Field>;
}

/** A JSON text editor: parses as the user types and says what is wrong; `onValid` gets the value. */
export function JsonEditor({ label, value, onChange, rows = 6, error, hint }: { label: string; value: string; onChange: (text: string) => void; rows?: number; error?: unknown; hint?: ReactNode }) {
  let problem: string | undefined;
  try {
    if (value.trim() !== '') JSON.parse(value);
  } catch (e) {
    problem = (e as Error).message;
  }
  return (
    <Field label={label} hint={hint} error={error ?? (problem ? new EngineError('invalid-json', problem, undefined, 0) : undefined)}>
      {(id) => <textarea id={id} className="code" rows={rows} value={value} spellCheck={false} aria-invalid={problem ? true : undefined} onChange={(e) => onChange(e.target.value)} />}
    </Field>
  );
}

export const parseJson = (text: string, fallback: unknown = undefined): unknown => (text.trim() === '' ? fallback : JSON.parse(text));

export function DataTable({ columns, rows, actions, caption }: { columns: string[]; rows: Array<Array<ReactNode>>; actions?: (i: number) => ReactNode; caption?: string }) {
  return (
    <div className="table-wrap">
      <table>
        {caption ? <caption>{caption}</caption> : null}
        <thead>
          <tr>
            {columns.map((c) => <th key={c} scope="col">{c}</th>)}
            {actions ? <th scope="col"><span className="sr-only">actions</span></th> : null}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr><td colSpan={columns.length + (actions ? 1 : 0)} className="muted">no rows</td></tr>
          ) : rows.map((r, i) => (
            <tr key={i}>
              {r.map((v, j) => <td key={j}>{v === null ? <span className="null">NULL</span> : v}</td>)}
              {actions ? <td className="actions">{actions(i)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Loads with `fn` on mount and when `deps` change; `reload()` again. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[] = []): { data: T | undefined; error: unknown; loading: boolean; reload: () => void } {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [n, setN] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then((data) => live && setState({ data, loading: false }), (error) => live && setState({ error, loading: false }));
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, n]);
  const reload = useCallback(() => setN((x) => x + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** Runs an action, keeping its error and a busy flag. */
export function useAction(): { busy: boolean; error: unknown; run: (fn: () => Promise<unknown>) => Promise<boolean>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const run = async (fn: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(undefined) };
}

export function Section({ title, children, actions }: { title: string; children: ReactNode; actions?: ReactNode }) {
  return (
    <section className="card" aria-label={title}>
      <header className="card-head"><h2>{title}</h2><div>{actions}</div></header>
      {children}
    </section>
  );
}
