/**
 * The fields of `mutation_root` for one role, as Hasura v1.3 builds them per table:
 *
 *   insert_<t>(objects: [<t>_insert_input!]!, on_conflict: <t>_on_conflict): <t>_mutation_response
 *   insert_<t>_one(object: <t>_insert_input!, on_conflict: <t>_on_conflict): <t>
 *   update_<t>(where: <t>_bool_exp!, _set, _inc, _append, _prepend, _delete_key, _delete_elem, _delete_at_path): <t>_mutation_response
 *   update_<t>_by_pk(pk_columns: <t>_pk_columns_input!, _set, _inc, ...): <t>
 *   update_<t>_many(updates: [<t>_updates!]!): [<t>_mutation_response]   (Hasura v2: each update in turn)
 *   delete_<t>(where: <t>_bool_exp!): <t>_mutation_response
 *   delete_<t>_by_pk(<pk columns>): <t>
 *   <fn>(args, where, order_by, …): [<t>!]!   (a tracked function with exposed_as: "mutation", Hasura v2)
 *
 * each present when the role has the permission (and a view is insertable/updatable/deletable);
 * the `_one`/`_by_pk` forms also need select permission (they return the table's object), the
 * `_by_pk` forms a primary key; `on_conflict` appears only when upserts are possible. Custom root
 * field names apply (`update_many` too, as Hasura v2).
 */
import { GraphQLList, GraphQLNonNull, type GraphQLFieldConfigArgumentMap } from 'graphql';
import type { TurnBudget } from '../../lib/index.js';
import type { ColumnInfo, FunctionInfo, TableInfo } from '../../metadata/index.js';
import type { SchemaContext } from './context.js';
import { functionField, type FieldEntry } from './queryRoot.js';
import { boolExp } from './inputTypes.js';
import { isGraphqlName, quoted } from './names.js';
import { lazyRootEntry, tableObject } from './tableTypes.js';
import { deleteView, insertView, updateView } from './mutationView.js';
import { insertInput, mutationResponse, onConflictInput, pkColumnsInput, updateOperatorArgs, updatesInput } from './mutationTypes.js';

/** Tags on mutation root fields (and `<t>_mutation_response` fields), read by the mutation planner. */
export type MutationFieldMeta =
  | { kind: 'ext:insert'; table: TableInfo }
  | { kind: 'ext:insert_one'; table: TableInfo }
  | { kind: 'ext:update'; table: TableInfo }
  | { kind: 'ext:update_by_pk'; table: TableInfo; pkColumns: ColumnInfo[] }
  | { kind: 'ext:update_many'; table: TableInfo }
  | { kind: 'ext:delete'; table: TableInfo }
  | { kind: 'ext:delete_by_pk'; table: TableInfo; pkColumns: ColumnInfo[] }
  | { kind: 'ext:function_mutation'; table: TableInfo; fn: FunctionInfo };

export const MUTATION_KINDS: ReadonlySet<string> = new Set(['ext:insert', 'ext:insert_one', 'ext:update', 'ext:update_by_pk', 'ext:update_many', 'ext:delete', 'ext:delete_by_pk', 'ext:function_mutation']);

/** Root field names, honouring `custom_root_fields`. */
export const mutationFieldNames = (t: TableInfo) => ({
  insert: t.customRootFields.insert ?? `insert_${t.gqlName}`,
  insertOne: t.customRootFields.insert_one ?? `insert_${t.gqlName}_one`,
  update: t.customRootFields.update ?? `update_${t.gqlName}`,
  updateByPk: t.customRootFields.update_by_pk ?? `update_${t.gqlName}_by_pk`,
  updateMany: t.customRootFields.update_many ?? `update_${t.gqlName}_many`,
  delete: t.customRootFields.delete ?? `delete_${t.gqlName}`,
  deleteByPk: t.customRootFields.delete_by_pk ?? `delete_${t.gqlName}_by_pk`,
});

function primaryKey(table: TableInfo): ColumnInfo[] | null {
  if (!table.primaryKey || table.primaryKey.length === 0) return null;
  const cols = table.primaryKey.map((n) => table.columnsByName.get(n));
  return cols.every((c): c is ColumnInfo => !!c && isGraphqlName(c.gqlName)) ? cols : null;
}


/**
 * Each table's mutation root entries for a context, made once while the context reads the same cache: a
 * role's first mutation lists ~35,000 entries at 5,000 tables, each with the permission checks that decide
 * it (a quarter of a second in one turn); `prepareMutationRootFields` makes them a slice at a time first.
 */
const tableEntriesMade = new WeakMap<SchemaContext, { sc: SchemaContext['sc']; byTable: Map<TableInfo, FieldEntry[]> }>();

function tableEntriesOf(ctx: SchemaContext): Map<TableInfo, FieldEntry[]> {
  let made = tableEntriesMade.get(ctx);
  if (made === undefined || made.sc !== ctx.sc) tableEntriesMade.set(ctx, (made = { sc: ctx.sc, byTable: new Map() }));
  return made.byTable;
}

