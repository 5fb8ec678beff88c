/**
 * The metadata stage: the metadata model and its decoders, the `hdb_catalog` catalog, database
 * introspection, the pure schema-cache build, and the boolean-expression parser.
 */
export type * from './model/metadata.js';
export { emptyMetadata } from './model/metadata.js';
export * from './model/json.js';
export { decodeMetadata, decodeTablesAhead, assertNoDuplicates } from './model/decodeMetadata.js';
export { decodeReadReplicas } from './model/decodeReadReplicas.js';
export { decodeApiLimits, encodeApiLimits, describeApiLimits, API_LIMIT_KINDS } from './model/decodeApiLimits.js';
export { decodeIntrospectionOptions, encodeIntrospectionOptions } from './model/decodeIntrospectionOptions.js';
export { decodeInheritedRole, assertInheritedRoles } from './model/decodeInheritedRoles.js';
export { decodeSourceCustomization, encodeSourceCustomization } from './model/decodeSourceCustomization.js';
export { decodeCreateEventTrigger, decodeEventTriggerMetadata, decodeWebhookHeader, DEFAULT_RETRY_CONF, EVENT_OPS } from './model/decodeEventTrigger.js';
export type { EventOp } from './model/decodeEventTrigger.js';
export { eventTriggerColumns } from './schemaCache/buildEventTriggers.js';
export { assertSupportedMetadata, unsupportedMetadataKeys, UNSUPPORTED_METADATA_KEYS, UNSUPPORTED_TABLE_KEYS } from './model/unsupportedMetadata.js';
export { decodeRelationship, decodeRelUsing } from './model/decodeRelationship.js';
export type { RelType } from './model/decodeRelationship.js';
export {
  decodePermissionDef,
  permissionDecoders,
  decodeColumns,
  decodeBoolExpJson,
  PERM_TYPES,
} from './model/decodePermission.js';
export type { PermType, AnyPermission } from './model/decodePermission.js';
export {
  decodeTableMetadata,
  decodeTableConfiguration,
  decodeCustomRootFields,
  decodeCustomColumnNames,
  decodeComputedField,
  decodeComputedFieldDefinition,
  decodeFunctionMetadata,
  ROOT_FIELD_KEYS,
} from './model/decodeTable.js';
export {
  encodeMetadata,
  encodeTable,
  encodeRelationship,
  encodeRelUsing,
  encodePermissionBody,
  encodePermissionBodyFull,
  encodeComputedField,
  encodeEventTrigger,
} from './model/encodeMetadata.js';
export { findTable, isTracked, removeObject, renameTable, renameColumn, renameRelationshipRefs, allRelationships } from './model/edit.js';
export type { Removable, RelationshipResolver } from './model/edit.js';

export { migrateCatalog, loadMetadata, saveMetadata, writeStoredText, touchMetadata, currentResourceVersion, lockMetadata, INSTANCE_ID, SCHEMA_UPDATE_CHANNEL, CATALOG_VERSION } from './catalog/index.js';
export type { StoredMetadata, Heartbeat, MetadataTable } from './catalog/index.js';
export { startHeartbeat, LIVE_CHANGE_LOCK_KEY, LIVE_CHANGE_TRIGGER, LIVE_ROWS_TRIGGERS, ensureLiveChangeCatalog } from './catalog/index.js';
export { decodeStoredMetadata, decodeStoredSliced, storedTableText, encodeStoredMetadata, encodeStoredBytes, encodeStoredChunked, decodeStoredInline, encodeStoredInline, storedDocumentThreadCounts, warmStoredEncoding } from './catalog/index.js';
export { CatalogRefusedError, recogniseCatalog, HASURA_V1_ADOPTABLE, HASURA_V2_LAST_KNOWN } from './catalog/index.js';
export type { CatalogOptions, CatalogOutcome, CatalogKind } from './catalog/index.js';
export { importHasuraMetadata, mapHasuraBrand, toV3, readHasuraV1Catalog, readyHasuraQueues, readsHasuraSession, hasuraSessionWarning, findHasuraSessionReaders, hasuraSessionReadersAmong } from './hasura/index.js';
export type { ImportResult, AdoptionReport } from './hasura/index.js';

export { introspectDatabase, loadEnumValues, parseSnapshot, sessionFreeWritesLost, catalogFingerprint, fingerprintOf, recordFingerprint, introspectWithFingerprints, reintrospect, relationFingerprintsOf } from './introspection/index.js';
export type { DbSnapshot, DbTable, DbColumn, DbFunction, DbFunctionArg, DbForeignKey, EnumTableValues } from './introspection/index.js';

export { parseBoolExp, castTypeOf } from './boolExp.js';
export type { BoolExpContext, BoolExpMode, BoolExpDependency, ParsedBoolExp } from './boolExp.js';

