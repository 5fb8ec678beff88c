/**
 * The live schema-cache holder behind `AppState` (src/appState.ts re-exports `createAppState`).
 * `rebuild` reads the stored metadata, introspects the database once (plus enum-table rows) and
 * swaps the new cache in; `install` swaps in a cache built elsewhere (by a metadata operation,
 * inside its own transaction). Readers always see a complete cache: the swap is one assignment.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/index.js';
import type { NamingConvention } from '../core/index.js';
import type { Db, DbClient } from '../execution/index.js';
import type { RemoteIntrospection, SchemaCache } from './schemaCache/types.js';
import type { Metadata } from './model/metadata.js';
import { loadMetadata, warmStoredEncoding, type MetadataTable } from './catalog/index.js';
import { catalogFingerprint, fingerprintOf, fingerprintRelationsOf, introspectDatabase, introspectWithFingerprints, loadEnumValues, recordFingerprint, reintrospect, type DbSnapshot } from './introspection/index.js';
import { buildRecordOf, buildSchemaCache, buildSchemaCacheFromSliced, buildSchemaCacheFull, type BuildOptions, type CacheCheck } from './schemaCache/buildSchemaCache.js';
import { attachSources, readSources, type SourceDbs } from './sources.js';

export interface LiveState {
  readonly current: SchemaCache;
  /** This engine's id in schema-update notifications (a fresh UUID per state). */
  readonly instanceId: string;
  /** `resource_version` of the stored metadata the current cache was built from (0 before any). */
  readonly resourceVersion: number;
  /** Where the metadata document is stored (`svc_metadata` in a catalog adopted from Hasura v2). */
  readonly metadataTable: MetadataTable;
  rebuild(): Promise<SchemaCache>;
  /** Swaps in `cache`; with a `resourceVersion`, only when it is not older than the current one. */
  install(cache: SchemaCache, resourceVersion?: number): void;
  /** The server's default naming convention, for caches built by metadata operations. */
  readonly defaultNamingConvention: NamingConvention;
  /** The check every build of this state runs on its cache (metadata operations' builds too). */
  readonly cacheCheck?: CacheCheck;
  /** The server settings every build of this state takes over (metadata operations' builds too). */
  readonly buildOptions?: BuildOptions;
  /** The pools of the Postgres sources beside `default` (every build reads their databases through them). */
  readonly sourceDbs?: SourceDbs;
}

/** Tables the metadata marks `is_enum` (their rows are read during introspection). */
export const enumTablesOf = (md: Metadata) => md.tables.filter((t) => t.is_enum).map((t) => t.table);

/**
 * Fetches the introspections of the remote schemas of `md` (reusing `known` ones whose definition
 * is unchanged). Given by appState (remoteSchemas/ comes later in the import chain).
 */
export type RemoteFetcher = (md: Metadata, known?: ReadonlyMap<string, RemoteIntrospection>) => Promise<ReadonlyMap<string, RemoteIntrospection>>;

/** The `resource_version` of the stored document each cache this module built was built from. */
const storedVersions = new WeakMap<SchemaCache, number>();

/**
 * The `resource_version` of the stored document `cache` was built from, when it was built here (start-up,
 * reload): a metadata operation then starts from its metadata and build instead of loading the document.
 */
export const storedVersionOf = (cache: SchemaCache): number | undefined => storedVersions.get(cache);

/** Loads metadata and introspects through `c`, then builds the cache (no swap). */
export async function loadSchemaCache(
  c: DbClient, fetchRemotes?: RemoteFetcher, known?: ReadonlyMap<string, RemoteIntrospection>, table: MetadataTable = 'hdb_metadata',
): Promise<SchemaCache> {
  const loaded = await loadState(c, table, false);
  const remotes = fetchRemotes ? await fetchRemotes(loaded.metadata, known) : undefined;
  return buildSchemaCache(loaded.metadata, loaded.snapshot, undefined, remotes);
}

/**
/**
 * The stored metadata, its `resource_version` and the database snapshot, read in one transaction, with the
 * catalogs' fingerprint (the first metadata operation then knows the database is as this build saw it).
 * The statements are written at once (the pool pipelines them): Postgres runs the introspection while the
 * document arrives and is decoded; the enum tables' values, which the document names, are read after.
 * `starting`: the engine's first build, the document decoded on this thread (see loadMetadata). When the
 * fingerprint is the one `known` was taken at, `known`'s tables and functions are the snapshot (enum rows
 * read again) and the database is not introspected again.
 */
