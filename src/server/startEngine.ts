/**
 * Boot and shutdown of one engine instance, used by `main.ts` (the CLI) and by embedders/tests
 * through `src/index.ts`:
 *
 *   config → authenticator (validates admin secret / JWT / webhook settings, fetches JWKs; with
 *   `--hasura-compat auto` only validates, and is built once the catalog says whether it was adopted) →
 *   (no databaseUrl: embedded Postgres in dataDir) → one test connection (a failure names its
 *   cause and host:port) → pg pool → migrateCatalog → Hasura compatibility resolved →
 *   createAppState (loads metadata, builds the schema cache) → read replicas, when configured
 *   (each checked to be a standby of this database, then measured in the background) → instance heartbeat
 *   (hdb_catalog.svc_instances) → schema sync (polls the metadata version; LISTEN as a wake-up) →
 *   optional background workers →
 *   listen.
 *
 * `stop()` reverses it: stop accepting and drain in-flight requests (bounded by
 * `config.shutdownTimeoutMs`), close WebSockets, stop workers, close the pool, stop the
 * embedded Postgres, stop the authenticator's timers. A failure while booting undoes what was
 * started and rethrows.
 */
import type { Logger } from 'pino';
import * as api from '../api/index.js';
import type { EngineContext } from '../appState.js';
import { checkAuthConfig, createAuthenticator, type Authenticator } from '../auth/index.js';
import cluster from 'node:cluster';
import { HASURA_ENV_NOT_READ, openAccessWarning, type ServerConfig } from '../config/index.js';
import { checkConnection, createDatabaseWatch, createDb, databaseIdentity, sameDatabaseOf, SourcePools, startEmbeddedPostgres, type Db, type DbClient, type EmbeddedPostgresHandle } from '../execution/index.js';
import { packageInfo } from '../lib/index.js';
import { describeApiLimits, encodeApiLimits, findHasuraSessionReaders, hasuraSessionWarning, INSTANCE_ID, migrateCatalog, readyHasuraQueues, startHeartbeat, startSchemaSync, type AdoptionReport, type ApiLimits, type SchemaSyncOptions } from '../metadata/index.js';
import type { LimitDefaults } from '../graphql/index.js';
import { createAppState } from '../appState.js';
import { syncEventTriggers } from '../events/index.js';
import { decodeCronTrigger, upsertCronTrigger, type CronTriggerDef } from '../scheduled/index.js';
import { EngineMetrics } from '../metrics/index.js';
import { MemoryStore, RedisStore, ResponseCache, type CacheScope } from '../responseCache/index.js';
import { startTracing, tracesUrl, tracingOn } from '../tracing/index.js';
import { liveQueryStats } from '../subscriptions/index.js';
import { createEngineServer } from './httpServer.js';
import { createLogger, logFormatFor } from './logger.js';
import { listenError } from './listenError.js';
import { replicaOptions, ReplicaSetup } from './startReplicas.js';
import { SOURCE_WATCH, startSourceWatch, type SourceWatchOptions } from './sourceWatch.js';

export interface StartEngineOptions {
  /** Logger to use instead of a stdout logger at `config.logLevel`. */
  logger?: Logger;
  /** Extra flags for the embedded Postgres (e.g. `['-c', 'fsync=off']`). */
  embeddedPostgresFlags?: string[];
  /** Schema-sync settings over the config's (tests shorten the listener's reconnect delays). */
  schemaSync?: SchemaSyncOptions;
  /** How often the sources beside `default` are probed (sourceWatch.ts; tests shorten it). */
  sourceWatch?: Partial<SourceWatchOptions>;
  /** Called after a metadata change made through this engine is live, with its resource version (cluster workers relay it). */
  onLocalSchemaChange?: (resourceVersion: number | undefined) => void;
  /** The database URL is an embedded Postgres another process started (a cluster worker's primary). */
  embeddedPostgresOfPrimary?: boolean;
}

export interface EngineHandle {
  /** `http://<host>:<port>` (127.0.0.1 when listening on all interfaces). */
  url: string;
  port: number;
  ctx: EngineContext;
  /** The database URL in use (the embedded one when started). */
  databaseUrl: string;
  /** Told that another process changed the metadata: rebuilds if the stored version is newer than the live one. */
  syncSchema(reason: string): void;
  /** Graceful shutdown; safe to call more than once. */
  stop(): Promise<void>;
}

