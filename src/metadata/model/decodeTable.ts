/**
 * Decoders for a tracked table's metadata entry (`tables[i]` of the metadata document): its
 * configuration (custom root fields, custom column names), relationships, computed fields,
 * permissions. Unknown keys are refused, as Hasura v1.3 does for TableMetadata.
 */
import { parseQualifiedName, pathKey } from '../../core/index.js';
import type {
  ComputedFieldMetadata,
  CustomRootFields,
  FunctionMetadata,
  FunctionPermissionMetadata,
  TableConfiguration,
  TableMetadata,
} from './metadata.js';
import { arrayOf, asBool, asObject, asString, optional, parseError, rejectUnknownKeys, required } from './json.js';
import { decodeRelationship } from './decodeRelationship.js';
import { decodePermissionDef } from './decodePermission.js';
import { decodeEventTriggerMetadata } from './decodeEventTrigger.js';
import { checkedRemoteRelationships } from './decodeRemoteSchema.js';
import { duplicateValues } from '../../lib/index.js';

export const ROOT_FIELD_KEYS = [
  'select',
  'select_by_pk',
  'select_aggregate',
  'insert',
  'insert_one',
  'update',
  'update_by_pk',
  'update_many',
  'delete',
  'delete_by_pk',
] as const;

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

function decodeGraphqlName(v: unknown, path: string): string {
  const s = asString(v, path);
  if (!GRAPHQL_NAME.test(s)) throw parseError(`${JSON.stringify(s)} is not a valid GraphQL name`, path);
  return s;
}

export function decodeCustomRootFields(v: unknown, path: string): CustomRootFields {
  const o = asObject(v, path);
  const out: CustomRootFields = {};
  for (const key of ROOT_FIELD_KEYS) {
    const name = optional(o, key, path, decodeGraphqlName);
    if (name !== undefined) out[key] = name;
  }
  const names = Object.values(out).filter((x): x is string => typeof x === 'string');
  const dups = duplicateValues(names);
  if (dups.length > 0) throw parseError(`the following custom root field names are duplicated: ${dups.map((d) => JSON.stringify(d)).join(', ')}`, path);
  return out;
}

export function decodeCustomColumnNames(v: unknown, path: string): Record<string, string> {
  const o = asObject(v, path);
  // fromEntries, not assignment: a "__proto__" key stays a key (and then fails as an unknown column)
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, decodeGraphqlName(x, pathKey(path, k))]));
}

export function decodeTableConfiguration(v: unknown, path: string): TableConfiguration {
  const o = asObject(v, path);
  return {
    custom_root_fields: optional(o, 'custom_root_fields', path, decodeCustomRootFields) ?? {},
    custom_column_names: optional(o, 'custom_column_names', path, decodeCustomColumnNames) ?? {},
  };
}

/** `{function, table_argument?, session_argument?}` of a computed field. */
export function decodeComputedFieldDefinition(v: unknown, path: string): ComputedFieldMetadata['definition'] {
  const o = asObject(v, path);
  return {
    function: required(o, 'function', path, parseQualifiedName),
    table_argument: optional(o, 'table_argument', path, asString) ?? null,
    session_argument: optional(o, 'session_argument', path, asString) ?? null,
  };
}

export function decodeComputedField(v: unknown, path: string): ComputedFieldMetadata {
  const o = asObject(v, path);
  return {
    name: required(o, 'name', path, asString),
    definition: required(o, 'definition', path, decodeComputedFieldDefinition),
    comment: optional(o, 'comment', path, asString) ?? null,
  };
}

/** `{function, configuration?}` (metadata version 2). */
export function decodeFunctionMetadata(v: unknown, path: string): FunctionMetadata {
  const o = asObject(v, path);
  const out: FunctionMetadata = { function: required(o, 'function', path, parseQualifiedName) };
  const config = optional(o, 'configuration', path, asObject);
  if (config !== undefined) {
    const cpath = pathKey(path, 'configuration');
    const sessionArgument = optional(config, 'session_argument', cpath, asString);
    out.configuration = sessionArgument !== undefined ? { session_argument: sessionArgument } : {};
    const exposedAs = optional(config, 'exposed_as', cpath, asString);
    if (exposedAs !== undefined) {
      if (exposedAs !== 'query' && exposedAs !== 'mutation') throw parseError(`expected "query" or "mutation", encountered ${JSON.stringify(exposedAs)}`, pathKey(cpath, 'exposed_as'));
      out.configuration.exposed_as = exposedAs;
    }
  }
  const permissions = optional(o, 'permissions', path, arrayOf(decodeFunctionPermission));
  if (permissions !== undefined && permissions.length > 0) {
    const seen = new Set<string>();
    permissions.forEach((p, i) => {
      if (seen.has(p.role)) throw parseError(`duplicate function permission for role ${JSON.stringify(p.role)}`, pathKey(pathKey(path, 'permissions'), i));
      seen.add(p.role);
    });
    out.permissions = permissions;
  }
  return out;
}

/** `{role}` of a function permission (Hasura v2). */
function decodeFunctionPermission(v: unknown, path: string): FunctionPermissionMetadata {
  const o = asObject(v, path);
  return { role: required(o, 'role', path, asString) };
}

const TABLE_KEYS = [
  'table',
  'is_enum',
  'configuration',
  'object_relationships',
  'array_relationships',
  'computed_fields',
  'remote_relationships',
  'insert_permissions',
  'select_permissions',
  'update_permissions',
  'delete_permissions',
  'event_triggers',
];


export function decodeTableMetadata(v: unknown, path: string): TableMetadata {
  const o = asObject(v, path);
  rejectUnknownKeys(o, TABLE_KEYS, 'TableMetadata', path);
  const list = <T>(key: string, decode: (x: unknown, p: string) => T): T[] => optional(o, key, path, arrayOf(decode)) ?? [];
  return {
    table: required(o, 'table', path, parseQualifiedName),
    is_enum: optional(o, 'is_enum', path, asBool) ?? false,
    configuration: optional(o, 'configuration', path, decodeTableConfiguration) ?? { custom_root_fields: {}, custom_column_names: {} },
    object_relationships: list('object_relationships', (x, p) => decodeRelationship('object', x, p)),
    array_relationships: list('array_relationships', (x, p) => decodeRelationship('array', x, p)),
    computed_fields: list('computed_fields', decodeComputedField),
    remote_relationships: optional(o, 'remote_relationships', path, checkedRemoteRelationships) ?? [],
    insert_permissions: list('insert_permissions', (x, p) => decodePermissionDef('insert', x, p)),
    select_permissions: list('select_permissions', (x, p) => decodePermissionDef('select', x, p)),
    update_permissions: list('update_permissions', (x, p) => decodePermissionDef('update', x, p)),
    delete_permissions: list('delete_permissions', (x, p) => decodePermissionDef('delete', x, p)),
    event_triggers: list('event_triggers', decodeEventTriggerMetadata),
  };
}
