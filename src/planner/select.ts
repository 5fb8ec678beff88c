/**
 * Validated select fields → select/aggregate IR with the role's permissions applied at every
 * level: the table's row filter AND-ed into `where`, the row limit capping `limit`, and only the
 * columns/relationships the role's schema exposes (the validator has already refused others).
 */
import { andAll, type AggregateField, type AggregateIR, type AggregateOp, type BoolExp, type FunctionArg, type IrValue, type SelectField, type SelectIR } from '../ir/index.js';
import { outputMeta, vf, type AnnValue, type NField, type SelectView } from '../graphql/index.js';
import type { ColumnInfo, ComputedFieldInfo, RelationshipInfo, RemoteRelInfo, SourceRelInfo, TableInfo } from '../metadata/index.js';
import type { SourceJoinNode } from '../sql/index.js';
import { sourceRelKeys } from './sourceRel.js';
import { planConnection } from './connection.js';
import { isBigNumType, pathKey } from '../core/index.js';
import { planBoolExp } from './boolExp.js';
import { nativeQuerySource } from './nativeQuerySource.js';
import { irValue, type PlanContext } from './context.js';
import { parseJsonPath } from './jsonPath.js';
import { planDistinctOn, planOrderBy } from './orderBy.js';
import { checkLimitValue, checkOffsetValue } from './rowCount.js';

export { checkLimitValue, checkOffsetValue };

/** The row-set part shared by selects and aggregates: where, order_by, distinct_on, limit, offset. */
interface RowSet {
  where: BoolExp;
  orderBy?: SelectIR['orderBy'];
  distinctOn?: string[];
  distinctOnVisibleIf?: Record<string, BoolExp>;
  limit?: number | IrValue;
  offset?: number | IrValue;
}

/** Inherited roles: the conditions of those of `columns` the role sees only in some rows; undefined when none. */
function conditionsOf(ctx: PlanContext, table: TableInfo, columns: readonly string[]): Record<string, BoolExp> | undefined {
  let out: Record<string, BoolExp> | undefined;
  for (const c of columns) {
    const cond = ctx.columnCondition(table, c);
    if (cond) (out ??= {})[c] = cond;
  }
  return out;
}

function planRowSet(ctx: PlanContext, table: TableInfo, view: SelectView, field: NField, extraWhere?: BoolExp, permLimit = view.limit): RowSet {
  const args = field.args;
  const argsPath = `${field.path}.args`;
  const where = andAll([planBoolExp(ctx, table, args.get('where'), `${argsPath}.where`), view.filter, extraWhere]);
  const orderBy = planOrderBy(ctx, table, args.get('order_by'), `${argsPath}.order_by`);
  const distinctOn = planDistinctOn(ctx, args.get('distinct_on'), orderBy, argsPath);
  const distinctOnVisibleIf = distinctOn && conditionsOf(ctx, table, distinctOn);
  const limit = planLimit(ctx, args.get('limit'), permLimit, `${argsPath}.limit`);
  const offset = planOffset(ctx, args.get('offset'), `${argsPath}.offset`);
  const rs: RowSet = { where };
  if (orderBy && orderBy.length > 0) rs.orderBy = orderBy;
  if (distinctOn) rs.distinctOn = distinctOn;
  if (distinctOnVisibleIf) rs.distinctOnVisibleIf = distinctOnVisibleIf;
  if (limit !== undefined) rs.limit = limit;
  if (offset !== undefined) rs.offset = offset;
  return rs;
}

function planLimit(ctx: PlanContext, v: AnnValue | undefined, permLimit: number | null, path: string): number | IrValue | undefined {
  if (!v || v.kind === 'null') return permLimit ?? undefined;
  if (v.kind !== 'scalar') throw vf('expecting Integer value for "limit"', path);
  const n = checkLimitValue(v.value, path);
  if (v.variable && permLimit === null) {
    ctx.checks.push({ kind: 'limit', variable: v.variable.name, path: v.variable.path, errorPath: path });
    return irValue(v, 'int4');
  }
  ctx.bake(v);
  return permLimit === null ? n : Math.min(n, permLimit);
}

