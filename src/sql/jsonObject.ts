/**
 * JSON objects built in Postgres, keyed by GraphQL aliases.
 *
 * A row of the response is a record, `(SELECT _r FROM (SELECT _t0."id" AS "id", ...) AS _r)`,
 * which `json_agg`/`row_to_json` turn into `{"id":...}`: faster and more compact than
 * `json_build_object` (see bench/RESULTS.md). Postgres truncates identifiers past 63 bytes, so a
 * selection with a longer alias uses `json_build_object('key', value, ...)` instead, split into
 * chunks of 50 pairs (its 100-argument limit) joined as text.
 */
import { sql, type SqlFragment } from './fragment.js';

export interface JsonEntry {
  key: string;
  value: SqlFragment;
}

/** A row expression: a record (`json: false`) or a value already of type json. */
export interface RowExpr {
  expr: SqlFragment;
  json: boolean;
}

const MAX_IDENT_BYTES = 63;
const MAX_PAIRS = 50;

/** The object for one row, as a record when every key fits in an identifier. */
export function rowObject(entries: readonly JsonEntry[]): RowExpr {
  if (entries.every((e) => Buffer.byteLength(e.key, 'utf8') <= MAX_IDENT_BYTES) && entries.length > 0) {
    const cols = sql.join(entries.map((e) => sql`${e.value} AS ${sql.ident(e.key)}`));
    return { expr: sql`(SELECT _r FROM (SELECT ${cols}) AS _r)`, json: false };
  }
  return { expr: jsonBuildObject(entries), json: true };
}

/** `row_to_json` of a record row; a json row as is. */
export const rowToJson = (row: RowExpr): SqlFragment => (row.json ? row.expr : sql`row_to_json(${row.expr})`);

/** `json_build_object('k', v, ...)`, concatenated from chunks when there are more than 50 keys. */
export function jsonBuildObject(entries: readonly JsonEntry[]): SqlFragment {
  const chunks: SqlFragment[] = [];
  for (let i = 0; i < entries.length || i === 0; i += MAX_PAIRS) {
    const pairs = entries.slice(i, i + MAX_PAIRS).map((e) => sql`${sql.literal(e.key)}, ${e.value}`);
    chunks.push(sql`json_build_object(${sql.join(pairs)})`);
  }
  if (chunks.length === 1) return chunks[0];
  // {"a":1} + {"b":2} → {"a":1,"b":2}: drop the closing brace of all but the last, the opening of all but the first.
  const text = chunks.map((c, i) => {
    if (i === 0) return sql`left(${c}::text, -1)`;
    if (i === chunks.length - 1) return sql`substr(${c}::text, 2)`;
    return sql`substr(left(${c}::text, -1), 2)`;
  });
  return sql`(${sql.join(text, " || ',' || ")})::json`;
}
