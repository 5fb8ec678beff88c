/**
 * The pure schema-cache build: (metadata, database snapshot) → SchemaCache, plus the dependency
 * edges and the identities of inconsistent objects. Steps, in Hasura's order: tables, then per
 * table relationships and computed fields, then permissions, then tracked functions, then event
 * triggers (their env variables read from `env`). An object
 * that does not fit the database is left out and reported as inconsistent; the rest still builds.
 */
import { TurnBudget } from '../../lib/index.js';
import { qualifiedKey, type NamingConvention } from '../../core/index.js';
import type { Metadata, PermissionMetadata, TableMetadata } from '../model/metadata.js';
import type { AnyPermission, PermType } from '../model/decodePermission.js';
import { PERM_TYPES } from '../model/decodePermission.js';
import type { DbSnapshot } from '../introspection/types.js';
import type { EventTriggerInfo, FunctionInfo, NativeQueryInfo, RemoteIntrospection, RolePermissions, SchemaCache, TableInfo } from './types.js';
import { eventTriggerDefinition, resolveEventTrigger } from './buildEventTriggers.js';
import { remoteRelationshipsOf, remoteSchemasOf, toSource } from '../model/decodeRemoteSchema.js';
import { resolveRemoteRelationship, resolveRemoteSchemas } from './buildRemoteSchemas.js';
import { resolveRemotePermission } from './remotePermissions.js';
import { edgeTargets, type DepRef, type Dependency, type MetadataObjectId } from './objects.js';
import { BuildError, type BuildState, type Inconsistency } from './buildState.js';
import { buildTableInfo, resolveEnumReferences } from './buildTable.js';
import { columnConflict, resolveRelationship } from './buildRelationships.js';
import { resolveComputedField } from './buildComputedFields.js';
import { resolvePermission } from './buildPermissions.js';
import { resolveFunction } from './buildFunctions.js';
import { buildAllowlist } from './allowlist.js';
import { buildLogicalModel, buildNativeQueries, checkModelReferences } from './buildNativeQueries.js';
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

/** Server settings the build takes over into the cache. */
export interface BuildOptions {
  /** `--infer-function-permissions` (absent: true). */
  inferFunctionPermissions?: boolean;
  /** `--enable-remote-schema-permissions` (absent: false). */
  remoteSchemaPermissions?: boolean;
  /**
   * A source's part (sources.ts): the roles the whole document names, where an inherited role's
   * parents may be (the document's own build reports missing ones).
   */
  documentRoles?: ReadonlySet<string>;
}

const inTable = (t: TableMetadata) => `in table ${quotedTable(t.table)}: `;

/**
 * Builds the schema cache for `metadata` against `snapshot` (env: for `value_from_env` and the like)
 * and the fetched remote introspections. Never throws for inconsistencies.
 */
export function buildSchemaCacheFull(
  metadata: Metadata, snapshot: DbSnapshot, env: NodeJS.ProcessEnv = process.env, remoteInputs: ReadonlyMap<string, RemoteIntrospection> = new Map(),
  defaultNaming: NamingConvention = 'hasura-default', check?: CacheCheck, options: BuildOptions = {},
): BuildResult {
  return runNow(build(metadata, snapshot, env, remoteInputs, defaultNaming, check, options));
}

/** `buildSchemaCacheFull` in slices of ~`SLICE_MS` with a turn of the event loop between them (see `runSliced`). */
export function buildSchemaCacheFullSliced(
  metadata: Metadata, snapshot: DbSnapshot, env: NodeJS.ProcessEnv = process.env, remoteInputs: ReadonlyMap<string, RemoteIntrospection> = new Map(),
  defaultNaming: NamingConvention = 'hasura-default', check?: CacheCheck, options: BuildOptions = {},
): Promise<BuildResult> {
  return runSliced(build(metadata, snapshot, env, remoteInputs, defaultNaming, check, options));
}

/**
 * A build that reuses `prior` where it can: when the prior build was free of inconsistent objects, from the
 * same snapshot objects and settings, with no inherited roles, remote schemas or remote relationships, and
 * no enum table among the tables that changed, only what depends on the changed tables is resolved again:
 *   - a table added, or changed outside its permissions (relationships, computed fields, configuration…):
 *     built again whole (its `TableInfo`, relationships, computed fields and permissions);
 *   - a table whose permissions alone changed, and every table with a permission that reaches a changed
 *     or removed table (the dependency edges of the prior build: a filter through a relationship into it):
 *     its permissions resolved again on a copy of its `TableInfo`;
 *   - every other table: the prior build's `TableInfo` object and dependency edges as they are.
 * Functions, logical models, native queries, event triggers, actions and inherited roles are built as in a
 * full build. When anything turns out inconsistent (a refused operation's draft), or the conditions above do
 * not hold, a full build. The result equals a full build's (tests compare them).
 */
