/**
 * WebSocket /v1/graphql (and /v1alpha1/graphql): subscriptions, queries and mutations over
 * `graphql-ws` or `graphql-transport-ws` (see subscriptions/wsConnection.ts). Queries and
 * mutations run through the same pipeline as HTTP.
 */
import { serveGraphqlSocket } from '../subscriptions/index.js';
import type { WsHandler } from './handlerTypes.js';
import { executeGraphql } from './executeGraphql.js';

export const v1GraphqlWs: WsHandler = (socket, req, ctx) => {
  serveGraphqlSocket(socket, req, ctx, (session, request) => executeGraphql(ctx, session, request, 'ws'));
};
