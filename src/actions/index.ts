// Actions: schema builders and planners register themselves on import (see README.md).
export { actionMutationFields, actionQueryFields, canSee, outputObject, type ActionFieldMeta } from './actionSchema.js';
export { planActionAsyncResult, planActionField, planOutput, type ActionFieldPlan, type OutputSelection } from './actionPlan.js';
export { runActionField, type ActionRunContext } from './runAction.js';
export { callHandler, checkOutput, forwardedHeaders, handlerBody, type HandlerAnswer } from './callHandler.js';
export { ACTION_LOG_CHANNEL, actionLogQueue, createActionLogTable, insertActionLog, startActionWorker, type ActionWorkerOptions } from './actionLog.js';
export { actionInput } from './actionInput.js';
