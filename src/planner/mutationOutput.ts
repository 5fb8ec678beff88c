/**
 * Shared pieces of mutation planning: the response of a mutation field (`affected_rows`,
 * `returning` planned like a select of the table, `__typename`), the single-row response of the
 * `_one`/`_by_pk` fields, and column values cast to their column's type.
 */
import type { ColumnInfo, TableInfo } from '../metadata/index.js';
import { columnCastType, columnParamValue, inputField, inputMeta, outputMeta, vf, type AnnValue, type NField } from '../graphql/index.js';
import type { IrValue, MaskedRow, MutationOutputIR, MutationResponseField, SelectField } from '../ir/index.js';
import { irValue, type PlanContext } from './context.js';
import { planFields } from './select.js';

/** `{affected_rows, returning, __typename}` of `<t>_mutation_response`. */
export function planResponse(ctx: PlanContext, table: TableInfo, field: NField): MutationOutputIR {
  const fields = (field.selection ?? []).map((f): MutationResponseField => {
    if (f.name === '__typename') return { alias: f.alias, kind: 'typename', name: f.parentType.name };
    const meta = outputMeta(f.def);
    if (meta?.kind === 'ext:affected_rows') return { alias: f.alias, kind: 'affected_rows' };
    if (meta?.kind === 'ext:returning') return { alias: f.alias, kind: 'returning', fields: typedRows(table, planFields(ctx, table, f.selection ?? [])) };
    throw vf(`unexpected field ${f.name}`, f.path);
  });
  return { kind: 'response', fields };
}

/** The table object of `insert_<t>_one` / `update_<t>_by_pk` / `delete_<t>_by_pk`. */
export function planSingle(ctx: PlanContext, table: TableInfo, field: NField): MutationOutputIR {
  return { kind: 'single', fields: typedRows(table, planFields(ctx, table, field.selection ?? [])) };
}

/**
 * The mutated rows are the mutation CTE's (the table's columns plus its check column), not rows of the
 * table's type: a computed field's function receives them rebuilt as the table's row,
 * `ROW(r."a", r."b", …)::"schema"."table"` (an inherited role's masked row already is one).
 */
function typedRows(table: TableInfo, fields: SelectField[]): SelectField[] {
  let row: MaskedRow | undefined;
  return fields.map((f) => {
    if ((f.kind !== 'computed_scalar' && f.kind !== 'computed_table') || f.maskedRow) return f;
    row ??= { table: table.name, columns: [...table.columns].sort((a, b) => a.position - b.position).map((c) => ({ column: c.name })) };
    return { ...f, maskedRow: row };
  });
}

/**
 * A column's value as a typed IR value (a reference into the variables when it came from one).
 * A `numeric` value is rewritten (scale padded, see columnParamValue), so one from a variable is
 * baked into the plan (and the plan-cache key); every other value stays a bound parameter.
 */
export function columnValue(ctx: PlanContext, column: ColumnInfo, v: AnnValue): IrValue {
  if (v.kind === 'scalar' && column.pgType === 'numeric' && v.variable) ctx.bake(v);
  if (v.kind === 'scalar' && columnParamValue(column, v.value) !== v.value) {
    return { source: { kind: 'value', value: columnParamValue(column, v.value) }, pgType: columnCastType(column) };
  }
  return irValue(v, columnCastType(column));
}

/** The column an input field of a mutation input object stands for. */
export function inputColumn(v: AnnValue & { kind: 'object' }, name: string): ColumnInfo | undefined {
  const meta = inputMeta(inputField(v.type, name));
  return meta?.kind === 'ext:mut_column' ? (meta as unknown as { column: ColumnInfo }).column : undefined;
}

/** The JSON text of a mutation that changes nothing: 0 rows, empty `returning`, or null for a single row. */
export function emptyResponse(output: MutationOutputIR): string {
  if (output.kind === 'single') return 'null';
  const entries = output.fields.map((f) => {
    switch (f.kind) {
      case 'affected_rows': return [f.alias, 0];
      case 'returning': return [f.alias, []];
      case 'typename': return [f.alias, f.name];
    }
  });
  return JSON.stringify(Object.fromEntries(entries));
}
