/**
 * The live engine state, and the parts its GraphQL API is assembled from (`ENGINE_PARTS`). `current` is the schema
 * cache in use; `rebuild` loads metadata from the catalog, introspects the database once, builds a
 * new cache and swaps it in atomically. Per-role GraphQL schemas and plan caches hang off the cache
 * object (WeakMap keyed by SchemaCache), so a swap drops them all at once.
 */
import type { ServerConfig } from './config/index.js';
import { ApiError, type NamingConvention } from './core/index.js';
import type { DatabaseWatch, Db, ReadAfter, ReadDb, ReadReplicas, SourcePool, SourcePools } from './execution/index.js';
import type { BuildOptions, CacheCheck, Metadata, MetadataTable, SchemaCache, SourceDbs } from './metadata/index.js';
import type { Logger } from 'pino';
import type { EngineMetrics } from './metrics/index.js';
import type { ResponseCache } from './responseCache/index.js';
import { createAppState as createLiveState } from './metadata/index.js';
import { collectionQueryInconsistencies, getRoleSchema, RELAY_SCHEMA_PARTS, TABLE_SCHEMA_PARTS, type LimitDefaults, type SchemaParts } from './graphql/index.js';
import { RELAY_PLANNERS, TABLE_PLANNERS, type RootFieldPlanners } from './planner/index.js';
import { actionMutationFields, actionQueryFields, planActionAsyncResult, planActionField } from './actions/index.js';
import { fetchRemoteInputs, planRemoteField } from './remoteSchemas/index.js';

/** A GraphQL API: the parts of its role schemas and the planners of its `ext:` root fields. */
export interface ApiParts {
  readonly schema: SchemaParts;
  readonly planners: RootFieldPlanners;
}

/**
 * What the engine's GraphQL API is made of, in one place (nothing registers itself on import):
 * the builders of each role schema's root fields and table fields, and the planner of each `ext:`
 * root-field kind. What then runs each kind of compiled root field is api/executors.ts.
 */
export const ENGINE_PARTS: ApiParts = {
  schema: {
    query: [...TABLE_SCHEMA_PARTS.query, actionQueryFields],
    mutation: [...TABLE_SCHEMA_PARTS.mutation, actionMutationFields],
    subscription: TABLE_SCHEMA_PARTS.subscription,
    tableFields: TABLE_SCHEMA_PARTS.tableFields,
    sources: TABLE_SCHEMA_PARTS.sources,
  },
  planners: {
    ...TABLE_PLANNERS,
    'ext:remote': planRemoteField,
    'ext:action': planActionField,
    'ext:action_async_result': planActionAsyncResult,
  },
};

/**
 * The Relay API (/v1beta1/relay): its own role schemas (Node, connections; the tables' mutations)
 * and planners; role schemas and plans are cached apart from the GraphQL API's.
 */
export const RELAY_PARTS: ApiParts = {
  schema: RELAY_SCHEMA_PARTS,
  planners: { ...TABLE_PLANNERS, ...RELAY_PLANNERS },
};

export interface AppState {
  readonly current: SchemaCache;
  /** Reload metadata from the catalog + re-introspect, then swap. */
  rebuild(): Promise<SchemaCache>;
  /**
   * Swap in a cache built elsewhere (metadata operations build theirs inside their transaction).
   * With the `resource_version` it was saved as, a cache older than the current one is ignored.
   */
  install(cache: SchemaCache, resourceVersion?: number): void;
  /** This engine's id in schema-update notifications (its own are ignored by its listener). */
  readonly instanceId?: string;
  /** `resource_version` of the stored metadata behind `current` (multi-instance sync compares it). */
  readonly resourceVersion?: number;
  /** The server's `--default-naming-convention`: for caches built elsewhere (metadata operations). */
  readonly defaultNamingConvention?: NamingConvention;
  /** Where the metadata document is stored; absent: `hdb_metadata` (`svc_metadata` in a catalog adopted from Hasura v2). */
  readonly metadataTable?: MetadataTable;
  /** What every build checks beyond the metadata itself (`checkStoredQueries`); metadata operations' builds run it too. */
  readonly cacheCheck?: CacheCheck;
  /** The server settings every build takes over (`--infer-function-permissions`, `--enable-remote-schema-permissions`): for caches built elsewhere too. */
  readonly buildOptions?: BuildOptions;
  /** The pools of the Postgres sources beside `default`: every build (metadata operations' too) reads their databases through them. */
  readonly sourceDbs?: SourceDbs;
}

