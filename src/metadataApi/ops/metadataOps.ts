/**
 * Whole-metadata operations: `export_metadata`, `replace_metadata` (refused when the new metadata
 * has any inconsistency or uses what the engine does not support yet, see unsupportedMetadata.ts), `reload_metadata`, `clear_metadata`, `get_inconsistent_metadata`,
 * `drop_inconsistent_metadata`. Cron triggers are rows of `hdb_cron_triggers`, not part of the stored
 * document: export adds those with `include_in_metadata`, replace swaps exactly those for the given
 * ones (validated first; the others stay), clear removes them.
 */
import { ApiError, pathKey } from '../../core/index.js';
import { arrayOf, assertInheritedRoles, assertNoDuplicates, assertQueryCollectionsValid, assertRestEndpointsValid, assertSupportedMetadata, decodeMetadata, emptyMetadata, isObject, removeObject } from '../../metadata/index.js';
import type { InconsistentObject } from '../../metadata/index.js';
import { decodeCronTrigger, deleteCronTriggersInMetadata, encodeCronTrigger, listCronTriggers, upsertCronTrigger, type CronTriggerDef } from '../../scheduled/index.js';
import { op, SUCCESS } from '../types.js';
import { exportMetadata } from '../exportedMetadata.js';
import type { EngineContext } from '../../appState.js';
import { prepareSchemaKeys } from '../../graphql/index.js';
import { TurnBudget } from '../../lib/index.js';

const anyArgs = (args: unknown) => args;

export const export_metadata = op({
  adminOnly: true,
  mutates: false,
  decode: anyArgs,
  // The document's text, its tables a slice per event-loop turn (exportedMetadata.ts).
  async run(ctx) {
    const md = await ctx.work.metadata();
    const crons = await listCronTriggers(ctx.client, true);
    return exportMetadata(md, crons.map(encodeCronTrigger));
  },
});

export const replace_metadata = op({
  adminOnly: true,
  mutates: true,
  // Metadata the engine would not act on (actions, remote schemas…) is refused, never stored silently.
  // `{metadata, allow_inconsistent_metadata}` (Hasura v2's second form) answers with the inconsistencies.
  decode(raw, path) {
    const wrapped = isObject(raw) && 'metadata' in raw;
    const args = wrapped ? raw.metadata : raw;
    const argsPath = wrapped ? `${path}.args.metadata` : `${path}.args`;
    const allow = wrapped ? raw.allow_inconsistent_metadata ?? false : false;
    if (typeof allow !== 'boolean') throw new ApiError('parse-failed', `expected Boolean, encountered ${allow === null ? 'Null' : typeof allow}`, { path: `${path}.args.allow_inconsistent_metadata` });
    assertSupportedMetadata(args, argsPath);
    const md = decodeMetadata(args, wrapped ? pathKey(path, 'metadata') : path);
    const crons: CronTriggerDef[] = (md.cron_triggers === undefined ? [] : arrayOf((v, p) => decodeCronTrigger(v, p))(md.cron_triggers, pathKey(path, 'cron_triggers'))).map(
      ({ replace: _replace, ...t }) => ({ ...t, include_in_metadata: true }),
    );
    delete md.cron_triggers;
    return { md, crons, wrapped, allow };
  },
  async run(ctx, { md, crons, wrapped, allow }) {
    const seen = new Set<string>();
    for (const t of crons) {
      if (seen.has(t.name)) throw new ApiError('already-exists', `cron trigger with name: ${t.name} already exists`, { path: '$.args.cron_triggers' });
      seen.add(t.name);
    }
    assertNoDuplicates(md);
    assertInheritedRoles(md);
    assertQueryCollectionsValid(md);
    assertRestEndpointsValid(md);
    const built = await ctx.work.buildFor(md);
    if (built.inconsistent.length > 0 && !allow) {
      throw new ApiError('unexpected', 'cannot continue due to inconsistent metadata', {
        path: '$.args',
        internal: built.inconsistent.map((i) => i.object),
      });
    }
    ctx.work.adopt(md, built);
    // Every table object is new: the role schemas' keys computed in slices now, not by the first request after.
    await prepareSchemaKeys(built.cache, new TurnBudget());
    await deleteCronTriggersInMetadata(ctx.client);
    for (const t of crons) await upsertCronTrigger(ctx.client, t);
    if (!wrapped) return SUCCESS;
    const objects = built.inconsistent.map((i) => withSource(i.object));
    return { is_consistent: objects.length === 0, inconsistent_objects: objects };
  },
});

export const reload_metadata = op({
  adminOnly: true,
  mutates: true,
  decode: anyArgs,
  async run(ctx) {
    await ctx.work.reload();
    // Every table object is new: the role schemas' keys computed in slices now, not by the first request after.
    await prepareSchemaKeys((await ctx.work.result()).cache, new TurnBudget());
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
    await deleteCronTriggersInMetadata(ctx.client);
    return SUCCESS;
  },
});

/** Objects inside a table carry the source name in Hasura's report (`"source": "default"`). */
function withSource(o: InconsistentObject): InconsistentObject {
  const def = o.definition;
  if (isObject(def) && 'table' in def && o.type !== 'table') return { ...o, definition: { ...def, source: typeof def.source === 'string' ? def.source : 'default' } };
  return o;
}

/**
 * The sources that stopped answering after the schema was built (server/sourceWatch.ts), in the
 * shape of a source the build could not read; those the build already reports are not repeated.
 */
function sourcesAway(engine: EngineContext, reported: readonly InconsistentObject[]): InconsistentObject[] {
  const away = engine.sources?.outages();
  if (!away || away.size === 0) return [];
  const known = new Set(reported.filter((o) => o.type === 'source').map((o) => (o.definition as { name?: unknown } | undefined)?.name));
  const sources = engine.state.current.metadata.sources ?? [];
  return sources.filter((s) => away.has(s.name) && !known.has(s.name)).map((s) => ({
    type: 'source', name: `source ${s.name}`, definition: { name: s.name, kind: s.kind }, reason: `Inconsistent object: ${away.get(s.name)!.reason}`,
  }));
}

export const get_inconsistent_metadata = op({
  adminOnly: true,
  mutates: false,
  decode: anyArgs,
  async run(ctx) {
    const cache = await ctx.work.cache();
    const objects = [...cache.inconsistentObjects, ...sourcesAway(ctx.engine, cache.inconsistentObjects)];
    return { is_consistent: objects.length === 0, inconsistent_objects: objects.map(withSource) };
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
