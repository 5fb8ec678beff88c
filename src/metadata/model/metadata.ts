/**
 * The metadata document: what the user has told the engine (tracked tables, relationships,
 * permissions, functions...). Same shape as Hasura v1.3's `export_metadata` (version 2), which is
 * also what `replace_metadata` accepts and what the catalog stores as one JSON value.
 */
import type { RequestTransform, ResponseTransform } from '../../transforms/index.js';
import type { NamingConvention, QualifiedTable, QualifiedFunction } from '../../core/index.js';
import type { UrlConf } from '../../webhooks/index.js';

export interface Metadata {
  version: 2;
  tables: TableMetadata[];
  functions?: FunctionMetadata[];
  remote_schemas?: unknown[];
  query_collections?: QueryCollection[];
  /** Hasura v2's REST endpoints: URL templates over queries of the query collections. */
  rest_endpoints?: RestEndpoint[];
  allowlist?: Array<{ collection: string }>;
  custom_types?: unknown;
  actions?: unknown[];
  cron_triggers?: unknown[];
  /** Hasura v2's API limits: maximum depth / node count / batch size, globally and per role. */
  api_limits?: ApiLimits;
  /** Hasura v2's introspection options: roles that may not introspect the schema. */
  graphql_schema_introspection?: IntrospectionOptions;
  /** Hasura v2's inherited roles: each role's permissions combined from its `role_set`. */
  inherited_roles?: InheritedRole[];
  /** Hasura v2's `sources[].customization` of the (one) source: its naming convention. */
  source_customization?: SourceCustomization;
  /** Hasura v2's `read_replicas` of the default source: hot standbys that serve GraphQL reads. */
  read_replicas?: ReadReplicaMetadata[];
  /** Hasura v2's `sources[].logical_models`: row shapes that native queries return. */
  logical_models?: LogicalModelMetadata[];
  /** Hasura v2's `sources[].native_queries`: SQL with `{{arg}}` parameters, exposed as root fields. */
  native_queries?: NativeQueryMetadata[];
  /**
   * Hasura v2's further Postgres sources (`sources[i]` other than `default`), in version 3's shape:
   * each its own connection, tables and functions. The `default` source is the rest of this document.
   */
  sources?: SourceMetadata[];
}

/** A Postgres connection as Hasura v2 writes it: a URL, an env var holding one, or its parts. */
export type DatabaseUrlConf =
  | string
  | { from_env: string }
  | { connection_parameters: { host: string; port?: number; username?: string; password?: string; database: string } };

/** `configuration.connection_info` of a source. */
export interface SourceConnectionInfo {
  database_url: DatabaseUrlConf;
  pool_settings?: { max_connections?: number; idle_timeout?: number; connection_lifetime?: number; retries?: number; pool_timeout?: number; [key: string]: unknown };
  isolation_level?: 'read-committed' | 'repeatable-read' | 'serializable';
  use_prepared_statements?: boolean;
}

/** One further Postgres source: `sources[i]` of the version-3 document (its `name` is never `default`). */
export interface SourceMetadata {
  name: string;
  kind: 'postgres';
  configuration: { connection_info: SourceConnectionInfo; read_replicas?: ReadReplicaMetadata[] };
  tables: TableMetadata[];
  functions?: FunctionMetadata[];
  logical_models?: LogicalModelMetadata[];
  native_queries?: NativeQueryMetadata[];
  customization?: SourceCustomization;
}

/**
 * A logical model field's type: a scalar (Postgres type name), an array of one, or another logical
 * model (object, or array of them): a field a native query serves through a relationship of that name.
 */
export type LogicalModelFieldType =
  | { scalar: string; nullable?: boolean }
  | { array: LogicalModelFieldType; nullable?: boolean }
  | { logical_model: string; nullable?: boolean };

export interface LogicalModelField {
  name: string;
  type: LogicalModelFieldType;
  description?: string;
}

/** `logical_models[i]`: a named row shape with select permissions (columns and a row filter). */
export interface LogicalModelMetadata {
  name: string;
  fields: LogicalModelField[];
  description?: string;
  select_permissions?: PermissionMetadata<{ columns: string[] | '*'; filter: BoolExpJson }>[];
}

export interface NativeQueryArgument {
  type: string;
  nullable?: boolean;
  description?: string;
}

