/**
 * Remote schemas and remote relationships in metadata: their types and decoders. The metadata
 * document keeps `remote_schemas` and `tables[].remote_relationships` as JSON lists; these functions
 * read them typed (`remoteSchemasOf`, `remoteRelationshipsOf`) and decode `/v1/query` arguments.
 * Definition rules as Hasura v1.3's `validateRemoteSchemaDef` (DECISIONS.md item 7).
 */
import { ApiError, parseQualifiedName, type QualifiedTable } from '../../core/index.js';
import type { UrlConf } from '../../webhooks/index.js';
import type { Metadata, TableMetadata } from './metadata.js';
import { arrayOf, asBool, asInt, asObject, asString, asStringArray, asUrlConf, cloneJson, isObject, optional, parseError, required } from './json.js';

export type RemoteHeaderConf = { name: string; value: string } | { name: string; value_from_env: string };

export interface RemoteSchemaDef {
  /** A URL, or Hasura's `{from_env: VAR}`. */
  url?: UrlConf;
  url_from_env?: string;
  headers?: RemoteHeaderConf[];
  forward_client_headers?: boolean;
  timeout_seconds?: number;
  /** Hasura v2's renaming of the remote's root fields, types and fields in the engine's schema. */
  customization?: RemoteSchemaCustomization;
}

/** `type_names` of a remote schema customization. */
export interface RemoteTypeCustomization {
  prefix?: string;
  suffix?: string;
  /** The remote's type name → the name in the engine's schema (over prefix and suffix). */
  mapping?: Record<string, string>;
}

/** One entry of `field_names`: the fields of the remote's type `parent_type`. */
export interface RemoteFieldCustomization {
  parent_type: string;
  prefix?: string;
  suffix?: string;
  mapping?: Record<string, string>;
}

/** `definition.customization` of a remote schema (Hasura v2). */
export interface RemoteSchemaCustomization {
  /** The root fields of each operation type become fields of one field of this name. */
  root_fields_namespace?: string;
  type_names?: RemoteTypeCustomization;
  field_names?: RemoteFieldCustomization[];
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
  /** Hasura v2's relationships from the remote's object types (by the remote's own type names). */
  remote_relationships?: RemoteSchemaTypeRelationships[];
}

/** The relationships of one object type of a remote schema, as Hasura v2's metadata lists them. */
export interface RemoteSchemaTypeRelationships {
  type_name: string;
  relationships: RemoteRelationshipMetadata[];
}

/** `{message: {arguments: {id: "$id"}, field: {...}}}`: one key per level. */
export type RemoteFieldTree = Record<string, { arguments: Record<string, unknown>; field?: RemoteFieldTree }>;

/** A relationship to a remote schema in Hasura v1.3's shape (also Hasura v2's older `definition`). */
export interface ToRemoteSchemaDef {
  hasura_fields: string[];
  remote_schema: string;
  remote_field: RemoteFieldTree;
}

/** Hasura v2's relationship to a table of a source (a database): the rows whose `field_mapping` columns match. */
export interface ToSourceDef {
  source: string;
  table: QualifiedTable;
  relationship_type: 'object' | 'array';
  /** Column of this table → column of the target table. */
  field_mapping: Record<string, string>;
}

/**
 * As stored (and exported) the way it was given: v1.3's / v2's older shape, v2's
 * `{to_remote_schema: {lhs_fields, remote_schema, remote_field}}` or `{to_source: {...}}`.
 */
export type RemoteRelationshipDefinition =
  | ToRemoteSchemaDef
  | { to_remote_schema: { lhs_fields: string[]; remote_schema: string; remote_field: RemoteFieldTree } }
  | { to_source: ToSourceDef };

export interface RemoteRelationshipMetadata {
  name: string;
  definition: RemoteRelationshipDefinition;
}

/** The remote-schema part of a relationship (either shape), or undefined for a relationship to a source. */
export function toRemoteSchema(rel: RemoteRelationshipMetadata): ToRemoteSchemaDef | undefined {
  const d = rel.definition as Record<string, unknown>;
  if (isObject(d.to_source)) return undefined;
  if (isObject(d.to_remote_schema)) {
    const r = d.to_remote_schema as { lhs_fields: string[]; remote_schema: string; remote_field: RemoteFieldTree };
    return { hasura_fields: r.lhs_fields, remote_schema: r.remote_schema, remote_field: r.remote_field };
  }
  return rel.definition as ToRemoteSchemaDef;
}

