/**
 * `insert_<t>` / `insert_<t>_one` → InsertIR with the role's insert permission applied at every
 * level of nesting: presets added to each row, the check, upserts only where offered (the
 * update permission's columns, filter, presets and check), and Hasura v1.3's nested-insert
 * validation (a column may not be given when a parent or an object relationship determines it).
 */
import { andAll, type ColumnValue, type InsertIR, type InsertRowIR, type NestedInsertIR, type OnConflictIR } from '../ir/index.js';
import { insertView, inputField, inputMeta, vf, type AnnValue, type InsertView, type NField } from '../graphql/index.js';
import type { ColumnInfo, RelationshipInfo, SchemaCache, TableInfo } from '../metadata/index.js';
import { pathKey } from '../core/index.js';
import type { PlanContext } from './context.js';
import { planBoolExp } from './boolExp.js';
import { columnValue, planResponse, planSingle } from './mutationOutput.js';

const quoteCols = (cols: string[]): string => cols.map((c) => JSON.stringify(c)).join(', ');

function viewOf(ctx: PlanContext, table: TableInfo, path: string): InsertView {
  const view = insertView(ctx.cache as SchemaCache, ctx.role, table, ctx.backendOnly);
  if (!view) throw vf(`insert on table "${table.gqlName}" is not allowed`, path);
  return view;
}

/** `insert_<t>(objects, on_conflict)`. */
export function planInsert(ctx: PlanContext, table: TableInfo, field: NField): InsertIR {
  const argsPath = `${field.path}.args`;
  // The IR's shape (rows, columns, conflict clause) follows the arguments' shape (keys, nulls, list
  // lengths, enums), which is the plan-cache key (signature.ts); scalar values stay parameters.
  const objects = field.args.get('objects');
  const items = !objects || objects.kind === 'null' ? [] : objects.kind === 'list' ? objects.items : [objects];
  return planTableInsert(ctx, table, items, field.args.get('on_conflict'), [], pathKey(argsPath, 'objects'), true, argsPath, planResponse(ctx, table, field));
}

/** `insert_<t>_one(object, on_conflict)`. */
export function planInsertOne(ctx: PlanContext, table: TableInfo, field: NField): InsertIR {
  const argsPath = `${field.path}.args`;
  const object = field.args.get('object');
  if (!object || object.kind !== 'object') throw vf('expecting an object for "object"', pathKey(argsPath, 'object'));
  return planTableInsert(ctx, table, [object], field.args.get('on_conflict'), [], pathKey(argsPath, 'object'), false, argsPath, planSingle(ctx, table, field));
}

/**
 * Rows of `table` from `<t>_insert_input` values. `fromParent` are the columns an array
 * relationship's parent fills in (the client may not give them).
 */
function planTableInsert(
  ctx: PlanContext, table: TableInfo, items: AnnValue[], onConflictArg: AnnValue | undefined, fromParent: string[],
  rowsPath: string, indexed: boolean, conflictParentPath: string, output: InsertIR['output'],
): InsertIR {
  const view = viewOf(ctx, table, rowsPath);
  const rows = items.map((item, i) => planRow(ctx, view, item, fromParent, indexed ? pathKey(rowsPath, i) : rowsPath));
  const ir: InsertIR = { kind: 'insert', table: table.name, rows, check: view.check, output };
  const onConflict = planOnConflict(ctx, view, onConflictArg, rows, pathKey(conflictParentPath, 'on_conflict'));
  if (onConflict) {
    ir.onConflict = onConflict;
    if (onConflict.action === 'update' && view.upsert?.check) ir.updateCheck = view.upsert.check;
  }
  return ir;
}

