/**
 * `track_function`'s up-front checks (Hasura reports these directly, not as inconsistencies):
 * the function must exist (not-exists), be trackable (not-supported "the function … cannot be
 * tracked because …"), and return a tracked table.
 */
import { ApiError } from '../../core/index.js';
import { BuildError, resolveFunction } from '../../metadata/index.js';
import type { FunctionMetadata } from '../../metadata/index.js';
import type { OpContext } from '../types.js';

export async function resolveFunctionForTracking(ctx: OpContext, fm: FunctionMetadata): Promise<void> {
  const cache = await ctx.work.cache();
  try {
    resolveFunction({ snapshot: await ctx.work.snapshot(), tables: cache.tables }, fm);
  } catch (e) {
    if (!(e instanceof BuildError)) throw e;
    const code = e.message.startsWith('no such function') ? 'not-exists' : 'not-supported';
    throw new ApiError(code, e.message, { path: '$.args' });
  }
}