/**
 * `native_queries[i].object_relationships[j]` / `array_relationships[j]` (Hasura v2.26+): rows of a
 * tracked table (`remote_table`) or of another native query (`remote_native_query`) whose
 * `column_mapping` values equal this row's fields.
 */
export interface NativeQueryRelationship {
  name: string;
  using: {
    column_mapping: Record<string, string>;
    insertion_order?: 'before_parent' | 'after_parent' | null;
    remote_table?: QualifiedTable;
    remote_native_query?: string;
  };
  comment?: string;
}

/** `native_queries[i]`: `code` with `{{name}}` placeholders for `arguments`, rows of the logical model `returns`. */
export interface NativeQueryMetadata {
  root_field_name: string;
  code: string;
  arguments: Record<string, NativeQueryArgument>;
  returns: string;
  type?: 'query';
  description?: string;
  object_relationships?: NativeQueryRelationship[];
  array_relationships?: NativeQueryRelationship[];
}

/** `inherited_roles[i]`: a role whose permissions are those of the roles in `role_set`, combined. */
export interface InheritedRole {
  role_name: string;
  role_set: string[];
}

/**
 * `customization` of a Hasura v2 source; absent `naming_convention` → the server's default.
 * `root_fields` / `type_names` (prefix, suffix) rename the source's root fields / table types;
 * `root_fields.namespace` puts the source's root fields under one root field of that name.
 */
export interface SourceCustomization {
  naming_convention?: NamingConvention;
  root_fields?: { namespace?: string; prefix?: string; suffix?: string };
  type_names?: { prefix?: string; suffix?: string };
}

/** One read replica as Hasura v2 writes it (other connection settings kept as given). */
export interface ReadReplicaMetadata {
  database_url: string | { from_env: string };
  pool_settings?: { max_connections?: number; [key: string]: unknown };
  [key: string]: unknown;
}

/** `graphql_schema_introspection`: the roles whose schema has no `__schema` / `__type`. */
export interface IntrospectionOptions {
  disabled_for_roles: string[];
}

/** One API limit: `global` applies to every role without a `per_role` entry (admin excepted). */
export interface ApiLimit {
  global?: number;
  per_role?: Record<string, number>;
}

/** Hasura's rate limit of one role (or the global one): requests per minute per client. */
export interface RateLimitConfig {
  max_reqs_per_min: number;
  /** How a client is told apart: `"IP"`, or a list of session variables; absent / null: by role. */
  unique_params?: 'IP' | string[] | null;
}

export interface RateLimit {
  global?: RateLimitConfig;
  per_role?: Record<string, RateLimitConfig>;
}

export interface ApiLimits {
  /** true → the limits stored here are not applied (the server's flags still are). */
  disabled?: boolean;
  /** Stored and exported; not enforced by this engine (nor by Hasura's open-source edition). */
  rate_limit?: RateLimit;
  depth_limit?: ApiLimit;
  node_limit?: ApiLimit;
  /** Seconds (fractions allowed). Stored and exported; not enforced by this engine (nor by Hasura's open-source edition). */
  time_limit?: ApiLimit;
  batch_limit?: ApiLimit;
}

export interface CustomRootFields {
  select?: string | null;
  select_by_pk?: string | null;
  select_aggregate?: string | null;
  insert?: string | null;
  insert_one?: string | null;
  update?: string | null;
  update_by_pk?: string | null;
  /** Hasura v2's `update_<t>_many`. */
  update_many?: string | null;
  delete?: string | null;
  delete_by_pk?: string | null;
}

export interface TableConfiguration {
  custom_root_fields?: CustomRootFields;
  custom_column_names?: Record<string, string>;
}

export interface TableMetadata {
  table: QualifiedTable;
  is_enum?: boolean;
  configuration?: TableConfiguration;
  object_relationships?: RelationshipMetadata[];
  array_relationships?: RelationshipMetadata[];
  computed_fields?: ComputedFieldMetadata[];
  remote_relationships?: unknown[];
  insert_permissions?: PermissionMetadata<InsertPermission>[];
  select_permissions?: PermissionMetadata<SelectPermission>[];
  update_permissions?: PermissionMetadata<UpdatePermission>[];
  delete_permissions?: PermissionMetadata<DeletePermission>[];
  event_triggers?: EventTriggerMetadata[];
}