function planOffset(ctx: PlanContext, v: AnnValue | undefined, path: string): number | IrValue | undefined {
  if (!v || v.kind === 'null') return undefined;
  if (v.kind !== 'scalar') throw vf('expecting Integer value for "offset"', path);
  const n = checkOffsetValue(v.value, path);
  if (v.variable) {
    ctx.checks.push({ kind: 'offset', variable: v.variable.name, path: v.variable.path, errorPath: path });
    return irValue(v, 'int8');
  }
  return n;
}

/** A list select over `table` (root field, array relationship, or object relationship when `object`). */
export function planSelect(ctx: PlanContext, table: TableInfo, field: NField, opts: { extraWhere?: BoolExp; noArgs?: boolean } = {}): SelectIR {
  const view = ctx.view(table, field.path);
  const rowSet = opts.noArgs ? { where: andAll([view.filter, opts.extraWhere]) } : planRowSet(ctx, table, view, field, opts.extraWhere);
  return { table: table.name, fields: planFields(ctx, table, field.selection ?? []), ...rowSet };
}

/** An aggregate over `table` (`<t>_aggregate` root field or `<rel>_aggregate`). */
export function planAggregate(ctx: PlanContext, table: TableInfo, field: NField): AggregateIR {
  const view = ctx.view(table, field.path);
  // As in Hasura (PermissionLimitSubQuery): with aggregates asked for, the permission limit caps
  // only `nodes`; the aggregates see every row the client's own limit allows.
  const hasAggregates = (field.selection ?? []).some((f) => outputMeta(f.def)?.kind === 'agg_aggregate');
  const splitLimit = view.limit !== null && hasAggregates;
  const rowSet = planRowSet(ctx, table, view, field, undefined, splitLimit ? null : view.limit);
  const fields: AggregateField[] = (field.selection ?? []).map((f): AggregateField => {
    if (f.name === '__typename') return { alias: f.alias, kind: 'typename', name: f.parentType.name };
    const meta = outputMeta(f.def);
    if (meta?.kind === 'agg_aggregate') return { alias: f.alias, kind: 'aggregate', ops: planAggregateOps(ctx, table, f.selection ?? []) };
    if (meta?.kind === 'agg_nodes') return { alias: f.alias, kind: 'nodes', fields: planFields(ctx, table, f.selection ?? []) };
    throw vf(`unexpected field ${f.name}`, f.path);
  });
  const ir: AggregateIR = { table: table.name, fields, ...rowSet };
  if (splitLimit) ir.nodesLimit = view.limit!;
  return ir;
}

function planAggregateOps(ctx: PlanContext, table: TableInfo, selection: NField[]): AggregateOp[] {
  return selection.map((f): AggregateOp => {
    if (f.name === '__typename') return { alias: f.alias, kind: 'typename', name: f.parentType.name };
    const meta = outputMeta(f.def);
    if (meta?.kind === 'agg_count') {
      const columnsArg = f.args.get('columns');
      const distinctArg = f.args.get('distinct');
      ctx.bake(columnsArg);
      ctx.bake(distinctArg);
      const op: AggregateOp = { alias: f.alias, kind: 'count' };
      if (columnsArg && columnsArg.kind !== 'null') {
        const items = columnsArg.kind === 'list' ? columnsArg.items : [columnsArg];
        op.columns = items.flatMap((i) => (i.kind === 'enum' ? [String(i.value)] : []));
        const visibleIf = conditionsOf(ctx, table, op.columns);
        if (visibleIf) op.visibleIf = visibleIf;
      }
      if (distinctArg?.kind === 'scalar' && (distinctArg.value === true || distinctArg.value === 'true')) op.distinct = true;
      return op;
    }
    if (meta?.kind === 'agg_op') {
      const keepsType = meta.op === 'sum' || meta.op === 'max' || meta.op === 'min';
      return {
        alias: f.alias,
        kind: 'op',
        op: meta.op,
        columns: (f.selection ?? []).map((c) => {
          if (c.name === '__typename') return { alias: c.alias, kind: 'typename' as const, name: c.parentType.name };
          const cm = outputMeta(c.def);
          if (cm?.kind !== 'agg_op_column') throw vf(`unexpected field ${c.name}`, c.path);
          const col: { alias: string; column: string; pgType: string; stringify?: boolean; visibleIf?: BoolExp } = { alias: c.alias, column: cm.column.name, pgType: cm.column.pgType };
          if (keepsType && ctx.stringifyNumeric && isBigNumType(cm.column.pgType)) col.stringify = true;
          const visibleIf = ctx.columnCondition(table, cm.column.name);
          if (visibleIf) col.visibleIf = visibleIf;
          return col;
        }),
      };
    }
    throw vf(`unexpected field ${f.name}`, f.path);
  });
}

