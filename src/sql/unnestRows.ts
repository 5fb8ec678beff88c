/**
 * The rows of a multi-row insert as one array parameter per column, instead of one parameter per
 * value in a VALUES list:
 *
 *   INSERT INTO "public"."note" AS "_svc_t" ("author", "body", "tags", "owner")
 *   SELECT unnest($1::"text"[]), unnest($2::"text"[]), unnest($3::"text"[])::"_text", $4::"int4"
 *
 * The statement's text is the same for any number of rows (one prepared statement), and Postgres
 * reads a few parameters instead of one per value. Element i of each array is row i's value, read
 * by the column type's own input function (`<type>[]`), so what a row stores, and the error a bad
 * value raises, are those of the VALUES form; the arrays are unnested side by side in the SELECT
 * list (Postgres zips set-returning functions there row by row), where a composite value stays one
 * value (`FROM unnest(…)` would expand it into its fields). Kept in the VALUES form (`undefined`
 * here): a single row; rows that do not all give the same columns (a row leaves out a column to
 * take its default, which a SELECT cannot say, while VALUES says DEFAULT); a column whose values
 * come from the session and differ between rows (the session is never read into an array); a
 * column whose rows disagree on its type. A column with the same value in every row (a preset of
 * the role's permission, a session variable, one variable or literal repeated) is one scalar
 * parameter in the SELECT list. A column of an array type (udt `_…`, or `…[]`: an array of arrays
 * would be one flattened array) or of `box` (whose array literal separates elements with `;`) is
 * bound as `text[]` of its values' literals and cast back per row.
 */
import type { ColumnValue, IrValue, ValueSource } from '../ir/index.js';
import { sql, type ArrayParamSource, type ListColumn, type SqlFragment } from './fragment.js';

/** Types bound through `text[]` and a cast: arrays (an array of arrays would flatten) and `box` (`;` separator). */
const viaText = (pgType: string): boolean => pgType.startsWith('_') || pgType.endsWith('[]') || pgType === 'box';

const samePath = (a: ReadonlyArray<string | number>, b: ReadonlyArray<string | number>): boolean =>
  a.length === b.length && a.every((p, i) => p === b[i]);

/** Whether `b` is certainly the same value as `a` in every request (then the column is one scalar parameter). */
function sameValue(a: IrValue, b: IrValue): boolean {
  if (a === b) return true;
  if (a.pgType !== b.pgType) return false;
  const x = a.source;
  const y = b.source;
  switch (x.kind) {
    case 'value': {
      if (y.kind !== 'value') return false;
      const v = x.value;
      return v === y.value && (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean');
    }
    case 'variable':
      return y.kind === 'variable' && x.name === y.name && samePath(x.path ?? [], y.path ?? []);
    case 'session':
      return y.kind === 'session' && x.name === y.name;
    case 'sessionJson':
      return y.kind === 'sessionJson';
  }
}

/**
 * The list column `items` are, when item i is the variable `name` at `[...prefix, i, ...suffix]` for
 * every i (the same name, prefix and suffix): what `$objects` gives for a column; else undefined.
 */
export function listColumnOf(items: readonly ValueSource[]): ListColumn | undefined {
  const first = items[0];
  if (first?.kind !== 'variable' || first.path === undefined) return undefined;
  const at = first.path.indexOf(0);
  if (at < 0) return undefined;
  const prefix = first.path.slice(0, at);
  const suffix = first.path.slice(at + 1);
  for (let i = 0; i < items.length; i++) {
    const s = items[i]!;
    if (s.kind !== 'variable' || s.name !== first.name || s.path === undefined || s.path.length !== first.path.length || s.path[at] !== i) return undefined;
    for (let k = 0; k < s.path.length; k++) if (k !== at && s.path[k] !== first.path[k]) return undefined;
  }
  return { name: first.name, prefix, suffix };
}

/**
 * `SELECT unnest(…), …` for `rows` (every row giving exactly the columns `names`), or
 * `undefined` when the rows keep the VALUES form (above).
 */
export function unnestRowsSql(names: readonly string[], rows: readonly ColumnValue[][]): SqlFragment | undefined {
  if (rows.length < 2) return undefined;
  const byColumn: IrValue[][] = names.map(() => new Array<IrValue>(rows.length));
  const index = new Map(names.map((n, i) => [n, i]));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    if (row.length !== names.length) return undefined;
    for (const c of row) {
      const i = index.get(c.column);
      if (i === undefined || byColumn[i]![r] !== undefined) return undefined;
      byColumn[i]![r] = c.value;
    }
  }
  const select: SqlFragment[] = [];
  const scalar = byColumn.map((values) => values.every((v) => sameValue(values[0]!, v)));
  // With every column the same in every row there is nothing to unnest: VALUES says it as well.
  if (scalar.every(Boolean)) return undefined;
  for (let i = 0; i < names.length; i++) {
    const values = byColumn[i]!;
    const pgType = values[0]!.pgType;
    if (scalar[i]) {
      select.push(sql.param(values[0]!.source, pgType));
      continue;
    }
    if (values.some((v) => v.pgType !== pgType)) return undefined;
    const items: ValueSource[] = values.map((v) => v.source);
    if (items.some((s) => s.kind === 'session' || s.kind === 'sessionJson')) return undefined;
    const array: ArrayParamSource = { kind: 'array', items, element: pgType };
    const column = listColumnOf(items);
    if (column !== undefined) array.column = column;
    select.push(viaText(pgType)
      ? sql`unnest(${sql.param(array, 'text[]')})::${sql.castType(pgType)}`
      : sql`unnest(${sql.param(array, `${pgType}[]`)})`);
  }
  return sql`SELECT ${sql.join(select)}`;
}
