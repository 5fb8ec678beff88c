/**
 * What every mutation statement shares: the CTE that holds the mutated rows (plus a `svc_check`
 * column that evaluates the row's permission check), and the final SELECT that turns those rows
 * into the field's JSON inside Postgres.
 *
 *   WITH "_svc_m" AS (INSERT … RETURNING *, CASE WHEN <check> THEN NULL
 *                       ELSE hdb_catalog.svc_check_violation('<message>') END AS "svc_check")
 *   SELECT json_build_object('affected_rows', (SELECT count(*) FROM "_svc_m"),
 *                            'returning', (SELECT coalesce(json_agg(<row>), '[]') FROM "_svc_m" AS "_svc_r"))
 *
 * A row that fails its check makes the statement RAISE `check_violation` (23514) with Hasura's
 * message, as Hasura's `hdb_catalog.check_violation` does: the error, not the runner, stops the
 * transaction, so a mutation can be sent as one pipeline and still keep nothing on a failed check.
 * The function is created with the catalog (`CHECK_VIOLATION_FUNCTION_SQL`).
 */
import { INSERT_CHECK_MESSAGE, UPDATE_CHECK_MESSAGE, type BoolExp, type MutationOutputIR, type SelectField } from '../ir/index.js';
import { sql, type SqlFragment } from './fragment.js';
import { boolExpSql, rowJsonSql } from './mutationDeps.js';

/** Alias of the CTE holding the mutated rows. */
export const MUTATED = sql.ident('_svc_m');
/** Alias of one mutated row inside the output expressions. */
export const ROW = sql.ident('_svc_r');
/** Name of the check column the mutation CTE adds to its rows. */
export const CHECK_COLUMN = 'svc_check';
/** The function a failed permission check calls: raises check_violation (23514) with its message. */
export const CHECK_VIOLATION_FUNCTION_SQL = `CREATE OR REPLACE FUNCTION hdb_catalog.svc_check_violation(msg text) RETURNS text
  LANGUAGE plpgsql VOLATILE AS $$ BEGIN RAISE check_violation USING MESSAGE = msg; END; $$`;

/** `CASE WHEN <check> THEN NULL ELSE hdb_catalog.svc_check_violation('<message>') END` over the row alias `alias`. */
export function checkCase(check: BoolExp, alias: SqlFragment, kind: 'insert' | 'update'): SqlFragment {
  if (check.kind === 'true') return sql`NULL::text`;
  const message = sql.literal(kind === 'update' ? UPDATE_CHECK_MESSAGE : INSERT_CHECK_MESSAGE);
  return sql`CASE WHEN ${boolExpSql(check, alias)} THEN NULL ELSE hdb_catalog.svc_check_violation(${message}) END`;
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

/** `WITH "_svc_m" AS (<mutation>) SELECT <output>`. */
export function mutationStatement(mutation: SqlFragment, output: MutationOutputIR, affectedRows?: SqlFragment): SqlFragment {
  return sql`WITH ${MUTATED} AS (${mutation}) SELECT ${outputSql(output, affectedRows)}`;
}
