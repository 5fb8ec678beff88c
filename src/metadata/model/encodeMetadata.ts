/**
 * The metadata document as `export_metadata` prints it and the catalog stores it (Hasura v1.3,
 * version 2): keys in Hasura's order, empty lists / defaults / null comments left out. Also the
 * JSON shapes used as `definition` of inconsistent objects, which keep defaults in.
 */
import { encodeIntrospectionOptions } from './decodeIntrospectionOptions.js';
import { encodeSourceCustomization } from './decodeSourceCustomization.js';
import type { QualifiedTable } from '../../core/index.js';
import type {
  ComputedFieldMetadata,
  EventTriggerMetadata,
  InsertPermission,
  Metadata,
  PermissionMetadata,
  RelationshipMetadata,
  SelectPermission,
  TableConfiguration,
  TableMetadata,
  UpdatePermission,
  DeletePermission,
  SourceMetadata,
} from './metadata.js';
import type { AnyPermission, PermType } from './decodePermission.js';
import { encodeApiLimits } from './decodeApiLimits.js';

type J = Record<string, unknown>;

const qt = (q: QualifiedTable): J => ({ schema: q.schema, name: q.name });

function nonEmpty(o: J, key: string, list: unknown[] | undefined): void {
  if (list && list.length > 0) o[key] = list;
}

export function encodeRelUsing(using: RelationshipMetadata['using']): J {
  if ('foreign_key_constraint_on' in using) {
    const fk = using.foreign_key_constraint_on;
    if (typeof fk === 'string') return { foreign_key_constraint_on: fk };
    const table = typeof fk.table === 'string' ? { schema: 'public', name: fk.table } : fk.table;
    return { foreign_key_constraint_on: { table: qt(table), column: fk.column } };
  }
  const m = using.manual_configuration;
  const remote = typeof m.remote_table === 'string' ? { schema: 'public', name: m.remote_table } : m.remote_table;
  return { manual_configuration: { remote_table: qt(remote), column_mapping: { ...m.column_mapping } } };
}

export function encodeRelationship(r: RelationshipMetadata): J {
  const o: J = { name: r.name, using: encodeRelUsing(r.using) };
  if (r.comment != null) o.comment = r.comment;
  return o;
}

/** Encoding options: `storage` keeps engine-only extras (pre-1.0 `allow_upsert`) that export leaves out. */
export interface EncodeOptions {
  storage?: boolean;
}

/** A permission body as exported (defaults omitted). */
export function encodePermissionBody(type: PermType, p: AnyPermission, opts: EncodeOptions = {}): J {
  switch (type) {
    case 'select': {
      const s = p as SelectPermission;
      const o: J = { columns: s.columns, filter: s.filter };
      if (s.computed_fields && s.computed_fields.length > 0) o.computed_fields = s.computed_fields;
      if (s.limit != null) o.limit = s.limit;
      if (s.allow_aggregations) o.allow_aggregations = true;
      return o;
    }
    case 'insert': {
      const s = p as InsertPermission;
      const o: J = { check: s.check };
      if (s.set && Object.keys(s.set).length > 0) o.set = s.set;
      if (s.columns !== undefined) o.columns = s.columns;
      if (s.backend_only) o.backend_only = true;
      if (s.allow_upsert && opts.storage) o.allow_upsert = true;
      return o;
    }
    case 'update': {
      const s = p as UpdatePermission;
      const o: J = { columns: s.columns, filter: s.filter };
      if (s.check != null) o.check = s.check;
      if (s.set && Object.keys(s.set).length > 0) o.set = s.set;
      if (s.backend_only) o.backend_only = true;
      return o;
    }
    case 'delete': {
      const s = p as DeletePermission;
      return s.backend_only ? { filter: s.filter, backend_only: true } : { filter: s.filter };
    }
  }
}

/** A permission body with its defaults, as Hasura's ToJSON prints it (inconsistent-object definitions). */
export function encodePermissionBodyFull(type: PermType, p: AnyPermission): J {
  switch (type) {
    case 'select': {
      const s = p as SelectPermission;
      const o: J = { columns: s.columns, filter: s.filter };
      if (s.limit != null) o.limit = s.limit;
      o.allow_aggregations = s.allow_aggregations ?? false;
      o.computed_fields = s.computed_fields ?? [];
      return o;
    }
    case 'insert': {
      const s = p as InsertPermission;
      const o: J = { check: s.check };
      if (s.set !== undefined) o.set = s.set;
      if (s.columns !== undefined) o.columns = s.columns;
      o.backend_only = s.backend_only ?? false;
      return o;
    }
    default:
      return encodePermissionBody(type, p);
  }
}

function encodePermission(type: PermType, p: PermissionMetadata<AnyPermission>, opts: EncodeOptions): J {
  const o: J = { role: p.role, permission: encodePermissionBody(type, p.permission, opts) };
  if (p.comment != null) o.comment = p.comment;
  return o;
}

export function encodeComputedField(c: ComputedFieldMetadata): J {
  const fn = typeof c.definition.function === 'string' ? { schema: 'public', name: c.definition.function } : c.definition.function;
  const def: J = { function: qt(fn) };
  if (c.definition.table_argument != null) def.table_argument = c.definition.table_argument;
  if (c.definition.session_argument != null) def.session_argument = c.definition.session_argument;
  const o: J = { name: c.name, definition: def };
  if (c.comment != null) o.comment = c.comment;
  return o;
}

function isEmptyConfig(c: TableConfiguration | undefined): boolean {
  if (!c) return true;
  const roots = Object.values(c.custom_root_fields ?? {}).filter((x) => x != null);
  return roots.length === 0 && Object.keys(c.custom_column_names ?? {}).length === 0;
}

