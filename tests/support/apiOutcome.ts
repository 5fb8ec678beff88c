/**
 * What a decoder or operation gave, as a value to compare: its result, its API error (code, message, path,
 * status), or a stack overflow; any other exception is rethrown.
 */
import { ApiError, isStackOverflow } from '../../src/core/index.js';

export type Outcome = { ok: unknown } | { error: { code: string; message: string; path: string; status: number } } | { stackOverflow: true };

export async function outcome(run: () => unknown): Promise<Outcome> {
  try {
    return { ok: await run() };
  } catch (e) {
    if (e instanceof ApiError) return { error: { code: e.code, message: e.message, path: e.path, status: e.status } };
    if (isStackOverflow(e)) return { stackOverflow: true };
    throw e;
  }
}
