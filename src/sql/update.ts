/**
 * Update IR → one statement:
 *
 *   WITH "_svc_m" AS (
 *     UPDATE "public"."article" AS "_svc_t" SET "title" = $1::"text", "views" = "_svc_t"."views" + $2::"int4"
 *     WHERE <client where AND update filter>
 *     RETURNING *, CASE WHEN <update check> THEN NULL ELSE 'update' END AS "svc_check")
 *   SELECT coalesce(<check failure>, <response JSON>)
 *
 * The jsonb operators map to Postgres's: `_append` `||`, `_prepend` (value `||` column),
 * `_delete_key` `- text`, `_delete_elem` `- int`, `_delete_at_path` `#- text[]`.
 */
import type { UpdateIR, UpdateOp } from '../ir/index.js';
import { sql, type SqlFragment } from './fragment.js';
import { CHECK_COLUMN, checkCase, mutationStatement } from './mutationOutput.js';
import { boolExpSql } from './mutationDeps.js';

const TARGET = sql.ident('_svc_t');

function opSql(column: string, op: UpdateOp): SqlFragment {
  const col = sql`${TARGET}.${sql.ident(column)}`;
  switch (op.kind) {
    case 'default':
      return sql`DEFAULT`;
    case 'set':
      return sql.param(op.value.source, op.value.pgType);
    case 'inc':
      return sql`${col} + ${sql.param(op.value.source, op.value.pgType)}`;
    case 'mul':
      return sql`${col} * ${sql.param(op.value.source, op.value.pgType)}`;
    case 'append':
      return sql`${col} || ${sql.param(op.value.source, op.value.pgType)}`;
    case 'prepend':
      return sql`${sql.param(op.value.source, op.value.pgType)} || ${col}`;
    case 'delete_key':
      return sql`${col} - ${sql.param(op.value.source, 'text')}`;
    case 'delete_elem':
      return sql`${col} - ${sql.param(op.value.source, 'int4')}`;
    case 'delete_at_path':
      return sql`${col} #- ${sql.param(op.value.source, '_text')}`;
  }
}

/** `UPDATE … RETURNING *, <check> AS "svc_check"`. */
export function updateSql(ir: UpdateIR): SqlFragment {
  const sets = ir.set.map(({ column, op }) => sql`${sql.ident(column)} = ${opSql(column, op)}`);
  const where = ir.where.kind === 'true' ? sql.empty : sql` WHERE ${boolExpSql(ir.where, TARGET)}`;
  const check = ir.check ? checkCase(ir.check, TARGET, 'update') : sql`NULL::text`;
  return sql`UPDATE ${sql.table(ir.table)} AS ${TARGET} SET ${sql.join(sets)}${where} RETURNING *, ${check} AS ${sql.ident(CHECK_COLUMN)}`;
}

/** The one statement of an update: rows changed, checked, response built. */
export function compileUpdate(ir: UpdateIR): SqlFragment {
  return mutationStatement(updateSql(ir), ir.output);
}
