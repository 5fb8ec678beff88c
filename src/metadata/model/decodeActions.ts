/**
 * Custom types and actions in the metadata document (Hasura v1.3 `Hasura.RQL.Types.CustomTypes`,
 * `Hasura.RQL.Types.Action`): their types, decoders (aeson-style messages and paths) and the
 * normalised form `set_custom_types` reports in its errors. Kept apart from metadata.ts, which
 * types the sections as `unknown`; `customTypesOf` / `actionsOf` read them typed.
 */
import { parseQualifiedName, type QualifiedTable } from '../../core/index.js';
import type { Metadata } from './metadata.js';
import type { UrlConf } from '../../webhooks/index.js';
import { decodeRequestTransform, decodeResponseTransform, type RequestTransform, type ResponseTransform } from '../../transforms/index.js';
import {
  arrayOf, asBool, asObject, asString, asUrlConf, optional, parseError, required, type JsonObject,
} from './json.js';

export interface CustomScalar { name: string; description?: string | null }
export interface CustomEnumValue { value: string; description?: string | null; is_deprecated?: boolean | null }
export interface CustomEnum { name: string; description?: string | null; values: CustomEnumValue[] }
export interface CustomField { name: string; type: string; description?: string | null; arguments?: unknown }
export interface CustomInputObject { name: string; description?: string | null; fields: CustomField[] }
export interface CustomRelationship {
  name: string;
  type: 'object' | 'array';
  remote_table: QualifiedTable;
  field_mapping: Record<string, string>;
  /** Hasura v2: the source of `remote_table` (absent: `default`). */
  source?: string;
}
export interface CustomObject { name: string; description?: string | null; fields: CustomField[]; relationships?: CustomRelationship[] | null }
export interface CustomTypes {
  scalars?: CustomScalar[] | null;
  enums?: CustomEnum[] | null;
  input_objects?: CustomInputObject[] | null;
  objects?: CustomObject[] | null;
}

export type ActionHeader = { name: string; value: string } | { name: string; value_from_env: string };
export interface ActionArgument { name: string; type: string; description?: string | null }
export interface ActionDefinition {
  type: 'mutation' | 'query';
  kind: 'synchronous' | 'asynchronous';
  arguments: ActionArgument[];
  output_type: string;
  handler: UrlConf;
  headers?: ActionHeader[];
  forward_client_headers?: boolean;
  /** Hasura's request transform of the handler call (src/transforms). */
  request_transform?: RequestTransform;
  /** Hasura's response transform of the handler's answer. */
  response_transform?: ResponseTransform;
}
export interface ActionPermissionMetadata { role: string; comment?: string | null }
export interface ActionMetadata {
  name: string;
  definition: ActionDefinition;
  comment?: string | null;
  permissions?: ActionPermissionMetadata[];
}

const desc = (o: JsonObject, path: string) => optional(o, 'description', path, asString) ?? null;

function decodeField(v: unknown, path: string): CustomField {
  const o = asObject(v, path);
  const f: CustomField = { name: required(o, 'name', path, asString), type: required(o, 'type', path, asString), description: desc(o, path) };
  if (o.arguments !== undefined && o.arguments !== null) f.arguments = o.arguments;
  return f;
}

function decodeRelationship(v: unknown, path: string): CustomRelationship {
  const o = asObject(v, path);
  const type = required(o, 'type', path, asString);
  if (type !== 'object' && type !== 'array') throw parseError('expected "object" or "array" for relationship type', `${path}.type`);
  const mapping = required(o, 'field_mapping', path, asObject);
  const field_mapping: Record<string, string> = {};
  for (const [k, val] of Object.entries(mapping)) field_mapping[k] = asString(val, `${path}.field_mapping.${k}`);
  const rel: CustomRelationship = { name: required(o, 'name', path, asString), type, remote_table: required(o, 'remote_table', path, parseQualifiedName), field_mapping };
  const source = optional(o, 'source', path, asString);
  if (source !== undefined) rel.source = source;
  return rel;
}

/** `set_custom_types` arguments (and the metadata section): every list optional. */
export function decodeCustomTypes(v: unknown, path: string): CustomTypes {
  const o = asObject(v, path);
  const ct: CustomTypes = {};
  const scalars = optional(o, 'scalars', path, arrayOf((x, p) => { const s = asObject(x, p); return { name: required(s, 'name', p, asString), description: desc(s, p) }; }));
  const enums = optional(o, 'enums', path, arrayOf((x, p): CustomEnum => {
    const e = asObject(x, p);
    return {
      name: required(e, 'name', p, asString), description: desc(e, p),
      values: required(e, 'values', p, arrayOf((y, q) => {
        const ev = asObject(y, q);
        return { value: required(ev, 'value', q, asString), description: desc(ev, q), is_deprecated: optional(ev, 'is_deprecated', q, asBool) ?? null };
      })),
    };
  }));
  const inputs = optional(o, 'input_objects', path, arrayOf((x, p): CustomInputObject => {
    const io = asObject(x, p);
    return { name: required(io, 'name', p, asString), description: desc(io, p), fields: required(io, 'fields', p, arrayOf(decodeField)) };
  }));
  const objects = optional(o, 'objects', path, arrayOf((x, p): CustomObject => {
    const ob = asObject(x, p);
    const rels = optional(ob, 'relationships', p, arrayOf(decodeRelationship));
    return { name: required(ob, 'name', p, asString), description: desc(ob, p), fields: required(ob, 'fields', p, arrayOf(decodeField)), relationships: rels ?? null };
  }));
  if (scalars) ct.scalars = scalars;
  if (enums) ct.enums = enums;
  if (inputs) ct.input_objects = inputs;
  if (objects) ct.objects = objects;
  return stripNulls(ct);
}

