/**
 * The rows a selection reads: one derived table holding the filter, order, DISTINCT ON, LIMIT and
 * OFFSET, so that everything joined after it (relationships, computed fields) runs only for the
 * rows that are returned:
 *
 *   (SELECT * FROM "public"."track" AS _t0 WHERE (_t0."genre_id" = $1::"int4") ORDER BY _t0."name" ASC LIMIT 20) AS _t0
 *
 * Sort keys that are not columns of the table (through relationships) are computed inside, next to
 * `_t0.*`, and carried out as `"__svc_ob_<n>"` columns so that the enclosing `json_agg(... ORDER BY
 * ...)` can repeat the order without recomputing them. When the caller needs the derived row to be
 * exactly the table's row type (computed fields pass it to a function), nothing is carried and the
 * keys' joins are repeated outside instead.
 */
import type { BoolExp, IrValue, OrderByItem } from '../ir/index.js';
import type { Aliases } from './aliases.js';
import { andSql, columnSql, compileBoolExp, isTrueSql, valueSql } from './boolExp.js';
import { sql, type SqlFragment } from './fragment.js';
import { compileOrderBy, type SortKey } from './orderBy.js';

export interface RowsSpec {
  /** The FROM item: a table, or a function call. */
  from: SqlFragment;
  where: BoolExp;
  orderBy?: readonly OrderByItem[];
  limit?: SqlFragment;
  offset?: SqlFragment;
  distinctOn?: readonly string[];
  /** Inherited roles: DISTINCT ON columns the role sees only where their condition holds. */
  distinctOnVisibleIf?: Readonly<Record<string, BoolExp>>;
  /** The correlation with the parent row, over this table's alias. */
  join?: (alias: SqlFragment) => SqlFragment;
  /** Keep the derived row identical to the table's row type (no carried sort keys). */
  wholeRow?: boolean;
}

export interface Rows {
  /** Alias of the rows for the enclosing SELECT. */
  alias: SqlFragment;
  /** `(SELECT ...) AS _tN`, plus any joins the outer sort keys need. */
  from: SqlFragment;
  /** The sort keys to repeat in `json_agg(... ORDER BY <order>)`, or undefined when unordered. */
  order?: SqlFragment;
}

/** LIMIT/OFFSET value: a literal for numbers (keeps a generic plan), a parameter otherwise. */
export const limitSql = (v: number | IrValue | undefined): SqlFragment | undefined =>
  v === undefined ? undefined : typeof v === 'number' ? sql.int(v) : valueSql(v);

export function rowsSql(spec: RowsSpec, aliases: Aliases): Rows {
  const t = aliases.next('t');
  const items = orderItems(spec.orderBy, spec.distinctOn, spec.distinctOnVisibleIf);
  const inner = compileOrderBy(items, t, aliases);
  const needsCarry = inner.keys.some((k) => k.column === undefined);

  let outerKeys: SortKey[] = inner.keys;
  const outerJoins: SqlFragment[] = [];
  const carried: SqlFragment[] = [];
  if (needsCarry && spec.wholeRow) {
    const outer = compileOrderBy(items, t, aliases);
    outerKeys = outer.keys;
    outerJoins.push(...outer.joins);
  } else if (needsCarry) {
    outerKeys = inner.keys.map((k, i) => {
      if (k.column !== undefined) return k;
      const name = sql.ident(`__svc_ob_${i}`);
      carried.push(sql`${k.expr} AS ${name}`);
      return { ...k, expr: sql`${t}.${name}` };
    });
  }

  const list = inner.joins.length === 0 && carried.length === 0 ? sql`*` : sql.join([sql`${t}.*`, ...carried]);
  // The DISTINCT ON columns lead the sort keys (orderItems): the same expressions, as Postgres requires.
  const lead = inner.keys.slice(0, spec.distinctOn?.length ?? 0);
  const distinct = spec.distinctOn?.length
    ? sql`DISTINCT ON (${sql.join(spec.distinctOn.map((c) => lead.find((k) => k.column === c)?.expr ?? columnSql(t, c)))}) `
    : sql.empty;
  const where = andSql([spec.join?.(t), compileBoolExp(spec.where, t, { aliases, root: t })]);
  const parts: SqlFragment[] = [sql`SELECT ${distinct}${list} FROM ${spec.from} AS ${t}`, ...inner.joins];
  if (!isTrueSql(where)) parts.push(sql`WHERE ${where}`);
  if (inner.keys.length) parts.push(sql`ORDER BY ${keysSql(inner.keys)}`);
  if (spec.limit) parts.push(sql`LIMIT ${spec.limit}`);
  if (spec.offset) parts.push(sql`OFFSET ${spec.offset}`);
  const from = sql.join([sql`(${sql.join(parts, ' ')}) AS ${t}`, ...outerJoins], ' ');
  return { alias: t, from, order: outerKeys.length ? keysSql(outerKeys) : undefined };
}

const keysSql = (keys: readonly SortKey[]): SqlFragment => sql.join(keys.map((k) => sql`${k.expr}${k.direction}`));

/** DISTINCT ON needs its columns first in ORDER BY: prepend them unless the order already starts with them. */
function orderItems(
  orderBy: readonly OrderByItem[] | undefined, distinctOn: readonly string[] | undefined, visibleIf: Readonly<Record<string, BoolExp>> = {},
): OrderByItem[] {
  const ob = [...(orderBy ?? [])];
  if (!distinctOn?.length) return ob;
  const lead = ob.slice(0, distinctOn.length);
  const covered =
    lead.length === distinctOn.length &&
    lead.every((i) => i.target.kind === 'column' && distinctOn.includes(i.target.column));
  if (covered) return ob;
  const target = (column: string): OrderByItem['target'] => (visibleIf[column] ? { kind: 'column', column, visibleIf: visibleIf[column] } : { kind: 'column', column });
  return [...distinctOn.map((column): OrderByItem => ({ target: target(column), direction: 'asc' })), ...ob];
}
