/**
 * subscriptions/: GraphQL over WebSocket (both sub-protocols) and the live-query multiplexer
 * (Poller ▸ Cohort ▸ Subscriber, one statement per batch of cohorts, run when a table the statement
 * reads changed, or every refetch interval when Postgres cannot tell what it reads).
 */
export { serveGraphqlSocket, wsLimits, type WsExecute } from './wsConnection.js';
export { liveQueryStats, liveQueriesFor, KEEP_ALIVE_MS, type LiveQueryStats } from './liveQueries.js';
export { explainSubscription } from './explainSubscription.js';
export { multiplexedStatement, cohortVariables, type LiveRootField } from './multiplexedQuery.js';
export { syncLiveTriggers, syncSourceLiveTriggers, dropLiveChanges } from './liveTriggers.js';