/** The fields of a table object selection. */
export function planFields(ctx: PlanContext, table: TableInfo, selection: NField[]): SelectField[] {
  return selection.map((f): SelectField => {
    if (f.name === '__typename') return { alias: f.alias, kind: 'typename', name: f.parentType.name };
    const meta = outputMeta(f.def);
    switch (meta?.kind) {
      case 'column': {
        const out: SelectField = { alias: f.alias, kind: 'column', column: meta.column.name, pgType: meta.column.pgType };
        const visibleIf = ctx.columnCondition(table, meta.column.name);
        if (visibleIf) out.visibleIf = visibleIf;
        const jsonPath = planJsonPath(ctx, f);
        if (jsonPath) out.jsonPath = jsonPath;
        else if (ctx.stringifyNumeric && isBigNumType(meta.column.pgType)) out.stringify = true;
        return out;
      }
      case 'object_rel':
        return { alias: f.alias, kind: 'object_rel', join: ctx.join(table, meta.remote, meta.rel.join), select: planSelect(ctx, meta.remote, f, { noArgs: true }) };
      case 'array_rel':
        return { alias: f.alias, kind: 'array_rel', join: ctx.join(table, meta.remote, meta.rel.join), select: planSelect(ctx, meta.remote, f) };
      case 'native_query_rel': {
        // To a table: its select permission; to a native query: its model's, its `args` as parameters.
        const join = ctx.join(table, meta.remote, meta.rel.join);
        const select = planSelect(ctx, meta.remote, f, { noArgs: meta.rel.type === 'object' });
        if (meta.target) select.source = nativeQuerySource(meta.target, f);
        if (meta.rel.type === 'object') select.limit = 1;
        return meta.rel.type === 'object' ? { alias: f.alias, kind: 'object_rel', join, select } : { alias: f.alias, kind: 'array_rel', join, select };
      }
      case 'array_rel_aggregate':
        return { alias: f.alias, kind: 'array_agg_rel', join: ctx.join(table, meta.remote, meta.rel.join), aggregate: planAggregate(ctx, meta.remote, f) };
      case 'computed_scalar': {
        const out: SelectField = {
          alias: f.alias, kind: 'computed_scalar', function: meta.field.function, pgType: meta.pgType,
          tableArg: meta.field.tableArgIndex, args: functionArgs(meta.field.inputArgs, f.args.get('args')),
        };
        // Hasura v1.3 does not stringify computed-field results, only columns.
        if (meta.field.sessionArgIndex !== undefined) out.sessionArg = meta.field.sessionArgIndex;
        const visibleIf = table.permissions.get(ctx.role)?.select?.computedFieldConditions?.get(meta.field.name);
        if (visibleIf) out.visibleIf = visibleIf;
        const maskedRow = ctx.maskedRow(table);
        if (maskedRow) out.maskedRow = maskedRow;
        return out;
      }
      case 'computed_table': {
        const out: SelectField = {
          alias: f.alias, kind: 'computed_table', function: meta.field.function, tableArg: meta.field.tableArgIndex,
          args: functionArgs(meta.field.inputArgs, f.args.get('args')), select: planSelect(ctx, meta.remote, f),
        };
        if (meta.field.sessionArgIndex !== undefined) out.sessionArg = meta.field.sessionArgIndex;
        const maskedRow = ctx.maskedRow(table);
        if (maskedRow) out.maskedRow = maskedRow;
        return out;
      }
      case 'ext:relay_id':
        return { alias: f.alias, kind: 'relay_id', table: table.name, columns: (meta.pkColumns as ColumnInfo[]).map((c) => c.name) };
      case 'ext:relay_rel_connection': {
        const rel = meta.rel as RelationshipInfo;
        return { alias: f.alias, kind: 'connection', join: ctx.join(table, meta.remote as TableInfo, rel.join), connection: planConnection(ctx, meta.remote as TableInfo, f, planFields) };
      }
      case 'ext:remote_rel': {
        // The join columns at the field's place; the remote-join executor swaps in the remote's answer.
        const rel = meta.rel as RemoteRelInfo;
        // A join column the role does not see in this row is null: the field is null, the remote is not asked.
        const columns = rel.hasuraFields.map((c) => {
          const key = { key: c, column: c, pgType: table.columnsByName.get(c)?.pgType ?? 'text' };
          const visibleIf = ctx.columnCondition(table, c);
          return visibleIf ? { ...key, visibleIf } : key;
        });
        ctx.remoteJoins += 1;
        return { alias: f.alias, kind: 'remote_rel_keys', columns, join: { rel, nodes: f.nodes, path: f.path } satisfies RemoteJoinField };
      }
      case 'ext:source_rel': {
        // A relationship to a source's table: planned over that source's cache, run by the join executor.
        const m = meta as unknown as { rel: SourceRelInfo; remote: TableInfo; aggregate?: true };
        const target = ctx.onSource(m.rel.source, f.path);
        const node: SourceJoinNode = m.aggregate ? { kind: 'aggregate', ir: planAggregate(target, m.remote, f) }
          : m.rel.type === 'object' ? { kind: 'object', ir: { ...planSelect(target, m.remote, f, { noArgs: true }), limit: 1 } }
            : { kind: 'array', ir: planSelect(target, m.remote, f) };
        return sourceRelKeys(ctx, target, table, m.remote, m.rel, node, f);
      }
      default:
        throw vf(`field ${f.name} cannot be selected here`, f.path);
    }
  });
}