export interface RelationshipMetadata {
  name: string;
  using:
    | { foreign_key_constraint_on: string | { table: QualifiedTable | string; column: string } }
    | { manual_configuration: { remote_table: QualifiedTable | string; column_mapping: Record<string, string> } };
  comment?: string | null;
}

export interface ComputedFieldMetadata {
  name: string;
  definition: { function: QualifiedFunction | string; table_argument?: string | null; session_argument?: string | null };
  comment?: string | null;
}

export interface PermissionMetadata<P> {
  role: string;
  permission: P;
  comment?: string | null;
}

/** Raw boolean expression as written in metadata (`{"id": {"_eq": "X-Svc-User-Id"}}`). */
export type BoolExpJson = Record<string, unknown>;

export interface SelectPermission {
  columns: string[] | '*';
  filter: BoolExpJson;
  limit?: number | null;
  allow_aggregations?: boolean;
  computed_fields?: string[];
}
export interface InsertPermission {
  check: BoolExpJson;
  set?: Record<string, unknown>;
  columns?: string[] | '*';
  backend_only?: boolean;
  /** Pre-1.0 metadata: upserts allowed without an update permission (kept in the catalog for the mutations planner; never exported). */
  allow_upsert?: boolean;
}
export interface UpdatePermission {
  columns: string[] | '*';
  filter: BoolExpJson;
  check?: BoolExpJson | null;
  set?: Record<string, unknown>;
  /** Hasura v2: offered only to a trusted backend (admin secret + `x-svc-use-backend-only-permissions: true`). */
  backend_only?: boolean;
}
export interface DeletePermission {
  filter: BoolExpJson;
  backend_only?: boolean;
}

export interface FunctionMetadata {
  function: QualifiedFunction;
  /** `exposed_as` (Hasura v2): where the function's root field goes; a VOLATILE function only as a mutation. */
  configuration?: { session_argument?: string; exposed_as?: 'query' | 'mutation' };
  /**
   * Hasura v2's function permissions: the roles that may call it. A function exposed as a mutation
   * reaches a non-admin role only through one; a query function needs one when
   * `--infer-function-permissions` is off.
   */
  permissions?: FunctionPermissionMetadata[];
}

/** `functions[i].permissions[j]` (Hasura v2). */
export interface FunctionPermissionMetadata {
  role: string;
}

export interface QueryCollection {
  name: string;
  definition: { queries: Array<{ name: string; query: string }> };
  comment?: string | null;
}

export type RestMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** `rest_endpoints[i]` (Hasura v2): `url` relative to /api/rest/, `:name` segments capture variables. */
export interface RestEndpoint {
  name: string;
  url: string;
  methods: RestMethod[];
  definition: { query: { collection_name: string; query_name: string } };
  comment?: string | null;
}

/** Columns of an event-trigger operation: all (`"*"`) or a list. */
export type EventTriggerColumns = '*' | string[];

/** One operation of an event trigger: the columns an update must change, the columns sent. */
export interface EventTriggerOpSpec {
  columns: EventTriggerColumns;
  payload?: EventTriggerColumns;
}

/** Header of a webhook call: a literal value, or the value of an environment variable. */
export type WebhookHeaderConf = { name: string; value: string } | { name: string; value_from_env: string };

/** `tables[i].event_triggers[j]`, as Hasura v1.3 exports it. */
export interface EventTriggerMetadata {
  name: string;
  definition: {
    enable_manual: boolean;
    insert?: EventTriggerOpSpec;
    update?: EventTriggerOpSpec;
    delete?: EventTriggerOpSpec;
  };
  retry_conf: { num_retries: number; interval_sec: number; timeout_sec: number };
  /** Exactly one of `webhook` (URL, may hold `{{ENV}}` templates, or `{from_env}`) and `webhook_from_env`. */
  webhook?: UrlConf;
  webhook_from_env?: string;
  headers?: WebhookHeaderConf[];
  comment?: string | null;
  /** Hasura's request transform of the delivery (src/transforms). */
  request_transform?: RequestTransform;
  /** Accepted and kept as Hasura does; an event delivery's answer is only logged. */
  response_transform?: ResponseTransform;
}

export const emptyMetadata = (): Metadata => ({ version: 2, tables: [] });
