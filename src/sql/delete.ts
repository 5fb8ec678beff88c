/**
 * Delete IR → one statement:
 *
 *   WITH "_svc_m" AS (DELETE FROM "public"."article" AS "_svc_t" WHERE <client where AND delete filter> RETURNING *)
 *   SELECT <response JSON>
 */
import type { DeleteIR } from '../ir/index.js';
import { sql, type SqlFragment } from './fragment.js';
import { mutationStatement } from './mutationOutput.js';
import { boolExpSql } from './mutationDeps.js';

const TARGET = sql.ident('_svc_t');

/** `DELETE … RETURNING *`. */
export function deleteSql(ir: DeleteIR): SqlFragment {
  const where = ir.where.kind === 'true' ? sql.empty : sql` WHERE ${boolExpSql(ir.where, TARGET)}`;
  return sql`DELETE FROM ${sql.table(ir.table)} AS ${TARGET}${where} RETURNING *`;
}

/** The one statement of a delete: rows removed, response built. */
export function compileDelete(ir: DeleteIR): SqlFragment {
  return mutationStatement(deleteSql(ir), ir.output);
}
