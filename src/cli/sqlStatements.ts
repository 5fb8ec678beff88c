/**
 * Splits a migration file into its SQL statements, with the line each starts on, so that a
 * failing statement can be named by file and line. Knows quotes ('…', "…", E'…'), dollar
 * quoting ($tag$…$tag$), and line (--) and nested block comments; empty statements are dropped.
 */
export interface SqlStatement {
  text: string;
  /** 1-based line of the statement's first non-blank character. */
  line: number;
}

export function splitSql(sql: string): SqlStatement[] {
  const out: SqlStatement[] = [];
  let start = 0;
  let i = 0;
  const n = sql.length;
  const push = (end: number) => {
    const raw = sql.slice(start, end);
    const body = raw.replace(/^(\s|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/, '');
    if (body.trim() !== '') {
      const offset = end - raw.length + (raw.length - body.length);
      out.push({ text: raw.trim(), line: sql.slice(0, offset).split('\n').length });
    }
  };
  while (i < n) {
    const c = sql[i]!;
    if (c === '-' && sql[i + 1] === '-') {
      const nl = sql.indexOf('\n', i);
      i = nl < 0 ? n : nl + 1;
    } else if (c === '/' && sql[i + 1] === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        if (sql[i] === '/' && sql[i + 1] === '*') (depth++, (i += 2));
        else if (sql[i] === '*' && sql[i + 1] === '/') (depth--, (i += 2));
        else i++;
      }
    } else if (c === "'" || c === '"') {
      const backslash = c === "'" && (sql[i - 1] === 'E' || sql[i - 1] === 'e');
      i++;
      while (i < n) {
        if (backslash && sql[i] === '\\') i += 2;
        else if (sql[i] === c && sql[i + 1] === c) i += 2;
        else if (sql[i] === c) break;
        else i++;
      }
      i++;
    } else if (c === '$') {
      const m = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
      if (m && !/[A-Za-z0-9_]/.test(sql[i - 1] ?? '')) {
        const close = sql.indexOf(m[0], i + m[0].length);
        i = close < 0 ? n : close + m[0].length;
      } else i++;
    } else if (c === ';') {
      push(i + 1);
      i++;
      start = i;
    } else i++;
  }
  push(n);
  return out;
}
