/**
 * planner/: a validated GraphQL operation + the role's permissions → IR per root field, and the
 * plan cache that keeps the compiled SQL of each (role, query, operationName, variable shape).
 */
export { PlanContext, irValue, valueSource, plainValue, listValue, columnValueType, type RuntimeCheck } from './context.js';
export { planBoolExp, columnOps, FALSE } from './boolExp.js';
export { planOrderBy, planDistinctOn } from './orderBy.js';
export { parseJsonPath } from './jsonPath.js';
export type { RemoteJoinField } from './select.js';
export { planSelect, planAggregate, planFields, functionArgs, checkLimitValue, checkOffsetValue } from './select.js';
export {
  planOperation, registerRootFieldPlanner,
  type OperationPlan, type RootFieldPlan, type RootFieldPlanner, type PlanOptions, type RemoteJoinPlan, type RemoteJoinShape,
} from './planOperation.js';
export { variableSignature } from './signature.js';
export { getCompiledOperation, compileOperation, type CompiledOperation, type CompiledRootField, type PlanRequest } from './planCache.js';
// Mutations (mutations engineer): planners registered for the ext:insert/update/delete kinds on load, and their executor.
export {
  planMutationField, executeMutations, isMutationFieldPlan, MUTATION_PLAN_KINDS, type MutationFieldPlan,
} from './mutation.js';
