/**
 * The pool a root field runs on: `default`'s (the engine's own, `ctx.db`), or the pool of the source
 * it belongs to (made by the build that read that source), with that source's prepared-statement setting.
 */
import { ApiError } from '../core/index.js';
import type { EngineContext } from '../appState.js';
import type { Db } from '../execution/index.js';

export function sourceDb(ctx: EngineContext, source: string | undefined): { db: Db; prepare: boolean } {
  if (source === undefined || source === 'default') return { db: ctx.db, prepare: ctx.config.usePreparedStatements !== false };
  const pool = ctx.sources?.get(source);
  if (!pool) throw new ApiError('unexpected', `source ${JSON.stringify(source)} is not available`);
  return { db: pool.db, prepare: pool.prepare };
}
