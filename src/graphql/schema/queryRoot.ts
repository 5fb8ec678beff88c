/**
 * The fields of `query_root` for one role: per selectable table `<t>`, `<t>_aggregate` (when
 * aggregations are allowed) and `<t>_by_pk` (when the role sees every primary-key column); per
 * tracked function returning a selectable table `<fn>` and `<fn>_aggregate`; per native query whose
 * logical model the role may select, `<root_field_name>` (nativeQueryRoot.ts). Names honour
 * custom root fields; fields are sorted by name.
 */
import { GraphQLNonNull, GraphQLList, type GraphQLFieldConfigMap, type GraphQLFieldConfigArgumentMap } from 'graphql';
import type { ColumnInfo, FunctionInfo, TableInfo } from '../../metadata/index.js';
import type { FieldEntry, SchemaContext } from './context.js';
import type { OutputFieldMeta } from './fieldMeta.js';
import { isGraphqlName, quoted, rootFieldNames } from './names.js';
import { aggregateObject, functionArgsType, lazyRootEntry, outField, selectArgs, tableObject } from './tableTypes.js';
import { nativeQueryField } from './nativeQueryRoot.js';
import type { TurnBudget } from '../../lib/index.js';

export type { FieldEntry } from './context.js';

/**
 * Each table's query root entries for a context, made once while the context reads the same cache (5,000
 * tables are ~15,000 entries, each decided by the role's select permission): `prepareQueryRootFields` makes
 * them a slice at a time first.
 */
const tableEntriesMade = new WeakMap<SchemaContext, { sc: WeakRef<SchemaContext['sc']>; byTable: Map<TableInfo, FieldEntry[]> }>();

/** (The cache held weakly: a schema kept for a newer cache does not keep the one it was built from alive.) */
function tableEntriesOf(ctx: SchemaContext): Map<TableInfo, FieldEntry[]> {
  let made = tableEntriesMade.get(ctx);
  if (made === undefined || made.sc.deref() !== ctx.sc) tableEntriesMade.set(ctx, (made = { sc: new WeakRef(ctx.sc), byTable: new Map() }));
  return made.byTable;
}

/** Select root fields of every table and function the role can select. */
export function queryRootFields(ctx: SchemaContext): FieldEntry[] {
  const entries: FieldEntry[] = [];
  const made = tableEntriesMade.get(ctx);
  // What was made ahead is used once: the context (kept with a lazy schema) does not hold its first cache through it.
  tableEntriesMade.delete(ctx);
  const ahead = made?.sc.deref() === ctx.sc ? made.byTable : undefined;
  for (const table of ctx.sc.tables.values()) {
    for (const e of ahead?.get(table) ?? tableQueryEntries(ctx, table)) entries.push(e);
  }
  for (const fn of ctx.sc.functions.values()) if (fn.exposedAs === 'query') entries.push(...functionFields(ctx, fn));
  for (const nq of ctx.sc.nativeQueries?.values() ?? []) {
    const entry = nativeQueryField(ctx, nq);
    if (entry) entries.push(entry);
  }
  return entries;
}

/** Makes every table's entries for `ctx` ahead of `queryRootFields`, a slice per event-loop turn. */
export async function prepareQueryRootFields(ctx: SchemaContext, budget: TurnBudget): Promise<void> {
  const made = tableEntriesOf(ctx);
  for (const table of ctx.sc.tables.values()) {
    if (budget.due) await budget.next();
    if (made !== tableEntriesOf(ctx)) return; // rebound to another cache meanwhile: made when used
    if (!made.has(table)) made.set(table, tableQueryEntries(ctx, table));
  }
}

/** One table's query root fields for the role (none when it may not select the table). */
function tableQueryEntries(ctx: SchemaContext, table: TableInfo): FieldEntry[] {
  const entries: FieldEntry[] = [];
  if (!isGraphqlName(table.gqlName)) return entries;
  const view = ctx.view(table);
  if (!view) return entries;
  const names = rootFieldNames(table);
  // Each field's type and arguments made when first read (a role's schema after a change to one table lists
  // every table's fields; a query reads a few): its tag and description at once.
  entries.push(lazyRootEntry(names.select, { kind: 'select', table }, `fetch data from the table: ${quoted(table.name)}`, () => ({
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(tableObject(ctx, table)))),
    args: selectArgs(ctx, table),
  })));
  if (view.allowAggregations) {
    entries.push(lazyRootEntry(names.selectAggregate, { kind: 'select_aggregate', table }, `fetch aggregated fields from the table: ${quoted(table.name)}`, () => ({
      type: new GraphQLNonNull(aggregateObject(ctx, table)),
      args: selectArgs(ctx, table),
    })));
  }
  const pk = primaryKeyColumns(table.primaryKey, table.columnsByName, view.columns);
  if (pk) {
    entries.push(lazyRootEntry(names.selectByPk, { kind: 'select_by_pk', table, pkColumns: pk }, `fetch data from the table: ${quoted(table.name)} using primary key columns`, () => {
      const args: GraphQLFieldConfigArgumentMap = {};
      for (const c of pk) args[c.gqlName] = { type: new GraphQLNonNull(ctx.columnType(c)), description: c.description ?? undefined };
      return { type: tableObject(ctx, table), args };
    }));
  }
  return entries;
}


