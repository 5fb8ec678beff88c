/**
 * The v1 `insert` operation (Hasura v1.3 `RQL/DML/Insert.hs`): objects checked column by column
 * against the role's insert permission (presets added, preset columns refused), the insert check,
 * and `on_conflict` (`constraint` or `constraint_on`, `action` ignore/update; an update needs the
 * role's update permission, updates every inserted column, and is filtered and checked by it).
 * Answers `{affected_rows, returning?}`.
 */
import { ApiError, pathKey } from '../../core/index.js';
import { TRUE, type ColumnValue, type ConflictTarget, type InsertIR, type MutationResponseField, type OnConflictIR } from '../../ir/index.js';
import { runMutation } from '../../sql/index.js';
import { isObject, jsonTypeName, type InsertPermInfo, type TableInfo } from '../../metadata/index.js';
import { columnCastType } from '../../graphql/index.js';
import type { OpContext } from '../types.js';
import type { InsertArgs, OnConflictArgs } from './decode.js';
import {
  jsonValue, permissionDenied, quote, quoteTable, requireSelect, returningFields, roleOf, tableOf, writableColumn, type DmlEnv,
} from './resolve.js';

const unexpected = (message: string, path: string) => new ApiError('unexpected-payload', message, { path });

interface InsertPerm {
  columns: Set<string>;
  presets: ColumnValue[];
  check: InsertIR['check'];
}

/** Permission presets (`set`) as column values cast to their columns' types. */
export function presetValues(table: TableInfo, set: InsertPermInfo['set']): ColumnValue[] {
  return Object.entries(set).flatMap(([name, v]): ColumnValue[] => {
    const col = table.columnsByName.get(name);
    if (!col) return [];
    const pgType = columnCastType(col);
    return [{ column: name, value: v.kind === 'session' ? { source: { kind: 'session', name: v.name }, pgType } : { source: { kind: 'value', value: v.value }, pgType } }];
  });
}

function insertPermOf(env: DmlEnv, table: TableInfo): InsertPerm {
  if (!table.mutability.insertable) throw new ApiError('not-supported', `view ${quoteTable(table.name)} is not insertable`, { path: env.path });
  if (env.session.isAdmin) return { columns: new Set(table.columns.map((c) => c.name)), presets: [], check: TRUE };
  const p = table.permissions.get(roleOf(env))?.insert;
  if (!p) throw permissionDenied(env, 'insert', table);
  return { columns: p.columns, presets: presetValues(table, p.set), check: p.check };
}

function planRows(env: DmlEnv, table: TableInfo, perm: InsertPerm, objects: unknown): ColumnValue[][] {
  const path = `${env.path}.objects`;
  if (!Array.isArray(objects)) throw new ApiError('parse-failed', `expected Array, encountered ${jsonTypeName(objects)}`, { path });
  if (objects.length === 0) throw unexpected('objects should not be empty', path);
  const presetNames = new Set(perm.presets.map((p) => p.column));
  return objects.map((obj, i) => {
    const rowPath = pathKey(path, i);
    if (!isObject(obj)) throw new ApiError('parse-failed', `expected Object, encountered ${jsonTypeName(obj)}`, { path: rowPath });
    const row = Object.entries(obj).map(([name, value]): ColumnValue => {
      const col = writableColumn(table, name, rowPath);
      if (presetNames.has(name)) {
        throw new ApiError('not-supported', `column ${quote(name)} is not insertable for role ${quote(roleOf(env))}`, { path: rowPath });
      }
      if (!perm.columns.has(name)) {
        throw new ApiError('permission-denied', `role ${quote(roleOf(env))} does not have permission to insert column ${quote(name)}`, { path: rowPath });
      }
      return { column: name, value: jsonValue(col, value) };
    });
    return [...row, ...perm.presets];
  });
}

function planConflict(env: DmlEnv, table: TableInfo, oc: OnConflictArgs, inputColumns: string[]): { clause: OnConflictIR; updateCheck?: InsertIR['check'] } {
  const path = `${env.path}.on_conflict`;
  const update = env.session.isAdmin ? undefined : table.permissions.get(roleOf(env))?.update;
  if (!env.session.isAdmin && !update) throw unexpected(`upsert is not allowed for role ${quote(roleOf(env))}`, path);
  if (oc.constraint !== undefined && oc.constraintOn !== undefined) throw unexpected('constraint and constraint_on cannot be set at a time', path);
  let target: ConflictTarget | undefined;
  if (oc.constraintOn !== undefined) {
    oc.constraintOn.forEach((c, i) => writableColumn(table, c, pathKey(pathKey(path, 'constraint_on'), i)));
    target = { kind: 'columns', columns: oc.constraintOn };
  } else if (oc.constraint !== undefined) {
    const names = new Set([table.primaryKeyConstraint, ...table.uniqueConstraints.map((u) => u.name)]);
    if (!names.has(oc.constraint)) {
      throw new ApiError('unexpected', `constraint ${quote(oc.constraint)} for table ${quoteTable(table.name)} does not exist`, { path: pathKey(path, 'constraint') });
    }
    target = { kind: 'constraint', name: oc.constraint };
  }
  if (oc.action === 'ignore') return { clause: target ? { action: 'nothing', target } : { action: 'nothing' } };
  if (!target) throw unexpected('expecting constraint or constraint_on when the action is update', path);
  if (update) {
    for (const c of inputColumns) {
      if (!update.columns.has(c)) throw new ApiError('validation-failed', `column ${quote(c)} is not updatable`, { path });
    }
  }
  const clause: OnConflictIR = {
    action: 'update',
    target,
    columns: inputColumns,
    presets: update ? presetValues(table, update.set) : [],
    where: update?.filter ?? TRUE,
  };
  return update?.check ? { clause, updateCheck: update.check } : { clause };
}

/** Runs the insert; answers `{affected_rows, returning?}` as JSON text. */
export async function runInsert(ctx: OpContext, env: DmlEnv, args: InsertArgs): Promise<string> {
  const table = tableOf(env, args.table);
  const perm = insertPermOf(env, table);
  const fields: MutationResponseField[] = [{ alias: 'affected_rows', kind: 'affected_rows' }];
  if (args.returning) {
    const sel = requireSelect(env, table, '; "returning" can only be used if the role has "select" permission on the table');
    fields.push({ alias: 'returning', kind: 'returning', fields: returningFields(env, table, sel, args.returning) });
  }
  const rows = planRows(env, table, perm, args.objects);
  const ir: InsertIR = {
    kind: 'insert',
    table: table.name,
    rows: rows.map((columns) => ({ columns, objectRelationships: [], arrayRelationships: [] })),
    check: perm.check,
    output: { kind: 'response', fields },
  };
  if (args.onConflict) {
    const presetNames = new Set(perm.presets.map((p) => p.column));
    const inputColumns = [...new Set(rows.flatMap((r) => r.map((c) => c.column)))].filter((c) => !presetNames.has(c));
    const { clause, updateCheck } = planConflict(env, table, args.onConflict, inputColumns);
    ir.onConflict = clause;
    if (updateCheck) ir.updateCheck = updateCheck;
  }
  return (await runMutation(ir, { query: (t, v) => ctx.client.queryJsonText(t, v), session: ctx.session })) ?? 'null';
}
