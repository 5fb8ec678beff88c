/**
 * The explain plan drawn as a tree: Postgres' text plan (the `plan` lines of /v1/graphql/explain)
 * parsed into nodes — type, relation, index, estimated cost and rows, and with EXPLAIN ANALYZE the
 * actual time, rows and loops — then shown as nested boxes, each with a bar for its share of the
 * whole statement's time (or cost, without timings). Detail lines (Filter, Join Filter, Buffers …)
 * stay with their node; SubPlan / InitPlan labels with the node they introduce.
 */
export interface PlanNode {
  type: string;
  relation?: string;
  alias?: string;
  index?: string;
  /** `SubPlan 1`, `InitPlan 1 (returns $0)` when the node starts one. */
  label?: string;
  cost: { startup: number; total: number };
  planRows: number;
  actual?: { startup: number; total: number; rows: number; loops: number };
  neverExecuted?: boolean;
  details: string[];
  children: PlanNode[];
}

export interface Plan {
  roots: PlanNode[];
  /** `Planning Time: …`, `Execution Time: …` and other top-level lines. */
  summary: string[];
}

const NODE_RE = /^(.*?)\s+\(cost=([\d.]+)\.\.([\d.]+) rows=(\d+) width=\d+\)(?:\s+\(actual time=([\d.]+)\.\.([\d.]+) rows=(\d+) loops=(\d+)\)|\s+\((never executed)\))?\s*$/;
const HEAD_RE = /^(.*?)(?: using (\S+))?(?: on (\S+)(?: (\S+))?)?$/;

function parseNode(text: string): PlanNode | undefined {
  const m = NODE_RE.exec(text);
  if (!m) return undefined;
  const h = HEAD_RE.exec(m[1].trim())!;
  const node: PlanNode = { type: h[1], cost: { startup: Number(m[2]), total: Number(m[3]) }, planRows: Number(m[4]), details: [], children: [] };
  if (h[2]) node.index = h[2];
  if (h[3]) node.relation = h[3];
  if (h[4]) node.alias = h[4];
  if (m[5] !== undefined) node.actual = { startup: Number(m[5]), total: Number(m[6]), rows: Number(m[7]), loops: Number(m[8]) };
  if (m[9]) node.neverExecuted = true;
  return node;
}

/** Parses the lines of a text-format EXPLAIN (with or without ANALYZE). */
export function parsePlan(lines: string[]): Plan {
  const plan: Plan = { roots: [], summary: [] };
  const stack: Array<{ indent: number; node: PlanNode }> = [];
  let label: string | undefined;
  for (const raw of lines) {
    const indent = raw.length - raw.trimStart().length;
    let text = raw.trim();
    if (text === '') continue;
    const arrow = text.startsWith('->');
    if (arrow) text = text.slice(2).trim();
    const node = arrow || stack.length === 0 ? parseNode(text) : undefined;
    if (node) {
      while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
      if (label) node.label = label;
      label = undefined;
      (stack.length > 0 ? stack[stack.length - 1].node.children : plan.roots).push(node);
      stack.push({ indent, node });
    } else if (/^(SubPlan|InitPlan|CTE)\b/.test(text) && stack.length > 0) {
      label = text;
    } else if (indent === 0) {
      plan.summary.push(text);
      stack.length = 0;
    } else {
      const owner = [...stack].reverse().find((s) => s.indent < indent) ?? stack[stack.length - 1];
      owner?.node.details.push(text);
    }
  }
  return plan;
}

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
