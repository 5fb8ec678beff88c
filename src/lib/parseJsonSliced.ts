/**
 * `JSON.parse` of a large text a slice at a time, with turns of the event loop between slices: a 16 MB
 * metadata document is ~0.3–0.4 s of `JSON.parse` in one turn. A value whose text is under `PIECE_CHARS`
 * is handed to `JSON.parse` whole (it checks it); a larger array or object is walked here member by member
 * (its brackets, commas, colons and keys checked here, each member parsed by the same rule), so every
 * piece of work between two checks of the budget is small. The result is what `JSON.parse` gives (the same
 * values, key order, last of duplicate keys, `__proto__` as an own key), and a text `JSON.parse` refuses
 * is refused with a `SyntaxError`.
 */
import { TurnBudget } from './turnBudget.js';

/** Values whose text is shorter are parsed by one `JSON.parse`. */
const PIECE_CHARS = 32 * 1024;
/** Below this depth of large containers the rest is parsed at once (a pathological nesting, not a document). */
const MAX_DEPTH = 64;

const STRUCTURAL = /["[\]{}]/g;

function fail(at: number): never {
  throw new SyntaxError(`Unexpected token in JSON at position ${at}`);
}

function skipWs(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++;
    else return i;
  }
}

/** The index after the string whose opening quote is at `i`. */
function endOfString(t: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = t.indexOf('"', j);
    if (q < 0) fail(i);
    let k = q - 1;
    while (t.charCodeAt(k) === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

/** The index after the scalar (number, literal) at `i`: up to the next delimiter. */
function endOfScalar(t: string, i: number): number {
  for (;;) {
    const c = t.charCodeAt(i);
    if (Number.isNaN(c) || c === 0x2c || c === 0x5d || c === 0x7d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) return i;
    i++;
  }
}

/**
 * The index after the array or object opened at `i` when it closes within `limit` characters, else -1.
 * Brackets are matched by depth only: a mismatch is left to `JSON.parse` of the piece.
 */
function endOfContainerWithin(t: string, i: number, limit: number): number {
  let depth = 0;
  STRUCTURAL.lastIndex = i;
  const stop = Math.min(t.length, i + limit);
  for (;;) {
    const m = STRUCTURAL.exec(t);
    if (m === null || m.index >= stop) return -1;
    const c = t.charCodeAt(m.index);
    if (c === 0x22) {
      const end = endOfString(t, m.index);
      if (end > stop) return -1;
      STRUCTURAL.lastIndex = end;
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if (--depth === 0) return m.index + 1;
  }
}

class SlicedParser {
  constructor(private readonly t: string, private readonly budget: TurnBudget) {}

  /** The value starting at `i` (no leading whitespace) and the index after it. */
  async value(i: number, depth: number): Promise<[unknown, number]> {
    const t = this.t;
    const c = t.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      const end = depth >= MAX_DEPTH ? endOfContainerWithin(t, i, t.length) : endOfContainerWithin(t, i, PIECE_CHARS);
      if (end >= 0) return [JSON.parse(t.slice(i, end)), end];
      if (depth >= MAX_DEPTH) fail(i);
      return c === 0x5b ? this.array(i, depth + 1) : this.object(i, depth + 1);
    }
    const end = c === 0x22 ? endOfString(t, i) : endOfScalar(t, i);
    return [JSON.parse(t.slice(i, end)), end];
  }

  private async array(i: number, depth: number): Promise<[unknown, number]> {
    const t = this.t;
    const out: unknown[] = [];
    i = skipWs(t, i + 1);
    if (t.charCodeAt(i) === 0x5d) return [out, i + 1];
    for (;;) {
      if (this.budget.due) await this.budget.next();
      const [v, end] = await this.value(i, depth);
      out.push(v);
      i = skipWs(t, end);
      const c = t.charCodeAt(i);
      if (c === 0x5d) return [out, i + 1];
      if (c !== 0x2c) fail(i);
      i = skipWs(t, i + 1);
    }
  }

  private async object(i: number, depth: number): Promise<[unknown, number]> {
    const t = this.t;
    const out: Record<string, unknown> = {};
    i = skipWs(t, i + 1);
    if (t.charCodeAt(i) === 0x7d) return [out, i + 1];
    for (;;) {
      if (this.budget.due) await this.budget.next();
      if (t.charCodeAt(i) !== 0x22) fail(i);
      const keyEnd = endOfString(t, i);
      const key = JSON.parse(t.slice(i, keyEnd)) as string;
      i = skipWs(t, keyEnd);
      if (t.charCodeAt(i) !== 0x3a) fail(i);
      const [v, end] = await this.value(skipWs(t, i + 1), depth);
      // JSON.parse makes `__proto__` an own key; an assignment would set the prototype.
      if (key === '__proto__') Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
      else out[key] = v;
      i = skipWs(t, end);
      const c = t.charCodeAt(i);
      if (c === 0x7d) return [out, i + 1];
      if (c !== 0x2c) fail(i);
      i = skipWs(t, i + 1);
    }
  }
}

/** `JSON.parse(text)`, in slices of about `budget.sliceMs` with a turn of the event loop between them. */
export async function parseJsonSliced(text: string, budget: TurnBudget = new TurnBudget()): Promise<unknown> {
  if (text.length < PIECE_CHARS) return JSON.parse(text);
  const start = skipWs(text, 0);
  const [value, end] = await new SlicedParser(text, budget).value(start, 0);
  if (skipWs(text, end) !== text.length) fail(end);
  return value;
}
