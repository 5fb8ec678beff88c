/**
 * Relay connections → ConnectionIR: `first`/`last`, the `after`/`before` cursors (base64 of the JSON
 * object Hasura v1.3 writes, `{"<order column>" : ..., "<pk>" : ...}`; decoded here, their values
 * baked into the plan), `where` with the permission filter, `order_by` with the primary key as
 * tie-break, and the connection's selection (`edges { cursor node }`, `pageInfo`).
 */
import { andAll, type BoolExp, type ConnectionField, type ConnectionIR, type EdgeField, type IrValue, type OrderByItem, type PageInfoField, type SelectField } from '../ir/index.js';
import { outputMeta, primaryKeyColumns, vf, type AnnValue, type NField } from '../graphql/index.js';
import { displayName } from '../core/index.js';
import type { ColumnInfo, TableInfo } from '../metadata/index.js';
import { planBoolExp } from './boolExp.js';
import { columnValueType, type PlanContext } from './context.js';
import { planOrderBy } from './orderBy.js';
import { checkLimitValue } from './rowCount.js';

/** Plans the fields of a node (select.ts' `planFields`, passed in: it plans connections too). */
export type NodeFieldsPlanner = (ctx: PlanContext, table: TableInfo, selection: NField[]) => SelectField[];

/** base64 → JSON, or the reason it is not. */
export function decodeJson(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  const raw = Buffer.from(text, 'base64').toString('utf8');
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false, reason: `Error in $: Failed reading: not a valid json value at '${raw.replace(/[\r\n]+$/, '')}'` };
  }
}

const scalarText = (v: unknown): unknown => (v === null || typeof v !== 'object' ? (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v) : JSON.stringify(v));

export function pkValue(c: ColumnInfo, v: unknown): IrValue {
  return { source: { kind: 'value', value: scalarText(v) }, pgType: columnValueType(c) };
}

function intArg(ctx: PlanContext, v: AnnValue | undefined, path: string): number | undefined {
  if (!v || v.kind === 'null') return undefined;
  ctx.bake(v);
  return checkLimitValue(v.kind === 'scalar' ? v.value : undefined, path);
}

/** The primary-key values a cursor names (`{"<order column>": ..., "<pk column>": ...}`). */
function cursorValues(ctx: PlanContext, v: AnnValue | undefined, pk: ColumnInfo[], path: string): IrValue[] | undefined {
  if (!v || v.kind === 'null') return undefined;
  ctx.bake(v);
  const decoded = v.kind === 'scalar' && typeof v.value === 'string' ? decodeJson(v.value) : { ok: false as const, reason: 'expected a string' };
  if (!decoded.ok) throw vf(`the cursor is invalid: ${decoded.reason}`, path);
  const obj = decoded.value;
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw vf('the cursor is invalid: expected a JSON object', path);
  const missing = pk.filter((c) => !Object.hasOwn(obj, c.name)).map((c) => `"${c.name}"`);
  if (missing.length) throw vf(`the cursor is invalid: primary key columns ${missing.join(', ')} are missing`, path);
  return pk.map((c) => pkValue(c, (obj as Record<string, unknown>)[c.name]));
}

const isColumnItem = (i: OrderByItem): i is OrderByItem & { target: { kind: 'column'; column: string } } => i.target.kind === 'column';

/** A connection over `table` (root or through an array relationship: `extraWhere` is then empty, the join correlates). */
export function planConnection(ctx: PlanContext, table: TableInfo, field: NField, planFields: NodeFieldsPlanner, extraWhere?: BoolExp): ConnectionIR {
  const view = ctx.view(table, field.path);
  const pk = primaryKeyColumns(table.primaryKey, table.columnsByName, view.columns);
  if (!pk) throw vf(`table ${displayName(table.name)} has no primary key the role can select`, field.path);
  const args = field.args;
  const argsPath = `${field.path}.args`;
  const first = intArg(ctx, args.get('first'), `${argsPath}.first`);
  const last = intArg(ctx, args.get('last'), `${argsPath}.last`);
  if (first !== undefined && last !== undefined) throw vf('"first" and "last" are not allowed at once', field.path);
  const after = cursorValues(ctx, args.get('after'), pk, `${argsPath}.after`);
  const before = cursorValues(ctx, args.get('before'), pk, `${argsPath}.before`);
  if (after && before) throw vf('"after" and "before" are not allowed at once', field.path);
  const orderBy = planOrderBy(ctx, table, args.get('order_by'), `${argsPath}.order_by`) ?? [];
  const ordered = new Set(orderBy.filter(isColumnItem).map((i) => i.target.column));
  const tieBreak = pk.filter((c) => !ordered.has(c.name)).map((c): OrderByItem => ({ target: { kind: 'column', column: c.name }, direction: 'asc' }));
  const where = andAll([planBoolExp(ctx, table, args.get('where'), `${argsPath}.where`), view.filter, extraWhere]);
  const cursorColumns = [...new Set([...orderBy.filter(isColumnItem).map((i) => i.target.column), ...pk.map((c) => c.name)])];
  const ir: ConnectionIR = {
    select: { table: table.name, fields: [], where, orderBy: [...orderBy, ...tieBreak] },
    pk: pk.map((c) => ({ column: c.name, pgType: c.pgType })),
    cursorColumns,
    fields: connectionFields(ctx, table, field.selection ?? [], planFields),
  };
  for (const c of cursorColumns) {
    const visibleIf = ctx.columnCondition(table, c);
    if (visibleIf) (ir.cursorVisibleIf ??= {})[c] = visibleIf;
  }
  const cap = view.limit;
  if (last !== undefined) ir.last = cap === null ? last : Math.min(last, cap);
  else if (first !== undefined || cap !== null) ir.first = cap === null ? first : Math.min(first ?? cap, cap);
  if (after) ir.after = after;
  if (before) ir.before = before;
  return ir;
}

function connectionFields(ctx: PlanContext, table: TableInfo, selection: NField[], planFields: NodeFieldsPlanner): ConnectionField[] {
  return selection.map((f): ConnectionField => {
    if (f.name === '__typename') return { alias: f.alias, kind: 'typename', name: f.parentType.name };
    const kind = outputMeta(f.def)?.kind;
    if (kind === 'ext:relay_edges') {
      return {
        alias: f.alias,
        kind: 'edges',
        fields: (f.selection ?? []).map((e): EdgeField => {
          if (e.name === '__typename') return { alias: e.alias, kind: 'typename', name: e.parentType.name };
          if (outputMeta(e.def)?.kind === 'ext:relay_cursor') return { alias: e.alias, kind: 'cursor' };
          const fields = planFields(ctx, table, e.selection ?? []);
          const computed = fields.find((x) => x.kind === 'computed_scalar' || x.kind === 'computed_table');
          if (computed) throw vf(`computed fields are not supported on the nodes of a connection: ${JSON.stringify(computed.alias)}`, e.path);
          return { alias: e.alias, kind: 'node', fields };
        }),
      };
    }
    if (kind === 'ext:relay_page_info') {
      return {
        alias: f.alias,
        kind: 'page_info',
        fields: (f.selection ?? []).map((i): PageInfoField => {
          if (i.name === '__typename') return { alias: i.alias, kind: 'typename', name: i.parentType.name };
          return { alias: i.alias, kind: (outputMeta(i.def) as unknown as { field: PageInfoField['kind'] & string }).field as Exclude<PageInfoField['kind'], 'typename'> };
        }),
      };
    }
    throw vf(`unexpected field ${f.name}`, f.path);
  });
}

