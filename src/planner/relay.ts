/**
 * The Relay API's fields → IR: `<t>_connection` / `<rel>_connection` (ConnectionIR), `node(id:)`
 * (a by-primary-key select of the table the global id names), and `id` on table objects. Cursors
 * and ids are decoded here (base64 of JSON, as Hasura v1.3 writes them) and their values baked into
 * the plan, so a cached plan is keyed by them.
 */
import { andAll, type BoolExp } from '../ir/index.js';
import { primaryKeyColumns, vf, type NField, type NormalizedOperation, type OutputFieldMeta } from '../graphql/index.js';
import { displayName, qualifiedKey } from '../core/index.js';
import type { TableInfo } from '../metadata/index.js';
import { compileConnection, compileSelect, ROOT_COLUMN } from '../sql/index.js';
import type { PlanContext } from './context.js';
import { decodeJson, pkValue, planConnection } from './connection.js';
import type { RootFieldPlan, RootFieldPlanners } from './planOperation.js';
import { planFields, planSelect } from './select.js';

function planConnectionRoot(f: NField, meta: OutputFieldMeta, ctx: PlanContext): RootFieldPlan {
  const table = (meta as { table: TableInfo }).table;
  return { alias: f.alias, kind: 'sql_fragment', frag: compileConnection(planConnection(ctx, table, f, planFields), ROOT_COLUMN) };
}

const invalidId = (reason: string, path: string) => vf(`the node id is invalid: ${reason}`, path);

/** `node(id:)`: the row the id names, with the selection for its table's type; null when the role's filter hides it. */
function planNode(f: NField, _meta: OutputFieldMeta, ctx: PlanContext, _op: NormalizedOperation): RootFieldPlan {
  const idPath = `${f.path}.args.id`;
  const v = f.args.get('id');
  ctx.bake(v);
  const decoded = v?.kind === 'scalar' && typeof v.value === 'string' ? decodeJson(v.value) : { ok: false as const, reason: 'expected a string' };
  if (!decoded.ok) throw invalidId(decoded.reason, idPath);
  const list = decoded.value;
  if (!Array.isArray(list)) throw invalidId(`Error in $: parsing [] failed, expected Array, but encountered ${list === null ? 'Null' : typeof list === 'object' ? 'Object' : typeof list === 'string' ? 'String' : typeof list === 'number' ? 'Number' : 'Boolean'}`, idPath);
  if (list.length === 0) throw invalidId('Error in $: unexpected GUID format, found empty list', idPath);
  if (typeof list[0] !== 'number') throw invalidId('Error in $: unexpected GUID format, needs to start with a version number', idPath);
  if (list[0] !== 1) throw invalidId(`Error in $: unsupported GUID version: ${Number.isInteger(list[0]) ? `${list[0]}.0` : list[0]}`, idPath);
  const [, schema, name, ...values] = list;
  if (typeof schema !== 'string' || typeof name !== 'string' || values.length === 0) {
    throw invalidId('Error in $: GUID version 1: expecting schema name, table name and at least one column value', idPath);
  }
  const table = ctx.cache.tables.get(qualifiedKey({ schema, name }));
  const selection = table ? f.byType?.get(table.gqlName) : undefined;
  if (!table || !selection) throw invalidId(`the table ${JSON.stringify(displayName({ schema, name }))} is not found`, f.path);
  const view = ctx.view(table, f.path);
  const pk = primaryKeyColumns(table.primaryKey, table.columnsByName, view.columns);
  // Inherited roles: a key the role sees only in some rows has no global ids (relayKey, graphql/).
  if (!pk || pk.some((c) => ctx.columnCondition(table, c.name))) throw invalidId(`the table ${JSON.stringify(displayName({ schema, name }))} is not found`, f.path);
  if (values.length < pk.length) throw invalidId(`primary key columns ${pk.slice(values.length).map((c) => `"${c.name}"`).join(', ')} are missing`, f.path);
  if (values.length > pk.length) throw vf(`invalid node id: unexpected column values ${JSON.stringify(values.slice(pk.length))}`, idPath);
  const eqs: BoolExp[] = pk.map((c, i) => ({ kind: 'compare', column: { column: c.name, pgType: c.pgType }, op: '_eq', value: pkValue(c, values[i]) }));
  const ir = planSelect(ctx, table, { ...f, selection }, { extraWhere: andAll(eqs), noArgs: true });
  return { alias: f.alias, kind: 'sql_fragment', frag: compileSelect(ir, { single: true }) };
}

/** The Relay root fields' planners (`ENGINE_PARTS`' relay variant adds them to the table planners). */
export const RELAY_PLANNERS: RootFieldPlanners = {
  'ext:relay_connection': planConnectionRoot,
  'ext:relay_node': planNode,
};
