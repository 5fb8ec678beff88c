/**
 * Postgres sources as one dimension of the metadata: `default` is the document itself (its tables,
 * functions, customization...) and each entry of `sources` another database. Every source is read the
 * same way: `sourceView` gives any source's part as a version-2 document (what the build takes),
 * `readSources` reads each further source's database through its pool, and `attachSources` resolves every further source against its own database snapshot with the same
 * `buildSchemaCacheFull` as `default`, hanging the results on the default cache (`SchemaCache.sources`).
 * A source whose database could not be read is an inconsistent object (`source`), its fields absent.
 */
import type { NamingConvention } from '../core/index.js';
import type { Db } from '../execution/index.js';
import { introspectDatabase, type DbSnapshot } from './introspection/index.js';
import type { Metadata, SourceMetadata } from './model/metadata.js';
import type { InconsistentObject, RemoteIntrospection, SchemaCache } from './schemaCache/types.js';
import { buildRecordOf, buildSchemaCacheFull, resultWith, shareBuildRecord, type BuildOptions, type BuildResult } from './schemaCache/buildSchemaCache.js';
import { hasSourceRelationships, resolveSourceRelationships } from './sourceRelationships.js';
import { knownRoles } from './schemaCache/buildInheritedRoles.js';

export const DEFAULT_SOURCE = 'default';

/** The entry of a further source, or undefined (also for `default`). */
export const findSource = (md: Metadata, name: string): SourceMetadata | undefined => md.sources?.find((s) => s.name === name);

/**
 * One source's part of `md` as a version-2 document: its tables, functions, logical models and native queries, with what applies to
 * every source (inherited roles, remote schemas for remote relationships). `default`: `md` itself.
 */
export function sourceView(md: Metadata, name: string): Metadata | undefined {
  if (name === DEFAULT_SOURCE) return md;
  const s = findSource(md, name);
  if (!s) return undefined;
  const view: Metadata = { version: 2, tables: s.tables, functions: s.functions ?? [] };
  if (s.logical_models) view.logical_models = s.logical_models;
  if (s.native_queries) view.native_queries = s.native_queries;
  if (s.customization?.naming_convention) view.source_customization = { naming_convention: s.customization.naming_convention };
  if (md.inherited_roles) view.inherited_roles = md.inherited_roles;
  if (md.remote_schemas) view.remote_schemas = md.remote_schemas;
  return view;
}

/**
 * Writes `part` (an edited `sourceView` of source `name`) back into `md` (in place): its tables,
 * functions, logical models and native queries into that source's entry, and what is global (inherited roles) into the document.
 */
export function withSourcePart(md: Metadata, name: string, part: Metadata): Metadata {
  if (name === DEFAULT_SOURCE) return part;
  const s = findSource(md, name);
  if (!s) return md;
  s.tables = part.tables;
  if (part.functions && part.functions.length > 0) s.functions = part.functions;
  else delete s.functions;
  if (part.logical_models && part.logical_models.length > 0) s.logical_models = part.logical_models;
  else delete s.logical_models;
  if (part.native_queries && part.native_queries.length > 0) s.native_queries = part.native_queries;
  else delete s.native_queries;
  if (part.inherited_roles && part.inherited_roles.length > 0) md.inherited_roles = part.inherited_roles;
  else delete md.inherited_roles;
  return md;
}

/** The build of each further source, by the cache it made (what `attachSources` hangs on `cache.sources`). */
const sourceBuilds = new WeakMap<SchemaCache, BuildResult>();

/** The whole build (dependencies, inconsistencies by the source's own ids) of a further source's cache. */
export const sourceBuildOf = (cache: SchemaCache): BuildResult | undefined => sourceBuilds.get(cache);

/** Where the pools of the further sources come from (execution/sourcePools.ts's `SourcePools`). */
export interface SourceDbs {
  pool(name: string, connection: SourceMetadata['configuration']['connection_info']): { db: Db };
  describe(name: string, err: unknown): string;
}

/**
 * Reads every further source's database (one introspection each, in parallel, each in its own
 * read-only transaction); a source that cannot be reached gives its reason instead. `only`: just these.
 */
export async function readSources(md: Metadata, dbs: SourceDbs, only?: ReadonlySet<string>): Promise<Map<string, SourceInput>> {
  const out = new Map<string, SourceInput>();
  await Promise.all((md.sources ?? []).filter((s) => !only || only.has(s.name)).map(async (s) => {
    try {
      const { db } = dbs.pool(s.name, s.configuration.connection_info);
      const enumTables = s.tables.filter((t) => t.is_enum).map((t) => t.table);
      const snapshot = await db.transaction({ readOnly: true, isolation: 'repeatable read' }, (c) => introspectDatabase(c, enumTables));
      out.set(s.name, { ok: true, snapshot });
    } catch (e) {
      // A connection failure names the address and cause (never the password); other errors their message.
      const apiError = e instanceof Error && e.name === 'ApiError';
      const internal = (e as { internal?: { error?: unknown } }).internal?.error;
      let message: string;
      if (!apiError) message = dbs.describe(s.name, e);
      else if (typeof internal === 'string' && internal.startsWith('cannot connect')) message = internal;
      else if (e.message === 'database connection error') message = dbs.describe(s.name, { message: typeof internal === 'string' ? internal : e.message });
      else message = e.message;
      out.set(s.name, { ok: false, reason: message });
    }
  }));
  return out;
}

