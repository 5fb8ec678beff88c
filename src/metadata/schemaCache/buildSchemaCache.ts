/**
 * The pure schema-cache build: (metadata, database snapshot) → SchemaCache, plus the dependency
 * edges and the identities of inconsistent objects. Steps, in Hasura's order: tables, then per
 * table relationships and computed fields, then permissions, then tracked functions, then event
 * triggers (their env variables read from `env`). An object
 * that does not fit the database is left out and reported as inconsistent; the rest still builds.
 */
import { qualifiedKey, type NamingConvention } from '../../core/index.js';
import type { Metadata, PermissionMetadata, TableMetadata } from '../model/metadata.js';
import type { AnyPermission, PermType } from '../model/decodePermission.js';
import { PERM_TYPES } from '../model/decodePermission.js';
import type { DbSnapshot } from '../introspection/types.js';
import type { EventTriggerInfo, FunctionInfo, NativeQueryInfo, RemoteIntrospection, RolePermissions, SchemaCache, TableInfo } from './types.js';
import { eventTriggerDefinition, resolveEventTrigger } from './buildEventTriggers.js';
import { remoteRelationshipsOf, remoteSchemasOf } from '../model/decodeRemoteSchema.js';
import { resolveRemoteRelationship, resolveRemoteSchemas } from './buildRemoteSchemas.js';
import type { DepRef, Dependency, MetadataObjectId } from './objects.js';
import { BuildError, type BuildState, type Inconsistency } from './buildState.js';
import { buildTableInfo, resolveEnumReferences } from './buildTable.js';
import { columnConflict, resolveRelationship } from './buildRelationships.js';
import { resolveComputedField } from './buildComputedFields.js';
import { resolvePermission } from './buildPermissions.js';
import { resolveFunction } from './buildFunctions.js';
import { buildAllowlist } from './allowlist.js';
import { buildLogicalModel, resolveNativeQuery } from './buildNativeQueries.js';
import { buildActions } from './buildActions.js';
import { resolveInheritedRoles } from './buildInheritedRoles.js';
import {
  computedFieldDefinition,
  functionDefinition,
  permissionDefinition,
  relationshipDefinition,
  tableDefinition,
} from './definitions.js';
import { quoted, quotedTable } from './buildState.js';

export interface BuildResult {
  cache: SchemaCache;
  dependencies: Dependency[];
  inconsistent: Inconsistency[];
}

/**
 * A check of the finished cache that needs later stages (the GraphQL schema: the stored queries of
 * query collections are validated against the admin schema). Given by appState; what it returns is
 * reported with the cache's other inconsistent objects.
 */
export type CacheCheck = (cache: SchemaCache) => Inconsistency[];

const inTable = (t: TableMetadata) => `in table ${quotedTable(t.table)}: `;

/**
 * Builds the schema cache for `metadata` against `snapshot` (env: for `value_from_env` and the like)
 * and the fetched remote introspections. Never throws for inconsistencies.
 */
