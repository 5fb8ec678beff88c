/**
 * The commands of Hasura v2's `/v1/metadata` (its `RQLMetadataV1`) that this engine does not serve,
 * each with the reason and what to do instead: `/v1/metadata` answers them `not-supported` with that
 * text rather than as unknown commands, so no Hasura command is silently ignored or mistaken for a
 * typo. Names are written without the `pg_` prefix Hasura gives backend-scoped commands (the
 * translation strips it first). docs/hasura-compatibility.md carries the same table.
 */

const ONE_SOURCE = 'this engine serves Postgres sources only: "default" (--database-url / SVC_GRAPHQL_DATABASE_URL) and those added with pg_add_source';
const CONSOLE_QUERY = 'Hasura\'s console asks it to browse the database; read the database catalog with run_sql on /v2/query instead';
const EVENT_LOGS = 'read hdb_catalog.event_log and hdb_catalog.event_invocation_logs with run_sql on /v2/query';
const EVENT_CLEANUP = 'automatic event log cleanup is not supported: delete old rows of hdb_catalog.event_log and hdb_catalog.event_invocation_logs with run_sql (a cron trigger can call a webhook that does)';
const SCHEDULED_LOGS = 'read (or delete) rows of hdb_catalog.hdb_scheduled_events, hdb_catalog.hdb_cron_events and their invocation logs with run_sql on /v2/query; cron triggers are listed by export_metadata';
const DATA_CONNECTORS = 'data connector agents are not supported: the engine serves Postgres only';
const METRICS = 'metrics settings in the metadata are not supported: configure metrics with --enable-metrics and --metrics-secret (GET /v1/metrics)';
const TLS = 'a TLS allow-list is not supported: outbound HTTPS checks certificates against Node\'s CA store (add CAs with NODE_EXTRA_CA_CERTS)';
const OTEL = 'OpenTelemetry settings in the metadata are not supported: configure tracing with --otel-exporter-otlp-endpoint and OTEL_SERVICE_NAME';
const INTERNAL = 'Hasura\'s internal state is not supported: this engine has none to read or set; export_metadata and get_inconsistent_metadata show its state';

export const HASURA_V2_NOT_SUPPORTED: Readonly<Record<string, string>> = {
  list_source_kinds: `list_source_kinds is not supported: ${ONE_SOURCE}`,
  get_source_kind_capabilities: `get_source_kind_capabilities is not supported: ${ONE_SOURCE}`,
  get_source_tables: `get_source_tables is not supported: ${CONSOLE_QUERY}`,
  get_table_info: `get_table_info is not supported: ${CONSOLE_QUERY}`,
  suggest_relationships: `suggest_relationships is not supported: ${CONSOLE_QUERY}`,
  test_connection_template: 'connection templates are not supported: every request uses the one database connection pool (read replicas for queries when configured)',
  set_apollo_federation_config: 'Apollo Federation is not supported: the schema has no federation entities',
  set_function_customization: 'set_function_customization is not supported: a function\'s root fields keep its name; to serve it under another name, wrap it in a SQL function of that name and track that one',
  cleanup_event_trigger_logs: EVENT_CLEANUP,
  pause_event_trigger_cleanups: EVENT_CLEANUP,
  resume_event_trigger_cleanups: EVENT_CLEANUP,
  get_event_logs: `get_event_logs is not supported: ${EVENT_LOGS}`,
  get_event_invocation_logs: `get_event_invocation_logs is not supported: ${EVENT_LOGS}`,
  get_event_by_id: `get_event_by_id is not supported: ${EVENT_LOGS}`,
  introspect_remote_schema: 'introspect_remote_schema is not supported: introspect the remote server itself, or read its root fields in the engine\'s schema (/v1/graphql as admin)',
  delete_scheduled_event: `delete_scheduled_event is not supported: ${SCHEDULED_LOGS}`,
  get_scheduled_events: `get_scheduled_events is not supported: ${SCHEDULED_LOGS}`,
  get_scheduled_event_invocations: `get_scheduled_event_invocations is not supported: ${SCHEDULED_LOGS}`,
  get_cron_triggers: `get_cron_triggers is not supported: ${SCHEDULED_LOGS}`,
  rename_query_collection: 'rename_query_collection is not supported: create the collection under the new name with the same queries, move its allow-list entry, and drop the old one, in one bulk',
  update_scope_of_collection_in_allowlist: 'role-scoped allow-list entries are not supported: the allow-list applies to every role (add_collection_to_allowlist without scope)',
  dc_add_agent: DATA_CONNECTORS,
  dc_delete_agent: DATA_CONNECTORS,
  set_metrics_config: METRICS,
  remove_metrics_config: METRICS,
  add_host_to_tls_allowlist: TLS,
  drop_host_from_tls_allowlist: TLS,
  set_query_tags: 'query tags are not supported: SQL comments are not added to the statements',
  set_opentelemetry_config: OTEL,
  set_opentelemetry_status: OTEL,
  dump_internal_state: INTERNAL,
  get_catalog_state: INTERNAL,
  set_catalog_state: INTERNAL,
  get_feature_flag: INTERNAL,
  bulk_keep_going: 'bulk_keep_going is not supported: send bulk (atomic: all of it applies or none), or the operations one by one',
  concurrent_bulk: 'concurrent_bulk is not supported: send bulk (the operations run in order, atomically)',
};

/** Prefixes Hasura gives other backends' commands (`mssql_track_table`, …): this engine serves Postgres only. */
export const OTHER_BACKEND_PREFIX = /^(mssql|bigquery|citus|cockroach|mysql)_/;