function planRow(ctx: PlanContext, view: InsertView, item: AnnValue, fromParent: string[], path: string): InsertRowIR {
  if (item.kind !== 'object') throw vf('expecting an object', path);
  const columns: ColumnValue[] = [];
  const objectRelationships: NestedInsertIR[] = [];
  const arrayRelationships: NestedInsertIR[] = [];
  const relFields: Array<{ name: string; value: AnnValue; rel: RelationshipInfo; remote: TableInfo; kind: 'object' | 'array' }> = [];
  for (const [name, value] of item.fields) {
    const meta = inputMeta(inputField(item.type, name)) as unknown as
      | { kind: 'ext:mut_column'; column: ColumnInfo }
      | { kind: 'ext:ins_object_rel' | 'ext:ins_array_rel'; rel: RelationshipInfo; remote: TableInfo }
      | undefined;
    if (meta?.kind === 'ext:mut_column') columns.push({ column: meta.column.name, value: columnValue(ctx, meta.column, value) });
    else if (meta?.kind === 'ext:ins_object_rel') relFields.push({ name, value, rel: meta.rel, remote: meta.remote, kind: 'object' });
    else if (meta?.kind === 'ext:ins_array_rel') relFields.push({ name, value, rel: meta.rel, remote: meta.remote, kind: 'array' });
    else throw vf(`unexpected field ${name}`, pathKey(path, name));
  }
  const given = columns.map((c) => c.column);
  const conflicting = given.filter((c) => fromParent.includes(c));
  if (conflicting.length > 0) {
    throw vf(`cannot insert ${quoteCols(conflicting)} columns as their values are already being determined by parent insert`, path);
  }
  for (const r of relFields) {
    // A null relationship input (`articles: null`) inserts nothing.
    if (r.value.kind !== 'object') continue;
    const relPath = pathKey(path, r.name);
    const data = r.value.fields.find(([k]) => k === 'data')?.[1];
    const onConflict = r.value.fields.find(([k]) => k === 'on_conflict')?.[1];
    if (r.kind === 'object') {
      const locals = r.rel.join.mapping.map((m) => m.local);
      const determined = locals.filter((l) => given.includes(l) || fromParent.includes(l));
      if (determined.length > 0) {
        throw vf(`cannot insert object relation ship ${JSON.stringify(r.name)} as ${quoteCols(determined)} column values are already determined`, relPath);
      }
      if (!data || data.kind !== 'object') throw vf('expecting an object for "data"', pathKey(relPath, 'data'));
      const insert = planTableInsert(ctx, r.remote, [data], onConflict, [], pathKey(relPath, 'data'), false, relPath, { kind: 'response', fields: [] });
      objectRelationships.push({ name: r.name, join: r.rel.join, insert });
    } else {
      const list = !data || data.kind === 'null' ? [] : data.kind === 'list' ? data.items : [data];
      // An empty `data` list inserts nothing.
      if (list.length === 0) continue;
      const remotes = r.rel.join.mapping.map((m) => m.remote);
      const insert = planTableInsert(ctx, r.remote, list, onConflict, remotes, pathKey(relPath, 'data'), true, relPath, { kind: 'response', fields: [] });
      arrayRelationships.push({ name: r.name, join: r.rel.join, insert });
    }
  }
  for (const p of view.presets) columns.push({ column: p.column.name, value: p.value });
  return { columns, objectRelationships, arrayRelationships };
}

function planOnConflict(ctx: PlanContext, view: InsertView, arg: AnnValue | undefined, rows: InsertRowIR[], path: string): OnConflictIR | undefined {
  if (!arg || arg.kind === 'null') return undefined;
  if (arg.kind !== 'object') throw vf('expecting an object for "on_conflict"', path);
  const upsert = view.upsert;
  if (!upsert) throw vf(`upsert is not allowed for role ${JSON.stringify(ctx.role)}`, path);
  const get = (k: string) => arg.fields.find(([n]) => n === k)?.[1];
  const constraint = get('constraint');
  if (!constraint || constraint.kind !== 'enum') throw vf('"constraint" is expected, but not found', path);
  const target = { kind: 'constraint' as const, name: String(constraint.value) };
  const action = get('action');
  const updateColumnsArg = get('update_columns');
  const listed = !updateColumnsArg || updateColumnsArg.kind !== 'list' ? undefined
    : updateColumnsArg.items.flatMap((i) => (i.kind === 'enum' ? [String(i.value)] : []));
  if (action?.kind === 'enum' && action.value === 'ignore') return { action: 'nothing', target };
  let columns = listed ?? [];
  if (columns.length === 0 && action?.kind === 'enum' && action.value === 'update') {
    // Deprecated `action: update` without `update_columns`: update the upsertable columns the rows give.
    const given = new Set(rows.flatMap((r) => r.columns.map((c) => c.column)));
    columns = upsert.columns.map((c) => c.name).filter((c) => given.has(c));
  }
  if (columns.length === 0) return { action: 'nothing', target };
  const where = planBoolExp(ctx, view.table, get('where'), pathKey(path, 'where'));
  return {
    action: 'update',
    target,
    columns,
    presets: upsert.presets.map((p) => ({ column: p.column.name, value: p.value })),
    where: andAll([upsert.filter, where]),
  };
}
