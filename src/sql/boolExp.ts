/**
 * Boolean expressions → SQL conditions over one table alias.
 *
 *   {author: {name: {_eq: $n}}} on article _t0  →
 *   EXISTS (SELECT 1 FROM "public"."author" AS _t1 WHERE (_t1."id" = _t0."author_id") AND (_t1."name" = $1::"text"))
 *
 * Values are always bound parameters cast to their IR type, so comparisons are typed. Column
 * comparisons (`_ceq`...) may refer to the root table of the expression (`otherIsRoot`, Hasura's
 * `["$", col]`), which stays the alias the expression was first compiled against.
 */
import type { BoolExp, ColumnComparisonOp, ColumnRef, ComparisonOp, IrValue, MaskedRow, RelationshipJoin, RowFunctionCall } from '../ir/index.js';
import { Aliases } from './aliases.js';
import { sql, type SqlFragment } from './fragment.js';

export interface BoolExpContext {
  /** Alias source for EXISTS subqueries; pass the statement's own to keep aliases unique. */
  aliases?: Aliases;
  /** The table `otherIsRoot` column comparisons refer to (default: the alias compiled against). */
  root?: SqlFragment;
}

const COMPARE: Record<Exclude<ComparisonOp, '_in' | '_nin'>, string> = {
  _eq: '=',
  _neq: '<>',
  _gt: '>',
  _lt: '<',
  _gte: '>=',
  _lte: '<=',
  _like: 'LIKE',
  _nlike: 'NOT LIKE',
  _ilike: 'ILIKE',
  _nilike: 'NOT ILIKE',
  _similar: 'SIMILAR TO',
  _nsimilar: 'NOT SIMILAR TO',
  _contains: '@>',
  _contained_in: '<@',
  _has_key: '?',
  _has_keys_any: '?|',
  _has_keys_all: '?&',
};

const COLUMN_COMPARE: Record<ColumnComparisonOp, string> = {
  _ceq: '=',
  _cne: '<>',
  _cgt: '>',
  _clt: '<',
  _cge: '>=',
  _cle: '<=',
};

/** A bound parameter for an IR value, cast to its type. */
export const valueSql = (v: IrValue): SqlFragment => sql.param(v.source, v.pgType);

/** `alias."column"`. */
export const columnSql = (alias: SqlFragment, column: string): SqlFragment => sql`${alias}.${sql.ident(column)}`;

/**
 * A column of the row `alias` as a role sees it: `(CASE WHEN <visibleIf> THEN alias."c" END)` for a
 * column an inherited role sees only in some rows (null elsewhere), else plain `alias."c"`.
 */
export function visibleColumnSql(alias: SqlFragment, column: string, visibleIf: BoolExp | undefined, aliases?: Aliases): SqlFragment {
  const col = columnSql(alias, column);
  if (!visibleIf) return col;
  return sql`(CASE WHEN ${compileBoolExp(visibleIf, alias, { aliases, root: alias })} THEN ${col} END)`;
}

/** `fn(row [, session])`: a computed field without input arguments, called on the row `alias`. */
export function rowFunctionSql(call: RowFunctionCall, alias: SqlFragment): SqlFragment {
  const args: Array<[number, SqlFragment]> = [[call.tableArg, alias]];
  if (call.sessionArg !== undefined) args.push([call.sessionArg, sql.param({ kind: 'sessionJson' }, 'json')]);
  return sql`${sql.table(call.function)}(${sql.join(args.sort((a, b) => a[0] - b[0]).map((a) => a[1]))})`;
}

/** What a comparison reads: the computed field's call on the row, or the column as the role sees it. */
const refSql = (ref: ColumnRef, alias: SqlFragment, ctx: Required<BoolExpContext>): SqlFragment =>
  ref.computed ? rowFunctionSql(ref.computed, alias) : visibleColumnSql(alias, ref.column, ref.visibleIf, ctx.aliases);

/**
 * `remote.r1 = local.l1 AND ...` for a relationship's column mapping. With `join.visibleIf`
 * (inherited roles) the conditions under which the role sees the join columns are AND-ed in: a
 * hidden join column reads as null, and null equals nothing (the plain `=` keeps the index usable).
 */
export function joinCondition(join: RelationshipJoin, remote: SqlFragment, local: SqlFragment, aliases?: Aliases): SqlFragment {
  if (join.mapping.length === 0) return sql`true`;
  const eq = sql.join(
    join.mapping.map((m) => sql`${columnSql(remote, m.remote)} = ${columnSql(local, m.local)}`),
    ' AND ',
  );
  if (!join.visibleIf) return eq;
  const a = aliases ?? new Aliases('_jv');
  const vis = (cond: BoolExp | undefined, alias: SqlFragment) => (cond ? compileBoolExp(cond, alias, { aliases: a, root: alias }) : undefined);
  return andSql([eq, vis(join.visibleIf.local, local), vis(join.visibleIf.remote, remote)]);
}