export function buildSchemaCacheFrom(
  prior: BuildRecord | undefined, metadata: Metadata, snapshot: DbSnapshot, env: NodeJS.ProcessEnv = process.env,
  remoteInputs: ReadonlyMap<string, RemoteIntrospection> = new Map(), defaultNaming: NamingConvention = 'hasura-default', check?: CacheCheck,
  options: BuildOptions = {},
): BuildResult {
  return runNow(buildFrom(prior, metadata, snapshot, env, remoteInputs, defaultNaming, check, options));
}

/** `buildSchemaCacheFrom` in slices (see `runSliced`): what a metadata operation builds, while other requests are served. */
export function buildSchemaCacheFromSliced(
  prior: BuildRecord | undefined, metadata: Metadata, snapshot: DbSnapshot, env: NodeJS.ProcessEnv = process.env,
  remoteInputs: ReadonlyMap<string, RemoteIntrospection> = new Map(), defaultNaming: NamingConvention = 'hasura-default', check?: CacheCheck,
  options: BuildOptions = {},
): Promise<BuildResult> {
  return runSliced(buildFrom(prior, metadata, snapshot, env, remoteInputs, defaultNaming, check, options));
}

function* buildFrom(
  prior: BuildRecord | undefined, metadata: Metadata, snapshot: DbSnapshot, env: NodeJS.ProcessEnv, remoteInputs: ReadonlyMap<string, RemoteIntrospection>,
  defaultNaming: NamingConvention, check: CacheCheck | undefined, options: BuildOptions,
): Generator<void, BuildResult> {
  const changes = prior && (yield* changesSince(prior, metadata, snapshot, env, remoteInputs, defaultNaming, check));
  if (changes) {
    const r = yield* build(metadata, snapshot, env, remoteInputs, defaultNaming, check, options, { prior: prior!, ...changes });
    if (r.inconsistent.length === 0) return r;
  }
  return yield* build(metadata, snapshot, env, remoteInputs, defaultNaming, check, options);
}

/**
 * A build is a generator that yields every few tables (`build`): run at once (`runNow`), or in slices of about
 * `SLICE_MS` of work with a turn of the event loop (`setImmediate`) between them (`runSliced`), so a build of
 * thousands of tables does not hold up other requests for its whole length. The inputs are never written, so
 * what runs between the slices cannot disturb it.
 */
function runNow<T>(g: Generator<void, T>): T {
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
  }
}

async function runSliced<T>(g: Generator<void, T>): Promise<T> {
  const budget = new TurnBudget(SLICE_MS);
  for (;;) {
    const r = g.next();
    if (r.done) return r.value;
    await budget.pause();
  }
}

const SLICE_MS = 10;

/** How many tables a build handles between two yields. */
const TABLES_PER_YIELD = 32;

const PERM_KEYS = new Set<string>(PERM_TYPES.map((t) => `${t}_permissions`));

/**
 * Whether two JSON values are equal as JSON (keys in any order; a key whose value is undefined is no key),
 * leaving out the top-level keys in `skip`. No text is built: thousands of tables are compared per build.
 */
function sameJson(a: unknown, b: unknown, skip?: ReadonlySet<string>): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    if (x[k] === undefined || skip?.has(k)) continue;
    n++;
    if (!sameJson(x[k], y[k])) return false;
  }
  for (const k in y) if (y[k] !== undefined && !skip?.has(k)) n--;
  return n === 0;
}

/** Whether two tables' permissions are the same. */
const samePermissions = (a: TableMetadata, b: TableMetadata): boolean =>
  PERM_TYPES.every((t) => sameJson(a[`${t}_permissions`] ?? [], b[`${t}_permissions`] ?? []));

/** What an incremental build rebuilds: tables built again whole, and tables whose permissions are resolved again. */
interface Changes {
  rebuilt: Set<string>;
  permissions: Set<string>;
}

