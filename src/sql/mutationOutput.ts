/**
 * What every mutation statement shares: the CTE that holds the mutated rows (plus a
 * `svc_check` column: NULL when the row passes its permission check, else which check failed),
 * and the final SELECT that turns those rows into the field's JSON inside Postgres.
 *
 *   WITH "_svc_m" AS (INSERT … RETURNING *, CASE WHEN <check> THEN NULL ELSE 'insert' END AS "svc_check")
 *   SELECT coalesce(
 *     (SELECT json_build_object('svc:check', min("svc_check")) FROM "_svc_m" HAVING min("svc_check") IS NOT NULL),
 *     json_build_object('affected_rows', (SELECT count(*) FROM "_svc_m"),
 *                       'returning', (SELECT coalesce(json_agg(<row>), '[]') FROM "_svc_m" AS "_svc_r")))
 *
 * A failed check makes the statement return `{"svc:check" : "insert"|"update"}` instead of the
 * response (`svc:check` can never be a GraphQL alias); the runner turns that into a
 * permission-error and the enclosing transaction rolls back, so nothing the statement did stays.
 */
import type { BoolExp, MutationOutputIR, SelectField } from '../ir/index.js';
import { sql, type SqlFragment } from './fragment.js';
import { boolExpSql, rowJsonSql } from './mutationDeps.js';

/** Alias of the CTE holding the mutated rows. */
export const MUTATED = sql.ident('_svc_m');
/** Alias of one mutated row inside the output expressions. */
export const ROW = sql.ident('_svc_r');
/** Name of the check column the mutation CTE adds to its rows. */
export const CHECK_COLUMN = 'svc_check';
/** The key of the object a statement returns when a permission check failed. */
export const CHECK_FAILED_KEY = 'svc:check';

/** `CASE WHEN <check> THEN NULL ELSE '<kind>' END` over the row alias `alias`. */
export function checkCase(check: BoolExp, alias: SqlFragment, kind: 'insert' | 'update'): SqlFragment {
  if (check.kind === 'true') return sql`NULL::text`;
  return sql`CASE WHEN ${boolExpSql(check, alias)} THEN NULL ELSE ${sql.literal(kind)} END`;
}

/** The response JSON for the mutated rows in `MUTATED` (`affectedRows` overrides their count). */
export function outputSql(output: MutationOutputIR, affectedRows?: SqlFragment): SqlFragment {
  if (output.kind === 'single') {
    return sql`(SELECT ${rowJsonSql(output.fields, ROW)} FROM ${MUTATED} AS ${ROW} LIMIT 1)`;
  }
  const parts = output.fields.map((f) => {
    const key = sql.literal(f.alias);
    switch (f.kind) {
      case 'affected_rows':
        return sql`${key}, ${affectedRows ?? sql`(SELECT count(*) FROM ${MUTATED})`}`;
      case 'typename':
        return sql`${key}, ${sql.literal(f.name)}::text`;
      case 'returning':
        return sql`${key}, ${returningSql(f.fields)}`;
    }
  });
  return sql`json_build_object(${sql.join(parts)})`;
}

function returningSql(fields: SelectField[]): SqlFragment {
  return sql`(SELECT coalesce(json_agg(${rowJsonSql(fields, ROW)}), '[]') FROM ${MUTATED} AS ${ROW})`;
}

/** `WITH "_svc_m" AS (<mutation>) SELECT coalesce(<check failure>, <output>)`. */
export function mutationStatement(mutation: SqlFragment, output: MutationOutputIR, checked: boolean, affectedRows?: SqlFragment): SqlFragment {
  const out = outputSql(output, affectedRows);
  if (!checked) return sql`WITH ${MUTATED} AS (${mutation}) SELECT ${out}`;
  const col = sql.ident(CHECK_COLUMN);
  const failed = sql`(SELECT json_build_object(${sql.literal(CHECK_FAILED_KEY)}, min(${col})) FROM ${MUTATED} HAVING min(${col}) IS NOT NULL)`;
  return sql`WITH ${MUTATED} AS (${mutation}) SELECT coalesce(${failed}, ${out})`;
}
