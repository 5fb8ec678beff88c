/**
 * Postgres' text-format EXPLAIN (the `plan` lines /v1/graphql/explain gives, with or without
 * ANALYZE) parsed into a tree of nodes: type, relation, alias, index, estimated cost and rows, and
 * the actual time, rows and loops when measured. Detail lines (Filter, Join Filter, Buffers …) stay
 * with their node; SubPlan / InitPlan / CTE labels go with the node they introduce; top-level lines
 * (Planning Time, Execution Time) are the summary. No imports: the tests load it as it is.
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

