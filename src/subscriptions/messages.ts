/**
 * The server messages of the two sub-protocols, written as JSON text (results are spliced in as
 * the JSON text Postgres built, never re-parsed):
 *
 * - `graphql-ws` (Apollo subscriptions-transport-ws, as Hasura v1.3 speaks it): connection_ack,
 *   connection_error {payload: "<message>"}, ka, data, error, complete.
 * - `graphql-transport-ws` (the graphql-ws library's protocol): connection_ack, pong, next,
 *   error {payload: [GraphQLError]}, complete; protocol violations close the socket with 44xx.
 */
export type Protocol = 'graphql-ws' | 'graphql-transport-ws';

const id = (opId: string): string => JSON.stringify(opId);

export const ackMessage = '{"type":"connection_ack"}';
export const keepAliveMessage = '{"type":"ka"}';
export const pongMessage = '{"type":"pong"}';

export const connectionErrorMessage = (message: string): string => JSON.stringify({ type: 'connection_error', payload: message });

/** One result of an operation (`payload` is the `{"data":…}` / `{"errors":…}` JSON text). */
export function dataMessage(protocol: Protocol, opId: string, body: string): string {
  return protocol === 'graphql-ws'
    ? `{"type":"data","id":${id(opId)},"payload":${body}}`
    : `{"id":${id(opId)},"type":"next","payload":${body}}`;
}

export function errorMessage(protocol: Protocol, opId: string, payload: unknown): string {
  return protocol === 'graphql-ws'
    ? `{"type":"error","id":${id(opId)},"payload":${JSON.stringify(payload)}}`
    : `{"id":${id(opId)},"type":"error","payload":${JSON.stringify(payload)}}`;
}

export function completeMessage(protocol: Protocol, opId: string): string {
  return protocol === 'graphql-ws' ? `{"type":"complete","id":${id(opId)}}` : `{"id":${id(opId)},"type":"complete"}`;
}

/** `graphql-transport-ws` close codes (PROTOCOL.md of the graphql-ws library). */
export const CLOSE = {
  badRequest: 4400,
  unauthorized: 4401,
  forbidden: 4403,
  subscriberExists: 4409,
  tooManyInits: 4429,
} as const;
