/**
 * planner/: a validated GraphQL operation + the role's permissions → IR per root field, and the
 * plan cache that keeps the compiled SQL of each (role, query, operationName, variable shape).
 */
export { PlanContext, irValue, valueSource, plainValue, listValue, columnValueType, type RuntimeCheck } from './context.js';
export { planBoolExp, columnOps, FALSE } from './boolExp.js';
export { planOrderBy, planDistinctOn } from './orderBy.js';
export { parseJsonPath } from './jsonPath.js';
export type { RemoteJoinField } from './select.js';
export { isSourceJoin, sourceJoin, type SourceJoinField } from './sourceRel.js';
export { planSelect, planAggregate, planFields, functionArgs, checkLimitValue, checkOffsetValue } from './select.js';
export {
  planOperation,
  type OperationPlan, type RootFieldPlan, type RootFieldPlanner, type RootFieldPlanners, type PlanOptions, type RemoteJoinPlan, type RemoteJoinShape, type RowShapeField,
} from './planOperation.js';
export { variableSignature } from './signature.js';
export type { LiveKey, LiveKeyKind } from './liveKey.js';
export { getCompiledOperation, compileOperation, type CompiledOperation, type CompiledRootField, type PlanRequest } from './planCache.js';
export { TABLE_PLANNERS } from './planners.js';
// Mutations: the planner of the ext:insert/update/delete kinds, and their executor.
export {
  planMutationField, mutationRootPlanner, executeMutations, isMutationFieldPlan, MUTATION_PLAN_KINDS, type MutationAnswer, type MutationFieldPlan, type StatementPlan,
} from './mutation.js';
export { RELAY_PLANNERS } from './relay.js';
export { STREAM_CURSOR_VARIABLE, STREAM_BOUND_VARIABLE, type StreamPlan } from './stream.js';