/** The primary-key columns when the role sees every one of them (by-pk fields, Relay ids), else null. */
export function primaryKeyColumns(
  pk: string[] | null, byName: Map<string, ColumnInfo>, visible: ColumnInfo[],
): ColumnInfo[] | null {
  if (!pk || pk.length === 0) return null;
  const cols = pk.map((n) => byName.get(n));
  if (cols.some((c) => !c || !visible.includes(c) || !isGraphqlName(c.gqlName))) return null;
  return cols as ColumnInfo[];
}

function functionFields(ctx: SchemaContext, fn: FunctionInfo): FieldEntry[] {
  const field = functionField(ctx, fn, 'function');
  if (!field) return [];
  const out: FieldEntry[] = [field.entry];
  const { table, view, args } = field;
  if (view.allowAggregations) {
    out.push([`${fn.gqlName}_aggregate`, outField(new GraphQLNonNull(aggregateObject(ctx, table)), { kind: 'function_aggregate', fn, table }, {
      description: `execute function ${quoted(fn.name)} and query aggregates on result of table type ${quoted(table.name)}`,
      args,
    })]);
  }
  return out;
}

/**
 * Whether the role may call the function (Hasura v2's function permissions): admin always; a
 * function exposed as a mutation only with a function permission for the role (it may change the
 * database, so nothing is inferred: the role's select permission on its table is not enough); a
 * query function without one only while function permissions are inferred.
 */
export function functionPermitted(ctx: SchemaContext, fn: FunctionInfo): boolean {
  if (ctx.isAdmin || fn.permissions.has(ctx.role)) return true;
  return fn.exposedAs === 'query' && ctx.sc.inferFunctionPermissions !== false;
}

/**
 * The root field of a tracked function the role may call and select from: `<fn>(args, where, order_by,
 * limit, offset, distinct_on): [<table>!]!`, tagged `function` (query root) or `ext:function_mutation`
 * (mutation root, Hasura v2's `exposed_as: "mutation"`). Undefined when the role may not call it
 * (functionPermitted) or cannot select its table.
 */
export function functionField(ctx: SchemaContext, fn: FunctionInfo, kind: 'function' | 'ext:function_mutation') {
  if (!functionPermitted(ctx, fn)) return undefined;
  const table = ctx.tableByName(fn.returnTable);
  if (!table || !isGraphqlName(fn.gqlName)) return undefined;
  const view = ctx.view(table);
  if (!view) return undefined;
  const argsType = functionArgsType(ctx, fn.gqlName, fn.inputArgs);
  const args: GraphQLFieldConfigArgumentMap = {};
  if (argsType) args.args = { type: new GraphQLNonNull(argsType), description: `input parameters for function ${quoted(fn.name)}` };
  Object.assign(args, selectArgs(ctx, table));
  const meta: OutputFieldMeta = { kind, fn, table };
  const entry: FieldEntry = [fn.gqlName, outField(new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(tableObject(ctx, table)))), meta, {
    description: fn.description ?? `execute function ${quoted(fn.name)} which returns ${quoted(table.name)}`,
    args,
  })];
  return { entry, table, view, args };
}

export const sortEntries = (entries: FieldEntry[]): GraphQLFieldConfigMap<unknown, unknown> =>
  Object.fromEntries([...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/** `sortEntries`, the map filled a slice of entries per event-loop turn (35,000 mutation root fields). */
export async function sortEntriesSliced(entries: FieldEntry[], budget: TurnBudget): Promise<GraphQLFieldConfigMap<unknown, unknown>> {
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  await budget.next();
  const out: GraphQLFieldConfigMap<unknown, unknown> = {};
  for (const [name, config] of sorted) {
    if (budget.due) await budget.next();
    // As Object.fromEntries: an own key even for `__proto__`, the last of equal names kept.
    if (name === '__proto__') Object.defineProperty(out, name, { value: config, writable: true, enumerable: true, configurable: true });
    else out[name] = config;
  }
  return out;
}
