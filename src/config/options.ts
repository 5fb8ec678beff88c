/**
 * THE defaults table: every option with its flag, its SVC_GRAPHQL_* twin, its default (as text,
 * parsed by the same parser as user input) and its help line. `loadConfig` and `--help` both
 * read this table, so they cannot disagree.
 */
import { NAMING_CONVENTIONS } from '../core/index.js';
import * as p from './parsers.js';
import type { ServerConfig } from './serverConfig.js';

/** Config keys set directly from one option (liveQueries is assembled from three). */
export type OptionKey = Exclude<keyof ServerConfig, 'liveQueries' | 'hasuraEnv'> | 'liveQueriesBatchSize' | 'liveQueriesRefetchIntervalMs' | 'liveQueriesChangePollIntervalMs';

export interface OptionSpec {
  key: OptionKey;
  flag: string;
  env: string;
  /** Default as text; absent → unset. */
  default?: string;
  /** Shown in --help instead of `default` when the default is computed. */
  defaultHelp?: string;
  help: string;
  parse: p.Parser<unknown>;
  /** A boolean flag: `--flag` alone means true. */
  boolean?: boolean;
  /**
   * Hasura's variables for this option, read under `--hasura-compat` when `env` is unset (the first one set
   * wins); absent: `env` with `HASURA_GRAPHQL_` for `SVC_GRAPHQL_`; `[]`: none.
   */
  hasuraEnv?: readonly string[];
  /** Parses a value read from a Hasura variable whose unit differs from the flag's (seconds where the flag takes ms). */
  hasuraParse?: p.Parser<unknown>;
}

const opt = (o: OptionSpec): OptionSpec => o;

