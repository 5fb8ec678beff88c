export type { Db, DbClient, QueryResultRows } from './db.js';
export { createDb, statementName, escapeLiteral, beginStatement } from './createDb.js';
export type { CreateDbOptions } from './createDb.js';
export { pgErrorToApiError, pgErrorInternal, isPgServerError } from './pgError.js';
export type { PgErrorMode, PgErrorOptions, PgServerError } from './pgError.js';
export { startEmbeddedPostgres } from './embeddedPostgres.js';
export type { EmbeddedPostgresHandle, EmbeddedPostgresOptions } from './embeddedPostgres.js';
export { listenChannel } from './listenChannel.js';
export type { ChannelListener, ChannelListenerOptions } from './listenChannel.js';
