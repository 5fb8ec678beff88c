/**
 * A small line diff (LCS) for `metadata diff`: unified-style hunks with 3 lines of context,
 * `-` for the server's lines and `+` for the directory's, coloured when asked.
 */
export interface DiffOptions {
  color: boolean;
  context?: number;
}

type Op = { kind: ' ' | '-' | '+'; line: string };

/** Common head and tail are kept as context lines; the LCS runs on the changed middle only. */
function ops(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const same = (xs: string[]) => xs.map((line): Op => ({ kind: ' ', line }));
  return [...same(a.slice(0, head)), ...middleOps(a.slice(head, a.length - tail), b.slice(head, b.length - tail)), ...same(a.slice(a.length - tail))];
}

function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // LCS lengths from the end; metadata files are small enough for the O(n·m) table.
  const t = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) t[i]![j] = a[i] === b[j] ? t[i + 1]![j + 1]! + 1 : Math.max(t[i + 1]![j]!, t[i]![j + 1]!);
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) (out.push({ kind: ' ', line: a[i]! }), i++, j++);
    else if (t[i + 1]![j]! >= t[i]![j + 1]!) out.push({ kind: '-', line: a[i++]! });
    else out.push({ kind: '+', line: b[j++]! });
  }
  while (i < n) out.push({ kind: '-', line: a[i++]! });
  while (j < m) out.push({ kind: '+', line: b[j++]! });
  return out;
}

/** The diff of two texts as printable lines; empty when they are equal. */
export function lineDiff(from: string, to: string, opts: DiffOptions): string[] {
  if (from === to) return [];
  const all = ops(from.split('\n'), to.split('\n'));
  const ctx = opts.context ?? 3;
  const keep = new Array<boolean>(all.length).fill(false);
  all.forEach((o, k) => {
    if (o.kind !== ' ') for (let d = Math.max(0, k - ctx); d <= Math.min(all.length - 1, k + ctx); d++) keep[d] = true;
  });
  const paint = (o: Op) => {
    const text = `${o.kind}${o.line}`;
    if (!opts.color || o.kind === ' ') return text;
    return `${o.kind === '-' ? '\x1b[31m' : '\x1b[32m'}${text}\x1b[0m`;
  };
  const out: string[] = [];
  let gap = false;
  all.forEach((o, k) => {
    if (!keep[k]) {
      gap = true;
      return;
    }
    if (gap || out.length === 0) out.push(opts.color ? '\x1b[36m@@\x1b[0m' : '@@');
    gap = false;
    out.push(paint(o));
  });
  return out;
}
