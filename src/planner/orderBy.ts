/**
 * `order_by` arguments → IR order-by items. A single object or a list of objects; within an
 * object, fields in the order written; null values are skipped. Object relationships and
 * `<rel>_aggregate` of array relationships carry the related table's permission filter.
 * Also `distinct_on`, checked against the leading `order_by` columns as Hasura does.
 */
import type { OrderByItem, OrderByTarget } from '../ir/index.js';
import { inputField, inputMeta, vf, type AggregateOpName, type AnnValue } from '../graphql/index.js';
import { pathKey } from '../core/index.js';
import type { TableInfo } from '../metadata/index.js';
import type { PlanContext } from './context.js';

type Direction = Pick<OrderByItem, 'direction' | 'nulls'>;

const DIRECTIONS: Record<string, Direction> = {
  asc: { direction: 'asc' },
  asc_nulls_last: { direction: 'asc', nulls: 'last' },
  asc_nulls_first: { direction: 'asc', nulls: 'first' },
  desc: { direction: 'desc' },
  desc_nulls_first: { direction: 'desc', nulls: 'first' },
  desc_nulls_last: { direction: 'desc', nulls: 'last' },
};

export function planOrderBy(ctx: PlanContext, table: TableInfo, v: AnnValue | undefined, path: string): OrderByItem[] | undefined {
  if (!v || v.kind === 'null') return undefined;
  const objects = v.kind === 'list' ? v.items : [v];
  const items: OrderByItem[] = [];
  objects.forEach((o, i) => items.push(...orderByObject(ctx, table, o, `${path}[${i}]`, (t) => t)));
  return items;
}

function direction(ctx: PlanContext, v: AnnValue): Direction | undefined {
  if (v.kind !== 'enum') return undefined;
  ctx.bake(v);
  return DIRECTIONS[String(v.value)];
}

function orderByObject(ctx: PlanContext, table: TableInfo, v: AnnValue, path: string, wrap: (t: OrderByTarget) => OrderByTarget): OrderByItem[] {
  if (v.kind !== 'object') return [];
  const items: OrderByItem[] = [];
  for (const [name, value] of v.fields) {
    if (value.kind === 'null') continue;
    const p = pathKey(path, name);
    const meta = inputMeta(inputField(v.type, name));
    switch (meta?.kind) {
      case 'order_column': {
        const d = direction(ctx, value);
        const visibleIf = ctx.columnCondition(table, meta.column.name);
        if (d) items.push({ target: wrap(visibleIf ? { kind: 'column', column: meta.column.name, visibleIf } : { kind: 'column', column: meta.column.name }), ...d });
        break;
      }
      case 'order_object_rel': {
        const filter = ctx.view(meta.remote, p).filter;
        items.push(...orderByObject(ctx, meta.remote, value, p, (t) => wrap({ kind: 'object_rel', join: ctx.join(table, meta.remote, meta.rel.join), filter, target: t })));
        break;
      }
      case 'order_array_agg': {
        const filter = ctx.view(meta.remote, p).filter;
        items.push(...aggregateOrderBy(ctx, meta.remote, value, (agg) => wrap({ kind: 'array_agg', join: ctx.join(table, meta.remote, meta.rel.join), filter, agg })));
        break;
      }
      default:
        throw vf(`unexpected field ${name} in order_by`, p);
    }
  }
  return items;
}

type AggSpec = Extract<OrderByTarget, { kind: 'array_agg' }>['agg'];

function aggregateOrderBy(ctx: PlanContext, table: TableInfo, v: AnnValue, target: (agg: AggSpec) => OrderByTarget): OrderByItem[] {
  if (v.kind !== 'object') return [];
  const items: OrderByItem[] = [];
  for (const [name, value] of v.fields) {
    if (value.kind === 'null') continue;
    const meta = inputMeta(inputField(v.type, name));
    if (meta?.kind === 'order_agg_count') {
      const d = direction(ctx, value);
      if (d) items.push({ target: target({ op: 'count' }), ...d });
    } else if (meta?.kind === 'order_agg_op' && value.kind === 'object') {
      const op = meta.op as AggregateOpName;
      for (const [colName, dirValue] of value.fields) {
        if (dirValue.kind === 'null') continue;
        const colMeta = inputMeta(inputField(value.type, colName));
        const d = direction(ctx, dirValue);
        if (colMeta?.kind !== 'order_agg_op_column' || !d) continue;
        const visibleIf = ctx.columnCondition(table, colMeta.column.name);
        items.push({ target: target(visibleIf ? { op, column: colMeta.column.name, visibleIf } : { op, column: colMeta.column.name }), ...d });
      }
    }
  }
  return items;
}

/** `distinct_on` column names, checked against the leading `order_by` columns (Hasura's `validateDistOn`). */
export function planDistinctOn(
  ctx: PlanContext, v: AnnValue | undefined, orderBy: OrderByItem[] | undefined, argsPath: string,
): string[] | undefined {
  if (!v || v.kind === 'null') return undefined;
  ctx.bake(v);
  const items = v.kind === 'list' ? v.items : [v];
  const cols = items.filter((i): i is AnnValue & { kind: 'enum' } => i.kind === 'enum').map((i) => String(i.value));
  if (orderBy && orderBy.length > 0) {
    const initial = orderBy.slice(0, cols.length).flatMap((o) => (o.target.kind === 'column' ? [o.target.column] : []));
    const valid = initial.length === cols.length && cols.every((c) => initial.includes(c));
    if (!valid) throw vf('"distinct_on" columns must match initial "order_by" columns', argsPath);
  }
  return cols;
}
