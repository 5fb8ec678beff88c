/**
 * The schema cache: metadata resolved against the database catalog. Built by a pure function
 * from (metadata, introspection snapshot); objects that no longer match the database are left
 * out and listed in `inconsistentObjects`. Everything downstream (GraphQL schema per role,
 * planner, /v1/query DML) reads only this.
 */
import type { NamingConvention, QualifiedTable, QualifiedFunction } from '../../core/index.js';
import type { BoolExp, RelationshipJoin } from '../../ir/index.js';
import type { IntrospectionObjectType, IntrospectionQuery, IntrospectionType } from 'graphql';
import type { Metadata, CustomRootFields, EventTriggerMetadata } from '../model/metadata.js';
import type { ActionInfo, CustomTypesInfo } from './actionTypes.js';
import type { RemoteSchemaMetadata } from '../model/decodeRemoteSchema.js';

export interface SchemaCache {
  metadata: Metadata;
  /** Tracked tables and views that are consistent, keyed by `schema.name`. */
  tables: Map<string, TableInfo>;
  /** Tracked functions, keyed by `schema.name`. */
  functions: Map<string, FunctionInfo>;
  /** Every role named by some permission, and every inherited role (not including admin). */
  roles: string[];
  /** Inherited roles (Hasura v2) → their role sets; absent = none. Their permissions are in `TableInfo.permissions`. */
  inheritedRoles?: ReadonlyMap<string, readonly string[]>;
  /** Roles with a `backend_only` insert, update or delete permission; absent = none (no second schema is built). */
  backendOnlyRoles?: ReadonlySet<string>;
  inconsistentObjects: InconsistentObject[];
  /**
   * Event triggers whose table and columns exist, by name (capture runs for all of them; delivery
   * only for those whose webhook and headers resolved). Absent = none.
   */
  eventTriggers?: ReadonlyMap<string, EventTriggerInfo>;
  /** Validated custom types (empty when the set is inconsistent) and consistent actions (schemaCache/buildActions.ts). */
  customTypes?: CustomTypesInfo;
  actions?: ReadonlyMap<string, ActionInfo>;
  /** Normalised texts of the queries on the allow-list (see `buildAllowlist`); absent = built on demand. */
  allowlist?: ReadonlySet<string>;
  /** Consistent remote schemas by name, in metadata order. */
  remoteSchemas?: Map<string, RemoteSchemaInfo>;
  /** `--enable-remote-schema-permissions`: roles see remote schemas only through their permissions. */
  remoteSchemaPermissions?: boolean;
  /** The remote introspections this cache was built from (reused by later builds until reloaded). */
  remoteInputs?: ReadonlyMap<string, RemoteIntrospection>;
  /**
   * The case of the GraphQL names generated from the database: the metadata's
   * `source_customization.naming_convention`, else the server's `--default-naming-convention`
   * (absent: `hasura-default`).
   */
  namingConvention?: NamingConvention;
  /**
   * `--infer-function-permissions` (absent: true, Hasura's default): a query function reaches every
   * role that may select its table; false: only roles with a function permission for it (and that
   * select permission). Mutation functions always need a function permission.
   */
  inferFunctionPermissions?: boolean;
  /**
   * Hasura v2's logical models, by name, as tables without a database table: their fields are the
   * columns, their select permissions the table permissions (inherited roles combined). Absent = none.
   */
  logicalModels?: ReadonlyMap<string, TableInfo>;
  /** Hasura v2's native queries, by root field name. Absent = none. */
  nativeQueries?: ReadonlyMap<string, NativeQueryInfo>;
  /**
   * The consistent Postgres sources beside `default` (this cache is `default`'s), each resolved against
   * its own database the same way, by name (metadata/sources.ts). Absent = none.
   */
  sources?: ReadonlyMap<string, SchemaCache>;
  /** The source this cache resolves (absent: `default`): root fields of its tables run on that source's pool. */
  source?: string;
  /**
   * A further source's `customization.root_fields`: the prefix and suffix of its root-field names, and the
   * `namespace` root field they are put under (one per root type: `<namespace>_query`, `_mutation_frontend`, `_subscription`).
   */
  sourceRootFields?: { namespace?: string; prefix?: string; suffix?: string };
  /**
   * Every consistent source's cache by name, `default` included, on each of them (set when the
   * metadata has further sources or relationships to a source's table): where a relationship to
   * another source's table finds its target.
   */
  sourceCaches?: ReadonlyMap<string, SchemaCache>;
  /** The consistent relationships to a source's table (Hasura v2's `to_source`), by table key then name. */
  sourceRelationships?: ReadonlyMap<string, ReadonlyMap<string, SourceRelInfo>>;
  /**
   * The consistent relationships of remote schemas' object types to a source's table (Hasura v2's
   * remote schema remote relationships, `to_source`), by remote schema then the remote's type name.
   */
  remoteTypeRelationships?: ReadonlyMap<string, ReadonlyMap<string, readonly RemoteTypeRelInfo[]>>;
  /** A further source's `customization.type_names`: the prefix and suffix of every type made for it. */
  sourceTypeNames?: { prefix?: string; suffix?: string };
}

