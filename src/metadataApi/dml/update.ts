/**
 * The v1 `update` and `delete` operations (Hasura v1.3 `RQL/DML/Update.hs`, `Delete.hs`): the
 * role needs the update (delete) permission and, because `where` reads the table, select
 * permission too; `$set`/`$inc`/`$mul`/`$default` columns must be updatable, preset columns are
 * set by the permission; the permission filter is AND-ed into `where`, the update check applies.
 * Both answer `{affected_rows, returning?}`.
 */
import { ApiError, isNumericType, pathKey } from '../../core/index.js';
import { andAll, type DeleteIR, type IrValue, type MutationResponseField, type UpdateIR, type UpdateOp } from '../../ir/index.js';
import { runMutation } from '../../sql/index.js';
import type { JsonObject, TableInfo } from '../../metadata/index.js';
import type { OpContext } from '../types.js';
import type { DeleteArgs, UpdateArgs } from './decode.js';
import { presetValues } from './insert.js';
import {
  columnNotAllowed, jsonValue, parseWhere, permissionDenied, quote, quoteTable, requireSelect, returningFields, roleOf, tableOf,
  writableColumn, type DmlEnv, type SelectPerm,
} from './resolve.js';

const whereNeedsSelect = (kind: string) =>
  `; "${kind}" is only allowed if the role has "select" permission as "where" can't be used without "select" permission on the table`;

function response(env: DmlEnv, table: TableInfo, sel: SelectPerm, returning: string[] | undefined): MutationResponseField[] {
  const fields: MutationResponseField[] = [{ alias: 'affected_rows', kind: 'affected_rows' }];
  if (returning) fields.push({ alias: 'returning', kind: 'returning', fields: returningFields(env, table, sel, returning) });
  return fields;
}

const run = async (ctx: OpContext, ir: UpdateIR | DeleteIR): Promise<string> =>
  (await runMutation(ir, { query: (t, v) => ctx.client.queryJsonText(t, v), session: ctx.session })) ?? 'null';

/** Runs the update; answers `{affected_rows, returning?}` as JSON text. */
export async function runUpdate(ctx: OpContext, env: DmlEnv, args: UpdateArgs): Promise<string> {
  const table = tableOf(env, args.table);
  if (!table.mutability.updatable) throw new ApiError('not-supported', `view ${quoteTable(table.name)} is not updatable`, { path: env.path });
  const perm = env.session.isAdmin ? undefined : table.permissions.get(roleOf(env))?.update;
  if (!env.session.isAdmin && !perm) throw permissionDenied(env, 'update', table);
  const sel = requireSelect(env, table, whereNeedsSelect('update'));
  const presets = perm?.set ?? {};

  const set: UpdateIR['set'] = [];
  const ops = (key: string, obj: JsonObject, op: (value: IrValue) => UpdateOp) => {
    const path = `${env.path}.${key}`;
    for (const [name, value] of Object.entries(obj)) {
      if (perm && !perm.columns.has(name)) throw columnNotAllowed(env, 'update', name, path);
      const col = writableColumn(table, name, path);
      if (name in presets) throw new ApiError('not-supported', `column ${quote(name)} is not updatable for role ${quote(roleOf(env))}`, { path });
      // Arithmetic on a non-numeric column would only fail in Postgres (an opaque 500): refuse it here.
      if ((key === '$inc' || key === '$mul') && !isNumericType(col.pgType)) {
        throw new ApiError('unexpected-payload', `${quote(name)} is of type ${quote(col.pgType)}; ${key} works only on numeric columns`, { path: pathKey(path, name) });
      }
      set.push({ column: name, op: op(jsonValue(col, value)) });
    }
  };
  ops('$set', args.set, (value) => ({ kind: 'set', value }));
  ops('$inc', args.inc, (value) => ({ kind: 'inc', value }));
  ops('$mul', args.mul, (value) => ({ kind: 'mul', value }));
  ops('$default', Object.fromEntries(args.defaults.map((c) => [c, null])), () => ({ kind: 'default' }));
  if (set.length === 0) throw new ApiError('unexpected-payload', 'at least one of $set, $inc, $mul has to be present', { path: env.path });
  for (const p of presetValues(table, presets)) set.push({ column: p.column, op: { kind: 'set', value: p.value } });

  const ir: UpdateIR = {
    kind: 'update',
    table: table.name,
    where: andAll([perm?.filter, parseWhere(env, table, sel, args.where, pathKey(env.path, 'where'))]),
    set,
    output: { kind: 'response', fields: response(env, table, sel, args.returning) },
  };
  if (perm?.check) ir.check = perm.check;
  return run(ctx, ir);
}

/** Runs the delete; answers `{affected_rows, returning?}` as JSON text. */
export async function runDelete(ctx: OpContext, env: DmlEnv, args: DeleteArgs): Promise<string> {
  const table = tableOf(env, args.table);
  if (!table.mutability.deletable) throw new ApiError('not-supported', `view ${quoteTable(table.name)} is not deletable`, { path: env.path });
  const perm = env.session.isAdmin ? undefined : table.permissions.get(roleOf(env))?.delete;
  if (!env.session.isAdmin && !perm) throw permissionDenied(env, 'delete', table);
  const sel = requireSelect(env, table, whereNeedsSelect('delete'));
  const ir: DeleteIR = {
    kind: 'delete',
    table: table.name,
    where: andAll([perm?.filter, parseWhere(env, table, sel, args.where, pathKey(env.path, 'where'))]),
    output: { kind: 'response', fields: response(env, table, sel, args.returning) },
  };
  return run(ctx, ir);
}
