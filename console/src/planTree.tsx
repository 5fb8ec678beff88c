/**
 * The explain plan drawn as a tree: Postgres' text plan (the `plan` lines of /v1/graphql/explain,
 * parsed by explainPlan.ts) shown as nested boxes — each node's type, relation, index, estimated
 * rows and cost, and with EXPLAIN ANALYZE its actual time, rows and loops, with a bar for its share
 * of the whole statement's time (or cost, without timings) and its detail lines (Filter, Buffers …).
 */
import { parsePlan, type PlanNode } from './explainPlan';

const ms = (n: number) => `${n < 10 ? n.toFixed(3) : n.toFixed(1)} ms`;
/** A node's own measure for the bars: actual total time × loops, else the estimated total cost. */
const weight = (n: PlanNode, timed: boolean) => (timed ? (n.actual ? n.actual.total * n.actual.loops : 0) : n.cost.total);

function NodeBox({ node, whole, timed }: { node: PlanNode; whole: number; timed: boolean }) {
  const share = whole > 0 ? Math.min(100, (100 * weight(node, timed)) / whole) : 0;
  const name = `${node.type}${node.relation ? ` on ${node.relation}` : ''}`;
  return (
    <li className="plan-item">
      {node.label ? <div className="plan-label">{node.label}</div> : null}
      <div className="plan-node" aria-label={`plan node ${name}`} tabIndex={0}>
        <div className="plan-head">
          <strong className="plan-type">{node.type}</strong>
          {node.relation ? <> on <span className="plan-rel">{node.relation}</span>{node.alias && node.alias !== node.relation ? <span className="muted"> {node.alias}</span> : null}</> : null}
          {node.index ? <span className="muted"> using {node.index}</span> : null}
        </div>
        <div className="plan-figures">
          {node.actual ? (
            <span className="plan-time">{ms(node.actual.total)}{node.actual.loops > 1 ? ` × ${node.actual.loops} loops` : ''} · {node.actual.rows} rows</span>
          ) : node.neverExecuted ? <span className="muted">never executed</span> : null}
          <span className="muted"> est. {node.planRows} rows, cost {node.cost.total}</span>
        </div>
        <div className="plan-bar" aria-hidden="true"><span style={{ width: `${share.toFixed(1)}%` }} /></div>
        {node.details.length > 0 ? <div className="plan-details">{node.details.map((d, i) => <div key={i}>{d}</div>)}</div> : null}
      </div>
      {node.children.length > 0 ? <ul className="plan-children">{node.children.map((c, i) => <NodeBox key={i} node={c} whole={whole} timed={timed} />)}</ul> : null}
    </li>
  );
}

/** The plan of one statement as nested boxes (and its summary lines). */
export function PlanTree({ lines, label }: { lines: string[]; label: string }) {
  const plan = parsePlan(lines);
  const timed = plan.roots.some((r) => r.actual !== undefined);
  const whole = plan.roots.reduce((a, r) => a + weight(r, timed), 0);
  return (
    <figure className="plan" aria-label={label}>
      <ul className="plan-children plan-root">{plan.roots.map((r, i) => <NodeBox key={i} node={r} whole={whole} timed={timed} />)}</ul>
      {plan.summary.length > 0 ? <figcaption className="muted">{plan.summary.join(' · ')}</figcaption> : null}
    </figure>
  );
}
