/**
 * `graphql_schema_introspection` (Hasura v2's metadata): `{disabled_for_roles: [role, …]}`, the
 * roles for which the schema may not be introspected (`__schema` / `__type` are not in their query
 * root). Set with `set_graphql_schema_introspection_options`, which replaces it whole; exported only
 * when some role is listed. A security setting: decoded strictly, never dropped.
 */
import type { IntrospectionOptions } from './metadata.js';
import { asObject, asStringArray, optional, parseError, rejectUnknownKeys } from './json.js';

/** Decodes `graphql_schema_introspection` / the args of `set_graphql_schema_introspection_options`. */
export function decodeIntrospectionOptions(v: unknown, path: string): IntrospectionOptions {
  const o = asObject(v, path);
  rejectUnknownKeys(o, ['disabled_for_roles'], 'introspection options', path);
  const roles = optional(o, 'disabled_for_roles', path, asStringArray) ?? [];
  if (roles.some((r) => r === '')) throw parseError('a role name cannot be empty', `${path}.disabled_for_roles`);
  return { disabled_for_roles: [...new Set(roles)] };
}

/** As exported: undefined when no role is listed. */
export function encodeIntrospectionOptions(o: IntrospectionOptions | undefined): IntrospectionOptions | undefined {
  return o && o.disabled_for_roles.length > 0 ? { disabled_for_roles: [...o.disabled_for_roles] } : undefined;
}
