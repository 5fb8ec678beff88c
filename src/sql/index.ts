export * from './fragment.js';
export * from './params.js';
export { Aliases } from './aliases.js';
export { compileBoolExp, type BoolExpContext } from './boolExp.js';
export { compileSelect, compileAggregate, compileRowJson, ROOT_COLUMN } from './select.js';
export { explain } from './explain.js';
// Mutations: insert/update/delete compilers and the runner of a mutation IR.
export { compileInsert, hasNestedInserts } from './insert.js';
export { compileUpdate } from './update.js';
export { compileDelete } from './delete.js';
export { runMutation, mutationSqlText, singleStatement, type CompiledStatement, type JsonQuery, type MutationRunContext } from './mutationRun.js';
export { CHECK_VIOLATION_FUNCTION_SQL } from './mutationOutput.js';
export { compileCount } from './count.js';
export { mapParamRefs } from './mapParamRefs.js';
export { compileConnection } from './nodes.js';
export { nativeQuerySql } from './nativeQuery.js';
export { compileSourceJoin, combineSourceJoins, sourceJoinKeyColumn, type SourceJoinNode, type SourceJoinKey } from './sourceJoin.js';
