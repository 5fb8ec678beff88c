/**
 * Permission operations for the four kinds: `create_<kind>_permission`, `drop_<kind>_permission`,
 * and `set_permission_comment`. A new permission is validated by building the schema cache with
 * it (Hasura's buildSchemaCacheFor): a bad one is refused with its reason.
 */
import { ApiError } from '../../core/index.js';
import type { QualifiedTable } from '../../core/index.js';
import { asString, optional, permissionDecoders, required } from '../../metadata/index.js';
import type { AnyPermission, Metadata, PermType, PermissionMetadata } from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';
import { decodeWithTable, quote, quoteTable, tableEntry, trackedTableInfo } from './common.js';

type PermList = PermissionMetadata<AnyPermission>[];

function permList(md: Metadata, table: QualifiedTable, type: PermType): { list: PermList; set(next: PermList): void } {
  const entry = tableEntry(md, table);
  const key = `${type}_permissions` as const;
  const rec = entry as unknown as Record<string, PermList | undefined>;
  return {
    list: rec[key] ?? [],
    set: (next) => {
      rec[key] = next;
    },
  };
}

const permError = (type: PermType, table: QualifiedTable, role: string, what: string) =>
  new ApiError('permission-error', `'${type}' permission on ${quoteTable(table)} for role ${quote(role)} ${what}`, { path: '$.args' });

function createPermission(type: PermType) {
  return op({
    adminOnly: true,
    mutates: true,
    decode(args, path) {
      const { o, table } = decodeWithTable(args, path);
      return {
        table,
        role: required(o, 'role', path, asString),
        permission: required(o, 'permission', path, permissionDecoders[type]),
        comment: optional(o, 'comment', path, asString) ?? null,
      };
    },
    async run(ctx, args) {
      await trackedTableInfo(ctx, args.table);
      const md = await ctx.work.draft();
      const perms = permList(md, args.table, type);
      if (perms.list.some((p) => p.role === args.role)) throw permError(type, args.table, args.role, 'already exists');
      perms.set([...perms.list, { role: args.role, permission: args.permission, comment: args.comment }]);
      await ctx.work.change(md, { kind: 'permission', table: args.table, role: args.role, permType: type });
      return SUCCESS;
    },
  });
}

function dropPermission(type: PermType) {
  return op({
    adminOnly: true,
    mutates: true,
    decode(args, path) {
      const { o, table } = decodeWithTable(args, path);
      return { table, role: required(o, 'role', path, asString) };
    },
    async run(ctx, args) {
      const md = await ctx.work.draft();
      const perms = permList(md, args.table, type);
      if (!perms.list.some((p) => p.role === args.role)) throw permError(type, args.table, args.role, 'does not exist');
      perms.set(perms.list.filter((p) => p.role !== args.role));
      await ctx.work.change(md);
      return SUCCESS;
    },
  });
}

export const create_insert_permission = createPermission('insert');
export const create_select_permission = createPermission('select');
export const create_update_permission = createPermission('update');
export const create_delete_permission = createPermission('delete');
export const drop_insert_permission = dropPermission('insert');
export const drop_select_permission = dropPermission('select');
export const drop_update_permission = dropPermission('update');
export const drop_delete_permission = dropPermission('delete');

const PERM_TYPE_NAMES: readonly PermType[] = ['insert', 'select', 'update', 'delete'];

export const set_permission_comment = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    const { o, table } = decodeWithTable(args, path);
    const type = required(o, 'type', path, (v, p) => {
      const s = asString(v, p);
      if (!PERM_TYPE_NAMES.includes(s as PermType)) throw new ApiError('parse-failed', `expected one of insert, select, update, delete, but found ${quote(s)}`, { path: p });
      return s as PermType;
    });
    return { table, role: required(o, 'role', path, asString), type, comment: optional(o, 'comment', path, asString) ?? null };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const perm = permList(md, args.table, args.type).list.find((p) => p.role === args.role);
    if (!perm) throw permError(args.type, args.table, args.role, 'does not exist');
    perm.comment = args.comment;
    await ctx.work.change(md);
    return SUCCESS;
  },
});