/** A relationship from a table to a table of a source (this one or another): Hasura v2's `to_source`. */
export interface SourceRelInfo {
  name: string;
  /** The target table's source. */
  source: string;
  target: QualifiedTable;
  type: 'object' | 'array';
  /** This table's column → the target's column, in the metadata's order. */
  mapping: Array<{ local: string; remote: string }>;
}

/** A relationship from a remote schema's object type to a table of a source: `mapping`'s `local` are the type's fields. */
export interface RemoteTypeRelInfo extends SourceRelInfo {
  remoteSchema: string;
  /** The remote's own name of the type. */
  typeName: string;
}

/** A native query: its code split at the `{{arg}}` placeholders, its arguments, the logical model it returns. */
export interface NativeQueryInfo {
  rootFieldName: string;
  description: string | null;
  code: ReadonlyArray<{ text: string } | { arg: string }>;
  /** In declaration order; `pgType` is the udt name the parameter is cast to. */
  arguments: Array<{ name: string; pgType: string; nullable: boolean; description: string | null }>;
  /** The logical model's name (a key of `SchemaCache.logicalModels`). */
  returns: string;
  /** Object and array relationships (Hasura v2.26+), in metadata order (object ones first); absent = none. */
  relationships?: NativeQueryRelInfo[];
}

/**
 * A relationship of a native query: the rows of a tracked table or of another native query whose
 * `remote` columns equal this row's `local` fields (`join.remoteTable` is the table, or the
 * target's logical model).
 */
export interface NativeQueryRelInfo {
  name: string;
  type: 'object' | 'array';
  target: { kind: 'table'; table: QualifiedTable } | { kind: 'native_query'; name: string };
  join: RelationshipJoin;
  comment: string | null;
}

/** What fetching a remote schema's introspection gave (input of the build, see appState.rebuild). */
export interface RemoteIntrospection {
  /** JSON of the definition it was fetched for: a changed definition is fetched again. */
  definitionKey: string;
  result: { ok: true; introspection: IntrospectionQuery } | { ok: false; message: string };
}

/** A remote schema resolved against its introspection. */
export interface RemoteSchemaInfo {
  name: string;
  metadata: RemoteSchemaMetadata;
  url: string;
  /** Configured headers, values resolved (env values included). */
  headers: Array<{ name: string; value: string }>;
  forwardClientHeaders: boolean;
  timeoutSeconds: number;
  introspection: IntrospectionQuery;
  types: Map<string, IntrospectionType>;
  queryRoot: IntrospectionObjectType | null;
  mutationRoot: IntrospectionObjectType | null;
  /** Roles' views of the remote (remote schema permissions), by role, when any are consistent. */
  permissions?: Map<string, RemoteRoleView>;
  /** The definition's `customization` resolved against the introspection (absent: names as the remote's). */
  customizer?: RemoteCustomizer;
}

/**
 * A remote schema customization as name maps (Hasura's RemoteSchemaCustomizer), built from the
 * remote's whole introspection: only names that change are listed.
 */