export type * from './schemaCache/types.js';
export { buildSchemaCache, buildSchemaCacheFull, buildSchemaCacheFrom, buildSchemaCacheFullSliced, buildSchemaCacheFromSliced, buildRecordOf, type CacheCheck, type BuildRecord } from './schemaCache/buildSchemaCache.js';
export { dependencyIndexOf, type DependencyIndex } from './schemaCache/dependencyIndex.js';
export type { BuildOptions, BuildResult } from './schemaCache/buildSchemaCache.js';
export type { Inconsistency } from './schemaCache/buildState.js';
export { BuildError } from './schemaCache/buildState.js';
export { resolveNativeQuery, buildLogicalModel } from './schemaCache/buildNativeQueries.js';
export { decodeLogicalModel, decodeNativeQuery, udtName, fieldUdt, modelReference } from './model/decodeNativeQueries.js';
export { objectKey, refKey, reportObject, reportObjects, objectTable } from './schemaCache/objects.js';
export type { MetadataObjectId, SchemaRef, Dependency } from './schemaCache/objects.js';
export { resolveRelationship, columnConflict, NO_FK, MANY_FK } from './schemaCache/buildRelationships.js';
export {
  relationshipDefinition,
  permissionDefinition,
  computedFieldDefinition,
  tableDefinition,
  functionDefinition,
} from './schemaCache/definitions.js';

export { createAppState, loadSchemaCache, enumTablesOf, storedVersionOf } from './liveState.js';
export type { LiveState, RemoteFetcher } from './liveState.js';
export { startSchemaSync } from './schemaSync.js';
export type { SchemaSync, SchemaSyncOptions, SyncedState } from './schemaSync.js';
export { resolveFunction } from './schemaCache/buildFunctions.js';
export { resolveComputedField, lookupFunction } from './schemaCache/buildComputedFields.js';
export { buildAllowlist, normalizeAllowlistQuery, normalizeAllowlistDocument } from './schemaCache/allowlist.js';
export {
  asNonEmptyText, asGraphqlQueryText, decodeListedQuery, decodeQueryCollection, decodeCollectionReq,
  duplicateQueryNames, assertQueryCollectionsValid,
} from './model/decodeQueryCollection.js';
export {
  REST_METHODS, decodeRestEndpoint, parseUrlTemplate, restEndpointQuery, singleOperation, assertRestEndpointsValid, type UrlSegment,
} from './model/decodeRestEndpoint.js';
export {
  decodeCustomTypes, decodeActionDefinition, decodeAction, customTypesOf, actionsOf, customTypesDefinition,
} from './model/decodeActions.js';
export type {
  CustomTypes, CustomObject, CustomField, CustomInputObject, CustomEnum, CustomScalar, CustomRelationship,
  ActionMetadata, ActionDefinition, ActionArgument, ActionHeader, ActionPermissionMetadata,
} from './model/decodeActions.js';
export { parseTypeRef, baseName } from './schemaCache/buildActions.js';
export type { TypeRef, ActionInfo, ActionOutputScalar, CustomTypesInfo, CustomObjectInfo, CustomRelInfo } from './schemaCache/actionTypes.js';
export {
  decodeRemoteSchema, decodeRemoteSchemaDef, decodeRemoteRelationshipDef, remoteSchemasOf, remoteRelationshipsOf, toRemoteSchema, toSource,
  decodeTypeRelationship, remoteSchemaRelationshipsOf,
} from './model/decodeRemoteSchema.js';
export { customizedRemote, customizeField, customizeTypeRef, customizedRootFieldNames } from './schemaCache/remoteCustomization.js';
export { resolveRemotePermission, remoteViewFor, remoteAsSeen, mergeRemoteViews, typeRefString } from './schemaCache/remotePermissions.js';
export { decodeRemoteSchemaPermission } from './model/decodeRemoteSchema.js';
export type { RemoteSchemaPermissionMetadata } from './model/decodeRemoteSchema.js';
export type { RemoteSchemaCustomization, RemoteTypeCustomization, RemoteFieldCustomization } from './model/decodeRemoteSchema.js';
export type { RemoteSchemaMetadata, RemoteSchemaDef, RemoteRelationshipMetadata, RemoteFieldTree, RemoteHeaderConf, ToSourceDef, RemoteSchemaTypeRelationships } from './model/decodeRemoteSchema.js';
export {
  resolveRemoteSchema, remoteConflict, remoteRootFieldNames, remoteSchemaUrl, DEFAULT_REMOTE_TIMEOUT_SECONDS,
} from './schemaCache/buildRemoteSchemas.js';
export { DEFAULT_SOURCE, attachSources, findSource, readSources, sourceBuildOf, sourceView, withSourcePart } from './sources.js';
export type { SourceDbs, SourceInput } from './sources.js';
export { decodeConnectionInfo, decodeDatabaseUrl, decodeSource, decodeSourceConfiguration, decodeSourceName } from './model/decodeSources.js';
