/**
 * Decoder for the whole metadata document: what `replace_metadata` accepts and what the catalog
 * stores. Version 1 (no `version` key) lists functions as bare names; version 2 as
 * `{function, configuration}`. Actions and custom types are decoded (decodeActions.ts); sections owned by other
 * features (remote schemas, cron triggers) are kept as given JSON; query collections and the allow-list are decoded.
 */
import { decodeIntrospectionOptions } from './decodeIntrospectionOptions.js';
import { decodeSourceCustomization } from './decodeSourceCustomization.js';
import { ApiError, displayName, parseQualifiedName, qualifiedKey } from '../../core/index.js';
import type { FunctionMetadata, Metadata, QueryCollection, TableMetadata } from './metadata.js';
import { decodeRestEndpoint } from './decodeRestEndpoint.js';
import { arrayOf, asObject, cloneJson, optional, parseError, required } from './json.js';
import { decodeFunctionMetadata, decodeTableMetadata } from './decodeTable.js';
import { sharingPermissions } from './decodePermission.js';
import { asGraphqlQueryText, asStoredQueryText, decodeCollectionReq, decodeQueryCollection } from './decodeQueryCollection.js';
import { decodeApiLimits } from './decodeApiLimits.js';
import { decodeAction, decodeCustomTypes } from './decodeActions.js';
import { duplicateValues, type TurnBudget } from '../../lib/index.js';
import { decodeInheritedRole } from './decodeInheritedRoles.js';
import { decodeReadReplicas } from './decodeReadReplicas.js';
import { decodeLogicalModel, decodeNativeQuery } from './decodeNativeQueries.js';
import { decodeSources } from './decodeSources.js';

function decodeVersion(v: unknown, path: string): 1 | 2 {
  if (v === 1 || v === 2) return v;
  throw parseError(`expected the metadata version to be 1 or 2, but found ${JSON.stringify(v)}`, path);
}

const raw = (v: unknown): unknown => cloneJson(v);

/** Tables decoded by `decodeTablesAhead`, by their raw object, each taken once by `decodeMetadata`. */
const decodedAhead = new WeakMap<object, TableMetadata>();

/**
 * Decodes the raw tables of a document that `decodeMetadata` is about to decode, a slice per event-loop
 * turn: `decodeMetadata` runs inside an operation's synchronous decoder, where 5,000 tables are a third of a
 * second and more in one turn; it takes each table decoded here instead of decoding it (a table's decoding
 * depends on its raw value only, not on its path, which only errors name). It stops at the first table that
 * fails: `decodeMetadata` meets that failure again in its own order, so what it answers does not change.
 * The raw tables must not change between the two.
 */
export async function decodeTablesAhead(tables: unknown, budget: TurnBudget): Promise<void> {
  if (!Array.isArray(tables)) return;
  // Equal permissions shared across the slices, as `decodeMetadata` shares them in one call.
  const pool = new Map<string, unknown>();
  for (const t of tables) {
    if (budget.due) await budget.next();
    if (typeof t !== 'object' || t === null) return;
    try {
      decodedAhead.set(t, sharingPermissions(() => decodeTableMetadata(t, '$'), pool));
    } catch {
      return;
    }
  }
}

function takeDecodedTable(v: unknown, path: string): TableMetadata {
  const ahead = typeof v === 'object' && v !== null ? decodedAhead.get(v) : undefined;
  if (ahead === undefined) return decodeTableMetadata(v, path);
  decodedAhead.delete(v as object);
  return ahead;
}

/**
 * Decodes a metadata document (v1 or v2 export format) into the normalised version-2 model.
 * `stored`: the document comes from the catalog, where only checked documents are written, so the
 * costly checks of its parts (GraphQL query texts) are skipped.
 */
export function decodeMetadata(v: unknown, path = '$', opts: { stored?: boolean } = {}): Metadata {
  return sharingPermissions(() => decodeDocument(v, path, opts));
}