export function encodeTableConfiguration(c: TableConfiguration): J {
  const roots: J = {};
  for (const [k, v] of Object.entries(c.custom_root_fields ?? {})) if (v != null) roots[k] = v;
  return { custom_root_fields: roots, custom_column_names: { ...(c.custom_column_names ?? {}) } };
}

export function encodeTable(t: TableMetadata, opts: EncodeOptions = {}): J {
  const o: J = { table: qt(t.table) };
  if (t.is_enum) o.is_enum = true;
  if (!isEmptyConfig(t.configuration)) o.configuration = encodeTableConfiguration(t.configuration!);
  nonEmpty(o, 'object_relationships', t.object_relationships?.map(encodeRelationship));
  nonEmpty(o, 'array_relationships', t.array_relationships?.map(encodeRelationship));
  nonEmpty(o, 'computed_fields', t.computed_fields?.map(encodeComputedField));
  nonEmpty(o, 'remote_relationships', t.remote_relationships);
  for (const kind of ['insert', 'select', 'update', 'delete'] as const) {
    const perms = t[`${kind}_permissions`] as PermissionMetadata<AnyPermission>[] | undefined;
    nonEmpty(o, `${kind}_permissions`, perms?.map((p) => encodePermission(kind, p, opts)));
  }
  nonEmpty(o, 'event_triggers', t.event_triggers?.map(encodeEventTrigger));
  return o;
}

/** The whole document in export order (with `{storage: true}`, as the catalog stores it). */
export function encodeMetadata(md: Metadata, opts: EncodeOptions = {}): J {
  const o: J = { version: 2, tables: md.tables.map((t) => encodeTable(t, opts)) };
  nonEmpty(
    o,
    'functions',
    md.functions?.map((f) => {
      const e: J = { function: qt(f.function) };
      if (f.configuration && Object.keys(f.configuration).length > 0) e.configuration = { ...f.configuration };
      if (f.permissions && f.permissions.length > 0) e.permissions = f.permissions.map((p) => ({ role: p.role }));
      return e;
    }),
  );
  nonEmpty(o, 'remote_schemas', md.remote_schemas);
  nonEmpty(o, 'query_collections', md.query_collections);
  nonEmpty(o, 'allowlist', md.allowlist);
  nonEmpty(o, 'rest_endpoints', md.rest_endpoints);
  if (md.custom_types !== undefined && md.custom_types !== null && !isEmptyCustomTypes(md.custom_types)) o.custom_types = md.custom_types;
  nonEmpty(o, 'actions', md.actions);
  nonEmpty(o, 'cron_triggers', md.cron_triggers);
  const apiLimits = encodeApiLimits(md.api_limits);
  if (apiLimits) o.api_limits = apiLimits;
  const introspection = encodeIntrospectionOptions(md.graphql_schema_introspection);
  if (introspection) o.graphql_schema_introspection = introspection;
  nonEmpty(o, 'inherited_roles', md.inherited_roles?.map((r) => ({ role_name: r.role_name, role_set: [...r.role_set] })));
  const customization = encodeSourceCustomization(md.source_customization);
  if (customization) o.source_customization = customization;
  nonEmpty(o, 'read_replicas', md.read_replicas);
  nonEmpty(o, 'logical_models', md.logical_models?.map((m) => structuredClone(m)));
  nonEmpty(o, 'native_queries', md.native_queries?.map((q) => structuredClone(q)));
  nonEmpty(o, 'sources', md.sources?.map((s) => encodeSource(s, opts)));
  return o;
}

/** A further source as the version-3 document writes it (its tables and functions as the default's). */
function encodeSource(s: SourceMetadata, opts: EncodeOptions): J {
  const o: J = { name: s.name, kind: s.kind, tables: s.tables.map((t) => encodeTable(t, opts)) };
  nonEmpty(o, 'functions', encodeMetadata({ version: 2, tables: [], functions: s.functions }, opts).functions as unknown[] | undefined);
  nonEmpty(o, 'logical_models', s.logical_models?.map((m) => structuredClone(m)));
  nonEmpty(o, 'native_queries', s.native_queries?.map((q) => structuredClone(q)));
  o.configuration = structuredClone(s.configuration);
  const customization = encodeSourceCustomization(s.customization);
  if (customization) o.customization = customization;
  return o;
}

function isEmptyCustomTypes(ct: unknown): boolean {
  if (typeof ct !== 'object' || ct === null) return true;
  return Object.values(ct as J).every((v) => v == null || (Array.isArray(v) && v.length === 0));
}

/** An event trigger in export order (header values from env are exported as the variable name only). */
export function encodeEventTrigger(e: EventTriggerMetadata): J {
  const def: J = { enable_manual: e.definition.enable_manual };
  for (const op of ['insert', 'update', 'delete'] as const) {
    const spec = e.definition[op];
    if (spec) def[op] = spec.payload === undefined ? { columns: spec.columns } : { columns: spec.columns, payload: spec.payload };
  }
  const o: J = { name: e.name, definition: def, retry_conf: { ...e.retry_conf } };
  if (e.webhook !== undefined) o.webhook = e.webhook;
  if (e.webhook_from_env !== undefined) o.webhook_from_env = e.webhook_from_env;
  if (e.headers && e.headers.length > 0) o.headers = e.headers.map((h) => ({ ...h }));
  if (e.comment != null) o.comment = e.comment;
  if (e.request_transform) o.request_transform = e.request_transform;
  if (e.response_transform) o.response_transform = e.response_transform;
  return o;
}
