/**
 * `update_<t>` / `update_<t>_by_pk` and `delete_<t>` / `delete_<t>_by_pk` → UpdateIR / DeleteIR:
 * the client's `where` (or primary key) AND-ed with the permission filter, the update operators
 * (`_set`, `_inc`, jsonb `_append`, `_prepend`, `_delete_key`, `_delete_elem`, `_delete_at_path`)
 * plus the update permission's presets, and its check.
 */
import { andAll, TRUE, type BoolExp, type DeleteIR, type UpdateIR, type UpdateOp } from '../ir/index.js';
import { deleteView, updateView, vf, type AnnValue, type NField } from '../graphql/index.js';
import type { ColumnInfo, TableInfo } from '../metadata/index.js';
import { pathKey } from '../core/index.js';
import { irValue, type PlanContext } from './context.js';
import { planBoolExp } from './boolExp.js';
import { columnValue, inputColumn, planResponse, planSingle } from './mutationOutput.js';

const OPERATORS = ['_set', '_inc', '_append', '_prepend', '_delete_key', '_delete_elem', '_delete_at_path'] as const;
type Operator = (typeof OPERATORS)[number];

function opFor(ctx: PlanContext, operator: Operator, column: ColumnInfo, v: AnnValue): UpdateOp {
  switch (operator) {
    case '_set': return { kind: 'set', value: columnValue(ctx, column, v) };
    case '_inc': return { kind: 'inc', value: columnValue(ctx, column, v) };
    case '_append': return { kind: 'append', value: irValue(v, 'jsonb') };
    case '_prepend': return { kind: 'prepend', value: irValue(v, 'jsonb') };
    case '_delete_key': return { kind: 'delete_key', value: irValue(v, 'text') };
    case '_delete_elem': return { kind: 'delete_elem', value: irValue(v, 'int4') };
    case '_delete_at_path': return { kind: 'delete_at_path', value: irValue(v, '_text') };
  }
}

/** The primary-key equality of `update_<t>_by_pk(pk_columns)` / `delete_<t>_by_pk(<pk>)`. */
function pkWhere(ctx: PlanContext, table: TableInfo, pk: ColumnInfo[], values: (c: ColumnInfo) => AnnValue | undefined, path: string): BoolExp {
  return andAll(pk.map((c): BoolExp => {
    const v = values(c);
    if (!v || v.kind === 'null') throw vf(`the required argument "${c.gqlName}" is missing`, path);
    return { kind: 'compare', column: ctx.columnRef(table, c), op: '_eq', value: columnValue(ctx, c, v) };
  }));
}

export interface PlannedUpdate {
  ir: UpdateIR;
  /** True when the operators change no column (the field then answers an empty response). */
  empty: boolean;
}

/** `update_<t>(where, _set, ...)` or, with `pkColumns`, `update_<t>_by_pk(pk_columns, _set, ...)`. */
export function planUpdate(ctx: PlanContext, table: TableInfo, field: NField, pkColumns?: ColumnInfo[]): PlannedUpdate {
  const argsPath = `${field.path}.args`;
  const view = updateView(table, ctx.role, ctx.backendOnly);
  if (!view) throw vf(`update on table "${table.gqlName}" is not allowed`, field.path);

  let where: BoolExp;
  if (pkColumns) {
    const pkArg = field.args.get('pk_columns');
    const given = pkArg?.kind === 'object' ? pkArg.fields : [];
    where = pkWhere(ctx, table, pkColumns, (c) => given.find(([k]) => k === c.gqlName)?.[1], pathKey(argsPath, 'pk_columns'));
  } else {
    where = planBoolExp(ctx, table, field.args.get('where'), pathKey(argsPath, 'where'));
  }

  const present = OPERATORS.filter((op) => field.args.has(op));
  if (present.length === 0) {
    throw vf('atleast any one of _set, _inc, _append, _prepend, _delete_key, _delete_elem and _delete_at_path operator is expected', field.path);
  }
  const set: UpdateIR['set'] = [];
  const seen = new Map<string, Operator[]>();
  for (const operator of present) {
    const arg = field.args.get(operator)!;
    if (arg.kind !== 'object') continue;
    for (const [name, value] of arg.fields) {
      const column = inputColumn(arg, name);
      if (!column) throw vf(`unexpected field ${name}`, pathKey(pathKey(argsPath, operator), name));
      seen.set(column.name, [...(seen.get(column.name) ?? []), operator]);
      // `_set: {col: null}` sets NULL; a null operand of the other operators leaves the column alone.
      if (value.kind === 'null' && operator !== '_set') continue;
      set.push({ column: column.name, op: opFor(ctx, operator, column, value) });
    }
  }
  const repeated = [...seen.entries()].filter(([, ops]) => ops.length > 1);
  if (repeated.length > 0) {
    const [col, ops] = repeated[0];
    throw vf(`column found in multiple operators; ${JSON.stringify(col)} in ${ops.join(', ')} operators`, argsPath);
  }
  const empty = set.length === 0;
  for (const p of view.presets) set.push({ column: p.column.name, op: { kind: 'set', value: p.value } });

  const ir: UpdateIR = {
    kind: 'update',
    table: table.name,
    where: andAll([view.filter, where]),
    set,
    output: pkColumns ? planSingle(ctx, table, field) : planResponse(ctx, table, field),
  };
  if (view.check && view.check.kind !== 'true') ir.check = view.check;
  return { ir, empty };
}

/** `delete_<t>(where)` or, with `pkColumns`, `delete_<t>_by_pk(<pk columns>)`. */
export function planDelete(ctx: PlanContext, table: TableInfo, field: NField, pkColumns?: ColumnInfo[]): DeleteIR {
  const argsPath = `${field.path}.args`;
  const view = deleteView(table, ctx.role, ctx.backendOnly);
  if (!view) throw vf(`delete on table "${table.gqlName}" is not allowed`, field.path);
  const where = pkColumns
    ? pkWhere(ctx, table, pkColumns, (c) => field.args.get(c.gqlName), argsPath)
    : planBoolExp(ctx, table, field.args.get('where'), pathKey(argsPath, 'where'));
  return {
    kind: 'delete',
    table: table.name,
    where: andAll([view.filter ?? TRUE, where]),
    output: pkColumns ? planSingle(ctx, table, field) : planResponse(ctx, table, field),
  };
}
