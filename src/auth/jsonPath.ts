/**
 * The small JSON-path dialect of the JWT settings (`claims_namespace_path`, `claims_map` paths):
 * `$` is the root, then `.key`, `['key']` / `["key"]` and `[index]` steps, e.g.
 * `$.svc.claims`, `$['https://svc.io/jwt/claims']`, `$.roles[0]`. The leading `$` is optional.
 */

export type JsonPathStep = string | number;

/** Parses a path; throws an Error whose message says where the path went wrong. */
export function parseJsonPath(text: string): JsonPathStep[] {
  const steps: JsonPathStep[] = [];
  let i = text.startsWith('$') ? 1 : 0;
  const fail = (why: string): never => {
    throw new Error(`${why} at position ${i} of '${text}'`);
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '.') {
      i++;
      const start = i;
      while (i < text.length && text[i] !== '.' && text[i] !== '[') i++;
      if (i === start) fail('expected a key after "."');
      steps.push(text.slice(start, i));
    } else if (c === '[') {
      i++;
      const quote = text[i];
      if (quote === "'" || quote === '"') {
        const end = text.indexOf(quote, i + 1);
        if (end < 0) fail('unterminated quoted key');
        steps.push(text.slice(i + 1, end));
        i = end + 1;
      } else {
        const start = i;
        while (i < text.length && /[0-9]/.test(text[i]!)) i++;
        if (i === start) fail('expected an array index or a quoted key');
        steps.push(Number(text.slice(start, i)));
      }
      if (text[i] !== ']') fail('expected "]"');
      i++;
    } else if (steps.length === 0 && i === 0) {
      // A bare first key without "$." (`svc.claims`), as Hasura's parser also takes.
      const start = i;
      while (i < text.length && text[i] !== '.' && text[i] !== '[') i++;
      steps.push(text.slice(start, i));
    } else {
      fail(`unexpected "${c}"`);
    }
  }
  return steps;
}

/** Prints a path back in the canonical `$.a['b c'][0]` form (used in error messages). */
export function encodeJsonPath(steps: readonly JsonPathStep[]): string {
  let out = '$';
  for (const s of steps) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += /^[A-Za-z_][A-Za-z0-9_-]*$/.test(s) ? `.${s}` : `['${s}']`;
  }
  return out;
}

/** The value at `steps` inside `root`, or `undefined` when some step does not exist. */
export function readJsonPath(root: unknown, steps: readonly JsonPathStep[]): unknown {
  let cur: unknown = root;
  for (const s of steps) {
    if (typeof s === 'number') {
      if (!Array.isArray(cur) || s >= cur.length) return undefined;
      cur = cur[s];
    } else {
      if (cur === null || typeof cur !== 'object' || Array.isArray(cur)) return undefined;
      if (!Object.prototype.hasOwnProperty.call(cur, s)) return undefined;
      cur = (cur as Record<string, unknown>)[s];
    }
  }
  return cur;
}
