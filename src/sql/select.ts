/**
 * Query root fields over a table → one statement returning one row with one json column that
 * holds exactly the field's value, so the engine writes `{"data":{"<alias>":` + text + `}}`
 * without parsing:
 *
 *   compileSelect(ir)                  → [ {...}, ... ]      (list fields)
 *   compileSelect(ir, {single: true})  → {...} or null       (`<table>_by_pk`)
 *   compileAggregate(ir)               → {"aggregate": {...}, "nodes": [...]}
 *
 * `compileRowJson` is the row object alone, for statements that bring their own FROM (mutation
 * `returning`): relationships become correlated scalar subqueries there.
 */
import type { AggregateIR, SelectField, SelectIR } from '../ir/index.js';
import { Aliases } from './aliases.js';
import { sql, type SqlFragment } from './fragment.js';
import { rowToJson } from './jsonObject.js';
import { aggregateNode, arrayNode, selection, singleRowJson, sourceSql } from './nodes.js';

/** Name of the one column every compiled root statement returns. */
export const ROOT_COLUMN = 'root';

export function compileSelect(ir: SelectIR, opts: { single?: boolean } = {}): SqlFragment {
  const aliases = new Aliases();
  const src = { from: sourceSql(ir) };
  if (opts.single) return sql`SELECT coalesce(${singleRowJson(ir, src, aliases)}, 'null') AS ${sql.ident(ROOT_COLUMN)}`;
  return arrayNode(ir, src, aliases, ROOT_COLUMN);
}

export function compileAggregate(ir: AggregateIR): SqlFragment {
  return aggregateNode(ir, { from: sourceSql(ir) }, new Aliases(), ROOT_COLUMN);
}

/**
 * The JSON object (type json) for `fields` of the row `rowAlias`, usable in any SELECT whose FROM
 * provides that alias. Its own aliases start with `_m` unless `aliases` is given.
 */
export function compileRowJson(fields: readonly SelectField[], rowAlias: SqlFragment, aliases: Aliases = new Aliases('_m')): SqlFragment {
  return rowToJson(selection(fields, rowAlias, aliases, 'scalar').row);
}
