/**
 * The two pieces the mutation compilers take from the select compiler: a boolean expression over
 * a row alias (checks, filters, conflict `where`), and a row's JSON object for a list of select
 * fields (`returning`). Kept behind this one module so the mutation compilers depend on nothing
 * else of the select compiler.
 */
import type { BoolExp, SelectField } from '../ir/index.js';
import type { SqlFragment } from './fragment.js';
import { compileBoolExp } from './boolExp.js';
import { Aliases } from './aliases.js';
import { compileRowJson } from './select.js';

/** SQL for `exp` evaluated on the row `alias`. */
export function boolExpSql(exp: BoolExp, alias: SqlFragment): SqlFragment {
  return compileBoolExp(exp, alias, { aliases: new Aliases('_svc_be') });
}

/** The JSON object of `fields` for the row `alias`. */
export function rowJsonSql(fields: SelectField[], alias: SqlFragment): SqlFragment {
  return compileRowJson(fields, alias, new Aliases('_svc_rj'));
}