async function loadState(c: DbClient, table: MetadataTable, starting: boolean, known?: DbSnapshot) {
  const [{ metadata, resourceVersion }, fingerprint, introspected] = await Promise.all([
    // (At start-up the relations' fingerprints are taken after, in the background: createAppState.)
    loadMetadata(c, table, { onThisThread: starting }), catalogFingerprint(c), known ? undefined : starting ? introspectDatabase(c) : introspectWithFingerprints(c),
  ]);
  let snapshot: DbSnapshot;
  if (known && fingerprintOf(known) === fingerprint) snapshot = { tables: known.tables, functions: known.functions, enumValues: new Map() };
  else {
    // Changed since `known`: only the relations whose catalog rows changed read again (relationFingerprints.ts).
    snapshot = introspected ?? (await reintrospect(c, known));
    recordFingerprint(snapshot, fingerprint);
  }
  await loadEnumValues(c, snapshot, enumTablesOf(metadata));
  return { metadata, resourceVersion, snapshot };
}

function logInconsistencies(logger: Logger, cache: SchemaCache): void {
  if (cache.inconsistentObjects.length > 0) {
    logger.warn({ type: 'startup', kind: 'inconsistent-metadata', inconsistent_objects: cache.inconsistentObjects }, 'inconsistent objects in metadata');
  }
}

/** Builds the first schema cache and returns the live state holder. */
export async function createAppState(
  db: Db, config: ServerConfig, logger: Logger, fetchRemotes?: RemoteFetcher, metadataTable: MetadataTable = 'hdb_metadata', cacheCheck?: CacheCheck,
  sourceDbs?: SourceDbs,
): Promise<LiveState> {
  const buildOptions: BuildOptions = { inferFunctionPermissions: config.inferFunctionPermissions, remoteSchemaPermissions: config.enableRemoteSchemaPermissions };
  // Remote schemas are fetched after the transaction: no connection is held while a remote answers.
  // A rebuild (reload, another engine's change) is built in slices: the engine serves requests meanwhile.
  // A rebuild (`from`: the live cache) starts from the live build: the database read again only when its catalogs
  // changed, and the cache built incrementally from the live one (only the tables that changed), as an operation's.
  const build = async (known?: ReadonlyMap<string, RemoteIntrospection>, sliced = false, from?: SchemaCache): Promise<{ cache: SchemaCache; resourceVersion: number }> => {
    const prior = from && buildRecordOf(from);
    const loaded = await db.transaction({ readOnly: true, isolation: 'repeatable read' }, (c) => loadState(c, metadataTable, !sliced, prior?.snapshot));
    const remotes = fetchRemotes ? await fetchRemotes(loaded.metadata, known) : undefined;
    // The further sources' databases are read after the transaction too, each through its own pool.
    const inputs = sourceDbs && loaded.metadata.sources ? await readSources(loaded.metadata, sourceDbs) : new Map();
    const full = sliced
      ? await buildSchemaCacheFromSliced(prior, loaded.metadata, loaded.snapshot, undefined, remotes, config.defaultNamingConvention, cacheCheck, buildOptions)
      : buildSchemaCacheFull(loaded.metadata, loaded.snapshot, undefined, remotes, config.defaultNamingConvention, cacheCheck, buildOptions);
    const cache = attachSources(full, loaded.metadata, inputs, undefined, remotes, config.defaultNamingConvention, buildOptions).cache;
    storedVersions.set(cache, loaded.resourceVersion);
    return { cache, resourceVersion: loaded.resourceVersion };
  };
  const first = await build();
  let current = first.cache;
  // In the background: the stored document's table texts (the first operation encodes only what it edits), and
  // the relations' fingerprints beside the start-up snapshot (the first read after DDL reads only what changed).
  void warmStoredEncoding(current.metadata);
  const startSnapshot = buildRecordOf(current)?.snapshot;
  if (startSnapshot) void fingerprintRelationsOf(db, startSnapshot);
  let version = first.resourceVersion;
  logInconsistencies(logger, current);
  return {
    get current() {
      return current;
    },
    instanceId: randomUUID(),
    defaultNamingConvention: config.defaultNamingConvention,
    metadataTable,
    cacheCheck,
    buildOptions,
    sourceDbs,
    get resourceVersion() {
      return version;
    },
    async rebuild() {
      const next = await build(current.remoteInputs, true, current);
      // A metadata change committed and installed while this build read an older state wins.
      if (next.resourceVersion >= version) {
        current = next.cache;
        version = next.resourceVersion;
        logInconsistencies(logger, next.cache);
      }
      return current;
    },
    install(cache: SchemaCache, resourceVersion?: number) {
      if (resourceVersion === undefined) {
        current = cache;
      } else if (resourceVersion >= version) {
        current = cache;
        version = resourceVersion;
      }
    },
  };
}
