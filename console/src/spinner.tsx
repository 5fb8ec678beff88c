/**
 * Spinners: `Spinner` where a part of a page waits on the engine, `ActivitySpinner` in the shell
 * while any request to the engine is in flight (shown after 150 ms, so quick answers do not flicker).
 * Both are `role="status"` with a text, so screen readers hear what is waited on.
 */
import { useEffect, useState } from 'react';
import { onActivity } from './api';

export function Spinner({ label = 'loading…' }: { label?: string }) {
  return (
    <span className="spinner-wrap" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </span>
  );
}

export function ActivitySpinner() {
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = onActivity((n) => {
      clearTimeout(timer);
      if (n > 0) timer = setTimeout(() => setBusy(true), 150);
      else setBusy(false);
    });
    return () => {
      clearTimeout(timer);
      off();
    };
  }, []);
  return <div className="activity" aria-live="polite">{busy ? <Spinner label="waiting for the engine…" /> : null}</div>;
}
