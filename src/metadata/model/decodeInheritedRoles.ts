/**
 * Hasura v2's inherited roles: `{role_name, role_set}` (the metadata's `inherited_roles` list and
 * the args of `add_inherited_role`), and the checks on the whole set that Hasura makes before it
 * builds anything: a role may not be in its own role set (400 invalid-params), and inherited roles
 * may not form a cycle through each other (400 cyclic-dependency naming each cycle).
 */
import { ApiError, pathKey } from '../../core/index.js';
import type { InheritedRole, Metadata } from './metadata.js';
import { asObject, asString, asStringArray, parseError, required } from './json.js';

function roleName(v: unknown, path: string): string {
  const s = asString(v, path);
  if (s.trim() === '') throw parseError('empty string not allowed', path);
  return s;
}

/** `{role_name, role_set}`; the role set keeps its first-seen order, duplicates dropped. */
export function decodeInheritedRole(v: unknown, path: string): InheritedRole {
  const o = asObject(v, path);
  const role_name = required(o, 'role_name', path, roleName);
  const set = required(o, 'role_set', path, asStringArray);
  set.forEach((r, i) => roleName(r, pathKey(pathKey(path, 'role_set'), i)));
  return { role_name, role_set: [...new Set(set)] };
}

/** Refuses a role in its own role set, and cycles among the inherited roles of `md`. */
export function assertInheritedRoles(md: Metadata, path = '$.args'): void {
  const byName = new Map((md.inherited_roles ?? []).map((r) => [r.role_name, r]));
  for (const r of byName.values()) {
    if (r.role_set.includes(r.role_name)) throw new ApiError('invalid-params', 'an inherited role name cannot be in the role combination', { path });
  }
  const cycles: string[][] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, stack: string[]): void => {
    const r = byName.get(name);
    if (!r || state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') {
      cycles.push([...stack.slice(stack.indexOf(name)), name]);
      return;
    }
    state.set(name, 'visiting');
    for (const parent of r.role_set) visit(parent, [...stack, name]);
    state.set(name, 'done');
  };
  for (const name of byName.keys()) visit(name, []);
  if (cycles.length > 0) {
    throw new ApiError('cyclic-dependency', `found cycle(s) in roles: ${cycles.map((c) => JSON.stringify(c)).join(', ')}`, { path });
  }
}
