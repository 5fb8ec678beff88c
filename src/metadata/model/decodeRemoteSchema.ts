/**
 * Remote schemas and remote relationships in metadata: their types and decoders. The metadata
 * document keeps `remote_schemas` and `tables[].remote_relationships` as JSON lists; these functions
 * read them typed (`remoteSchemasOf`, `remoteRelationshipsOf`) and decode `/v1/query` arguments.
 * Definition rules as Hasura v1.3's `validateRemoteSchemaDef` (DECISIONS.md item 7).
 */
import { ApiError } from '../../core/index.js';
import type { UrlConf } from '../../webhooks/index.js';
import type { Metadata, TableMetadata } from './metadata.js';
import { arrayOf, asBool, asInt, asObject, asString, asStringArray, asUrlConf, isObject, optional, parseError, required } from './json.js';

export type RemoteHeaderConf = { name: string; value: string } | { name: string; value_from_env: string };

export interface RemoteSchemaDef {
  /** A URL, or Hasura's `{from_env: VAR}`. */
  url?: UrlConf;
  url_from_env?: string;
  headers?: RemoteHeaderConf[];
  forward_client_headers?: boolean;
  timeout_seconds?: number;
}

/** A role's remote schema permission (Hasura v2): the role's part of the remote as SDL, with `@preset`s. */
export interface RemoteSchemaPermissionMetadata {
  role: string;
  definition: { schema: string };
  comment?: string | null;
}

export interface RemoteSchemaMetadata {
  name: string;
  definition: RemoteSchemaDef;
  comment?: string | null;
  permissions?: RemoteSchemaPermissionMetadata[];
}

/** `{message: {arguments: {id: "$id"}, field: {...}}}`: one key per level. */
export type RemoteFieldTree = Record<string, { arguments: Record<string, unknown>; field?: RemoteFieldTree }>;

export interface RemoteRelationshipMetadata {
  name: string;
  definition: { hasura_fields: string[]; remote_schema: string; remote_field: RemoteFieldTree };
}

function decodeHeader(v: unknown, path: string): RemoteHeaderConf {
  const o = asObject(v, path);
  const name = required(o, 'name', path, asString);
  if (o.value !== undefined && o.value !== null) return { name, value: asString(o.value, `${path}.value`) };
  if (o.value_from_env !== undefined && o.value_from_env !== null) return { name, value_from_env: asString(o.value_from_env, `${path}.value_from_env`) };
  throw parseError('expecting either value or value_from_env in header', path);
}

/** A RemoteSchemaDef (`path` = where it sits); exactly one of url / url_from_env. */
export function decodeRemoteSchemaDef(v: unknown, path: string): RemoteSchemaDef {
  const o = asObject(v, path);
  const def: RemoteSchemaDef = {};
  // Hasura v2's remote schema customization (root-field namespace, type and field renames) is not
  // applied here: refused rather than stored without effect, so a schema is never served under names
  // the project did not mean.
  const custom = o.customization;
  if (custom !== undefined && custom !== null && !(typeof custom === 'object' && !Array.isArray(custom) && Object.values(custom).every((x) => x === null || x === undefined || (Array.isArray(x) && x.length === 0)))) {
    throw new ApiError('not-supported', 'remote schema customization (root_fields_namespace, type_names, field_names) is not supported: the remote schema is served under its own names; rename its types and fields in the remote server, or put it behind a GraphQL gateway that renames them', { path: `${path}.customization` });
  }
  const url = optional(o, 'url', path, asUrlConf);
  const urlFromEnv = optional(o, 'url_from_env', path, asString);
  if ((url === undefined) === (urlFromEnv === undefined)) {
    throw new ApiError('invalid-params', 'both `url` and `url_from_env` can\'t be empty/present', { path });
  }
  if (url !== undefined) def.url = url;
  if (urlFromEnv !== undefined) def.url_from_env = urlFromEnv;
  const headers = optional(o, 'headers', path, arrayOf(decodeHeader));
  if (headers) def.headers = headers;
  def.forward_client_headers = optional(o, 'forward_client_headers', path, asBool) ?? false;
  const timeout = optional(o, 'timeout_seconds', path, asInt);
  if (timeout !== undefined) {
    if (timeout <= 0) throw parseError('timeout_seconds must be a positive integer', `${path}.timeout_seconds`);
    def.timeout_seconds = timeout;
  }
  return def;
}

/** `add_remote_schema` args / one entry of metadata's `remote_schemas`. */
export function decodeRemoteSchema(v: unknown, path: string): RemoteSchemaMetadata {
  const o = asObject(v, path);
  const rs: RemoteSchemaMetadata = {
    name: required(o, 'name', path, asString),
    definition: required(o, 'definition', path, decodeRemoteSchemaDef),
  };
  const comment = optional(o, 'comment', path, asString);
  if (comment !== undefined) rs.comment = comment;
  const permissions = optional(o, 'permissions', path, arrayOf(decodeRemoteSchemaPermission));
  if (permissions && permissions.length > 0) rs.permissions = permissions;
  return rs;
}

/** One entry of a remote schema's `permissions` (and the `role` / `definition` / `comment` of add_remote_schema_permissions). */
export function decodeRemoteSchemaPermission(v: unknown, path: string): RemoteSchemaPermissionMetadata {
  const o = asObject(v, path);
  const def = required(o, 'definition', path, asObject);
  const p: RemoteSchemaPermissionMetadata = {
    role: required(o, 'role', path, asString),
    definition: { schema: required(def, 'schema', `${path}.definition`, asString) },
  };
  const comment = optional(o, 'comment', path, asString);
  if (comment !== undefined) p.comment = comment;
  return p;
}

function decodeFieldTree(v: unknown, path: string): RemoteFieldTree {
  const o = asObject(v, path);
  const keys = Object.keys(o);
  if (keys.length !== 1) throw parseError('expecting exactly one field at each level of remote_field', path);
  const p = `${path}.${keys[0]}`;
  const inner = asObject(o[keys[0]], p);
  const args = inner.arguments === undefined || inner.arguments === null ? {} : asObject(inner.arguments, `${p}.arguments`);
  const node: RemoteFieldTree[string] = { arguments: args };
  if (inner.field !== undefined && inner.field !== null) node.field = decodeFieldTree(inner.field, `${p}.field`);
  return { [keys[0]]: node };
}

/** The remote-relationship part of create/update_remote_relationship args (table decoded by the caller). */
export function decodeRemoteRelationshipDef(o: Record<string, unknown>, path: string): RemoteRelationshipMetadata {
  return {
    name: required(o, 'name', path, asString),
    definition: {
      hasura_fields: required(o, 'hasura_fields', path, asStringArray),
      remote_schema: required(o, 'remote_schema', path, asString),
      remote_field: required(o, 'remote_field', path, decodeFieldTree),
    },
  };
}

/** The typed remote schemas of `md` (entries that do not decode are skipped: they were checked when stored). */
export function remoteSchemasOf(md: Metadata): RemoteSchemaMetadata[] {
  return (md.remote_schemas ?? []).filter((r): r is RemoteSchemaMetadata => isObject(r) && typeof r.name === 'string' && isObject(r.definition));
}

/** The typed remote relationships of a table entry. */
export function remoteRelationshipsOf(t: TableMetadata): RemoteRelationshipMetadata[] {
  return (t.remote_relationships ?? []).filter((r): r is RemoteRelationshipMetadata => isObject(r) && typeof r.name === 'string' && isObject(r.definition));
}