/** What a remote relationship in a selection carries for the remote-join executor. */
export interface RemoteJoinField {
  rel: RemoteRelInfo;
  /** The client's field nodes (arguments and selection set as written). */
  nodes: NField['nodes'];
  path: string;
}

function planJsonPath(ctx: PlanContext, f: NField): string[] | undefined {
  const v = f.args.get('path');
  if (!v || v.kind !== 'scalar' || typeof v.value !== 'string') return undefined;
  ctx.bake(v);
  try {
    const segs = parseJsonPath(v.value);
    return segs.length > 0 ? segs : undefined;
  } catch (e) {
    throw vf(`parse json path error: ${(e as Error).message}`, pathKey(`${f.path}.args`, 'path'));
  }
}

/**
 * The user-supplied arguments of a function call, in declaration order: positional while every
 * earlier argument is given, named after the first one left to its default (or always named
 * when `allNamed`, e.g. when a session argument is passed by name).
 */
export function functionArgs(inputArgs: ComputedFieldInfo['inputArgs'], v: AnnValue | undefined, allNamed = false): FunctionArg[] {
  const given = new Map(v?.kind === 'object' ? v.fields : []);
  const out: FunctionArg[] = [];
  let named = allNamed;
  inputArgs.forEach((a, i) => {
    const value = given.get(a.name || `arg_${i + 1}`);
    if (value === undefined && a.hasDefault) {
      named = true;
      return;
    }
    const arg: FunctionArg = { value: value ? irValue(value, a.pgType) : { source: { kind: 'value', value: null }, pgType: a.pgType } };
    if (named) arg.name = a.name;
    out.push(arg);
  });
  return out;
}
