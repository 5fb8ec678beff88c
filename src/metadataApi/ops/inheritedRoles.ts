/**
 * `add_inherited_role` / `drop_inherited_role` (Hasura v2's metadata API). Adding a role that is
 * already there replaces its role set, as Hasura's does; a role in its own role set is 400
 * invalid-params, a cycle through other inherited roles 400 cyclic-dependency, a role set naming an
 * unknown role (or permissions of the set that conflict) 400 with the reason, and nothing changes.
 * Dropping an unknown one is 400 not-exists; dropping one another inherited role needs is refused
 * (the other would become inconsistent).
 */
import { ApiError } from '../../core/index.js';
import { asObject, asString, assertInheritedRoles, decodeInheritedRole, required } from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';

export const add_inherited_role = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeInheritedRole(args, path),
  async run(ctx, role) {
    if (role.role_set.includes(role.role_name)) throw new ApiError('invalid-params', 'an inherited role name cannot be in the role combination', { path: '$' });
    const md = await ctx.work.draft();
    const others = (md.inherited_roles ?? []).filter((r) => r.role_name !== role.role_name);
    md.inherited_roles = [...others, role];
    assertInheritedRoles(md, '$');
    await ctx.work.change(md, { kind: 'inherited_role', name: role.role_name });
    return SUCCESS;
  },
});

export const drop_inherited_role = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => required(asObject(args, path), 'role_name', path, asString),
  async run(ctx, name) {
    const md = await ctx.work.draft();
    if (!(md.inherited_roles ?? []).some((r) => r.role_name === name)) {
      throw new ApiError('not-exists', `${JSON.stringify(name)} inherited role doesn't exist`, { path: '$' });
    }
    md.inherited_roles = md.inherited_roles!.filter((r) => r.role_name !== name);
    if (md.inherited_roles.length === 0) delete md.inherited_roles;
    await ctx.work.change(md);
    return SUCCESS;
  },
});