export const OPTIONS: readonly OptionSpec[] = [
  opt({ key: 'serverHost', flag: '--server-host', env: 'SVC_GRAPHQL_SERVER_HOST', default: '0.0.0.0', help: 'Interface to listen on', parse: p.str }),
  opt({ key: 'serverPort', flag: '--server-port', env: 'SVC_GRAPHQL_SERVER_PORT', default: '8080', help: 'HTTP port', parse: p.int(1, 65535) }),
  opt({ key: 'databaseUrl', flag: '--database-url', env: 'SVC_GRAPHQL_DATABASE_URL', defaultHelp: '(embedded Postgres)', help: 'Postgres URL; when unset an embedded Postgres is started in --data-dir', parse: p.postgresUrl }),
  opt({ key: 'listenDatabaseUrl', flag: '--listen-database-url', env: 'SVC_GRAPHQL_LISTEN_DATABASE_URL', defaultHelp: '(the database URL)', help: 'Postgres URL of a session connection (Postgres itself, not a transaction pooler) for LISTEN wake-ups of the schema sync and the workers; only speeds them up, polling never relies on it', parse: p.postgresUrl }),
  opt({ key: 'schemaSyncIntervalMs', flag: '--schema-sync-interval', env: 'SVC_GRAPHQL_SCHEMA_SYNC_INTERVAL', default: '1000', help: 'How often (ms) to poll the metadata version (hdb_catalog.hdb_metadata.resource_version) for changes made through other engines; 0 turns polling off (LISTEN only)', parse: p.int(0, 3_600_000), hasuraEnv: ['HASURA_GRAPHQL_SCHEMA_SYNC_POLL_INTERVAL'] }),
  opt({ key: 'strictSchemaSync', flag: '--strict-schema-sync', env: 'SVC_GRAPHQL_STRICT_SCHEMA_SYNC', default: 'false', help: 'Before answering a GraphQL or metadata request (or opening a WebSocket), read the stored metadata version and catch up first when another engine changed it: a change made through any engine is seen by the next request on every engine (one indexed read shared by the requests arriving together); false: eventually consistent (the poll, the LISTEN wake-up), as Hasura', parse: p.bool, boolean: true }),
  opt({ key: 'dataDir', flag: '--data-dir', env: 'SVC_GRAPHQL_DATA_DIR', default: './.svc-data', help: 'Data folder of the embedded Postgres', parse: p.str }),
  opt({ key: 'embeddedPgPort', flag: '--embedded-pg-port', env: 'SVC_GRAPHQL_EMBEDDED_PG_PORT', defaultHelp: '(a free port)', help: 'TCP port of the embedded Postgres (127.0.0.1 only)', parse: p.int(1, 65535) }),
  opt({ key: 'pgConnections', flag: '--pg-connections', env: 'SVC_GRAPHQL_PG_CONNECTIONS', default: '50', help: 'Maximum Postgres connections in the pool', parse: p.int(1, 10000) }),
  opt({ key: 'readReplicaUrls', flag: '--read-replica-urls', env: 'SVC_GRAPHQL_READ_REPLICA_URLS', defaultHelp: '(none; else the read_replicas of the metadata)', help: 'Comma list of Postgres URLs of hot standbys of the database: GraphQL queries and subscriptions read from them (writes, metadata, events, actions stay on the primary); each must be in recovery and a copy of the same database, or the engine refuses to start', parse: p.postgresUrlList }),
  opt({ key: 'readReplicaPoolSize', flag: '--read-replica-pool-size', env: 'SVC_GRAPHQL_READ_REPLICA_POOL_SIZE', default: '50', help: 'Maximum Postgres connections in the pool of each read replica (a replica from the metadata may set its own in pool_settings.max_connections)', parse: p.int(1, 10000) }),
  opt({ key: 'readReplicaMaxLagMs', flag: '--read-replica-max-lag', env: 'SVC_GRAPHQL_READ_REPLICA_MAX_LAG', default: '5', help: 'Seconds a read replica may lag behind the primary (measured in the background by WAL position) before it gets no new reads until it catches up', parse: p.secondsAsMs(0.01, 86_400) }),
  opt({ key: 'readReplicaCheckIntervalMs', flag: '--read-replica-check-interval', env: 'SVC_GRAPHQL_READ_REPLICA_CHECK_INTERVAL', default: '500', help: "How often (ms) each read replica's replay position (and so its lag) is measured", parse: p.int(50, 600_000) }),
  opt({ key: 'readReplicaWaitForLsnMs', flag: '--read-replica-wait-for-lsn', env: 'SVC_GRAPHQL_READ_REPLICA_WAIT_FOR_LSN', default: '10', help: "How long (ms) a read sent with X-Svc-Commit-Lsn waits for a read replica to replay that commit (the replica is asked on demand) before it reads from the primary; 0: ask once, do not wait", parse: p.int(0, 10_000) }),
  opt({ key: 'usePreparedStatements', flag: '--use-prepared-statements', env: 'SVC_GRAPHQL_USE_PREPARED_STATEMENTS', default: 'true', help: 'Prepare generated queries (named statements per connection)', parse: p.bool, boolean: true }),
  opt({ key: 'skipUnreadSession', flag: '--skip-unread-session', env: 'SVC_GRAPHQL_SKIP_UNREAD_SESSION', default: 'true', help: "Run a mutation without setting the session variables (svc.user) when the introspected database shows nothing can read them: the written tables have no trigger, row security, rule, inheritance child, foreign key cascading into them, or default or constraint calling a function that could, and the statement reads no other relation or function; false: set them before every mutation, as Hasura (for databases whose triggers or policies are changed outside the engine, without run_sql or a metadata reload)", parse: p.bool, boolean: true }),
  opt({ key: 'httpFastPath', flag: '--http-fast-path', env: 'SVC_GRAPHQL_HTTP_FAST_PATH', default: 'true', help: "Serve plain HTTP/1.1 requests on the engine's own parser (false: node:http for every request)", parse: p.bool, boolean: true }),
  opt({ key: 'pgReadBuffer', flag: '--pg-read-buffer', env: 'SVC_GRAPHQL_PG_READ_BUFFER', default: 'true', help: "Read Postgres sockets into one reused buffer per connection (false: node-postgres' own socket)", parse: p.bool, boolean: true }),
  opt({ key: 'pgPipelineDepth', flag: '--pg-pipeline-depth', env: 'SVC_GRAPHQL_PG_PIPELINE_DEPTH', default: '2', help: 'Queries/mutations written behind each other on one connection when the pool is busy (1: none)', parse: p.int(1, 64) }),
  opt({ key: 'adminSecret', flag: '--admin-secret', env: 'SVC_GRAPHQL_ADMIN_SECRET', help: 'Admin secret (X-Svc-Admin-Secret); unset → every request is admin', parse: p.secret, hasuraEnv: ['HASURA_GRAPHQL_ADMIN_SECRET', 'HASURA_GRAPHQL_ACCESS_KEY'] }),
  opt({ key: 'unauthorizedRole', flag: '--unauthorized-role', env: 'SVC_GRAPHQL_UNAUTHORIZED_ROLE', help: 'Role for requests without credentials', parse: p.str }),
  opt({ key: 'jwtSecret', flag: '--jwt-secret', env: 'SVC_GRAPHQL_JWT_SECRET', help: 'JWT configuration (JSON object: type+key or jwk_url, claims_namespace, audience, issuer, ...)', parse: p.jwtSecret }),
  opt({ key: 'jwtSecrets', flag: '--jwt-secrets', env: 'SVC_GRAPHQL_JWT_SECRETS', help: 'Several JWT configurations (a JSON list of --jwt-secret objects); a token is verified by the one whose issuer is its iss or that has no issuer (none, or more than one, refuses it: Hasura\'s rules); wins over --jwt-secret', parse: p.jwtSecrets }),
  opt({ key: 'jwtLeewaySeconds', flag: '--jwt-leeway-seconds', env: 'SVC_GRAPHQL_JWT_LEEWAY_SECONDS', default: '5', help: 'Clock leeway for JWT exp/nbf/iat, in seconds (at most 60)', parse: p.int(0, 60) }),
  opt({ key: 'jwtExpiredStatus', flag: '--jwt-expired-status', env: 'SVC_GRAPHQL_JWT_EXPIRED_STATUS', default: '200', help: 'HTTP status for an expired JWT on /v1/graphql (200 as Hasura, or 401)', parse: (raw, name) => Number(p.oneOf(['200', '401'] as const)(raw, name)) }),
  opt({ key: 'authHook', flag: '--auth-hook', env: 'SVC_GRAPHQL_AUTH_HOOK', help: 'Authentication webhook URL', parse: p.httpUrl }),
  opt({ key: 'authHookMode', flag: '--auth-hook-mode', env: 'SVC_GRAPHQL_AUTH_HOOK_MODE', default: 'GET', help: 'Authentication webhook method: GET or POST', parse: p.oneOf(['GET', 'POST'] as const, { upper: true }) }),
  opt({ key: 'defaultNamingConvention', flag: '--default-naming-convention', env: 'SVC_GRAPHQL_DEFAULT_NAMING_CONVENTION', default: 'hasura-default', help: 'Naming convention of the generated GraphQL names when the source sets none: hasura-default (author_by_pk) or graphql-default (authorByPk, AuthorBoolExp, ASC)', parse: p.oneOf(NAMING_CONVENTIONS) }),
  opt({ key: 'inferFunctionPermissions', flag: '--infer-function-permissions', env: 'SVC_GRAPHQL_INFER_FUNCTION_PERMISSIONS', default: 'true', help: "Expose a tracked query function to every role that may select the table it returns (Hasura's default); false: only to roles given a function permission for it (pg_create_function_permission) that may also select that table. Functions tracked as mutations always need a function permission", parse: p.bool, boolean: true }),
  opt({ key: 'stringifyNumericTypes', flag: '--stringify-numeric-types', env: 'SVC_GRAPHQL_STRINGIFY_NUMERIC_TYPES', default: 'false', help: 'Return bigint/numeric/float8 values as strings', parse: p.bool, boolean: true }),
  opt({ key: 'enabledApis', flag: '--enabled-apis', env: 'SVC_GRAPHQL_ENABLED_APIS', default: 'graphql,metadata,config', help: 'Comma-separated APIs to serve: graphql, metadata, config, pgdump, developer', parse: p.enabledApis }),
  opt({ key: 'enableRemoteSchemaPermissions', flag: '--enable-remote-schema-permissions', env: 'SVC_GRAPHQL_ENABLE_REMOTE_SCHEMA_PERMISSIONS', default: 'false', help: 'Roles see remote schemas only through their remote schema permissions (off: every role sees every remote schema whole)', parse: p.bool, boolean: true }),
  opt({ key: 'enableAllowlist', flag: '--enable-allowlist', env: 'SVC_GRAPHQL_ENABLE_ALLOWLIST', default: 'false', help: 'Only allow GraphQL operations in the allow-list (admin excepted)', parse: p.bool, boolean: true }),
  opt({ key: 'corsDomain', flag: '--cors-domain', env: 'SVC_GRAPHQL_CORS_DOMAIN', default: '*', help: 'Allowed CORS origins: * or a comma list (wildcards: https://*.foo.com, http://localhost:*)', parse: p.corsDomain }),
  opt({ key: 'disableCors', flag: '--disable-cors', env: 'SVC_GRAPHQL_DISABLE_CORS', default: 'false', help: 'Send no CORS headers at all', parse: p.bool, boolean: true }),
  opt({ key: 'liveQueriesBatchSize', flag: '--live-queries-multiplexed-batch-size', env: 'SVC_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_BATCH_SIZE', default: '100', help: 'Subscribers polled per live-query SQL statement', parse: p.int(1, 100000) }),
  opt({ key: 'liveQueriesRefetchIntervalMs', flag: '--live-queries-multiplexed-refetch-interval', env: 'SVC_GRAPHQL_LIVE_QUERIES_MULTIPLEXED_REFETCH_INTERVAL', default: '1000', help: 'Live-query refetch interval in milliseconds', parse: p.int(1, 3_600_000) }),
  opt({ key: 'liveQueriesChangePollIntervalMs', flag: '--live-queries-change-poll-interval', env: 'SVC_GRAPHQL_LIVE_QUERIES_CHANGE_POLL_INTERVAL', default: '50', help: 'How often (ms) the change counters of the tables live queries read are checked (while nothing changes the pause doubles up to 250 ms, 250 ms × the databases with live queries when there are several, at most 1 s; back to this at the first change); a live query reruns only after one of its tables changed. 0: every live query reruns every refetch interval', parse: p.int(0, 60_000) }),
  opt({ key: 'eventsHttpPoolSize', flag: '--events-http-pool-size', env: 'SVC_GRAPHQL_EVENTS_HTTP_POOL_SIZE', default: '100', help: 'Maximum concurrent event-trigger webhook calls', parse: p.int(1, 10000) }),
  opt({ key: 'eventsFetchIntervalMs', flag: '--events-fetch-interval', env: 'SVC_GRAPHQL_EVENTS_FETCH_INTERVAL', default: '1000', help: 'Event-trigger poll interval in milliseconds', parse: p.int(1, 3_600_000) }),
  opt({ key: 'idlePollMaxIntervalMs', flag: '--idle-poll-max-interval', env: 'SVC_GRAPHQL_IDLE_POLL_MAX_INTERVAL', default: '30000', help: 'Longest pause (ms) of the backstop polls while idle: the metadata version poll, the scheduled-trigger tick and the scheduled-event and async-action claims double their pause up to this while nothing happens and this engine\'s LISTEN connections verifiably receive notifications (never behind a transaction pooler without --listen-database-url); any write, notification or lost listener brings them back to their interval. Event-trigger claims always poll at --events-fetch-interval (writes by other clients send no notification). At or below the intervals: no back-off', parse: p.int(1, 3_600_000) }),
  opt({ key: 'instanceHeartbeatTimeoutSeconds', flag: '--instance-heartbeat-timeout', env: 'SVC_GRAPHQL_INSTANCE_HEARTBEAT_TIMEOUT', default: '20', help: 'Seconds without a heartbeat (hdb_catalog.svc_instances, renewed every quarter of it) after which an engine counts as dead and the events, scheduled events and async actions it claimed are claimable by the others; a live engine keeps its claims however long a webhook takes', parse: p.int(1, 3600) }),
  opt({ key: 'asyncActionsFetchIntervalMs', flag: '--async-actions-fetch-interval', env: 'SVC_GRAPHQL_ASYNC_ACTIONS_FETCH_INTERVAL', default: '1000', help: 'Async-action poll interval in milliseconds (0 disables)', parse: p.int(0, 3_600_000) }),
  opt({ key: 'queryDepthLimit', flag: '--query-depth-limit', env: 'SVC_GRAPHQL_QUERY_DEPTH_LIMIT', defaultHelp: '(none)', help: 'Maximum field depth of an operation for non-admin roles (metadata api_limits override it per role)', parse: p.int(1, 1_000_000) }),
  opt({ key: 'queryNodeLimit', flag: '--query-node-limit', env: 'SVC_GRAPHQL_QUERY_NODE_LIMIT', defaultHelp: '(none)', help: 'Maximum number of fields an operation selects, fragments expanded, for non-admin roles', parse: p.int(1, 1_000_000_000) }),
  opt({ key: 'queryBatchLimit', flag: '--query-batch-limit', env: 'SVC_GRAPHQL_QUERY_BATCH_LIMIT', defaultHelp: '(none)', help: 'Maximum operations in one batched /v1/graphql request for non-admin roles', parse: p.int(1, 1_000_000) }),
  opt({ key: 'maxNonAdminBodySize', flag: '--max-non-admin-body-size', env: 'SVC_GRAPHQL_MAX_NON_ADMIN_BODY_SIZE', default: '2097152', help: 'Largest /v1/graphql request body (or WebSocket message) of an authenticated non-admin role, in bytes', parse: p.int(1024, 50 * 1024 * 1024) }),
  opt({ key: 'maxNonAdminJsonValues', flag: '--max-non-admin-json-values', env: 'SVC_GRAPHQL_MAX_NON_ADMIN_JSON_VALUES', default: '100000', help: 'Most JSON values (objects, arrays, members) a non-admin body may hold, counted before it is parsed', parse: p.int(100, 100_000_000) }),
  opt({ key: 'maxUnauthenticatedBodySize', flag: '--max-unauthenticated-body-size', env: 'SVC_GRAPHQL_MAX_UNAUTHENTICATED_BODY_SIZE', default: '65536', help: 'Largest body read before the caller is known: a POST-mode auth webhook\'s request, a WebSocket message before connection_init is accepted, /v1/query and /v1/metadata without admin rights', parse: p.int(1024, 1024 * 1024 * 1024) }),
  opt({ key: 'maxAdminBodySize', flag: '--max-admin-body-size', env: 'SVC_GRAPHQL_MAX_ADMIN_BODY_SIZE', default: '52428800', help: 'Largest request body or WebSocket message of an admin, in bytes', parse: p.int(1024, 1024 * 1024 * 1024) }),
  opt({ key: 'wsMaxQueuedMessages', flag: '--ws-max-queued-messages', env: 'SVC_GRAPHQL_WS_MAX_QUEUED_MESSAGES', default: '1000', help: 'WebSocket messages received but not yet handled, per connection (and at most 64 times the per-message bound in bytes); more closes the socket (1008)', parse: p.int(1, 100_000) }),
  opt({ key: 'wsInitOverridesHeaders', flag: '--ws-init-overrides-headers', env: 'SVC_GRAPHQL_WS_INIT_OVERRIDES_HEADERS', defaultHelp: '(on without an admin secret, off with one)', help: "Let connection_init's payload headers replace the WebSocket upgrade request's own headers (Hasura's behaviour)", parse: p.bool, boolean: true }),
  opt({ key: 'enableConsole', flag: '--enable-console', env: 'SVC_GRAPHQL_ENABLE_CONSOLE', defaultHelp: '(on with the embedded Postgres, off with a database URL)', help: 'Serve the web console at /console', parse: p.bool, boolean: true }),
  opt({ key: 'cacheMaxEntryTtl', flag: '--cache-max-entry-ttl', env: 'SVC_GRAPHQL_CACHE_MAX_ENTRY_TTL', default: '3600', help: 'Largest ttl (seconds) a query may ask for with @cached(ttl:); a larger one is refused', parse: p.int(1, 31_536_000) }),
  opt({ key: 'cacheMemorySize', flag: '--cache-memory-size', env: 'SVC_GRAPHQL_CACHE_MEMORY_SIZE', default: '104857600', help: 'Bytes of responses the in-memory @cached store holds (least recently used dropped first); unused with --redis-url', parse: p.int(0, 1024 * 1024 * 1024 * 64) }),
  opt({ key: 'redisUrl', flag: '--redis-url', env: 'SVC_GRAPHQL_REDIS_URL', defaultHelp: '(in-memory store)', help: 'Redis URL (redis:// or rediss://) of the @cached response store, shared by every engine using it', parse: p.redisUrl }),
  opt({ key: 'enableMetrics', flag: '--enable-metrics', env: 'SVC_GRAPHQL_ENABLE_METRICS', default: 'true', help: 'Serve Prometheus metrics at GET /v1/metrics (admin secret or --metrics-secret)', parse: p.bool, boolean: true }),
  opt({ key: 'metricsSecret', flag: '--metrics-secret', env: 'SVC_GRAPHQL_METRICS_SECRET', help: 'Secret for GET /v1/metrics (Authorization: Bearer <secret>), besides the admin secret', parse: p.secret }),
  opt({ key: 'otelExporterOtlpEndpoint', flag: '--otel-exporter-otlp-endpoint', env: 'SVC_GRAPHQL_OTEL_EXPORTER_OTLP_ENDPOINT', defaultHelp: '(OTEL_EXPORTER_OTLP_ENDPOINT, else off)', help: 'OpenTelemetry: send traces to this OTLP/HTTP endpoint (spans at <endpoint>/v1/traces); off when unset', parse: p.httpUrl }),
  opt({ key: 'otelServiceName', flag: '--otel-service-name', env: 'OTEL_SERVICE_NAME', default: 'svc-graphql-engine', help: 'OpenTelemetry: service.name of the spans', parse: p.str }),
  opt({ key: 'adoptHasuraCatalog', flag: '--adopt-hasura-catalog', env: 'SVC_GRAPHQL_ADOPT_HASURA_CATALOG', default: 'false', help: "Take over a database Hasura has used: import its metadata (v1.3: from hdb_catalog's tables; v2: the sources of hdb_metadata, kept in svc_metadata, each source's event log in its own database) and leave Hasura's own rows as they are; without it the engine refuses to start on Hasura's catalog and alters nothing", parse: p.bool, boolean: true, hasuraEnv: [] }),
  opt({ key: 'hasuraCompat', flag: '--hasura-compat', env: 'SVC_GRAPHQL_HASURA_COMPAT', default: 'auto', help: "Speak Hasura's words beside the engine's: X-Hasura-* request headers (admin secret, role, session variables), JWT claims under https://hasura.io/jwt/claims with x-hasura-* keys (and claims_map keys), an auth webhook's X-Hasura-* answer, connection_init headers, and each HASURA_GRAPHQL_* variable whose SVC_GRAPHQL_* twin is unset; implies --hasura-session-variables. A variable given in both spellings with different values is refused. auto: on when the engine adopted a Hasura catalog (HASURA_GRAPHQL_* variables are read only when this is true)", parse: p.autoBool, boolean: true, hasuraEnv: [] }),
  opt({ key: 'hasuraSessionVariables', flag: '--hasura-session-variables', env: 'SVC_GRAPHQL_HASURA_SESSION_VARIABLES', default: 'auto', help: "Hasura-compatible session variables for SQL and webhooks: beside svc.user (x-svc-*), set hasura.user with x-hasura-* keys in every transaction that sets svc.user, and add x-hasura-* keys to functions' session argument, event payloads' and action bodies' session_variables; auto: on when the engine adopted a Hasura catalog", parse: p.oneOf(['auto', 'true', 'false'] as const, { caseInsensitive: true }), hasuraEnv: [] }),
  opt({ key: 'applyApiLimits', flag: '--apply-api-limits', env: 'SVC_GRAPHQL_APPLY_API_LIMITS', default: 'false', help: "With --hasura-compat (on by default for an adopted Hasura catalog): apply the metadata's api_limits (depth, node and batch limits) as this engine does without them; the --query-*-limit flags apply either way", parse: p.bool, boolean: true }),
  opt({ key: 'devMode', flag: '--dev-mode', env: 'SVC_GRAPHQL_DEV_MODE', default: 'false', help: 'Include internal error details (SQL, Postgres errors) in admin responses', parse: p.bool, boolean: true }),
  opt({ key: 'logLevel', flag: '--log-level', env: 'SVC_GRAPHQL_LOG_LEVEL', default: 'info', help: 'Log level: debug, info, warn, error', parse: p.oneOf(['debug', 'info', 'warn', 'error'] as const, { caseInsensitive: true }) }),
  opt({ key: 'logFormat', flag: '--log-format', env: 'SVC_GRAPHQL_LOG_FORMAT', defaultHelp: '(pretty when stdout is a terminal, else json)', help: 'Log lines: json (one JSON object per line, for log collectors) or pretty (coloured, one readable line per entry, via pino-pretty)', parse: p.oneOf(['pretty', 'json'] as const, { caseInsensitive: true }) }),
  opt({ key: 'workers', flag: '--workers', env: 'SVC_GRAPHQL_WORKERS', default: '1', help: "Worker processes serving one port (node:cluster); 'auto': one per core this process may use", parse: p.workers }),
  opt({ key: 'shutdownTimeoutMs', flag: '--graceful-shutdown-timeout', env: 'SVC_GRAPHQL_GRACEFUL_SHUTDOWN_TIMEOUT', default: '10000', help: 'Milliseconds to wait for in-flight requests on SIGINT/SIGTERM', parse: p.int(0, 600_000), hasuraParse: p.secondsAsMs(0, 600) }),
];

const SVC_ENV_PREFIX = 'SVC_GRAPHQL_';
export const HASURA_ENV_PREFIX = 'HASURA_GRAPHQL_';

/** The Hasura variables `--hasura-compat` reads for `spec` (see `OptionSpec.hasuraEnv`). */
export const hasuraEnvNames = (spec: OptionSpec): readonly string[] =>
  spec.hasuraEnv ?? (spec.env.startsWith(SVC_ENV_PREFIX) ? [HASURA_ENV_PREFIX + spec.env.slice(SVC_ENV_PREFIX.length)] : []);

/** Hasura variables with no option here that `--hasura-compat` still recognises, and why each is not read. */
export const HASURA_ENV_NOT_READ: ReadonlyMap<string, string> = new Map([
  ['HASURA_GRAPHQL_METADATA_DATABASE_URL', 'the engine keeps its metadata in the database it serves (HASURA_GRAPHQL_DATABASE_URL)'],
]);

export const OPTIONS_BY_FLAG: ReadonlyMap<string, OptionSpec> = new Map(OPTIONS.map((o) => [o.flag, o]));
