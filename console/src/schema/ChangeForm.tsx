/**
 * A form that changes the schema or the metadata: its fields, then a live preview of exactly what it
 * will send (the SQL, the down SQL or "not reversible", the metadata operations as JSON), then the
 * button that sends it (a spinner while the engine works; the engine's `{code, error, path}` next to
 * the form). `build` turns the fields into a Change and throws SqlGenError while they are incomplete.
 */
import { useState, type ReactNode } from 'react';
import { ErrorBox } from '../components';
import { SqlGenError } from '../sqlGen';
import { useSource } from '../sources';
import { applyChange, metadataOn, type Change } from './change';
import './schema.css';

export function Spinner({ label }: { label: string }) {
  return <span className="spinner-wrap" role="status"><span className="spinner" aria-hidden="true" />{label}</span>;
}

export function ChangePreview({ change }: { change: Change }) {
  const ops = metadataOn(change, useSource());
  return (
    <div className="preview">
      {change.sql ? (
        <>
          <div className="preview-label">SQL{change.cascade ? ' (cascade)' : ''}</div>
          <pre className="code" aria-label="SQL to run">{change.sql.up}</pre>
          <div className="preview-label">Down SQL</div>
          {change.sql.down === null ? <p className="muted" aria-label="Down SQL">not reversible</p> : <pre className="code" aria-label="Down SQL">{change.sql.down}</pre>}
        </>
      ) : null}
      {ops.length ? (
        <>
          <div className="preview-label">Metadata</div>
          <pre className="code" aria-label="Metadata to send">{JSON.stringify(ops.length === 1 ? ops[0] : ops, null, 2)}</pre>
        </>
      ) : null}
    </div>
  );
}

export function ChangeForm({ label, submitLabel, build, onDone, onCancel, children, danger }: {
  label: string;
  submitLabel: string;
  build: () => Change;
  onDone?: () => void;
  onCancel?: () => void;
  children?: ReactNode;
  danger?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const source = useSource();
  let change: Change | undefined;
  let problem: string | undefined;
  try {
    change = build();
  } catch (e) {
    if (!(e instanceof SqlGenError)) throw e;
    problem = e.message;
  }
  return (
    <form
      aria-label={label}
      className="change-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!change || busy) return;
        setBusy(true);
        setError(undefined);
        applyChange(change, source).then(
          () => {
            setBusy(false);
            onDone?.();
          },
          (err) => {
            setBusy(false);
            setError(err);
          },
        );
      }}
    >
      {children}
      {change ? <ChangePreview change={change} /> : <p className="hint" aria-live="polite">{problem}</p>}
      <ErrorBox error={error} />
      <div className="row">
        <button type="submit" className={danger ? 'danger' : 'primary'} disabled={!change || busy}>{submitLabel}</button>
        {onCancel ? <button type="button" onClick={onCancel}>Cancel</button> : null}
        {busy ? <Spinner label="running…" /> : null}
      </div>
    </form>
  );
}
