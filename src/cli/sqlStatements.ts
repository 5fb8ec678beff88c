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

/** The statement without its leading comments and trailing `;`, in upper case with single spaces. */
function bare(text: string): string {
  return text.replace(/^(\s|--[^\n]*\n?|\/\*[\s\S]*?\*\/)*/, '').replace(/;\s*$/, '').trim().replace(/\s+/g, ' ').toUpperCase();
}

const OPENS_OR_COMMITS = /^(BEGIN|START TRANSACTION|COMMIT|END)( WORK| TRANSACTION)?( (ISOLATION|READ|DEFERRABLE|NOT|AND)\b.*)?$/;
const ROLLS_BACK = /^(ROLLBACK|ABORT)( WORK| TRANSACTION)?( AND( NO)? CHAIN)?$/;

/**
 * The statements of a file the CLI runs as ONE transaction of its own, without the file's own
 * `BEGIN … COMMIT` (Hasura projects' seeds and migrations often wrap themselves): sent as they
 * are, the file's COMMIT would commit the CLI's transaction midway, so a later failure would leave
 * half the file applied. `skipped` lists the lines left out. A `ROLLBACK`/`ABORT` is refused
 * (`rollback` names its line): nothing sensible can be applied around it.
 */
export function withoutTransactionControl(stmts: SqlStatement[]): { stmts: SqlStatement[]; skipped: number[]; rollback?: number } {
  const kept: SqlStatement[] = [];
  const skipped: number[] = [];
  for (const s of stmts) {
    const b = bare(s.text);
    if (ROLLS_BACK.test(b)) return { stmts: kept, skipped, rollback: s.line };
    if (OPENS_OR_COMMITS.test(b)) skipped.push(s.line);
    else kept.push(s);
  }
  return { stmts: kept, skipped };
}