/** Header of an action: `value` or `value_from_env` (never an engine setting, as Hasura refuses `HASURA_GRAPHQL_*`). */
function decodeHeader(v: unknown, path: string): ActionHeader {
  const o = asObject(v, path);
  const name = required(o, 'name', path, asString);
  if (o.value !== undefined && o.value !== null) return { name, value: asString(o.value, `${path}.value`) };
  if (o.value_from_env !== undefined && o.value_from_env !== null) {
    const env = asString(o.value_from_env, `${path}.value_from_env`);
    if (/^SVC_GRAPHQL_/.test(env)) throw parseError('env variables start with "SVC_GRAPHQL_" are not allowed for value_from_env', path);
    return { name, value_from_env: env };
  }
  throw parseError('expecting value or value_from_env keys', path);
}

/** An action definition; paths are relative to the `create_action` args (`$.definition...`), as Hasura reports them. */
export function decodeActionDefinition(v: unknown, path: string): ActionDefinition {
  const o = asObject(v, path);
  const type = optional(o, 'type', path, asString) ?? 'mutation';
  if (type !== 'mutation' && type !== 'query') throw parseError(`expected "mutation" or "query" for action type, but found ${JSON.stringify(type)}`, `${path}.type`);
  let kind = optional(o, 'kind', path, asString) ?? 'synchronous';
  // Hasura v2 reads no kind for a query action, and its CLI writes `kind: ""` for one.
  if (type === 'query' && kind === '') kind = 'synchronous';
  if (kind !== 'synchronous' && kind !== 'asynchronous') throw parseError(`expected "synchronous" or "asynchronous" for action kind, but found ${JSON.stringify(kind)}`, `${path}.kind`);
  const def: ActionDefinition = {
    type, kind,
    arguments: optional(o, 'arguments', path, arrayOf((x, p) => {
      const a = asObject(x, p);
      return { name: required(a, 'name', p, asString), type: required(a, 'type', p, asString), description: desc(a, p) };
    })) ?? [],
    output_type: required(o, 'output_type', path, asString),
    handler: required(o, 'handler', path, asUrlConf),
  };
  const headers = optional(o, 'headers', path, arrayOf(decodeHeader));
  if (headers && headers.length > 0) def.headers = headers;
  const fwd = optional(o, 'forward_client_headers', path, asBool);
  if (fwd) def.forward_client_headers = true;
  const rt = optional(o, 'request_transform', path, decodeRequestTransform);
  if (rt) def.request_transform = rt;
  const st = optional(o, 'response_transform', path, decodeResponseTransform);
  if (st) def.response_transform = st;
  return def;
}

/** An action as the metadata document lists it (also `create_action` args without permissions). */
export function decodeAction(v: unknown, path: string, relPaths = false): ActionMetadata {
  const o = asObject(v, path);
  const a: ActionMetadata = {
    name: required(o, 'name', path, asString),
    definition: required(o, 'definition', relPaths ? '$' : path, (x, p) => decodeActionDefinition(x, relPaths ? '$.definition' : p)),
  };
  const comment = optional(o, 'comment', path, asString);
  if (comment !== undefined) a.comment = comment;
  const perms = optional(o, 'permissions', path, arrayOf((x, p) => {
    const po = asObject(x, p);
    const r: ActionPermissionMetadata = { role: required(po, 'role', p, asString) };
    const c = optional(po, 'comment', p, asString);
    if (c !== undefined) r.comment = c;
    return r;
  }));
  if (perms && perms.length > 0) a.permissions = perms;
  return stripNulls(a);
}

/** A copy without null-valued keys (the stored and exported form omits what was not given). */
function stripNulls<T>(v: T): T {
  if (Array.isArray(v)) return v.map(stripNulls) as T;
  if (typeof v === 'object' && v !== null) {
    return Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => [k, stripNulls(x)])) as T;
  }
  return v;
}

/** The custom types section, typed (empty when absent). */
export function customTypesOf(md: Metadata): CustomTypes {
  return (md.custom_types ?? {}) as CustomTypes;
}

/** The actions section, typed. */
export function actionsOf(md: Metadata): ActionMetadata[] {
  return (md.actions ?? []) as ActionMetadata[];
}

/** The custom types as Hasura echoes them in errors: every list and optional key present (null when absent). */
export function customTypesDefinition(ct: CustomTypes): unknown {
  const f = (x: CustomField) => ({ name: x.name, type: x.type, description: x.description ?? null, arguments: x.arguments ?? null });
  return {
    scalars: ct.scalars?.map((s) => ({ name: s.name, description: s.description ?? null })) ?? null,
    enums: ct.enums?.map((e) => ({ name: e.name, description: e.description ?? null, values: e.values })) ?? null,
    input_objects: ct.input_objects?.map((i) => ({ name: i.name, description: i.description ?? null, fields: i.fields.map(f) })) ?? null,
    objects: ct.objects?.map((o) => ({ name: o.name, description: o.description ?? null, fields: o.fields.map(f), relationships: o.relationships ?? null })) ?? null,
  };
}