/** What reading a further source's database gave: its snapshot, or why it could not be read. */
export type SourceInput = { ok: true; snapshot: DbSnapshot } | { ok: false; reason: string };

/**
 * `result` (the build of `default`) with every further source of `md` built from its input and
 * attached: consistent sources in `cache.sources` (tables and functions marked with their source),
 * their inconsistent objects (and unreadable sources) added to the result's, named with the source.
 */
export function attachSources(
  result: BuildResult, md: Metadata, inputs: ReadonlyMap<string, SourceInput>, env: NodeJS.ProcessEnv = process.env,
  remoteInputs: ReadonlyMap<string, RemoteIntrospection> = new Map(), defaultNaming: NamingConvention = 'hasura-default', options: BuildOptions = {},
): BuildResult {
  const list = md.sources ?? [];
  if (list.length === 0 && !hasSourceRelationships(md)) return result;
  const sources = new Map<string, SchemaCache>();
  const builds = new Map<string, BuildResult>();
  // Inherited roles are global: their parents may be roles of any source.
  const roles = md.inherited_roles && md.inherited_roles.length > 0 ? knownRoles(md) : undefined;
  const inconsistent = [...result.inconsistent];
  const objects: InconsistentObject[] = [...result.cache.inconsistentObjects];
  for (const s of list) {
    const input = inputs.get(s.name) ?? { ok: false as const, reason: `source ${JSON.stringify(s.name)} has not been read` };
    if (!input.ok) {
      const object: InconsistentObject = { type: 'source', name: `source ${s.name}`, definition: { name: s.name, kind: s.kind }, reason: `Inconsistent object: ${input.reason}` };
      inconsistent.push({ id: { kind: 'source', name: s.name }, object });
      objects.push(object);
      continue;
    }
    const built = buildSchemaCacheFull(sourceView(md, s.name)!, input.snapshot, env, remoteInputs, defaultNaming, undefined, roles ? { ...options, documentRoles: roles } : options);
    for (const t of built.cache.tables.values()) t.source = s.name;
    for (const f of built.cache.functions.values()) f.source = s.name;
    for (const m of built.cache.logicalModels?.values() ?? []) m.source = s.name;
    built.cache.source = s.name;
    if (s.customization?.root_fields) built.cache.sourceRootFields = s.customization.root_fields;
    if (s.customization?.type_names) built.cache.sourceTypeNames = s.customization.type_names;
    sources.set(s.name, built.cache);
    builds.set(s.name, built);
    for (const i of built.inconsistent) {
      // Remote schemas and their permissions are global: `default`'s build reports them once.
      if (i.id.kind === 'remote_schema' || i.id.kind === 'remote_schema_permission') continue;
      const def = i.object.definition;
      const object: InconsistentObject = { ...i.object, definition: typeof def === 'object' && def !== null && !Array.isArray(def) ? { source: s.name, ...def } : def };
      inconsistent.push({ id: { kind: 'source_object', source: s.name, id: i.id }, object });
      objects.push(object);
    }
  }
  // Relationships to a source's table, once every source is built (each cache a new object, linked to the others).
  const linked = resolveSourceRelationships(md, new Map([[DEFAULT_SOURCE, result.cache], ...sources]));
  for (const i of linked.inconsistent) {
    inconsistent.push(i);
    objects.push(i.object);
  }
  // Each source's build is found by the cache that is served (the linked one: a new object when linked).
  for (const [name, c] of linked.caches) {
    const built = builds.get(name);
    if (built) sourceBuilds.set(c, c === built.cache ? built : resultWith(built, c, built.inconsistent));
  }
  const cache = linked.caches.get(DEFAULT_SOURCE)!;
  shareBuildRecord(cache, result.cache);
  cache.inconsistentObjects = objects;
  if (list.length > 0) cache.sources = new Map([...linked.caches].filter(([name]) => name !== DEFAULT_SOURCE));
  // The build's check of the finished cache (the stored queries of REST endpoints, over every source's fields).
  const check = list.length > 0 ? buildRecordOf(result.cache)?.check : undefined;
  for (const i of check?.(cache) ?? []) {
    inconsistent.push(i);
    objects.push(i.object);
  }
  return resultWith(result, cache, inconsistent);
}