export interface RemoteCustomizer {
  /** `root_fields_namespace`: the one root field wrapping the remote's root fields of each operation type. */
  namespace: string | null;
  /** The remote's type name → the engine's. */
  typeNames: Map<string, string>;
  /** The engine's type name → the remote's. */
  remoteTypeNames: Map<string, string>;
  /** The remote's type name → its field name → the engine's. */
  fieldNames: Map<string, Map<string, string>>;
  /** The engine's type name → the engine's field name → the remote's. */
  remoteFieldNames: Map<string, Map<string, string>>;
}

/** A preset of a remote argument or input field (`@preset`): JSON value, `x-svc-*` strings read from the session unless static. */
export interface RemotePreset {
  value: unknown;
  static: boolean;
  /** The GraphQL type of the argument / input field (`Int!`). */
  type: string;
}

/** What one role sees of a remote schema (remote schema permissions). */
export interface RemoteRoleView {
  introspection: IntrospectionQuery;
  types: Map<string, IntrospectionType>;
  queryRoot: IntrospectionObjectType | null;
  mutationRoot: IntrospectionObjectType | null;
  /** `Type.field` → argument → preset. */
  argPresets: Map<string, Map<string, RemotePreset>>;
  /** Input object type → field → preset. */
  inputPresets: Map<string, Map<string, RemotePreset>>;
}

/** One level of a remote relationship's field path: the remote field and its argument template. */
export interface RemoteFieldStep {
  name: string;
  arguments: Record<string, unknown>;
}

/** A consistent remote relationship of a table. */
export interface RemoteRelInfo {
  name: string;
  remoteSchema: string;
  hasuraFields: string[];
  path: RemoteFieldStep[];
  /** `public_profiles`: the part of renamed argument types that names the table. */
  lhsIdentifier: string;
}

export interface InconsistentObject {
  type: string; // 'table' | 'object_relation' | 'array_relation' | 'select_permission' | ...
  /** Hasura v2's `name` of the object, where the engine reports it (`query_collections q in c`). */
  name?: string;
  definition: unknown;
  reason: string;
}

export interface TableInfo {
  name: QualifiedTable;
  /** The source the table is in (absent: `default`). */
  source?: string;
  /** GraphQL type name: `author`, or `schema_name` outside public. */
  gqlName: string;
  kind: 'table' | 'view' | 'materialized_view' | 'foreign_table' | 'partitioned_table';
  description: string | null;
  /** Columns in ordinal order. */
  columns: ColumnInfo[];
  columnsByName: Map<string, ColumnInfo>;
  primaryKey: string[] | null;
  uniqueConstraints: Array<{ name: string; columns: string[] }>;
  /** Primary key constraint name too, for on_conflict. */
  primaryKeyConstraint: string | null;
  foreignKeys: Array<{ name: string; columns: string[]; refTable: QualifiedTable; refColumns: string[] }>;
  relationships: Map<string, RelationshipInfo>;
  computedFields: Map<string, ComputedFieldInfo>;
  /** Per role (not admin): the four permission kinds, parsed. */
  permissions: Map<string, RolePermissions>;
  isEnum: boolean;
  /** For enum tables: the values (first column of the primary key) and their comments. */
  enumValues?: Array<{ value: string; comment: string | null }>;
  customRootFields: CustomRootFields;
  /** column name → GraphQL field name, only for renamed columns. */
  customColumnNames: Record<string, string>;
  /** For views: whether Postgres allows insert/update/delete through it. */
  mutability: { insertable: boolean; updatable: boolean; deletable: boolean };
  /** Remote relationships (fields joined to a remote schema), when the table has any. */
  remoteRelationships?: Map<string, RemoteRelInfo>;
  /**
   * True when writing it runs nothing that could read the session variables: the introspected
   * `DbTable.sessionFreeWrites`, and no event trigger in the metadata (their capture triggers
   * record the session). A mutation writing only such tables skips `set_config` (planner/sessionFree.ts).
   */
  sessionFreeWrites?: boolean;
}

