/**
 * Remote schema permissions (Hasura v2): `add_remote_schema_permissions` (the role's SDL checked
 * against the remote's introspection: validation-failed with Hasura's "validation for the given
 * role-based schema failed ..." message; refused unless `--enable-remote-schema-permissions`) and
 * `drop_remote_schema_permissions`. The permission is stored in the remote schema's `permissions`.
 */
import { ApiError } from '../../core/index.js';
import {
  asObject, asString, BuildError, decodeRemoteSchemaPermission, isObject, remoteSchemasOf, required, resolveRemotePermission,
} from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';
import { quote } from './common.js';

const exists = (name: string, role: string) => `permissions for role: ${quote(role)} for remote schema:${quote(name)}`;

function decodeTarget(args: unknown, path: string) {
  const o = asObject(args, path);
  return { remote_schema: required(o, 'remote_schema', path, asString), role: required(o, 'role', path, asString) };
}

export const add_remote_schema_permissions = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => ({ ...decodeTarget(args, path), permission: decodeRemoteSchemaPermission(args, path) }),
  async run(ctx, args) {
    if (!ctx.engine.config.enableRemoteSchemaPermissions) {
      throw new ApiError('constraint-violation', 'remote schema permissions can only be added when remote schema permissions are enabled in the graphql-engine', { path: '$.args' });
    }
    const md = await ctx.work.draft();
    const entry = (md.remote_schemas ?? []).find((r) => isObject(r) && r.name === args.remote_schema) as Record<string, unknown> | undefined;
    if (!entry) throw new ApiError('not-exists', `remote schema ${quote(args.remote_schema)} doesn't exist`, { path: '$.args' });
    const listed = remoteSchemasOf(md).find((r) => r.name === args.remote_schema)?.permissions ?? [];
    if (listed.some((p) => p.role === args.role)) throw new ApiError('already-exists', `${exists(args.remote_schema, args.role)} already exists`, { path: '$.args' });
    const info = (await ctx.work.cache()).remoteSchemas?.get(args.remote_schema);
    if (!info) throw new ApiError('unexpected', `remote schema ${quote(args.remote_schema)} is inconsistent`, { path: '$.args' });
    try {
      resolveRemotePermission(info, args.permission.definition.schema);
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      throw new ApiError('validation-failed', e.message, { path: '$.args' });
    }
    entry.permissions = [...(Array.isArray(entry.permissions) ? entry.permissions : []), args.permission];
    await ctx.work.change(md, { kind: 'remote_schema_permission', name: args.remote_schema, role: args.role });
    return SUCCESS;
  },
});

export const drop_remote_schema_permissions = op({
  adminOnly: true,
  mutates: true,
  decode: decodeTarget,
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const entry = (md.remote_schemas ?? []).find((r) => isObject(r) && r.name === args.remote_schema) as Record<string, unknown> | undefined;
    if (!entry) throw new ApiError('not-exists', `remote schema ${quote(args.remote_schema)} doesn't exist`, { path: '$.args' });
    const list = Array.isArray(entry.permissions) ? entry.permissions : [];
    if (!list.some((p) => isObject(p) && p.role === args.role)) throw new ApiError('not-exists', `${exists(args.remote_schema, args.role)} does not exist`, { path: '$.args' });
    const kept = list.filter((p) => !(isObject(p) && p.role === args.role));
    if (kept.length > 0) entry.permissions = kept;
    else delete entry.permissions;
    ctx.work.adopt(md, await ctx.work.buildFor(md));
    return SUCCESS;
  },
});