export function buildSchemaCacheFull(
  metadata: Metadata, snapshot: DbSnapshot, env: NodeJS.ProcessEnv = process.env, remoteInputs: ReadonlyMap<string, RemoteIntrospection> = new Map(),
  defaultNaming: NamingConvention = 'hasura-default', check?: CacheCheck,
): BuildResult {
  const state: BuildState = { metadata, snapshot, tables: new Map(), dependencies: [], inconsistent: [] };
  const record = (id: MetadataObjectId, type: string, definition: unknown, reason: string) => {
    state.inconsistent.push({ id, object: { type, definition, reason } });
  };
  const addDeps = (dependent: MetadataObjectId, deps: DepRef[]) => {
    for (const d of deps) state.dependencies.push({ dependent, on: d.on, ...(d.onType ? { onType: true } : {}) });
  };

  // 1. tables
  const consistent: Array<{ tm: TableMetadata; info: TableInfo }> = [];
  for (const tm of metadata.tables) {
    try {
      const info = buildTableInfo(state, tm);
      state.tables.set(qualifiedKey(tm.table), info);
      consistent.push({ tm, info });
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      record({ kind: 'table', table: tm.table }, 'table', tableDefinition(tm.table), e.message);
    }
  }
  resolveEnumReferences(state.tables);

  // 2. relationships and computed fields
  for (const { tm, info } of consistent) {
    for (const relType of ['object', 'array'] as const) {
      for (const rel of tm[`${relType}_relationships`] ?? []) {
        const id: MetadataObjectId = { kind: 'relationship', table: tm.table, name: rel.name, relType };
        const type = `${relType}_relation`;
        const conflict = columnConflict(info, rel.name);
        if (conflict) {
          record(id, type, relationshipDefinition(tm.table, rel), conflict);
          continue;
        }
        try {
          const r = resolveRelationship(state, info, relType, rel);
          info.relationships.set(rel.name, r.info);
          addDeps(id, r.dependencies.map((on) => ({ on })));
        } catch (e) {
          if (!(e instanceof BuildError)) throw e;
          record(id, type, relationshipDefinition(tm.table, rel), `${inTable(tm)}in relationship ${quoted(rel.name)}: ${e.message}`);
        }
      }
    }
    for (const cf of tm.computed_fields ?? []) {
      const id: MetadataObjectId = { kind: 'computed_field', table: tm.table, name: cf.name };
      const conflict = columnConflict(info, cf.name) ?? (info.relationships.has(cf.name) ? 'field definition conflicts with relationship' : undefined);
      if (conflict) {
        record(id, 'computed_field', computedFieldDefinition(tm.table, cf), conflict);
        continue;
      }
      try {
        const r = resolveComputedField(state, info, cf);
        info.computedFields.set(cf.name, r.info);
        addDeps(id, [{ on: { kind: 'table', table: tm.table } }, ...r.dependencies.map((on) => ({ on }))]);
      } catch (e) {
        if (!(e instanceof BuildError)) throw e;
        record(id, 'computed_field', computedFieldDefinition(tm.table, cf), `${inTable(tm)}in computed field ${quoted(cf.name)}: ${e.message}`);
      }
    }
  }

  // 3. permissions
  const roles = new Set<string>();
  for (const { tm, info } of consistent) {
    for (const permType of PERM_TYPES) {
      for (const p of (tm[`${permType}_permissions`] ?? []) as PermissionMetadata<AnyPermission>[]) {
        const id: MetadataObjectId = { kind: 'permission', table: tm.table, role: p.role, permType };
        try {
          const r = resolvePermission(state, info, p.role, permType, p.permission);
          const rp: RolePermissions = info.permissions.get(p.role) ?? {};
          (rp as Record<PermType, unknown>)[permType] = r.info;
          info.permissions.set(p.role, rp);
          roles.add(p.role);
          addDeps(id, r.dependencies);
        } catch (e) {
          if (!(e instanceof BuildError)) throw e;
          record(id, `${permType}_permission`, permissionDefinition(tm.table, permType, p), `${inTable(tm)}in permission for role ${quoted(p.role)}: ${e.message}`);
        }
      }
    }
  }

  // 3b. remote schemas, then remote relationships (they need the remote's introspection)
  const remoteSchemas = resolveRemoteSchemas(remoteSchemasOf(metadata), remoteInputs, (rs, reason) =>
    record({ kind: 'remote_schema', name: rs.name }, 'remote_schema', rs, `Inconsistent object: ${reason}`));
  for (const { tm, info } of consistent) {
    for (const rel of remoteRelationshipsOf(tm)) {
      const id: MetadataObjectId = { kind: 'remote_relationship', table: tm.table, name: rel.name };
      const definition = { ...rel.definition, name: rel.name, table: tm.table };
      const conflict = columnConflict(info, rel.name) ?? (info.relationships.has(rel.name) || info.computedFields.has(rel.name) ? 'field definition conflicts with relationship' : undefined);
      if (conflict) {
        record(id, 'remote_relationship', definition, conflict);
        continue;
      }
      try {
        const r = resolveRemoteRelationship(info, tm, rel, remoteSchemas);
        if (!info.remoteRelationships) info.remoteRelationships = new Map();
        info.remoteRelationships.set(rel.name, r.info);
        addDeps(id, r.dependencies.map((on) => ({ on })));
      } catch (e) {
        if (!(e instanceof BuildError)) throw e;
        record(id, 'remote_relationship', definition, `${inTable(tm)}in remote relationship ${quoted(rel.name)}: ${e.message}`);
      }
    }
  }

  // 4. tracked functions
  const functions = new Map<string, FunctionInfo>();
  for (const fm of metadata.functions ?? []) {
    const id: MetadataObjectId = { kind: 'function', function: fm.function };
    try {
      const r = resolveFunction(state, fm);
      functions.set(qualifiedKey(fm.function), r.info);
      addDeps(id, r.dependencies.map((on) => ({ on })));
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      record(id, 'function', functionDefinition(fm), `in function ${quotedTable(fm.function)}: ${e.message}`);
    }
  }

  // 4b. logical models (tables without a database table), their select permissions, native queries
  const logicalModels = new Map<string, TableInfo>();
  for (const lm of metadata.logical_models ?? []) {
    const info = buildLogicalModel(lm);
    logicalModels.set(lm.name, info);
    for (const p of lm.select_permissions ?? []) {
      try {
        const r = resolvePermission(state, info, p.role, 'select', { ...p.permission, allow_aggregations: false });
        info.permissions.set(p.role, { select: r.info as RolePermissions['select'] });
        roles.add(p.role);
      } catch (e) {
        if (!(e instanceof BuildError)) throw e;
        record({ kind: 'logical_model_permission', name: lm.name, role: p.role }, 'logical_model_permission', { source: 'default', name: lm.name, role: p.role, permission: p.permission },
          `in logical model ${quoted(lm.name)}: in permission for role ${quoted(p.role)}: ${e.message}`);
      }
    }
  }
  const nativeQueries = new Map<string, NativeQueryInfo>();
  for (const nq of metadata.native_queries ?? []) {
    try {
      nativeQueries.set(nq.root_field_name, resolveNativeQuery(nq, logicalModels));
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      record({ kind: 'native_query', name: nq.root_field_name }, 'native_query', { source: 'default', ...nq }, `in native query ${quoted(nq.root_field_name)}: ${e.message}`);
    }
  }

  // 5. event triggers
  const eventTriggers = new Map<string, EventTriggerInfo>();
  for (const { tm, info } of consistent) {
    for (const e of tm.event_triggers ?? []) {
      const id: MetadataObjectId = { kind: 'event_trigger', table: tm.table, name: e.name };
      try {
        const r = resolveEventTrigger(info, tm, e, env);
        eventTriggers.set(e.name, r.info);
        addDeps(id, r.dependencies);
        if (r.envError) record(id, 'event_trigger', eventTriggerDefinition(tm, e), `${inTable(tm)}in event trigger ${quoted(e.name)}: ${r.envError}`);
      } catch (err) {
        if (!(err instanceof BuildError)) throw err;
        record(id, 'event_trigger', eventTriggerDefinition(tm, e), err.message);
      }
    }
  }

  // 6. custom types and actions
  const { customTypes, actions } = buildActions(state, env);

  // 7. inherited roles: their role sets' permissions combined (tables and actions)
  const inheritedRoles = resolveInheritedRoles(metadata, [...state.tables.values(), ...logicalModels.values()], actions, record);
  for (const name of inheritedRoles.keys()) roles.add(name);
  const backendOnlyRoles = new Set<string>();
  for (const t of state.tables.values()) {
    for (const [role, p] of t.permissions) if (p.insert?.backendOnly || p.update?.backendOnly || p.delete?.backendOnly) backendOnlyRoles.add(role);
  }

  const cache: SchemaCache = {
    metadata,
    eventTriggers,
    customTypes,
    actions,
    tables: state.tables,
    functions,
    roles: [...roles].sort(),
    inconsistentObjects: state.inconsistent.map((i) => i.object),
    allowlist: buildAllowlist(metadata),
    remoteSchemas,
    remoteInputs,
    namingConvention: metadata.source_customization?.naming_convention ?? defaultNaming,
  };
  if (inheritedRoles.size > 0) cache.inheritedRoles = inheritedRoles;
  if (logicalModels.size > 0) cache.logicalModels = logicalModels;
  if (nativeQueries.size > 0) cache.nativeQueries = nativeQueries;
  if (backendOnlyRoles.size > 0) cache.backendOnlyRoles = backendOnlyRoles;
  const extra = check?.(cache) ?? [];
  if (extra.length > 0) {
    state.inconsistent.push(...extra);
    cache.inconsistentObjects = state.inconsistent.map((i) => i.object);
  }
  return { cache, dependencies: state.dependencies, inconsistent: state.inconsistent };
}

/** The schema cache only (see buildSchemaCacheFull). */
export function buildSchemaCache(
  metadata: Metadata, snapshot: DbSnapshot, env?: NodeJS.ProcessEnv, remoteInputs?: ReadonlyMap<string, RemoteIntrospection>, defaultNaming?: NamingConvention,
  check?: CacheCheck,
): SchemaCache {
  return buildSchemaCacheFull(metadata, snapshot, env, remoteInputs, defaultNaming, check).cache;
}
