/**
 * A relationship to another source's table, run on the target source as ONE statement for every
 * row of a response level: the join keys arrive as one JSON parameter (`[{"i":0,"k0":1},…]`, each
 * distinct key once), are read as rows by `json_to_recordset` with the target columns' types, and
 * each key row is joined to its target rows the way a relationship is (a LEFT JOIN LATERAL whose
 * one column holds the JSON: object, array or aggregate), in key order:
 *
 *   SELECT coalesce(json_agg(<{"v": …}> ORDER BY _k."i"), '[]') AS "root"
 *   FROM json_to_recordset($1::json) AS _k("i" int, "k0" "int4")
 *   LEFT JOIN LATERAL (SELECT coalesce(json_agg(…), '[]') AS "v"
 *                      FROM (SELECT * FROM "public"."album" AS _t1 WHERE _t1."artist_id" = _k."k0" …) …) AS _j0 ON true
 */
import type { AggregateIR, BoolExp, RelationshipJoin, SelectField, SelectIR } from '../ir/index.js';
import { Aliases } from './aliases.js';
import { sql, type ParamSource, type SqlFragment } from './fragment.js';
import { selection } from './nodes.js';
import { ROOT_COLUMN } from './select.js';

/** The target rows of one key: an object (at most one row), an array, or `<rel>_aggregate`. */
export type SourceJoinNode = { kind: 'object' | 'array'; ir: SelectIR } | { kind: 'aggregate'; ir: AggregateIR };

/** One join column: the target's column and the type keys are read as (udt name, `schema.name` outside pg_catalog). */
export interface SourceJoinKey {
  remote: string;
  pgType: string;
}

/** The name of the i-th key column of the key rows (`k0`, `k1`…; `i` is the key's position). */
export const sourceJoinKeyColumn = (i: number): string => `k${i}`;

const typeSql = (pgType: string): SqlFragment => {
  const dot = pgType.indexOf('.');
  return dot > 0 ? sql.type(pgType.slice(dot + 1), pgType.slice(0, dot)) : sql.type(pgType);
};

/**
 * The statement (as a fragment: several can be combined into one statement per source) answering
 * `node` for every key row of the JSON parameter `keys`. `remoteVisibleIf` (inherited roles): the
 * target rows where the role sees its join columns (elsewhere they join nothing).
 */
export function compileSourceJoin(node: SourceJoinNode, keys: readonly SourceJoinKey[], keysParam: ParamSource, remoteVisibleIf?: BoolExp): SqlFragment {
  const aliases = new Aliases();
  const k = sql.ident('_k');
  const join: RelationshipJoin = {
    remoteTable: node.ir.table,
    mapping: keys.map((c, i) => ({ local: sourceJoinKeyColumn(i), remote: c.remote })),
    ...(remoteVisibleIf ? { visibleIf: { remote: remoteVisibleIf } } : {}),
  };
  const field: SelectField = node.kind === 'aggregate'
    ? { alias: 'v', kind: 'array_agg_rel', join, aggregate: node.ir }
    : { alias: 'v', kind: node.kind === 'object' ? 'object_rel' : 'array_rel', join, select: node.ir };
  const sel = selection([field], k, aliases);
  const columns = keys.map((c, i) => sql`${sql.ident(sourceJoinKeyColumn(i))} ${typeSql(c.pgType)}`);
  return sql`SELECT coalesce(json_agg(${sel.row.expr} ORDER BY ${k}."i"), '[]') AS ${sql.ident(ROOT_COLUMN)} FROM json_to_recordset(${sql.param(keysParam, 'json')}) AS ${k}("i" int, ${sql.join(columns)}) ${sql.join(sel.joins, ' ')}`;
}

/** Several joins' statements on one source as one statement: `[<answer of the first>, …]`. */
export function combineSourceJoins(statements: readonly SqlFragment[]): SqlFragment {
  if (statements.length === 1) return statements[0];
  return sql`SELECT json_build_array(${sql.join(statements.map((s) => sql`(${s})`))}) AS ${sql.ident(ROOT_COLUMN)}`;
}
