/**
 * Whether a mutation statement provably never reads the session variables, so the engine may run
 * it without `set_config('svc.user', …)` before it (one statement less in the mutation's pipeline).
 * Session variables in permissions and presets are bound parameters; what could read the setting
 * is code Postgres runs: triggers, row security policies, rules, defaults and constraints calling
 * functions (the table's `sessionFreeWrites`, from the introspected catalog and the metadata's
 * event triggers), and functions or other relations in the statement itself. So the answer is yes
 * only when the written table is session-free and the statement reads nothing but that table's
 * columns: no relationship (a related relation may be a view or have row security), no computed
 * field, no nested insert. Anything else keeps the session set.
 */
import type { BoolExp, ColumnRef, MutationIR, MutationOutputIR, SelectField } from '../ir/index.js';
import type { TableInfo } from '../metadata/index.js';

/** True when running `ir` on `table` cannot read the session variables (see above). */
export function mutationReadsNoSession(ir: MutationIR, table: TableInfo): boolean {
  if (table.sessionFreeWrites !== true || !outputIsColumns(ir.output)) return false;
  switch (ir.kind) {
    case 'insert':
      return ir.rows.every((r) => r.objectRelationships.length === 0 && r.arrayRelationships.length === 0)
        && columnsOnly(ir.check) && (ir.updateCheck === undefined || columnsOnly(ir.updateCheck))
        && (ir.onConflict?.action !== 'update' || columnsOnly(ir.onConflict.where));
    case 'update':
      return columnsOnly(ir.where) && (ir.check === undefined || columnsOnly(ir.check));
    case 'delete':
      return columnsOnly(ir.where);
  }
}

function outputIsColumns(output: MutationOutputIR): boolean {
  if (output.kind === 'single') return fieldsAreColumns(output.fields);
  return output.fields.every((f) => f.kind !== 'returning' || fieldsAreColumns(f.fields));
}

function fieldsAreColumns(fields: readonly SelectField[]): boolean {
  return fields.every((f) => f.kind === 'typename' || (f.kind === 'column' && (f.visibleIf === undefined || columnsOnly(f.visibleIf))));
}

/** A boolean expression over the row's own columns only (no relationship, no function). */
function columnsOnly(exp: BoolExp): boolean {
  switch (exp.kind) {
    case 'and':
    case 'or':
      return exp.items.every(columnsOnly);
    case 'not':
      return columnsOnly(exp.item);
    case 'true':
      return true;
    case 'compare':
    case 'is_null':
      return plainColumn(exp.column);
    case 'compare_column':
      return plainColumn(exp.column) && plainColumn(exp.other);
    case 'exists_rel':
    case 'exists_fn':
      return false;
  }
}

function plainColumn(c: ColumnRef): boolean {
  return c.computed === undefined && (c.visibleIf === undefined || columnsOnly(c.visibleIf));
}
