/**
 * `where` arguments → IR boolean expressions, with Hasura v1.3's semantics: fields of one
 * object are AND-ed in order; `_and: null` is true, `_or: null` / `[]` is false, `_not: null`
 * is false; an operator whose value is null is left out (so `{id: {_eq: null}}` is true);
 * a relationship becomes an EXISTS over the related table, with that table's permission
 * filter for the role AND-ed inside.
 */
import { andAll, TRUE, type BoolExp, type ComparisonOp, type ColumnRef } from '../ir/index.js';
import { inputField, inputMeta, vf, type AnnValue } from '../graphql/index.js';
import type { ColumnInfo, TableInfo } from '../metadata/index.js';
import { columnValueType, irValue, listValue, type PlanContext } from './context.js';
import { pathKey } from '../core/index.js';

export const FALSE: BoolExp = { kind: 'not', item: TRUE };

const SCALAR_OPS: Record<string, ComparisonOp> = {
  _eq: '_eq', _neq: '_neq', _gt: '_gt', _lt: '_lt', _gte: '_gte', _lte: '_lte',
  _like: '_like', _nlike: '_nlike', _ilike: '_ilike', _nilike: '_nilike', _similar: '_similar', _nsimilar: '_nsimilar',
};

/** A `<t>_bool_exp` value → BoolExp (without the permission filter of `table` itself). */
export function planBoolExp(ctx: PlanContext, table: TableInfo, v: AnnValue | undefined, path: string): BoolExp {
  if (!v || v.kind === 'null') return TRUE;
  if (v.kind !== 'object') throw vf('expecting an object for boolean expression', path);
  const items: BoolExp[] = [];
  for (const [name, value] of v.fields) {
    const p = pathKey(path, name);
    const meta = inputMeta(inputField(v.type, name));
    switch (meta?.kind) {
      case 'bool_and':
        items.push(value.kind === 'null' ? TRUE : andAll(listItems(value).map((x, i) => planBoolExp(ctx, table, x, `${p}[${i}]`))));
        break;
      case 'bool_or': {
        const ors = value.kind === 'null' ? [] : listItems(value).map((x, i) => planBoolExp(ctx, table, x, `${p}[${i}]`));
        items.push(ors.length === 0 ? FALSE : ors.length === 1 ? ors[0] : { kind: 'or', items: ors });
        break;
      }
      case 'bool_not':
        items.push({ kind: 'not', item: planBoolExp(ctx, table, value, p) });
        break;
      case 'bool_column':
        items.push(andAll(columnOps(ctx, meta.column, value, p, ctx.columnCondition(table, meta.column.name))));
        break;
      case 'bool_rel': {
        const remoteView = ctx.view(meta.remote, p);
        const inner = planBoolExp(ctx, meta.remote, value, p);
        items.push({ kind: 'exists_rel', rel: ctx.join(table, meta.remote, meta.rel.join), where: andAll([inner, remoteView.filter]) });
        break;
      }
      default:
        throw vf(`unexpected field ${name} in boolean expression`, p);
    }
  }
  return andAll(items);
}

function listItems(v: AnnValue): AnnValue[] {
  return v.kind === 'list' ? v.items : [v];
}

/** The comparisons of one `<T>_comparison_exp` value on `column`; null operators are dropped. */
export function columnOps(ctx: PlanContext, column: ColumnInfo, v: AnnValue, path: string, visibleIf?: BoolExp): BoolExp[] {
  if (v.kind !== 'object') return [];
  const col: ColumnRef = visibleIf ? { column: column.name, pgType: column.pgType, visibleIf } : { column: column.name, pgType: column.pgType };
  const valueType = columnValueType(column);
  const out: BoolExp[] = [];
  for (const [op, value] of v.fields) {
    if (value.kind === 'null') continue;
    const scalarOp = SCALAR_OPS[op];
    if (scalarOp) {
      out.push({ kind: 'compare', column: col, op: scalarOp, value: irValue(value, valueType) });
      continue;
    }
    switch (op) {
      case '_in':
      case '_nin':
        if (value.kind !== 'list') throw vf(`expecting a list for ${op}`, pathKey(path, op));
        out.push({ kind: 'compare', column: col, op, value: listValue(ctx, value, valueType) });
        break;
      case '_is_null':
        ctx.bake(value);
        out.push({ kind: 'is_null', column: col, isNull: value.kind === 'scalar' && (value.value === true || value.value === 'true') });
        break;
      case '_contains':
      case '_contained_in':
        out.push({ kind: 'compare', column: col, op, value: irValue(value, 'jsonb') });
        break;
      case '_has_key':
        out.push({ kind: 'compare', column: col, op, value: irValue(value, 'text') });
        break;
      case '_has_keys_any':
      case '_has_keys_all':
        if (value.kind !== 'list') throw vf(`expecting a list for ${op}`, pathKey(path, op));
        out.push({ kind: 'compare', column: col, op, value: listValue(ctx, value, 'text') });
        break;
      default:
        throw vf(`unexpected operator ${op}`, pathKey(path, op));
    }
  }
  return out;
}
