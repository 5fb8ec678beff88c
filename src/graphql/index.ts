/**
 * graphql/: per-role GraphQL schemas built from the schema cache, and request validation
 * against them (Hasura v1.3 names, shapes and messages).
 */
export * from './schema/fieldMeta.js';
export * from './schema/names.js';
export * from './schema/roleView.js';
export { SchemaContext, type SchemaParts, type RootFieldsBuilder, type TableFieldsBuilder } from './schema/context.js';
export { TABLE_SCHEMA_PARTS } from './schema/schemaParts.js';
export { streamRootFields, type StreamFieldMeta, type StreamCursorColumnMeta } from './schema/streamRoot.js';
export { boolExp, comparisonExp, orderBy, aggregateOrderBy, selectColumnEnum, opColumns, availableOps, visibleColumns } from './schema/inputTypes.js';
export { lastField as remoteRelLastField } from './schema/remoteTypes.js';
export { tableObject, aggregateObject, aggregateFieldsObject, opFieldsObject, selectArgs, outField, functionArgsType } from './schema/tableTypes.js';
export { type FieldEntry, primaryKeyColumns } from './schema/queryRoot.js';
export { getRoleSchema, buildRoleSchema, prepareRoleSchemas, type RoleSchema } from './schema/roleSchema.js';
export { prepareSchemaKeys } from './schema/schemaShape.js';
export { LazySchema } from './schema/lazySchema.js';
export { introspectionBytes, introspectionOf, introspectionText } from './schema/introspectionText.js';
export { schemaTypeOrder, type IntrospectionSchema } from './schema/schemaTypeOrder.js';
export * from './request/types.js';
export { vf, showName, showNames, showNamedTy, showGT } from './request/messages.js';
export { coerceJson, coerceLiteral, isTypeAllowed, literalJson, type VariableInfo } from './request/inputValue.js';
export { declaredVariables, coerceVariables, type CoercedVariables } from './request/variables.js';
export { quickVariables, variableShape, type QuickVariables } from './request/quickVariables.js';
export {
  parseQuery, selectOperation, prepareOperation, checkVariables, normalizeOperation, validateRequest,
  type GraphqlRequest, type PreparedOperation,
} from './request/validate.js';
// Mutations: input/response types, per-role views, and the mutation_root builder (registered on load).
export * from './schema/mutationView.js';
export * from './schema/mutationTypes.js';
export * from './schema/mutationRoot.js';
export { CACHED_DIRECTIVE, DEFAULT_CACHE_TTL, resolveCached, type CachedSpec } from './request/cachedDirective.js';
export { assertQueryAllowed, isQueryAllowed } from './request/allowlist.js';
export { collectionQueryInconsistencies } from './request/collectionQueries.js';
export { chosenPath } from './request/chosenPath.js';
export { dataObject, namespacedAlias, responseKeys } from './request/responseKeys.js';
export { isNamespaceField } from './schema/namespaceFields.js';
export { anyGraphqlCase } from './schema/graphqlCase.js';
export { measureOperation, type DocumentCost } from './request/documentCost.js';
export {
  HARD_BOUNDS, limitsForRole, checkOperationCost, checkBatchSize, type RoleLimits, type LimitDefaults,
} from './request/operationLimits.js';
export { duplicateRootFields, assertNoRootFieldConflicts, remoteRootFields, databaseRootFields, hasNewNameClashes } from './schema/rootFieldConflicts.js';
export { RELAY_SCHEMA_PARTS, relayKey } from './schema/relaySchema.js';