/** Optional export of api/index.ts: starts background work (events, crons, async actions) and returns its stop. */
type StartWorkers = (ctx: EngineContext) => Promise<(() => Promise<void>) | void>;

export async function startEngine(config: ServerConfig, options: StartEngineOptions = {}): Promise<EngineHandle> {
  const logger = options.logger ?? createLogger(config.logLevel, 1, logFormatFor(config.logFormat));
  const { version } = packageInfo();
  const undo: Array<() => Promise<void>> = [];
  const runUndo = async () => {
    while (undo.length > 0) {
      const step = undo.pop()!;
      try {
        await step();
      } catch (err) {
        logger.error({ type: 'shutdown', err }, 'shutdown step failed');
      }
    }
  };

  try {
    // Tracing first, so the database handle and every request made after it are traced.
    if (config.otelExporterOtlpEndpoint !== undefined && !tracingOn()) {
      const stopTracing = await startTracing({ endpoint: config.otelExporterOtlpEndpoint, serviceName: config.otelServiceName, serviceVersion: version });
      undo.push(stopTracing);
      logger.info({ type: 'startup', kind: 'tracing', endpoint: tracesUrl(config.otelExporterOtlpEndpoint) }, 'OpenTelemetry tracing on');
    }
    // `--hasura-compat auto` is decided by the catalog: until then the auth settings are only checked (Hasura's words allowed).
    let authenticator: Authenticator | undefined;
    if (config.hasuraCompat === 'auto') checkAuthConfig(config, true); // its warnings are logged once, when it is built
    else authenticator = await createAuthenticator(config, logger, { version, hasuraCompat: config.hasuraCompat === 'true' });
    undo.push(async () => authenticator?.close());
    logHasuraEnv(config, logger);

    let databaseUrl = config.databaseUrl;
    let embedded: EmbeddedPostgresHandle | undefined;
    if (databaseUrl === undefined) {
      const t0 = performance.now();
      embedded = await startEmbeddedPostgres({
        dataDir: config.dataDir,
        port: config.embeddedPgPort,
        postgresFlags: options.embeddedPostgresFlags,
        onLog: (line) => logger.debug({ type: 'pg-log', line }),
      });
      const pg = embedded;
      undo.push(() => pg.stop());
      databaseUrl = embedded.url;
      logger.info({ type: 'startup', kind: 'embedded-postgres', data_dir: embedded.dataDir, port: embedded.port, duration_ms: Math.round(performance.now() - t0) }, 'embedded Postgres started');
    }

    // One line naming the cause (refused, timed out, auth, no such database, TLS) instead of a generic error.
    await checkConnection(databaseUrl);
    // One line when the database goes away and one when it is back, whichever part notices first.
    const listenDatabaseUrl = config.listenDatabaseUrl ?? databaseUrl;
    const dbWatch = createDatabaseWatch(logger, { databaseUrl, listenUrl: listenDatabaseUrl });
    undo.push(async () => dbWatch.stop());
    let lastFailure = { message: '', at: 0 };
    let lastIdleFailure = { message: '', at: 0 };
    const db = createDb(databaseUrl, config.pgConnections, {
      readBuffer: config.pgReadBuffer,
      pipelineDepth: config.pgPipelineDepth,
      // A lost idle connection of another cause: one line per 10 s per cause.
      onError: (err) => {
        if (dbWatch.covers(err)) return logger.debug({ type: 'pg-pool', err: err.message }, 'idle Postgres connection failed');
        const now = Date.now();
        if (err.message === lastIdleFailure.message && now - lastIdleFailure.at < 10_000) return;
        lastIdleFailure = { message: err.message, at: now };
        logger.warn({ type: 'pg-pool', err: err.message }, `idle Postgres connection failed (${err.message}); it is replaced on the next request`);
      },
      // A connection refused for another cause (authentication, too many connections): each cause once per 10 s.
      onConnectFailure: (message, err) => {
        if (dbWatch.covers(err)) return logger.debug({ type: 'pg-connection' }, message);
        const now = Date.now();
        if (message === lastFailure.message && now - lastFailure.at < 10_000) return;
        lastFailure = { message, at: now };
        logger.error({ type: 'pg-connection' }, message);
      },
    });
    undo.push(() => db.close());
    const catalog = await migrateCatalog(db, { adoptHasura: config.adoptHasuraCatalog });
    if (catalog.adoption) {
      const a = catalog.adoption;
      const counts = Object.entries(a.imported).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`).join(', ');
      logger.info(
        { type: 'startup', kind: 'hasura-adoption', ...a },
        `adopted ${a.adopted_from}: imported ${counts || 'nothing'}; not imported: ${a.not_imported.length === 0 ? 'nothing' : a.not_imported.join('; ')} (kept in hdb_catalog.svc_catalog.adoption_report)`,
      );
    }
    const hasuraCompat = config.hasuraCompat === 'auto' ? catalog.adoptedFrom !== undefined : config.hasuraCompat === 'true';
    authenticator ??= await createAuthenticator(config, logger, { version, hasuraCompat });
    if (hasuraCompat) {
      logger.info(
        { type: 'startup', kind: 'hasura-compat', mode: config.hasuraCompat },
        "Hasura's words accepted beside the engine's: X-Hasura-* headers, JWT claims under https://hasura.io/jwt/claims with x-hasura-* keys, the auth webhook's X-Hasura-* answer",
      );
    }
    // --hasura-compat implies Hasura's session variables unless they are turned off by name.
    const hasuraSession = config.hasuraSessionVariables === 'auto' ? catalog.adoptedFrom !== undefined || hasuraCompat : config.hasuraSessionVariables === 'true';
    if (hasuraSession) {
      logger.info({ type: 'startup', kind: 'hasura-session', mode: config.hasuraSessionVariables }, "Hasura-compatible session variables on: hasura.user (x-hasura-*) is set beside svc.user (x-svc-*)");
    } else {
      const readers = await db.transaction({}, (c) => findHasuraSessionReaders(c));
      if (readers.length > 0) logger.warn({ type: 'startup', kind: 'hasura-session', functions: readers }, hasuraSessionWarning(`SQL in the database (${readers.join(', ')})`));
    }
    // One pool per Postgres source beside `default` (made when a build first reads the source).
    const sources = new SourcePools({
      onError: (err) => logger.warn({ type: 'source', err: String(err) }, 'a source connection failed'),
      replicaOptions: (source) => replicaOptions(config, logger, source),
    });
    undo.push(() => sources.close());
    const state = await createAppState(db, config, logger, catalog.metadataTable, sources);
    // Adopted metadata was written straight to the catalog: install the capture of its event triggers (and Hasura v2's cron triggers).
    if (catalog.adoption) {
      await db.transaction({}, (c) => installAdopted(c, state.current, catalog.adoption!, logger));
      await adoptSourceCatalogs(db, sources, state.current, logger);
    }
    const replicaSetup = await ReplicaSetup.start(config, state.current.metadata, databaseUrl, db, logger);
    undo.push(() => replicaSetup.stop());
    // Registered (and heartbeating) before the workers start; deregistered after they stopped.
    const heartbeat = await startHeartbeat(db, state.instanceId ?? INSTANCE_ID, config.instanceHeartbeatTimeoutSeconds, logger, dbWatch);
    undo.push(() => heartbeat.stop());
    // Other engines change metadata: poll the version row, and LISTEN for the wake-up on a session connection.
    const sync = startSchemaSync(db, state, logger, { watch: dbWatch, pollMs: config.schemaSyncIntervalMs, restMaxMs: config.idlePollMaxIntervalMs, listenUrl: listenDatabaseUrl, prepare: config.usePreparedStatements, ...options.schemaSync });
    undo.push(() => sync.stop());
    await sync.ready;
    const responseCache = await createResponseCache(config, logger, await cacheScope(db, config, version, hasuraSession));
    undo.push(() => responseCache.close());
    const limitDefaults = apiLimitDefaults(config, hasuraCompat, state.current.metadata.api_limits, logger);
    const ctx: EngineContext = { config, db, sources, dbWatch, logger, state, version, databaseUrl, listenDatabaseUrl, consoleEnabled: config.enableConsole ?? embedded !== undefined, responseCache, hasuraSession, hasuraCompat, replicas: undefined, limitDefaults, onInstanceSilent: (fn) => heartbeat.onSilent(fn) };
    if (config.enableMetrics) ctx.metrics = engineMetrics(ctx);
    replicaSetup.attach(ctx);
    await replicaSetup.settled();
    // A source that stops answering is reported, and one the schema was built without is built in when back.
    const sourceWatch = startSourceWatch(state, sources, logger, { ...SOURCE_WATCH, ...options.sourceWatch });
    undo.push(() => sourceWatch.stop());
    {
      // The metadata's read_replicas (default's unless --read-replica-urls, every other source's) apply
      // on every install: this engine's changes and the schema sync's.
      ctx.readReplicaSetup = replicaSetup;
      const install = state.install.bind(state);
      state.install = (cache, resourceVersion) => {
        install(cache, resourceVersion);
        replicaSetup.follow(state.current.metadata);
      };
      const rebuild = state.rebuild.bind(state);
      state.rebuild = async () => {
        const cache = await rebuild();
        replicaSetup.follow(cache.metadata);
        return cache;
      };
    }
    {
      // A dropped or renamed source's pool is closed once the metadata without it is in use.
      const install = state.install.bind(state);
      state.install = (cache, resourceVersion) => {
        install(cache, resourceVersion);
        sources.retain(new Set((state.current.metadata.sources ?? []).map((s) => s.name)));
      };
    }
    if (config.strictSchemaSync) ctx.catchUp = () => sync.catchUp();
    const onLocalSchemaChange = options.onLocalSchemaChange;
    if (onLocalSchemaChange) {
      const install = state.install.bind(state);
      state.install = (cache, resourceVersion) => {
        install(cache, resourceVersion);
        onLocalSchemaChange(resourceVersion);
      };
    }

    const startWorkers = (api as Record<string, unknown>).startWorkers as StartWorkers | undefined;
    if (typeof startWorkers === 'function') {
      const stopWorkers = await startWorkers(ctx);
      if (typeof stopWorkers === 'function') undo.push(stopWorkers);
    }

    const server = createEngineServer(ctx, api as Record<string, unknown>);
    const port = await server.listen(config.serverPort, config.serverHost).catch((err: unknown) => {
      throw listenError(err, config.serverHost, config.serverPort);
    });
    undo.push(() => server.close(config.shutdownTimeoutMs));
    const host = config.serverHost === '0.0.0.0' || config.serverHost === '::' ? '127.0.0.1' : config.serverHost;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    const consoleUrl = ctx.consoleEnabled ? `${url}/console` : undefined;
    logger.info(
      {
        type: 'startup',
        kind: 'server',
        version,
        host: config.serverHost,
        port,
        embedded_postgres: embedded !== undefined || options.embeddedPostgresOfPrimary === true,
        console: consoleUrl ?? false,
        enabled_apis: [...config.enabledApis],
        live_query_options: { batch_size: config.liveQueries.batchSize, refetch_delay: config.liveQueries.refetchIntervalMs / 1000 },
      },
      `svc-graphql-engine ${version} listening on ${url} (${consoleUrl ? `console at ${consoleUrl}` : 'console off: --enable-console turns it on'})`,
    );
    const open = openAccessWarning(config);
    // A cluster's primary logs it once for all its workers (cluster.ts).
    if (open && !cluster.isWorker) logger.warn({ type: 'startup', kind: open.code, host: config.serverHost }, open.message);

    let stopping: Promise<void> | undefined;
    return {
      url,
      port,
      ctx,
      databaseUrl,
      syncSchema: (reason) => sync.wake(reason),
      stop: () =>
        (stopping ??= (async () => {
          logger.info({ type: 'shutdown', in_flight: server.inFlight }, 'shutting down');
          await runUndo();
          logger.info({ type: 'shutdown' }, 'stopped');
        })()),
    };
  } catch (err) {
    await runUndo();
    throw err;
  }
}

/** One line for the HASURA_GRAPHQL_* variables read (under --hasura-compat), one for those set but not read. */
function logHasuraEnv(config: ServerConfig, logger: Logger): void {
  const env = config.hasuraEnv;
  if (env === undefined) return;
  if (env.read.length > 0) logger.info({ type: 'startup', kind: 'hasura-env', read: env.read }, `read Hasura's variables where the engine's are unset: ${env.read.join(', ')}`);
  if (env.notRead.length === 0) return;
  const why = (name: string) => HASURA_ENV_NOT_READ.get(name) ?? (config.hasuraCompat === 'true' ? 'no option of the engine matches it' : 'start with --hasura-compat (SVC_GRAPHQL_HASURA_COMPAT=true) to read it');
  logger.warn(
    { type: 'startup', kind: 'hasura-env', not_read: env.notRead },
    `Hasura's variables set but not read: ${env.notRead.map((n) => `${n} (${why(n)})`).join('; ')}`,
  );
}

/**
 * Which API limits apply: the --query-*-limit flags always; the metadata's `api_limits` too, except
 * under --hasura-compat or on a catalog adopted from Hasura, where they are only stored (Hasura's
 * open-source edition applies none, and projects written for it may hold limits their own clients
 * exceed) unless --apply-api-limits. The stored limits are reported here, once, either way.
 */
function apiLimitDefaults(config: ServerConfig, compat: boolean, stored: ApiLimits | undefined, logger: Logger): LimitDefaults {
  const ignoreMetadataLimits = compat && !config.applyApiLimits;
  const lines = describeApiLimits(stored);
  if (compat && lines.length > 0) {
    const how = stored?.disabled === true
      ? 'disabled in the metadata (disabled: true): not applied'
      : ignoreMetadataLimits
        ? 'stored, not applied (as in Hasura\'s open-source edition); start with --apply-api-limits to apply depth_limit, node_limit and batch_limit'
        : 'depth_limit, node_limit and batch_limit applied (--apply-api-limits)';
    logger.info(
      { type: 'startup', kind: 'api-limits', api_limits: encodeApiLimits(stored), applied: !ignoreMetadataLimits && stored?.disabled !== true },
      `metadata api_limits (${lines.join('; ')}): ${how}; time_limit and rate_limit are never applied by this engine`,
    );
  }
  return { queryDepthLimit: config.queryDepthLimit, queryNodeLimit: config.queryNodeLimit, queryBatchLimit: config.queryBatchLimit, ignoreMetadataLimits };
}

/**
 * What an adoption leaves for the later stages: the capture triggers of the imported event triggers and
 * Hasura v2's cron triggers (each one that does not decode is named in a warning, the others installed).
 */
async function installAdopted(c: DbClient, cache: EngineContext['state']['current'], adoption: AdoptionReport, logger: Logger): Promise<void> {
  await syncEventTriggers(c, cache);
  for (const [i, raw] of (adoption.cron_triggers ?? []).entries()) {
    let def: CronTriggerDef;
    try {
      const { replace: _replace, ...t } = decodeCronTrigger(raw, `$.cron_triggers[${i}]`);
      def = { ...t, include_in_metadata: true };
    } catch (e) {
      logger.warn({ type: 'startup', kind: 'hasura-adoption', cron_trigger: raw }, `cron trigger not imported: ${(e as Error).message}`);
      continue;
    }
    await upsertCronTrigger(c, def);
  }
}

/**
 * Hasura v2 keeps each further source's event log in that source's own `hdb_catalog`: on adoption every
 * readable source gets the same treatment as `default` there (the lease columns added to Hasura's
 * event_log, its rows untouched, so pending events are delivered; Hasura's capture triggers replaced by
 * the engine's). A source that cannot be read now is named in a warning (Hasura's triggers stay there).
 */
async function adoptSourceCatalogs(db: Db, pools: SourcePools, cache: EngineContext['state']['current'], logger: Logger): Promise<void> {
  for (const s of cache.metadata.sources ?? []) {
    const built = cache.sources?.get(s.name);
    try {
      if (!built) throw new Error('its database could not be read');
      const pool = pools.pool(s.name, s.configuration.connection_info);
      const dropped = await pool.db.transaction({}, async (c) => {
        // The engine's own database added under another name: adopted as `default` already.
        if (await db.withClient((e) => sameDatabaseOf(c, e))) return 0;
        const n = await readyHasuraQueues(c);
        await syncEventTriggers(c, built, { source: { name: s.name, previous: [] } });
        return n;
      });
      logger.info({ type: 'startup', kind: 'hasura-adoption', source: s.name, hasura_capture_triggers_dropped: dropped }, `adopted the event log of source ${JSON.stringify(s.name)}`);
    } catch (err) {
      logger.warn({ type: 'startup', kind: 'hasura-adoption', source: s.name, err: String(err) },
        `the event log of source ${JSON.stringify(s.name)} was not adopted: ${(err as Error).message}; Hasura's capture triggers (hdb_catalog.notify_hasura_*) stay in its database: drop them before defining event triggers there`);
    }
  }
}

/**
 * The engine's metrics: gauges read at scrape time (pool, WebSockets, live queries) and the
 * schema-rebuild counter, counted where the app state installs or rebuilds a schema cache.
 */
function engineMetrics(ctx: EngineContext): EngineMetrics {
  const m = new EngineMetrics();
  const { db, state } = ctx;
  m.registerGauge('svc_pg_pool_connections', 'Postgres pool connections by state', () => {
    const p = db.poolStats();
    return [
      { labels: { state: 'in_use' }, value: p.total - p.idle },
      { labels: { state: 'idle' }, value: p.idle },
      { labels: { state: 'waiting' }, value: p.waiting },
    ];
  }, ['state']);
  const cache = ctx.responseCache;
  if (cache) {
    m.registerCounterReading('svc_cache_request_count', 'Requests of @cached queries, by outcome (hit: answered from the cache)', () => [
      { labels: { status: 'hit' }, value: cache.stats().hits },
      { labels: { status: 'miss' }, value: cache.stats().misses },
    ], ['status']);
  }
  m.registerGauge('svc_websocket_connections', 'Open GraphQL WebSocket connections', () => liveQueryStats(ctx).connections);
  m.registerGauge('svc_live_query_cohorts', 'Live-query cohorts being polled', () => liveQueryStats(ctx).cohorts);
  m.registerGauge('svc_live_query_subscribers', 'Live-query subscribers', () => liveQueryStats(ctx).subscribers);
  const install = state.install.bind(state);
  state.install = (cache, resourceVersion) => {
    m.schemaRebuilt();
    install(cache, resourceVersion);
  };
  const rebuild = state.rebuild.bind(state);
  state.rebuild = () => {
    m.schemaRebuilt();
    return rebuild();
  };
  return m;
}

/**
 * What every `@cached` key of this engine starts with: the database (system identifier and name), the
 * source, and the options that shape an answer. Engines sharing one Redis meet only when all agree.
 */
async function cacheScope(db: Db, config: ServerConfig, version: string, hasuraSession: boolean): Promise<CacheScope> {
  const id = await databaseIdentity(db);
  return {
    systemIdentifier: id.system,
    database: id.database,
    source: 'default',
    options: {
      version,
      naming: config.defaultNamingConvention ?? null,
      stringifyNumericTypes: config.stringifyNumericTypes === true,
      hasuraSession,
    },
  };
}

/** The `@cached` store: Redis when --redis-url is set (unreachable → the engine does not start), else memory. */
async function createResponseCache(config: ServerConfig, logger: Logger, scope: CacheScope): Promise<ResponseCache> {
  if (!config.redisUrl) return new ResponseCache(new MemoryStore(config.cacheMemorySize), config.cacheMaxEntryTtl, scope);
  let last = 0;
  const onError = (err: unknown) => {
    // While Redis is down every cached request fails the same way: log once per 10 s.
    if (Date.now() - last < 10_000) return;
    last = Date.now();
    logger.warn({ type: 'response-cache', err }, 'Redis response cache unavailable; @cached queries run uncached');
  };
  let store: RedisStore;
  try {
    store = await RedisStore.connect(config.redisUrl, onError);
  } catch (e) {
    throw new Error(`cannot connect to the Redis response cache (--redis-url): ${e instanceof Error ? e.message : String(e)}`);
  }
  return new ResponseCache(store, config.cacheMaxEntryTtl, scope, onError);
}
