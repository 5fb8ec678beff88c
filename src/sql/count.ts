/**
 * The v1 `count` operation → one statement answering `{"count": n}` (Hasura v1.3 `mkSQLCount`):
 * count(*) over the filtered rows, or over `SELECT DISTINCT <columns>` of them (so rows whose
 * distinct columns are NULL count as one value, as in Hasura).
 */
import type { QualifiedTable } from '../core/index.js';
import type { BoolExp } from '../ir/index.js';
import { Aliases } from './aliases.js';
import { compileBoolExp } from './boolExp.js';
import { sql, type SqlFragment } from './fragment.js';

export function compileCount(table: QualifiedTable, where: BoolExp, distinct: readonly string[] = []): SqlFragment {
  const t = sql.ident('_svc_t');
  const cond = compileBoolExp(where, t, { aliases: new Aliases('_svc_c') });
  const list = distinct.length > 0 ? sql`DISTINCT ${sql.join(distinct.map((c) => sql`${t}.${sql.ident(c)}`))}` : sql`1`;
  return sql`SELECT json_build_object('count', count(*)) FROM (SELECT ${list} FROM ${sql.table(table)} AS ${t} WHERE ${cond}) AS ${sql.ident('_svc_r')}`;
}
