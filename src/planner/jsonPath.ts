/**
 * Hasura's JSON path syntax for the `path` argument of json/jsonb columns → key segments:
 * optional leading `$`, then `.key`, `key` (at the start), `[0]`, `['key']`, `["key"]`, and
 * `.` before a bracket (`objs.[0].["你好"]`). `$` alone is the whole value (no segments).
 */
export function parseJsonPath(path: string): string[] {
  const segs: string[] = [];
  let i = 0;
  if (path[0] === '$') i = 1;
  let first = true;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      i++;
      if (path[i] === '[') continue;
      const { key, next } = readKey(path, i);
      segs.push(key);
      i = next;
    } else if (c === '[') {
      const close = path[i + 1] === "'" || path[i + 1] === '"' ? readQuoted(path, i + 1) : readIndex(path, i + 1);
      segs.push(close.key);
      i = close.next;
    } else if (first) {
      const { key, next } = readKey(path, i);
      segs.push(key);
      i = next;
    } else {
      throw new Error(`unexpected "${c}" at position ${i}`);
    }
    first = false;
  }
  return segs;
}

function readKey(s: string, start: number): { key: string; next: number } {
  let i = start;
  while (i < s.length && s[i] !== '.' && s[i] !== '[') i++;
  if (i === start) throw new Error(`expecting a key at position ${start}`);
  return { key: s.slice(start, i), next: i };
}

function readQuoted(s: string, start: number): { key: string; next: number } {
  const quote = s[start];
  const end = s.indexOf(quote, start + 1);
  if (end < 0 || s[end + 1] !== ']') throw new Error(`unterminated key at position ${start}`);
  return { key: s.slice(start + 1, end), next: end + 2 };
}

function readIndex(s: string, start: number): { key: string; next: number } {
  const end = s.indexOf(']', start);
  const text = end < 0 ? '' : s.slice(start, end);
  if (!/^\d+$/.test(text)) throw new Error(`expecting an array index at position ${start}`);
  return { key: text, next: end + 1 };
}
