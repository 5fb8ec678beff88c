/**
 * `order_by` items → sort keys over a table alias, plus the joins they need:
 *
 *   {author: {name: desc}}            → LEFT JOIN "public"."author" AS _t3 ON (_t3."id" = _t0."author_id") AND (<author filter>)
 *                                        key _t3."name" DESC
 *   {tracks_aggregate: {count: asc}}  → LEFT JOIN LATERAL (SELECT count(*) AS "v" FROM "public"."track" AS _t4
 *                                          WHERE (_t4."album_id" = _t0."id") AND (<track filter>)) AS _j5 ON true
 *                                        key _j5."v" ASC
 *
 * Object relationships become plain left joins (Postgres may hash-join them); the same relationship
 * path used by several items is joined once. The related tables' permission filters are applied.
 */
import type { OrderByItem, OrderByTarget, RelationshipJoin, BoolExp } from '../ir/index.js';
import type { Aliases } from './aliases.js';
import { aggregateCall } from './aggregateOps.js';
import { andSql, compileBoolExp, joinCondition, visibleColumnSql } from './boolExp.js';
import { compile, sql, type SqlFragment } from './fragment.js';

export interface SortKey {
  expr: SqlFragment;
  /** ` ASC`, ` DESC NULLS LAST`... */
  direction: SqlFragment;
  /** Set when the key is a column of the table itself. */
  column?: string;
}

export interface CompiledOrderBy {
  keys: SortKey[];
  joins: SqlFragment[];
}

/** Sort keys for `items` over the rows of `alias`; `joins` go right after that table in FROM. */
export function compileOrderBy(items: readonly OrderByItem[], alias: SqlFragment, aliases: Aliases): CompiledOrderBy {
  const joins: SqlFragment[] = [];
  const joined = new Map<string, SqlFragment>();
  const keys = items.map((item) => {
    const { expr, column } = targetSql(item.target, alias, aliases, joins, joined);
    return { expr, column, direction: directionSql(item) };
  });
  return { keys, joins };
}

export function directionSql(item: Pick<OrderByItem, 'direction' | 'nulls'>): SqlFragment {
  const dir = item.direction === 'desc' ? ' DESC' : ' ASC';
  const nulls = item.nulls === 'first' ? ' NULLS FIRST' : item.nulls === 'last' ? ' NULLS LAST' : '';
  return sql.unsafeRaw(dir + nulls);
}

function targetSql(
  target: OrderByTarget,
  alias: SqlFragment,
  aliases: Aliases,
  joins: SqlFragment[],
  joined: Map<string, SqlFragment>,
): { expr: SqlFragment; column?: string } {
  switch (target.kind) {
    case 'column':
      return { expr: visibleColumnSql(alias, target.column, target.visibleIf, aliases), column: target.column };
    case 'object_rel': {
      const key = joinKey(alias, target.join, target.filter);
      let remote = joined.get(key);
      if (!remote) {
        remote = aliases.next('t');
        const on = andSql([joinCondition(target.join, remote, alias, aliases), compileBoolExp(target.filter, remote, { aliases })]);
        joins.push(sql`LEFT JOIN ${sql.table(target.join.remoteTable)} AS ${remote} ON ${on}`);
        joined.set(key, remote);
      }
      return { expr: targetSql(target.target, remote, aliases, joins, joined).expr };
    }
    case 'array_agg': {
      const key = joinKey(alias, target.join, target.filter, target.agg);
      let result = joined.get(key);
      if (!result) {
        const remote = aliases.next('t');
        result = aliases.next('j');
        const agg = target.agg.op === 'count' ? sql`count(*)` : aggregateCall(target.agg.op, visibleColumnSql(remote, target.agg.column, target.agg.visibleIf, aliases));
        const where = andSql([joinCondition(target.join, remote, alias, aliases), compileBoolExp(target.filter, remote, { aliases })]);
        joins.push(
          sql`LEFT JOIN LATERAL (SELECT ${agg} AS "v" FROM ${sql.table(target.join.remoteTable)} AS ${remote} WHERE ${where}) AS ${result} ON true`,
        );
        joined.set(key, result);
      }
      return { expr: sql`${result}."v"` };
    }
  }
}

function joinKey(alias: SqlFragment, join: RelationshipJoin, filter: BoolExp, agg?: unknown): string {
  return JSON.stringify([compile(alias).text, join, filter, agg ?? null]);
}
