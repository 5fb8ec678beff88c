/**
 * remoteSchemas/: remote GraphQL servers stitched into the engine. Fetches and checks their
 * introspections (the schema-cache build's input), plans and delegates remote root fields (one
 * request per remote per operation), and runs remote-relationship joins (one request per
 * relationship per response level). Loading this module registers the `ext:remote` planner.
 */
export { fetchRemoteIntrospection, fetchRemoteInputs, definitionKey } from './introspectRemote.js';
export { introspectionError } from './validateIntrospection.js';
export { remoteRequestHeaders } from './remoteHeaders.js';
export { callRemote, type RemoteAnswer, type RemoteCall } from './remoteRequest.js';
export { executeRemoteFields, planRemoteField, remoteClientSchema, type RemoteFieldPlan, type DelegationArgs } from './delegate.js';
export { runRemoteJoins, checkRemoteJoins, type RemoteJoinArgs } from './remoteJoin.js';
export { checkTypeRelJoins, runTypeRelJoins } from './typeRelJoin.js';
export type { SourceQuery } from './sourceJoin.js';
