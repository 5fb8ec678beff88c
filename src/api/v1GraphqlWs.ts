/**
 * WebSocket /v1/graphql (and /v1alpha1/graphql), and /v1beta1/relay for the Relay API:
 * subscriptions, queries and mutations over `graphql-ws` or `graphql-transport-ws` (see
 * subscriptions/wsConnection.ts). Queries and mutations run through the same pipeline as HTTP.
 */
import { serveGraphqlSocket } from '../subscriptions/index.js';
import { ENGINE_PARTS, RELAY_PARTS, type ApiParts } from '../appState.js';
import type { WsHandler } from './handlerTypes.js';
import { executeGraphql } from './executeGraphql.js';

const socketOf = (parts: ApiParts): WsHandler => (socket, req, ctx) => {
  serveGraphqlSocket(socket, req, ctx, (session, request, readAfter) => executeGraphql(ctx, session, request, 'ws', { parts, readAfter }), parts);
};

export const v1GraphqlWs: WsHandler = socketOf(ENGINE_PARTS);
export const v1beta1RelayWs: WsHandler = socketOf(RELAY_PARTS);
