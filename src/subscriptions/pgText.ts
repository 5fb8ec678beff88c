/**
 * A bound parameter's value as the text Postgres would receive for it (what node-postgres sends:
 * arrays as array literals, objects as JSON, everything else `String(v)`), so a live-query cohort
 * can carry its parameters as a JSON array of strings that the SQL casts back to their types.
 */

/** The parameter text of `v`, or null for SQL NULL. */
export function pgText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return arrayLiteral(v);
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

function arrayLiteral(items: readonly unknown[]): string {
  const parts = items.map((x) => {
    if (x === null || x === undefined) return 'NULL';
    if (Array.isArray(x)) return arrayLiteral(x);
    return quoteElement(pgText(x)!);
  });
  return `{${parts.join(',')}}`;
}

/** One element of a Postgres array literal: double-quoted, `\` and `"` escaped. */
export function quoteElement(s: string): string {
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