/** The target of a relationship to a source's table, or undefined for one to a remote schema. */
export function toSource(rel: RemoteRelationshipMetadata): ToSourceDef | undefined {
  const d = rel.definition as { to_source?: unknown };
  if (!isObject(d.to_source)) return undefined;
  // Stored as given (a table may be a bare name), checked when stored: read in the engine's shape.
  const t = d.to_source as unknown as ToSourceDef;
  return { ...t, table: parseQualifiedName(t.table, '$') };
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
  const customization = optional(o, 'customization', path, decodeCustomization);
  if (customization) def.customization = customization;
  const timeout = optional(o, 'timeout_seconds', path, asInt);
  if (timeout !== undefined) {
    if (timeout <= 0) throw parseError('timeout_seconds must be a positive integer', `${path}.timeout_seconds`);
    def.timeout_seconds = timeout;
  }
  return def;
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

function asName(v: unknown, path: string): string {
  const s = asString(v, path);
  if (!GRAPHQL_NAME.test(s)) throw parseError(`${JSON.stringify(s)} is not a valid GraphQL name`, path);
  return s;
}

function asNameMapping(v: unknown, path: string): Record<string, string> {
  const o = asObject(v, path);
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(o)) {
    if (!GRAPHQL_NAME.test(k)) throw parseError(`${JSON.stringify(k)} is not a valid GraphQL name`, `${path}.${k}`);
    out[k] = asName(x, `${path}.${k}`);
  }
  return out;
}

function decodePrefixSuffix<T extends { prefix?: string; suffix?: string; mapping?: Record<string, string> }>(o: Record<string, unknown>, out: T, path: string): T {
  const prefix = optional(o, 'prefix', path, asName);
  if (prefix !== undefined) out.prefix = prefix;
  const suffix = optional(o, 'suffix', path, asName);
  if (suffix !== undefined) out.suffix = suffix;
  const mapping = optional(o, 'mapping', path, asNameMapping);
  if (mapping && Object.keys(mapping).length > 0) out.mapping = mapping;
  return out;
}

function decodeFieldCustomization(v: unknown, path: string): RemoteFieldCustomization {
  const o = asObject(v, path);
  const out = decodePrefixSuffix(o, { parent_type: required(o, 'parent_type', path, asName) } as RemoteFieldCustomization, path);
  for (const k of Object.keys(out.mapping ?? {})) {
    // Hasura's validateRemoteSchemaCustomization
    if (k.startsWith('__')) throw new ApiError('invalid-params', `attempt to customize reserved field name ${JSON.stringify(k)}`, { path: `${path}.mapping` });
  }
  return out;
}

/** `definition.customization` (Hasura v2); an empty one (no key set) is no customization. */
function decodeCustomization(v: unknown, path: string): RemoteSchemaCustomization | undefined {
  const o = asObject(v, path);
  const out: RemoteSchemaCustomization = {};
  const ns = optional(o, 'root_fields_namespace', path, asName);
  if (ns !== undefined) out.root_fields_namespace = ns;
  const types = optional(o, 'type_names', path, (x, p) => decodePrefixSuffix(asObject(x, p), {} as RemoteTypeCustomization, p));
  if (types && Object.keys(types).length > 0) out.type_names = types;
  const fields = optional(o, 'field_names', path, arrayOf(decodeFieldCustomization));
  if (fields && fields.length > 0) out.field_names = fields;
  return Object.keys(out).length > 0 ? out : undefined;
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
  const rels = optional(o, 'remote_relationships', path, arrayOf(decodeTypeRelationships));
  if (rels && rels.length > 0) rs.remote_relationships = rels;
  return rs;
}

/**
 * A relationship from a remote schema's type, in Hasura v2's `definition` shapes: `to_source` (a
 * table of any source; `field_mapping` from the type's fields to the table's columns) or
 * `to_remote_schema` (`lhs_fields` of the type). Kept as given, once checked.
 */
export function decodeTypeRelationship(v: unknown, path: string): RemoteRelationshipMetadata {
  const o = asObject(v, path);
  const name = required(o, 'name', path, asString);
  const d = required(o, 'definition', path, asObject);
  if ((d.to_source === undefined || d.to_source === null) === (d.to_remote_schema === undefined || d.to_remote_schema === null)) {
    throw parseError('expecting exactly one of to_source and to_remote_schema', `${path}.definition`);
  }
  return { name, definition: decodeRemoteRelationshipDefinition(d, `${path}.definition`) };
}

function decodeTypeRelationships(v: unknown, path: string): RemoteSchemaTypeRelationships {
  const o = asObject(v, path);
  return { type_name: required(o, 'type_name', path, asString), relationships: required(o, 'relationships', path, arrayOf(decodeTypeRelationship)) };
}