/** What changed since `prior` (see buildSchemaCacheFrom), or undefined when a full build is needed. */
function* changesSince(
  prior: BuildRecord, md: Metadata, snapshot: DbSnapshot, env: NodeJS.ProcessEnv, remoteInputs: ReadonlyMap<string, RemoteIntrospection>,
  defaultNaming: NamingConvention, check: CacheCheck | undefined,
): Generator<void, Changes | undefined> {
  const before = prior.result.cache.metadata;
  if (prior.result.inconsistent.length > 0) return undefined;
  if (prior.snapshot.functions !== snapshot.functions) return undefined;
  if (prior.env !== env || prior.defaultNaming !== defaultNaming || prior.check !== check || prior.remoteInputs.size > 0 || remoteInputs.size > 0) return undefined;
  if ((md.inherited_roles ?? []).length > 0 || (md.remote_schemas ?? []).length > 0) return undefined;
  if (!sameJson(md.source_customization ?? null, before.source_customization ?? null)) return undefined;
  if (JSON.stringify([...snapshot.enumValues]) !== JSON.stringify([...prior.snapshot.enumValues])) return undefined;
  const aligned = md.tables.length === before.tables.length;
  let priorByKey: Map<string, TableMetadata> | undefined;
  const rebuilt = new Set<string>();
  const permissions = new Set<string>();
  const seen = new Set<string>();
  /** A table whose change may change what other tables resolve to (built again, or gone). */
  const moved = new Set<string>();
  const unusual = (t: TableMetadata) => !!t.is_enum || remoteRelationshipsOf(t).length > 0;
  // A new snapshot (DDL since the prior build, re-read by relationFingerprints.ts): the relations whose
  // `DbTable` is not the prior one's object changed (or appeared, or went) and move as changed tables do.
  const relations = yield* changedRelations(prior.snapshot, snapshot);
  for (let i = 0; i < md.tables.length; i++) {
    if (i % (TABLES_PER_YIELD * 8) === 0) yield;
    const tm = md.tables[i];
    const key = qualifiedKey(tm.table);
    if (seen.has(key)) return undefined;
    seen.add(key);
    let was: TableMetadata | undefined = aligned ? before.tables[i] : undefined;
    if (relations.has(key)) {
      if (unusual(tm)) return undefined;
      rebuilt.add(key);
      moved.add(key);
      continue;
    }
    if (was !== tm) {
      if (!was || qualifiedKey(was.table) !== key) was = (priorByKey ??= new Map(before.tables.map((t) => [qualifiedKey(t.table), t]))).get(key);
      if (was === tm) continue;
      if (unusual(tm) || (was && unusual(was))) return undefined;
      if (was && sameJson(tm, was, PERM_KEYS)) {
        if (!samePermissions(tm, was)) permissions.add(key);
      } else {
        rebuilt.add(key);
        moved.add(key);
      }
    }
  }
  if (seen.size !== md.tables.length) return undefined;
  for (const t of before.tables) {
    const key = qualifiedKey(t.table);
    if (seen.has(key)) continue;
    if (unusual(t)) return undefined;
    moved.add(key);
  }
  for (const key of relations) if (!seen.has(key)) moved.add(key);
  if (moved.size > 0) {
    // Tables whose relationships, computed fields or permissions reach a moved table: their permissions
    // again (a relationship or computed field reaching one is rebuilt with its table).
    let n = 0;
    for (const [key, deps] of prior.tableDeps) {
      if (++n % TABLES_PER_YIELD === 0) yield;
      if (rebuilt.has(key) || !seen.has(key)) continue;
      for (const k of edgeTargets(deps, key)) if (moved.has(k)) { rebuilt.add(key); break; }
    }
    for (const [key, deps] of prior.permissionDeps) {
      if (++n % TABLES_PER_YIELD === 0) yield;
      if (rebuilt.has(key) || permissions.has(key) || !seen.has(key)) continue;
      for (const k of edgeTargets(deps, key)) if (moved.has(k)) { permissions.add(key); break; }
    }
  }
  for (const k of rebuilt) permissions.delete(k);
  return { rebuilt, permissions };
}

