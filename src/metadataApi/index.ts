/**
 * /v1/query: decode the request (envelope + every operation's args), then run it atomically.
 */
export { decodeQuery, mutates } from './envelope.js';
export type { Query } from './envelope.js';
export { runQuery } from './runQuery.js';
export { decodeBody, decodeBodyInline, decodeBodyOffThread, offThreadDecodeCounts, OFF_THREAD_MIN_BYTES } from './decodeBody.js';
export type { BodyEndpoint, DecodedBody } from './decodeBody.js';
export { OPERATIONS, OP_TYPES, isOpType } from './operations.js';
export type { OpType } from './operations.js';
export type { OpContext, OperationHandler } from './types.js';
export { op, SUCCESS } from './types.js';
export { WorkingState } from './workingState.js';
// v1 DML results carry Postgres-built JSON as RawJson; encode results with encodeQueryResult.
export { RawJson, encodeQueryResult } from './dml/index.js';
export { translateV2Metadata, v2MetadataResult, metadataFromV3, metadataToV3 } from './v2Metadata.js';
export { translateV2Query, v2QueryNeedsAdmin } from './v2Query.js';
export { HASURA_V2_NOT_SUPPORTED } from './hasuraV2Commands.js';