/** The mutation root fields of every table the role may change (each made on first use). */
export function mutationRootFields(ctx: SchemaContext): FieldEntry[] {
  const entries: FieldEntry[] = [];
  const made = tableEntriesOf(ctx);
  for (const table of ctx.sc.tables.values()) {
    let own = made.get(table);
    if (own === undefined) made.set(table, (own = tableMutationEntries(ctx, table)));
    for (const e of own) entries.push(e);
  }
  // Hasura v2: tracked functions with `exposed_as: "mutation"` (VOLATILE ones may only be these).
  for (const fn of ctx.sc.functions.values()) {
    const field = fn.exposedAs === 'mutation' ? functionField(ctx, fn, 'ext:function_mutation') : undefined;
    if (field) entries.push(field.entry);
  }
  return entries;
}

/** Makes every table's entries for `ctx` ahead of `mutationRootFields`, a slice per event-loop turn. */
export async function prepareMutationRootFields(ctx: SchemaContext, budget: TurnBudget): Promise<void> {
  const made = tableEntriesOf(ctx);
  for (const table of ctx.sc.tables.values()) {
    if (budget.due) await budget.next();
    if (made !== tableEntriesOf(ctx)) return; // rebound to another cache meanwhile: made when used
    if (!made.has(table)) made.set(table, tableMutationEntries(ctx, table));
  }
}

/** One table's mutation root fields for the role (none when it may not change the table). */
function tableMutationEntries(ctx: SchemaContext, table: TableInfo): FieldEntry[] {
  const entries: FieldEntry[] = [];
  if (!isGraphqlName(table.gqlName)) return entries;
  const names = mutationFieldNames(table);
  const canSelect = ctx.view(table) !== null;
  const pk = primaryKey(table);

  const ins = insertView(ctx.sc, ctx.role, table, ctx.backendOnly);
  if (ins) {
    const onConflict = (): GraphQLFieldConfigArgumentMap => (ins.upsert ? { on_conflict: { type: onConflictInput(ctx, table), description: 'on conflict condition' } } : {});
    entries.push(lazyRootEntry(names.insert, { kind: 'ext:insert', table }, `insert data into the table: ${quoted(table.name)}`, () => ({
      type: mutationResponse(ctx, table),
      args: {
        objects: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(insertInput(ctx, table)))), description: 'the rows to be inserted' },
        ...onConflict(),
      },
    })));
    if (canSelect) {
      entries.push(lazyRootEntry(names.insertOne, { kind: 'ext:insert_one', table }, `insert a single row into the table: ${quoted(table.name)}`, () => ({
        type: tableObject(ctx, table),
        args: { object: { type: new GraphQLNonNull(insertInput(ctx, table)), description: 'the row to be inserted' }, ...onConflict() },
      })));
    }
  }

  if (updateView(table, ctx.role, ctx.backendOnly)) {
    let opsMade: ReturnType<typeof updateOperatorArgs> | undefined;
    const ops = () => (opsMade ??= updateOperatorArgs(ctx, table));
    entries.push(lazyRootEntry(names.update, { kind: 'ext:update', table }, `update data of the table: ${quoted(table.name)}`, () => ({
      type: mutationResponse(ctx, table),
      args: { ...ops(), where: { type: new GraphQLNonNull(boolExp(ctx, table)), description: 'filter the rows which have to be updated' } },
    })));
    entries.push(lazyRootEntry(names.updateMany, { kind: 'ext:update_many', table }, `update multiples rows of table: ${quoted(table.name)}`, () => ({
      type: new GraphQLList(mutationResponse(ctx, table)),
      args: { updates: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(updatesInput(ctx, table, ops())))), description: 'updates to execute, in order' } },
    })));
    if (canSelect && pk) {
      entries.push(lazyRootEntry(names.updateByPk, { kind: 'ext:update_by_pk', table, pkColumns: pk }, `update single row of the table: ${quoted(table.name)}`, () => ({
        type: tableObject(ctx, table),
        args: { ...ops(), pk_columns: { type: new GraphQLNonNull(pkColumnsInput(ctx, table, pk)) } },
      })));
    }
  }

  if (deleteView(table, ctx.role, ctx.backendOnly)) {
    entries.push(lazyRootEntry(names.delete, { kind: 'ext:delete', table }, `delete data from the table: ${quoted(table.name)}`, () => ({
      type: mutationResponse(ctx, table),
      args: { where: { type: new GraphQLNonNull(boolExp(ctx, table)), description: 'filter the rows which have to be deleted' } },
    })));
    if (canSelect && pk) {
      entries.push(lazyRootEntry(names.deleteByPk, { kind: 'ext:delete_by_pk', table, pkColumns: pk }, `delete single row from the table: ${quoted(table.name)}`, () => {
        const args: GraphQLFieldConfigArgumentMap = {};
        for (const c of pk) args[c.gqlName] = { type: new GraphQLNonNull(ctx.columnType(c)), description: c.description ?? undefined };
        return { type: tableObject(ctx, table), args };
      }));
    }
  }
  return entries;
}