function decodeDocument(v: unknown, path: string, opts: { stored?: boolean }): Metadata {
  const o = asObject(v, path);
  const version = optional(o, 'version', path, decodeVersion) ?? 1;
  const tables = required(o, 'tables', path, arrayOf(takeDecodedTable));
  const functions: FunctionMetadata[] =
    version === 1
      ? (optional(o, 'functions', path, arrayOf(parseQualifiedName)) ?? []).map((f) => ({ function: f }))
      : (optional(o, 'functions', path, arrayOf(decodeFunctionMetadata)) ?? []);
  const md: Metadata = { version: 2, tables, functions };
  const keep = (key: keyof Metadata): void => {
    if (o[key] !== undefined && o[key] !== null) (md as unknown as Record<string, unknown>)[key] = raw(o[key]);
  };
  keep('remote_schemas');
  const actions = optional(o, 'actions', path, arrayOf((x, p) => decodeAction(x, p)));
  if (actions && actions.length > 0) md.actions = actions;
  const customTypes = optional(o, 'custom_types', path, decodeCustomTypes);
  if (customTypes) md.custom_types = customTypes;
  keep('cron_triggers');
  const collections: QueryCollection[] | undefined = optional(
    o,
    'query_collections',
    path,
    arrayOf((c, p) => decodeQueryCollection(c, p, opts.stored ? asStoredQueryText : asGraphqlQueryText)),
  );
  if (collections) md.query_collections = collections;
  const restEndpoints = optional(o, 'rest_endpoints', path, arrayOf(decodeRestEndpoint));
  if (restEndpoints) md.rest_endpoints = restEndpoints;
  const allowlist = optional(o, 'allowlist', path, arrayOf(decodeCollectionReq));
  if (allowlist) md.allowlist = allowlist;
  const apiLimits = optional(o, 'api_limits', path, decodeApiLimits);
  if (apiLimits) md.api_limits = apiLimits;
  const introspection = optional(o, 'graphql_schema_introspection', path, decodeIntrospectionOptions);
  if (introspection && introspection.disabled_for_roles.length > 0) md.graphql_schema_introspection = introspection;
  const inherited = optional(o, 'inherited_roles', path, arrayOf(decodeInheritedRole));
  if (inherited && inherited.length > 0) md.inherited_roles = inherited;
  const customization = optional(o, 'source_customization', path, decodeSourceCustomization);
  if (customization?.root_fields) {
    // Served for the sources beside `default` only: default's root fields share the root with actions and remote schemas.
    throw new ApiError('not-supported', 'the root fields prefix and suffix are not supported for the "default" source, only for the other sources', { path: `${path}.source_customization.root_fields` });
  }
  if (customization?.type_names) {
    throw new ApiError('not-supported', 'the type names prefix and suffix are not supported for the "default" source, only for the other sources', { path: `${path}.source_customization.type_names` });
  }
  if (customization?.naming_convention) md.source_customization = customization;
  const replicas = optional(o, 'read_replicas', path, decodeReadReplicas);
  if (replicas && replicas.length > 0) md.read_replicas = replicas;
  const logicalModels = optional(o, 'logical_models', path, arrayOf(decodeLogicalModel));
  if (logicalModels && logicalModels.length > 0) md.logical_models = logicalModels;
  const nativeQueries = optional(o, 'native_queries', path, arrayOf(decodeNativeQuery));
  if (nativeQueries && nativeQueries.length > 0) md.native_queries = nativeQueries;
  const sources = optional(o, 'sources', path, decodeSources);
  if (sources && sources.length > 0) md.sources = sources;
  return md;
}


/**
 * Refuses a document that declares something twice (a table, a relationship or computed field of a
 * table, a permission for a role, a function): 400 already-exists, as `replace_metadata` does.
 */
export function assertNoDuplicates(md: Metadata, path = '$.args'): void {
  const fail = (what: string, names: string[]) => {
    throw new ApiError('already-exists', `multiple declarations exist for the following ${what}: ${names.join(', ')}`, { path });
  };
  const tableDups = duplicateValues(md.tables.map((t) => qualifiedKey(t.table)));
  if (tableDups.length) fail('tables', tableDups.map((k) => displayName(md.tables.find((t) => qualifiedKey(t.table) === k)!.table)));
  for (const t of md.tables) {
    const fields = [...(t.object_relationships ?? []), ...(t.array_relationships ?? [])].map((r) => r.name);
    const relDups = duplicateValues(fields);
    if (relDups.length) fail('relationships', relDups);
    const cfDups = duplicateValues((t.computed_fields ?? []).map((c) => c.name));
    if (cfDups.length) fail('computed fields', cfDups);
    for (const kind of ['insert', 'select', 'update', 'delete'] as const) {
      const perms = t[`${kind}_permissions`] ?? [];
      const roleDups = duplicateValues(perms.map((p) => p.role));
      if (roleDups.length) fail(`${kind} permissions`, roleDups);
    }
  }
  const triggerDups = duplicateValues(md.tables.flatMap((t) => (t.event_triggers ?? []).map((e) => e.name)));
  if (triggerDups.length) fail('event triggers', triggerDups);
  const fnDups = duplicateValues((md.functions ?? []).map((f) => qualifiedKey(f.function)));
  if (fnDups.length) fail('functions', fnDups);
  const actionDups = duplicateValues((md.actions ?? []).map((a) => (a as { name: string }).name));
  if (actionDups.length) fail('actions', actionDups);
  const inheritedDups = duplicateValues((md.inherited_roles ?? []).map((r) => r.role_name));
  if (inheritedDups.length) fail('inherited roles', inheritedDups);
  const modelDups = duplicateValues((md.logical_models ?? []).map((m) => m.name));
  if (modelDups.length) fail('logical models', modelDups);
  const nqDups = duplicateValues((md.native_queries ?? []).map((q) => q.root_field_name));
  if (nqDups.length) fail('native queries', nqDups);
}
