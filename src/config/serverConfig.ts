/**
 * The engine's configuration after flags and SVC_GRAPHQL_* variables are read (flags win).
 * Frozen once built; every module receives the parts it needs from here.
 */
import type { NamingConvention } from '../core/index.js';

export type EnabledApi = 'graphql' | 'metadata' | 'config' | 'pgdump' | 'developer';

export interface JwtSecretConfig {
  type?: string;
  key?: string;
  jwk_url?: string;
  claims_namespace?: string;
  claims_namespace_path?: string;
  claims_format?: 'json' | 'stringified_json';
  audience?: string | string[];
  issuer?: string;
  claims_map?: Record<string, unknown>;
}

export interface ServerConfig {
  serverHost: string; // default 0.0.0.0
  serverPort: number; // default 8080
  /** Postgres URL; undefined → start the embedded Postgres. */
  databaseUrl?: string;
  /** Folder of the embedded Postgres data (default ./.svc-data). */
  dataDir: string;
  adminSecret?: string;
  unauthorizedRole?: string;
  stringifyNumericTypes: boolean;
  /** `--infer-function-permissions` (default true, as Hasura): query functions need no function permission. */
  inferFunctionPermissions: boolean;
  /** Naming convention of the generated GraphQL names when the source's metadata sets none. */
  defaultNamingConvention: NamingConvention;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Log line format; unset: pretty when stdout is a terminal, JSON otherwise. */
  logFormat?: 'pretty' | 'json';
  /** Pool size (default 50 as Hasura; tune for speed). */
  pgConnections: number;
  jwtSecret?: JwtSecretConfig;
  /** Several JWT configurations (`--jwt-secrets`, a JSON list); when set, `jwtSecret` is not used. */
  jwtSecrets?: JwtSecretConfig[];
  authHook?: string;
  authHookMode: 'GET' | 'POST';
  enabledApis: ReadonlySet<EnabledApi>;
  corsDomain: string[] | '*';
  disableCors: boolean;
  enableAllowlist: boolean;
  /** Remote schema permissions are enforced (`--enable-remote-schema-permissions`). */
  enableRemoteSchemaPermissions: boolean;
  liveQueries: { batchSize: number; refetchIntervalMs: number; changePollIntervalMs: number };
  /** Seconds of clock leeway for JWT exp/nbf/iat. */
  jwtLeewaySeconds: number;
  /** Opt-in: answer 401 instead of 200 when a JWT has expired. */
  jwtExpiredStatus: 200 | 401;
  /** Show `internal` error details to admin (Hasura's dev mode / admin internal errors). */
  /** Consent to take over a Hasura v1.3 catalog (import its metadata); off: refuse to start on it. */
  adoptHasuraCatalog: boolean;
  /**
   * Hasura-compatible session variables (`hasura.user`, `x-hasura-*` keys beside `svc.user`, `x-svc-*`);
   * `auto`: on when the catalog was adopted from Hasura (startEngine resolves it into `EngineContext.hasuraSession`).
   */
  hasuraSessionVariables: 'auto' | 'true' | 'false';
  /**
   * Hasura's words beside the engine's (`--hasura-compat`): X-Hasura-* headers, hasura.io JWT claims, the
   * webhook's X-Hasura-* answer, HASURA_GRAPHQL_* variables; `auto`: on when the catalog was adopted from
   * Hasura (startEngine resolves it into `EngineContext.hasuraCompat`; HASURA_GRAPHQL_* are read only with `true`).
   */
  hasuraCompat: 'auto' | 'true' | 'false';
  /** HASURA_GRAPHQL_* variables read in place of unset SVC_GRAPHQL_* ones, and those set but not read; absent when none is set. */
  hasuraEnv?: { read: readonly string[]; notRead: readonly string[] };
  /** Apply metadata api_limits under --hasura-compat / an adopted Hasura catalog (`--apply-api-limits`). */
  applyApiLimits: boolean;
  devMode: boolean;
  /** GET /v1/metrics and the counters behind it (default true). */
  enableMetrics: boolean;
  /** Serve the web console at /console; unset → on when the engine runs its embedded Postgres, off with a database URL (as Hasura leaves it off). */
  enableConsole?: boolean;
  /** A secret that may read /v1/metrics (besides the admin secret). */
  metricsSecret?: string;
  /** OpenTelemetry: the OTLP/HTTP endpoint spans are sent to; unset → tracing off (nothing loaded). */
  otelExporterOtlpEndpoint?: string;
  /** OpenTelemetry: `service.name` of the spans (default svc-graphql-engine). */
  otelServiceName: string;
  /** Port of the embedded Postgres (used only without databaseUrl); undefined → a free port. */
  embeddedPgPort?: number;
  /** Use named prepared statements for generated queries (default true, as Hasura). */
  usePreparedStatements: boolean;
  /**
   * Skip `set_config('svc.user', …)` for a mutation that provably never reads it (planner/sessionFree.ts;
   * default true); false: set it before every mutation.
   */
  skipUnreadSession: boolean;
  /** Serve plain HTTP/1.1 requests on the engine's own fast path (server/fastConnection.ts); false: node:http only. */
  httpFastPath: boolean;
  /** Read Postgres sockets into one reused buffer per connection (execution/messageReader.ts); false: pg's own socket. */
  pgReadBuffer: boolean;
  /** Units on one shared connection at most when the pool is busy (execution/sharedConnections.ts); 1: no pipelining. */
  pgPipelineDepth: number;
  /** Event delivery: max concurrent webhook calls (default 100). */
  eventsHttpPoolSize: number;
  /** Event delivery: poll interval for new events in ms (default 1000). */
  eventsFetchIntervalMs: number;
  /** Longest pause of the backstop polls while idle and notifications verifiably arrive (--idle-poll-max-interval). */
  idlePollMaxIntervalMs: number;
  /** Seconds without a heartbeat after which an engine's claims (events, scheduled events, async actions) are claimable by others (default 20). */
  instanceHeartbeatTimeoutSeconds: number;
  /** Poll interval of the metadata version in ms (default 1000; 0: LISTEN only). */
  schemaSyncIntervalMs: number;
  /** Each API request first catches up with the stored metadata version (read-your-metadata across engines). */
  strictSchemaSync: boolean;
  /** Session connection for LISTEN wake-ups; unset → the database URL. */
  listenDatabaseUrl?: string;
  /** Async actions: poll interval in ms; 0 disables the processor (default 1000). */
  asyncActionsFetchIntervalMs: number;
  /** Postgres URLs of hot standbys that serve GraphQL reads; unset → the metadata's `read_replicas`, if any. */
  readReplicaUrls?: string[];
  /** Pool size of each read replica (default 50). */
  readReplicaPoolSize: number;
  /** Lag (ms) past which a replica gets no new reads (default 5000). */
  readReplicaMaxLagMs: number;
  /** How often (ms) the replicas' replay positions are measured (default 500). */
  readReplicaCheckIntervalMs: number;
  /** How long (ms) a read with a commit LSN waits for a replica to replay it before reading from the primary (default 10). */
  readReplicaWaitForLsnMs: number;
  /** Graceful shutdown: how long to wait for in-flight requests, in ms (default 10000). */
  shutdownTimeoutMs: number;
  /** Worker processes on one port (server/cluster.ts); 1: the engine runs in this process. `auto` is resolved to the usable cores. */
  workers: number;
  /** API limits: default maximum query depth for non-admin roles; unset → none (metadata `api_limits` may set one). */
  queryDepthLimit?: number;
  /** API limits: default maximum number of fields per operation for non-admin roles; unset → none. */
  queryNodeLimit?: number;
  /** API limits: default maximum operations per batched request for non-admin roles; unset → none. */
  queryBatchLimit?: number;
  /** Largest /v1/graphql request body of a non-admin role, in bytes (parsing JSON blocks the event loop: ~30 ms per MB). */
  maxNonAdminBodySize: number;
  /** Most JSON values (objects, arrays, members) a non-admin body may hold, counted before parsing (each costs parse time). */
  maxNonAdminJsonValues: number;
  /** Largest body read before the caller is known to be allowed (POST-mode webhook, WebSocket before connection_init, non-admin /v1/query and /v1/metadata). */
  maxUnauthenticatedBodySize: number;
  /** Largest ttl (seconds) of `@cached(ttl:)`. */
  cacheMaxEntryTtl: number;
  /** Bytes held by the in-memory response cache (used when no Redis URL is set). */
  cacheMemorySize: number;
  /** Redis URL of the response cache; unset → the in-memory store. */
  redisUrl?: string;
  /** Largest admin request body or WebSocket message, in bytes. */
  maxAdminBodySize: number;
  /** WebSocket messages received but not yet handled, per connection. */
  wsMaxQueuedMessages: number;
  /** Whether connection_init's payload headers may replace the upgrade request's headers; unset → only without an admin secret. */
  wsInitOverridesHeaders?: boolean;
}
