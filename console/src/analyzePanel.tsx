/**
 * GraphiQL's "Analyze": the current query, variables and session (from the request headers) sent
 * to /v1/graphql/explain, and per root field the SQL the engine generated and Postgres' plan, drawn
 * as a tree (planTree.tsx) with the plain text beside it.
 */
import { useEffect, useRef } from 'react';
import type { FieldPlan } from './api';
import { ErrorBox } from './components';
import { PlanTree } from './planTree';

export interface Analysis {
  busy: boolean;
  error?: unknown;
  plans?: FieldPlan[];
  role: string;
}

export function AnalyzePanel({ analysis, onClose }: { analysis: Analysis; onClose: () => void }) {
  const head = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    void head.current?.scrollIntoView({ block: 'start' });
  }, [analysis.busy]);
  return (
    <section className="card analyze" aria-label="Analysis">
      <header className="card-head">
        <h2 ref={head}>Analysis <span className="muted">as role {analysis.role}</span></h2>
        <button type="button" onClick={onClose}>Close analysis</button>
      </header>
      {analysis.busy ? <p role="status"><span className="spinner" aria-hidden="true" />explaining…</p> : null}
      <ErrorBox error={analysis.error} />
      {(analysis.plans ?? []).map((p, i) => (
        <article key={i} className="analyze-field" aria-label={`Root field ${p.field}`}>
          <h3>{p.field}</h3>
          {p.sql === null ? <p className="muted">not a database query (nothing to explain)</p> : (
            <>
              <h4>Generated SQL</h4>
              <pre className="code preview sql" aria-label={`SQL of ${p.field}`}>{p.sql}</pre>
              <h4>Plan</h4>
              <PlanTree lines={p.plan ?? []} label={`Plan of ${p.field}`} />
              <details><summary>plan as text</summary><pre className="code preview">{(p.plan ?? []).join('\n')}</pre></details>
            </>
          )}
        </article>
      ))}
    </section>
  );
}