/** The keys of the relations whose `DbTable` differs between two snapshots (by object: none when they are one). */
function* changedRelations(before: DbSnapshot, after: DbSnapshot): Generator<void, Set<string>> {
  const out = new Set<string>();
  if (before.tables === after.tables) return out;
  let n = 0;
  for (const [key, t] of after.tables) {
    if (++n % (TABLES_PER_YIELD * 8) === 0) yield;
    if (before.tables.get(key) !== t) out.add(key);
  }
  for (const key of before.tables.keys()) {
    if (++n % (TABLES_PER_YIELD * 8) === 0) yield;
    if (!after.tables.has(key)) out.add(key);
  }
  return out;
}

function* build(
  metadata: Metadata, snapshot: DbSnapshot, env: NodeJS.ProcessEnv, remoteInputs: ReadonlyMap<string, RemoteIntrospection>,
  defaultNaming: NamingConvention, check: CacheCheck | undefined, options: BuildOptions, reuse?: Changes & { prior: BuildRecord },
): Generator<void, BuildResult> {
  let n = 0;
  /** The edges that belong to no table's lists (functions, native queries, event triggers, actions...). */
  const rest: Dependency[] = [];
  const state: BuildState = { metadata, snapshot, tables: new Map(), dependencies: rest, inconsistent: [] };
  const record = (id: MetadataObjectId, type: string, definition: unknown, reason: string) => {
    state.inconsistent.push({ id, object: { type, definition, reason } });
  };
  const addDeps = (dependent: MetadataObjectId, deps: DepRef[]) => {
    for (const d of deps) state.dependencies.push({ dependent, on: d.on, ...(d.onType ? { onType: true } : {}) });
  };

  // 1. tables (an incremental build keeps the prior build's objects of the tables it does not rebuild)
  const consistent: Array<{ tm: TableMetadata; info: TableInfo; kept?: boolean }> = [];
  const fresh: TableInfo[] = [];
  for (const tm of metadata.tables) {
    if (++n % TABLES_PER_YIELD === 0) yield;
    const key = qualifiedKey(tm.table);
    if (reuse && !reuse.rebuilt.has(key)) {
      const was = reuse.prior.result.cache.tables.get(key)!;
      const info = reuse.permissions.has(key) ? { ...was, permissions: new Map() } : was;
      state.tables.set(key, info);
      consistent.push({ tm, info, kept: true });
      continue;
    }
    try {
      const info = buildTableInfo(state, tm);
      state.tables.set(key, info);
      consistent.push({ tm, info });
      fresh.push(info);
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      record({ kind: 'table', table: tm.table }, 'table', tableDefinition(tm.table), e.message);
    }
  }
  resolveEnumReferences(state.tables, reuse ? fresh : undefined);

  // 2. relationships and computed fields
  const tableDeps = new Map<string, Dependency[]>();
  for (const { tm, info, kept } of consistent) {
    if (++n % TABLES_PER_YIELD === 0) yield;
    const key = qualifiedKey(tm.table);
    if (kept) {
      tableDeps.set(key, reuse!.prior.tableDeps.get(key)!);
      continue;
    }
    // This table's edges go to a list of its own (the build's whole list is made from the lists when asked).
    state.dependencies = [];
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
    tableDeps.set(key, state.dependencies);
    state.dependencies = rest;
  }

  // 3. permissions
  const roles = new Set<string>();
  const permissionDeps = new Map<string, Dependency[]>();
  for (const { tm, info, kept: keptTable } of consistent) {
    if (++n % TABLES_PER_YIELD === 0) yield;
    const key = qualifiedKey(tm.table);
    const kept = keptTable && !reuse!.permissions.has(key) ? reuse!.prior.permissionDeps.get(key) : undefined;
    if (kept) {
      permissionDeps.set(key, kept);
      continue;
    }
    state.dependencies = [];
    for (const permType of PERM_TYPES) {
      // Roles with the same permission on this table share its resolved objects (often most roles: one copy, not five).
      const resolved: Array<{ permission: AnyPermission; r: ReturnType<typeof resolvePermission> }> = [];
      for (const p of (tm[`${permType}_permissions`] ?? []) as PermissionMetadata<AnyPermission>[]) {
        const id: MetadataObjectId = { kind: 'permission', table: tm.table, role: p.role, permType };
        try {
          let r = p.role === 'admin' ? undefined : resolved.find((x) => sameJson(x.permission, p.permission))?.r;
          if (!r) resolved.push({ permission: p.permission, r: (r = resolvePermission(state, info, p.role, permType, p.permission)) });
          const rp: RolePermissions = info.permissions.get(p.role) ?? {};
          (rp as Record<PermType, unknown>)[permType] = r.info;
          info.permissions.set(p.role, rp);
          addDeps(id, r.dependencies);
        } catch (e) {
          if (!(e instanceof BuildError)) throw e;
          record(id, `${permType}_permission`, permissionDefinition(tm.table, permType, p), `${inTable(tm)}in permission for role ${quoted(p.role)}: ${e.message}`);
        }
      }
    }
    permissionDeps.set(key, state.dependencies);
    state.dependencies = rest;
  }

  // 3b. remote schemas, then remote relationships (they need the remote's introspection)
  const remoteSchemas = resolveRemoteSchemas(remoteSchemasOf(metadata), remoteInputs, (rs, reason) =>
    record({ kind: 'remote_schema', name: rs.name }, 'remote_schema', rs, `Inconsistent object: ${reason}`));
  for (const rs of remoteSchemasOf(metadata)) {
    const info = remoteSchemas.get(rs.name);
    for (const p of rs.permissions ?? []) {
      roles.add(p.role);
      if (!info) continue;
      try {
        if (!info.permissions) info.permissions = new Map();
        info.permissions.set(p.role, resolveRemotePermission(info, p.definition.schema));
      } catch (e) {
        if (!(e instanceof BuildError)) throw e;
        record({ kind: 'remote_schema_permission', name: rs.name, role: p.role }, 'remote_schema_permission', { remote_schema: rs.name, ...p }, `Inconsistent object: ${e.message}`);
      }
    }
  }
  for (const { tm, info } of consistent) {
    for (const rel of remoteRelationshipsOf(tm)) {
      // Relationships to a source's table are resolved once every source is built (metadata/sourceRelationships.ts).
      if (toSource(rel)) continue;
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
  const modelNames = new Set((metadata.logical_models ?? []).map((m) => m.name));
  for (const lm of metadata.logical_models ?? []) {
    try {
      checkModelReferences(lm, modelNames);
    } catch (e) {
      if (!(e instanceof BuildError)) throw e;
      record({ kind: 'logical_model', name: lm.name }, 'logical_model', { source: 'default', ...lm }, `in logical model ${quoted(lm.name)}: ${e.message}`);
      continue;
    }
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
  const nativeQueries = buildNativeQueries(metadata, logicalModels, state.tables, record, addDeps);

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
  const inheritedRoles = resolveInheritedRoles(metadata, [...state.tables.values(), ...logicalModels.values()], actions, record, functions, options.documentRoles);
  for (const name of inheritedRoles.keys()) roles.add(name);
  const backendOnlyRoles = new Set<string>();
  // The tables' roles (those with a resolved permission), per table object; most tables have the same list.
  let last: TableRoles | undefined;
  for (const t of state.tables.values()) {
    const r = tableRoles(t);
    if (r === last) continue;
    last = r;
    for (const role of r.roles) roles.add(role);
    for (const role of r.backendOnly) backendOnlyRoles.add(role);
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
  if (options.inferFunctionPermissions === false) cache.inferFunctionPermissions = false;
  if (options.remoteSchemaPermissions === true) cache.remoteSchemaPermissions = true;
  if (inheritedRoles.size > 0) cache.inheritedRoles = inheritedRoles;
  if (logicalModels.size > 0) cache.logicalModels = logicalModels;
  if (nativeQueries.size > 0) cache.nativeQueries = nativeQueries;
  if (backendOnlyRoles.size > 0) cache.backendOnlyRoles = backendOnlyRoles;
  // With further sources the check runs on the cache they are attached to (sources.ts: attachSources), whose
  // schema has their fields (a stored query may ask for them).
  const extra = (metadata.sources?.length ?? 0) > 0 ? [] : check?.(cache) ?? [];
  if (extra.length > 0) {
    state.inconsistent.push(...extra);
    cache.inconsistentObjects = state.inconsistent.map((i) => i.object);
  }
  const result = resultOf(cache, state.inconsistent, () => {
    const all: Dependency[] = [];
    for (const lists of [tableDeps.values(), permissionDeps.values(), [rest]]) for (const l of lists) for (const d of l) all.push(d);
    return all;
  });
  const rec: BuildRecord = { result, snapshot, remoteInputs, env, defaultNaming, check, tableDeps, permissionDeps, restDeps: rest };
  builds.set(cache, rec);
  recordsOfResults.set(result, rec);
  return result;
}

/** What a cache was built from, and the build's whole result. */
export interface BuildRecord {
  result: BuildResult;
  snapshot: DbSnapshot;
  remoteInputs: ReadonlyMap<string, RemoteIntrospection>;
  env: NodeJS.ProcessEnv;
  defaultNaming: NamingConvention;
  check?: CacheCheck;
  /** Each consistent table's dependency edges of steps 1–2 (relationships, computed fields) and of step 3 (permissions). */
  tableDeps: ReadonlyMap<string, Dependency[]>;
  permissionDeps: ReadonlyMap<string, Dependency[]>;
  /** The other edges (`result.dependencies` is the tables' lists in table order, then the permissions', then these). */
  restDeps: readonly Dependency[];
}

interface TableRoles {
  roles: readonly string[];
  backendOnly: readonly string[];
}
const tableRolesMemo = new WeakMap<TableInfo, TableRoles>();
const internedRoles = new Map<string, TableRoles>();
/** A table's roles and backend-only roles (of a finished table object), one object for equal lists. */
function tableRoles(t: TableInfo): TableRoles {
  let r = tableRolesMemo.get(t);
  if (!r) {
    const roles = [...t.permissions.keys()];
    const backendOnly = [...t.permissions].filter(([, p]) => p.insert?.backendOnly || p.update?.backendOnly || p.delete?.backendOnly).map(([role]) => role);
    const key = JSON.stringify([roles, backendOnly]);
    r = internedRoles.get(key);
    if (!r) {
      r = { roles, backendOnly };
      if (internedRoles.size < 10_000) internedRoles.set(key, r);
    }
    tableRolesMemo.set(t, r);
  }
  return r;
}

/**
 * A build's result whose whole edge list is made when first read (what reads it: a result made otherwise, tests):
 * metadata operations follow the per-table lists (dependencyIndex.ts), so a build does not copy every edge.
 */
function resultOf(cache: SchemaCache, inconsistent: Inconsistency[], edges: () => Dependency[]): BuildResult {
  let all: Dependency[] | undefined;
  const result = { cache, inconsistent } as BuildResult;
  Object.defineProperty(result, 'dependencies', { enumerable: true, configurable: true, get: () => (all ??= edges()), set: (v: Dependency[]) => { all = v; } });
  return result;
}

/**
 * `result` with another cache and inconsistent objects (a cache linked with the other sources): its edges and
 * build record are `result`'s, its edge list still made only when read.
 */
export function resultWith(result: BuildResult, cache: SchemaCache, inconsistent: Inconsistency[]): BuildResult {
  const rec = recordsOfResults.get(result);
  const out = resultOf(cache, inconsistent, () => result.dependencies);
  if (rec) recordsOfResults.set(out, rec);
  return out;
}

const builds = new WeakMap<SchemaCache, BuildRecord>();
/** The same records by result (and by the results `resultWith` made of one). */
const recordsOfResults = new WeakMap<BuildResult, BuildRecord>();

/**
 * `copy` is `cache` with more attached (every source linked to it, metadata/sources.ts): the same tables and
 * build, so a metadata operation starting from it builds incrementally from that build.
 */
export function shareBuildRecord(copy: SchemaCache, cache: SchemaCache): void {
  const rec = builds.get(cache);
  if (rec && copy !== cache && copy.tables === cache.tables && copy.metadata === cache.metadata) builds.set(copy, rec);
}

/** The build `result` came from (undefined for a result made otherwise). */
export const buildRecordOfResult = (result: BuildResult): BuildRecord | undefined => recordsOfResults.get(result);

/**
 * The build `cache` came from (undefined for a cache made otherwise): a metadata operation that starts
 * from the live cache's metadata and the same snapshot reuses it instead of building the same again.
 */
export const buildRecordOf = (cache: SchemaCache): BuildRecord | undefined => builds.get(cache);

/** The schema cache only (see buildSchemaCacheFull). */
export function buildSchemaCache(
  metadata: Metadata, snapshot: DbSnapshot, env?: NodeJS.ProcessEnv, remoteInputs?: ReadonlyMap<string, RemoteIntrospection>, defaultNaming?: NamingConvention,
  check?: CacheCheck, options?: BuildOptions,
): SchemaCache {
  return buildSchemaCacheFull(metadata, snapshot, env, remoteInputs, defaultNaming, check, options).cache;
}