/**
 * Inherited roles: the row passed to a computed field's function with the cells the role cannot
 * see as null: `ROW(alias."a", (CASE WHEN <visible> THEN alias."b" END), ...)::"schema"."table"`.
 */
export function maskedRowSql(row: MaskedRow, alias: SqlFragment, aliases?: Aliases): SqlFragment {
  const cells = row.columns.map((c) => visibleColumnSql(alias, c.column, c.visibleIf, aliases));
  return sql`ROW(${sql.join(cells)})::${sql.table(row.table)}`;
}

/** `a AND b` of conditions, dropping literal `true`s; `true` when nothing is left. */
export function andSql(conds: ReadonlyArray<SqlFragment | undefined>): SqlFragment {
  const kept = conds.filter((c): c is SqlFragment => !!c && !isTrueSql(c));
  if (kept.length === 0) return sql`true`;
  if (kept.length === 1) return kept[0];
  return sql.join(kept.map((c) => sql`(${c})`), ' AND ');
}

/** True for the literal condition `true` (so it can be left out). */
export const isTrueSql = (f: SqlFragment): boolean => f.parts.length === 1 && f.parts[0].t === 'raw' && f.parts[0].text === 'true';

/** Compiles a boolean expression evaluated against the rows of `alias`. */
export function compileBoolExp(exp: BoolExp, alias: SqlFragment, ctx: BoolExpContext = {}): SqlFragment {
  const full = { aliases: ctx.aliases ?? new Aliases('_be'), root: ctx.root ?? alias };
  return boolSql(exp, alias, full);
}

function boolSql(exp: BoolExp, alias: SqlFragment, ctx: Required<BoolExpContext>): SqlFragment {
  switch (exp.kind) {
    case 'true':
      return sql`true`;
    case 'and':
      return andSql(exp.items.map((e) => boolSql(e, alias, ctx)));
    case 'or': {
      if (exp.items.length === 0) return sql`false`;
      if (exp.items.length === 1) return boolSql(exp.items[0], alias, ctx);
      return sql`(${sql.join(exp.items.map((e) => sql`(${boolSql(e, alias, ctx)})`), ' OR ')})`;
    }
    case 'not':
      return sql`NOT (${boolSql(exp.item, alias, ctx)})`;
    case 'compare':
      return compareSql(refSql(exp.column, alias, ctx), exp.op, exp.value);
    case 'is_null': {
      const col = refSql(exp.column, alias, ctx);
      if (typeof exp.isNull === 'boolean') return exp.isNull ? sql`${col} IS NULL` : sql`${col} IS NOT NULL`;
      return sql`(${col} IS NULL) = ${sql.param(exp.isNull.source, 'bool')}`;
    }
    case 'compare_column': {
      const other = refSql(exp.other, exp.otherIsRoot ? ctx.root : alias, ctx);
      return sql`${refSql(exp.column, alias, ctx)} ${sql.unsafeRaw(COLUMN_COMPARE[exp.op])} ${other}`;
    }
    case 'exists_rel': {
      const remote = ctx.aliases.next('t');
      const where = andSql([joinCondition(exp.rel, remote, alias, ctx.aliases), boolSql(exp.where, remote, ctx)]);
      return sql`EXISTS (SELECT 1 FROM ${sql.table(exp.rel.remoteTable)} AS ${remote} WHERE ${where})`;
    }
    case 'exists_fn': {
      const rows = ctx.aliases.next('t');
      const where = boolSql(exp.where, rows, ctx);
      return sql`EXISTS (SELECT 1 FROM ${rowFunctionSql(exp.call, alias)} AS ${rows}${isTrueSql(where) ? sql.empty : sql` WHERE ${where}`})`;
    }
  }
}

function compareSql(col: SqlFragment, op: ComparisonOp, value: IrValue): SqlFragment {
  // `_in`/`_nin` values are array-typed (`_int4`, `int4[]`): one parameter whatever the list length.
  if (op === '_in') return sql`${col} = ANY(${valueSql(value)})`;
  if (op === '_nin') return sql`${col} <> ALL(${valueSql(value)})`;
  return sql`${col} ${sql.unsafeRaw(COMPARE[op])} ${valueSql(value)}`;
}