export interface ColumnInfo {
  name: string;
  /** The GraphQL field name (custom column name or the column name). */
  gqlName: string;
  /** udt name: int4, text, jsonb, timestamptz, _text (arrays), or a user type's name. */
  pgType: string;
  /** Schema of the type (pg_catalog for built-ins). */
  pgTypeSchema: string;
  /** 'b' base, 'c' composite, 'd' domain, 'e' enum, 'r' range (pg_type.typtype). */
  typeKind: string;
  isArray: boolean;
  /** The labels of a Postgres enum type (typtype 'e'): input is checked against them. */
  enumLabels?: readonly string[];
  nullable: boolean;
  hasDefault: boolean;
  isGenerated: boolean;
  isIdentity: boolean;
  position: number;
  description: string | null;
  /** When the column references an enum table: that table. */
  enumTable?: QualifiedTable;
}

export interface RelationshipInfo {
  name: string;
  type: 'object' | 'array';
  join: RelationshipJoin;
  comment: string | null;
  /** Whether an insert through this relationship inserts the parent first (object rel on local FK). */
  insertOrder: 'before_parent' | 'after_parent';
  /** Defined by `manual_configuration` (no constraint vouches that the target row exists). */
  manual?: boolean;
}

export interface ComputedFieldInfo {
  name: string;
  function: QualifiedFunction;
  /** Return: a scalar (pg type) or SETOF a tracked table. */
  returns: { kind: 'scalar'; pgType: string } | { kind: 'table'; table: QualifiedTable };
  /** Position of the table-row argument and (optionally) the session argument; other inputs in order. */
  tableArgIndex: number;
  sessionArgIndex?: number;
  inputArgs: Array<{ name: string; pgType: string; hasDefault: boolean }>;
  comment: string | null;
}

export interface RolePermissions {
  select?: SelectPermInfo;
  insert?: InsertPermInfo;
  update?: UpdatePermInfo;
  delete?: DeletePermInfo;
}

export interface SelectPermInfo {
  columns: Set<string>;
  computedFields: Set<string>;
  filter: BoolExp;
  limit: number | null;
  allowAggregations: boolean;
  /**
   * Inherited roles only: columns visible only in some of the rows (a column granted by some of
   * the role set's select permissions): the value shows where this holds, else null.
   */
  columnConditions?: ReadonlyMap<string, BoolExp>;
  /** Likewise for scalar computed fields. */
  computedFieldConditions?: ReadonlyMap<string, BoolExp>;
}
export interface InsertPermInfo {
  columns: Set<string>;
  check: BoolExp;
  /** Column presets: value literal or session variable name. */
  set: Record<string, { kind: 'value'; value: unknown } | { kind: 'session'; name: string }>;
  backendOnly: boolean;
  /** Pre-1.0 `allow_upsert: true` (upserts without an update permission, limited by `check`). */
  allowUpsert?: boolean;
}
export interface UpdatePermInfo {
  columns: Set<string>;
  filter: BoolExp;
  check: BoolExp | null;
  set: Record<string, { kind: 'value'; value: unknown } | { kind: 'session'; name: string }>;
  backendOnly?: boolean;
}
export interface DeletePermInfo {
  filter: BoolExp;
  backendOnly?: boolean;
}

export interface FunctionInfo {
  name: QualifiedFunction;
  /** The source the function is in (absent: `default`). */
  source?: string;
  gqlName: string;
  description: string | null;
  /** The tracked table it returns SETOF. */
  returnTable: QualifiedTable;
  volatility: 'IMMUTABLE' | 'STABLE' | 'VOLATILE';
  /** Which root its field is on (`configuration.exposed_as`, default query). */
  exposedAs: 'query' | 'mutation';
  inputArgs: Array<{ name: string; pgType: string; hasDefault: boolean }>;
  sessionArgument?: string;
  /**
   * Roles with a function permission (Hasura v2's `permissions`), inherited roles included when a
   * member has one. A mutation function reaches only these (and admin); a query function too when
   * the cache's `inferFunctionPermissions` is off.
   */
  permissions: Set<string>;
}

/** An event trigger resolved against its table and the environment. */
export interface EventTriggerInfo {
  name: string;
  table: QualifiedTable;
  definition: EventTriggerMetadata;
  /** The webhook URL and header values, or why they cannot be resolved (the trigger is inconsistent). */
  delivery: { url: string; headers: Array<{ name: string; value: string; fromEnv: boolean }> } | { error: string };
}
