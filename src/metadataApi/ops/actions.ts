/**
 * Custom types and actions (Hasura v1.3 `Hasura.RQL.DDL.CustomTypes`, `Hasura.RQL.DDL.Action`):
 * `set_custom_types` (replaces the whole set), `create_action`, `update_action`, `drop_action`
 * (`clear_data`, default true, deletes the action's async log rows), `create_action_permission`,
 * `drop_action_permission`. Each edits a metadata draft and adopts it through `work.change`, so a
 * definition that does not resolve is refused with its reasons and leaves metadata as it was.
 */
import { ApiError } from '../../core/index.js';
import {
  actionsOf, asBool, asObject, asString, decodeActionDefinition, decodeCustomTypes, optional, required,
} from '../../metadata/index.js';
import type { ActionMetadata, Metadata } from '../../metadata/index.js';
import { op, SUCCESS, type OpContext } from '../types.js';
import { quote } from './common.js';

function actionEntry(md: Metadata, name: string, path = '$.args.name'): ActionMetadata {
  const a = actionsOf(md).find((x) => x.name === name);
  if (!a) throw new ApiError('not-exists', `action with name ${quote(name)} does not exist`, { path });
  return a;
}

const isEmpty = (ct: object): boolean => Object.values(ct).every((v) => !Array.isArray(v) || v.length === 0);

export const set_custom_types = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeCustomTypes(args, path),
  async run(ctx, ct) {
    const md = await ctx.work.draft();
    if (isEmpty(ct)) delete md.custom_types;
    else md.custom_types = ct;
    await ctx.work.change(md, { kind: 'custom_types' });
    return SUCCESS;
  },
});

function decodeActionArgs(args: unknown, path: string): { name: string; definition: ActionMetadata['definition']; comment?: string } {
  const o = asObject(args, path);
  const name = required(o, 'name', path, asString);
  const definition = required(o, 'definition', path, decodeActionDefinition);
  const comment = optional(o, 'comment', path, asString);
  return comment === undefined ? { name, definition } : { name, definition, comment };
}

export const create_action = op({
  adminOnly: true,
  mutates: true,
  decode: decodeActionArgs,
  async run(ctx, a) {
    const md = await ctx.work.draft();
    if (actionsOf(md).some((x) => x.name === a.name)) {
      throw new ApiError('already-exists', `action with name ${quote(a.name)} already exists`, { path: '$.args.name' });
    }
    md.actions = [...actionsOf(md), a];
    await ctx.work.change(md, { kind: 'action', name: a.name });
    return SUCCESS;
  },
});

export const update_action = op({
  adminOnly: true,
  mutates: true,
  decode: decodeActionArgs,
  async run(ctx, a) {
    const md = await ctx.work.draft();
    const have = actionEntry(md, a.name);
    have.definition = a.definition;
    if (a.comment !== undefined) have.comment = a.comment;
    await ctx.work.change(md, { kind: 'action', name: a.name });
    return SUCCESS;
  },
});

/** Deletes the action's rows of the async log (when the log table exists). */
async function clearActionLog(ctx: OpContext, name: string): Promise<void> {
  const r = await ctx.client.query("SELECT to_regclass('hdb_catalog.hdb_action_log') IS NOT NULL AS present");
  if (r.rows[0].present === true) await ctx.client.query('DELETE FROM hdb_catalog.hdb_action_log WHERE action_name = $1', [name]);
}

export const drop_action = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const o = asObject(args, path);
    return { name: required(o, 'name', path, asString), clearData: optional(o, 'clear_data', path, asBool) ?? true };
  },
  async run(ctx, { name, clearData }) {
    const md = await ctx.work.draft();
    actionEntry(md, name);
    md.actions = actionsOf(md).filter((a) => a.name !== name);
    if (md.actions.length === 0) delete md.actions;
    await ctx.work.change(md);
    if (clearData) await clearActionLog(ctx, name);
    return SUCCESS;
  },
});

function decodePermArgs(args: unknown, path: string): { action: string; role: string; comment?: string } {
  const o = asObject(args, path);
  const action = required(o, 'action', path, asString);
  const role = required(o, 'role', path, asString);
  if (o.definition !== undefined && o.definition !== null) asObject(o.definition, `${path}.definition`);
  const comment = optional(o, 'comment', path, asString);
  return comment === undefined ? { action, role } : { action, role, comment };
}

export const create_action_permission = op({
  adminOnly: true,
  mutates: true,
  decode: decodePermArgs,
  async run(ctx, p) {
    const md = await ctx.work.draft();
    const a = actionEntry(md, p.action, '$.args.action');
    if ((a.permissions ?? []).some((x) => x.role === p.role)) {
      // Hasura v1.3's wording, the missing space after the role included.
      throw new ApiError('already-exists', `permission for role: ${quote(p.role)}is already defined on ${quote(p.action)}`, { path: '$.args' });
    }
    a.permissions = [...(a.permissions ?? []), p.comment === undefined ? { role: p.role } : { role: p.role, comment: p.comment }];
    await ctx.work.change(md, { kind: 'action', name: p.action });
    return SUCCESS;
  },
});

export const drop_action_permission = op({
  adminOnly: true,
  mutates: true,
  // Hasura's DropActionPermission is {action, role}; other keys are ignored, as aeson's derived parser does.
  decode: (args, path) => {
    const o = asObject(args, path);
    return { action: required(o, 'action', path, asString), role: required(o, 'role', path, asString) };
  },
  async run(ctx, p) {
    const md = await ctx.work.draft();
    const a = actionEntry(md, p.action, '$.args.action');
    if (!(a.permissions ?? []).some((x) => x.role === p.role)) {
      throw new ApiError('not-exists', `permission for role: ${quote(p.role)} is not defined on ${quote(p.action)}`, { path: '$.args' });
    }
    a.permissions = (a.permissions ?? []).filter((x) => x.role !== p.role);
    if (a.permissions.length === 0) delete a.permissions;
    await ctx.work.change(md);
    return SUCCESS;
  },
});
