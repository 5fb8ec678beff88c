/**
 * The endpoint handlers, looked up BY NAME by server/routes.ts (a missing name is a 404):
 * healthz, version, v1Query, v1Graphql, v1GraphqlExplain, v1alpha1Config, v1alpha1PgDump;
 * optionally v1GraphqlWs (WebSocket subscriptions) and startWorkers(ctx) (background work).
 * Append one export line per handler.
 */
export { healthz } from './healthz.js';
export { consoleAssets, consoleRedirect } from './consoleAssets.js';
export { version } from './version.js';
export { v1alpha1Config } from './v1alpha1Config.js';
export { v1alpha1PgDump } from './v1alpha1PgDump.js';
export { v1Graphql, v1beta1Relay } from './v1Graphql.js';
export { restEndpoint } from './restEndpoint.js';
export { swaggerJson } from './swaggerJson.js';
// What runs each kind of root field (the one table) and the executors' contract.
export { EXECUTORS, type Executors } from './executors.js';
export type { ExecutorArgs, MutationFieldExecutor, OperationExecutor, QueryFieldsExecutor, RequestExtras } from './executorTypes.js';
// Actions: the wake-up of the async-action worker.
export { setActionWaker } from './executeAction.js';
// Remote schemas: requests made for remote relationships (tests and benchmarks read it).
export { remoteJoinRequests, sourceJoinStatements } from './executeRemote.js';
export { v1Query } from './v1Query.js';
export { v1Metadata } from './v1Metadata.js';
export { v2Query } from './v2Query.js';
export { v1Metrics } from './v1Metrics.js';
export { v1GraphqlExplain } from './v1GraphqlExplain.js';
export { v1GraphqlWs, v1beta1RelayWs } from './v1GraphqlWs.js';
// Background workers (event-trigger delivery), started by server/startEngine.ts.
export { startWorkers } from './startWorkers.js';
// The contract between the listener (server/) and these handlers.
export type { Handler, HttpResponse, RequestContext, WsHandler } from './handlerTypes.js';
export { jsonResponse } from './handlerTypes.js';
export { consoleFile } from './consoleAssets.js';