/** The relationships of a remote schema's types, one entry per relationship (empty when it has none). */
export function remoteSchemaRelationshipsOf(rs: RemoteSchemaMetadata): Array<{ typeName: string; rel: unknown }> {
  // A document's entries are kept as given (replace_metadata): each is decoded where it is resolved.
  const list: unknown[] = Array.isArray(rs.remote_relationships) ? rs.remote_relationships : [];
  return list.flatMap((t) => (isObject(t) && Array.isArray(t.relationships) ? t.relationships.map((rel: unknown) => ({ typeName: String(t.type_name), rel })) : []));
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

function decodeToRemoteSchema(o: Record<string, unknown>, path: string, lhs: 'hasura_fields' | 'lhs_fields'): ToRemoteSchemaDef {
  return {
    hasura_fields: required(o, lhs, path, asStringArray),
    remote_schema: required(o, 'remote_schema', path, asString),
    remote_field: required(o, 'remote_field', path, decodeFieldTree),
  };
}

function decodeToSource(v: unknown, path: string): ToSourceDef {
  const o = asObject(v, path);
  const type = required(o, 'relationship_type', path, asString);
  if (type !== 'object' && type !== 'array') throw parseError(`expecting "object" or "array" for relationship_type, found ${JSON.stringify(type)}`, `${path}.relationship_type`);
  const mapping = required(o, 'field_mapping', path, asObject);
  const field_mapping: Record<string, string> = {};
  for (const [k, c] of Object.entries(mapping)) field_mapping[k] = asString(c, `${path}.field_mapping.${k}`);
  if (Object.keys(field_mapping).length === 0) throw parseError('field_mapping cannot be empty', `${path}.field_mapping`);
  return { source: required(o, 'source', path, asString), table: required(o, 'table', path, parseQualifiedName), relationship_type: type, field_mapping };
}

/** A stored relationship's `definition` in any of its shapes (`path` = where it sits). */
export function decodeRemoteRelationshipDefinition(v: unknown, path: string): RemoteRelationshipDefinition {
  const d = asObject(v, path);
  if (d.to_source !== undefined && d.to_source !== null) {
    if (d.to_remote_schema !== undefined && d.to_remote_schema !== null) throw parseError('expecting exactly one of to_source and to_remote_schema', path);
    // Kept as given (Hasura stores the target table as written), once checked.
    decodeToSource(d.to_source, `${path}.to_source`);
    return { to_source: cloneJson(d.to_source) as unknown as ToSourceDef };
  }
  if (d.to_remote_schema !== undefined && d.to_remote_schema !== null) {
    const r = decodeToRemoteSchema(asObject(d.to_remote_schema, `${path}.to_remote_schema`), `${path}.to_remote_schema`, 'lhs_fields');
    return { to_remote_schema: { lhs_fields: r.hasura_fields, remote_schema: r.remote_schema, remote_field: r.remote_field } };
  }
  return decodeToRemoteSchema(d, path, 'hasura_fields');
}

/**
 * The remote-relationship part of create/update_remote_relationship args (table decoded by the caller):
 * Hasura v1.3's fields beside `name`, or Hasura v2's `definition` in any of its shapes.
 */
export function decodeRemoteRelationshipDef(o: Record<string, unknown>, path: string): RemoteRelationshipMetadata {
  const name = required(o, 'name', path, asString);
  if (o.definition !== undefined && o.definition !== null) return { name, definition: decodeRemoteRelationshipDefinition(o.definition, `${path}.definition`) };
  return { name, definition: decodeToRemoteSchema(o, path, 'hasura_fields') };
}

/** The typed remote schemas of `md` (entries that do not decode are skipped: they were checked when stored). */
export function remoteSchemasOf(md: Metadata): RemoteSchemaMetadata[] {
  return (md.remote_schemas ?? []).filter((r): r is RemoteSchemaMetadata => isObject(r) && typeof r.name === 'string' && isObject(r.definition));
}

/**
 * A table's `remote_relationships` as given in a metadata document: kept as written (so an export
 * gives them back), each relationship to a source checked (`to_source`).
 */
export function checkedRemoteRelationships(v: unknown, path: string): unknown[] {
  const list = arrayOf((x) => x)(v, path);
  list.forEach((r, i) => {
    if (isObject(r) && isObject(r.definition) && r.definition.to_source !== undefined) {
      required(r, 'name', `${path}[${i}]`, asString);
      decodeRemoteRelationshipDefinition(r.definition, `${path}[${i}].definition`);
    }
  });
  return cloneJson(list);
}

/** The typed remote relationships of a table entry. */
export function remoteRelationshipsOf(t: TableMetadata): RemoteRelationshipMetadata[] {
  return (t.remote_relationships ?? []).filter((r): r is RemoteRelationshipMetadata => isObject(r) && typeof r.name === 'string' && isObject(r.definition));
}
