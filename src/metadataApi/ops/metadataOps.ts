/**
 * Whole-metadata operations: `export_metadata`, `replace_metadata` (refused when the new metadata
 * has any inconsistency or uses what the engine does not support yet, see unsupportedMetadata.ts), `reload_metadata`, `clear_metadata`, `get_inconsistent_metadata`,
 * `drop_inconsistent_metadata`.
 */
import { ApiError } from '../../core/index.js';
import { assertNoDuplicates, assertQueryCollectionsValid, assertSupportedMetadata, decodeMetadata, emptyMetadata, encodeMetadata, isObject, removeObject } from '../../metadata/index.js';
import type { InconsistentObject } from '../../metadata/index.js';
import { op, SUCCESS } from '../types.js';

const anyArgs = (args: unknown) => args;

export const export_metadata = op({
  adminOnly: true,
  mutates: false,
  decode: anyArgs,
  async run(ctx) {
    return encodeMetadata(await ctx.work.metadata());
  },
});

export const replace_metadata = op({
  adminOnly: true,
  mutates: true,
  // Metadata the engine would not act on (actions, event triggers…) is refused, never stored silently.
  decode: (args, path) => {
    assertSupportedMetadata(args, `${path}.args`);
    return decodeMetadata(args, path);
  },
  async run(ctx, md) {
    assertNoDuplicates(md);
    assertQueryCollectionsValid(md);
    const built = await ctx.work.buildFor(md);
    if (built.inconsistent.length > 0) {
      throw new ApiError('unexpected', 'cannot continue due to inconsistent metadata', {
        path: '$.args',
        internal: built.inconsistent.map((i) => i.object),
      });
    }
    ctx.work.adopt(md, built);
    return SUCCESS;
  },
});

export const reload_metadata = op({
  adminOnly: true,
  mutates: true,
  decode: anyArgs,
  async run(ctx) {
    await ctx.work.reload();
    return SUCCESS;
  },
});

export const clear_metadata = op({
  adminOnly: true,
  mutates: true,
  decode: anyArgs,
  async run(ctx) {
    const md = emptyMetadata();
    md.functions = [];
    ctx.work.adopt(md, await ctx.work.buildFor(md));
    return SUCCESS;
  },
});

/** Objects inside a table carry the source name in Hasura's report (`"source": "default"`). */
function withSource(o: InconsistentObject): InconsistentObject {
  const def = o.definition;
  if (isObject(def) && 'table' in def && o.type !== 'table') return { ...o, definition: { ...def, source: 'default' } };
  return o;
}

export const get_inconsistent_metadata = op({
  adminOnly: true,
  mutates: false,
  decode: anyArgs,
  async run(ctx) {
    const cache = await ctx.work.cache();
    return { is_consistent: cache.inconsistentObjects.length === 0, inconsistent_objects: cache.inconsistentObjects.map(withSource) };
  },
});

export const drop_inconsistent_metadata = op({
  adminOnly: true,
  mutates: true,
  decode: anyArgs,
  async run(ctx) {
    const { inconsistent } = await ctx.work.result();
    const md = await ctx.work.draft();
    for (const i of [...inconsistent].reverse()) removeObject(md, i.id);
    ctx.work.adopt(md, await ctx.work.buildFor(md));
    return SUCCESS;
  },
});