export interface EngineContext {
  config: ServerConfig;
  /** The `default` source's pool (the engine's own database: catalog, metadata, event log). */
  db: Db;
  /** The pools of the Postgres sources beside `default` (`sources` of the metadata); absent: none made. */
  sources?: SourcePools;
  /** Whether `db` (and the LISTEN URL) can be reached: parts ask it whether a failure is the database being away (logged once for the engine). */
  dbWatch?: DatabaseWatch;
  /** Hot standbys that serve GraphQL reads (--read-replica-urls or the metadata's read_replicas); undefined: every read on `db`. */
  replicas?: ReadReplicas;
  /**
   * The metadata's `read_replicas`, followed while the engine runs (unset with --read-replica-urls):
   * `check` refuses a metadata change whose new replicas are not usable standbys (inside its
   * transaction); `settled` resolves once the installed metadata's replicas are in use.
   */
  readReplicaSetup?: { check(md: Metadata): Promise<void>; settled(): Promise<void> };
  logger: Logger;
  state: AppState;
  version: string;
  /** The database URL in use: the configured one, or the embedded Postgres's (pg_dump needs it). */
  databaseUrl: string;
  /** Where the workers LISTEN for wake-ups (--listen-database-url, else `databaseUrl`): a session connection. */
  listenDatabaseUrl: string;
  /** Prometheus metrics; undefined when disabled (--enable-metrics=false). */
  metrics?: EngineMetrics;
  /** The web console at /console (--enable-console; by default on with the embedded Postgres only). */
  consoleEnabled?: boolean;
  /** The `@cached` response cache (in memory, or Redis with --redis-url). */
  responseCache?: ResponseCache;
  /**
   * With --strict-schema-sync: resolves once the live schema cache is not older than the stored
   * metadata version (the server awaits it before each API request); undefined otherwise.
   */
  catchUp?: () => Promise<void>;
  /** Hasura-compatible session variables (--hasura-session-variables, `auto` resolved at start): sessions get `hasura: true`. */
  hasuraSession?: boolean;
  /**
   * The API limits that apply besides the metadata's: the --query-*-limit flags, and whether the
   * metadata's `api_limits` are applied (not under --hasura-compat or an adopted Hasura catalog
   * without --apply-api-limits). Set at start; absent: the flags, metadata limits applied.
   */
  limitDefaults?: LimitDefaults;
  /** Subscribes to "another engine went silent" (the heartbeat's finding: its claims are claimable now); returns the unsubscribe. */
  onInstanceSilent?: (fn: () => void) => () => void;
  /** Hasura's words beside the engine's (--hasura-compat, `auto` resolved at start): X-Hasura-* headers, hasura.io claims. */
  hasuraCompat?: boolean;
}

/**
 * Loads the stored metadata, introspects the database, fetches the remote schemas' introspections
 * and builds the first schema cache (implemented in metadata/liveState.ts; inconsistent objects,
 * unreachable remotes included, are logged, not fatal).
 */
export const createAppState = (db: Db, config: ServerConfig, logger: Logger, metadataTable?: MetadataTable, sources?: SourcePools): Promise<AppState> =>
  createLiveState(db, config, logger, (md, known) => fetchRemoteInputs(md, known), metadataTable, checkStoredQueries, sources);

/**
 * The stored queries REST endpoints serve, validated against the admin schema of the GraphQL API
 * (as Hasura v2 validates stored queries on each build). Nothing is built without REST endpoints;
 * otherwise the admin schema built here is the one admin requests then use (memoised per cache),
 * so the check costs no request anything.
 */
export const checkStoredQueries: CacheCheck = (cache) => {
  if ((cache.metadata.rest_endpoints ?? []).length === 0) return [];
  return collectionQueryInconsistencies(getRoleSchema(cache, 'admin', ENGINE_PARTS.schema).schema, cache.metadata);
};

/**
 * The pool a root field runs on: `default`'s (the engine's own, `ctx.db`), or the pool of the source
 * it belongs to (made by the build that read that source), with that source's prepared-statement setting.
 */
export function sourceDb(ctx: EngineContext, source: string | undefined): { db: Db; prepare: boolean; isolation?: SourcePool['isolation'] } {
  if (source === undefined || source === 'default') return { db: ctx.db, prepare: ctx.config.usePreparedStatements !== false };
  const pool = ctx.sources?.get(source);
  if (!pool) throw new ApiError('unexpected', `source ${JSON.stringify(source)} is not available`);
  return { db: pool.db, prepare: pool.prepare, isolation: pool.isolation };
}

/**
 * Where a GraphQL query's root fields of `source` read: that source's read replicas when it has any
 * (`after`: the request's read-your-writes headers), else its pool (`default`: `ctx.db`).
 */
export function sourceReads(ctx: EngineContext, source: string | undefined, after: ReadAfter): ReadDb {
  if (source === undefined || source === 'default') return ctx.replicas === undefined ? ctx.db : ctx.replicas.reads(after);
  return ctx.sources?.reads(source, after) ?? sourceDb(ctx, source).db;
}

/** Whether any source (`default` or another) reads from read replicas: the read-your-writes headers are read then. */
export const hasReadReplicas = (ctx: EngineContext): boolean => ctx.replicas !== undefined || ctx.sources?.anyReplicas === true;
