/**
 * Tells the operator, when a metadata operation starts serving SQL functions (track_function,
 * add_computed_field, replace_metadata), which of them read Hasura's session setting `hasura.user`
 * while the engine runs without Hasura-compatible session variables: such a function reads NULL here.
 */
import { qualifiedKey } from '../core/index.js';
import { hasuraSessionReadersAmong, hasuraSessionWarning } from '../metadata/index.js';
import type { Metadata } from '../metadata/index.js';
import type { OpContext } from './types.js';

/** Operations that may add functions the GraphQL API calls. */
export const FUNCTION_OPS: ReadonlySet<string> = new Set(['track_function', 'add_computed_field', 'replace_metadata']);

/** `schema.name` of every tracked function and computed-field function. */
export function servedFunctions(md: Metadata): Set<string> {
  const out = new Set<string>();
  for (const f of md.functions ?? []) out.add(qualifiedKey(f.function));
  for (const t of md.tables) {
    for (const c of t.computed_fields ?? []) {
      const fn = c.definition.function;
      out.add(typeof fn === 'string' ? qualifiedKey({ schema: 'public', name: fn }) : qualifiedKey(fn));
    }
  }
  return out;
}

/** Logs one warning naming the functions served since `before` whose body reads `hasura.user`. */
export async function noticeHasuraSessionReaders(ctx: OpContext, op: string, before: ReadonlySet<string>): Promise<void> {
  const added = [...servedFunctions(await ctx.work.metadata())].filter((k) => !before.has(k));
  if (added.length === 0) return;
  const readers = await hasuraSessionReadersAmong(ctx.client, added);
  if (readers.length === 0) return;
  ctx.engine.logger.warn({ type: 'hasura-session', path: ctx.path, functions: readers }, hasuraSessionWarning(`${op} (${readers.join(', ')})`));
}
