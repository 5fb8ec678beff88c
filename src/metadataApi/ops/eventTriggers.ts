/**
 * Event-trigger operations: `create_event_trigger` (with `replace`), `delete_event_trigger`,
 * `redeliver_event`, `invoke_event_trigger`. Definitions live in the metadata document under their
 * table; the capture triggers are brought in line inside the same transaction (`syncEventTriggers`),
 * so a failed request leaves both metadata and database as they were. New events are picked up by
 * the worker after the request commits (runQuery wakes it). With `source` (Hasura v2's pg_* commands)
 * each operation works on that source: its tables in the metadata, its capture triggers and event log
 * in its own database (in the request's transaction there, committed with the request).
 */
import { ApiError } from '../../core/index.js';
import { asObject, asString, decodeCreateEventTrigger, findSource, findTable, removeObject, required, sourceView } from '../../metadata/index.js';
import type { EventTriggerMetadata, Metadata, MetadataObjectId, SchemaCache, TableMetadata } from '../../metadata/index.js';
import type { DbClient } from '../../execution/index.js';
import { eventTablesExist, insertManualEvent, redeliverEvent, syncEventTriggers, syncOneSource } from '../../events/index.js';
import { op, SUCCESS } from '../types.js';
import type { OpContext } from '../types.js';
import { quoteTable, tableEntry, trackedTableInfo } from './common.js';

function findTrigger(md: Metadata, name: string): { table: TableMetadata; trigger: EventTriggerMetadata } | undefined {
  for (const t of md.tables) {
    const trigger = (t.event_triggers ?? []).find((e) => e.name === name);
    if (trigger) return { table: t, trigger };
  }
  return undefined;
}

const noTrigger = (name: string, path = '$.args') => new ApiError('not-exists', `event trigger ${JSON.stringify(name)} does not exist`, { path });

/**
 * The operation's source (`source` of a pg_* command, or `default`): its part of `md` as a
 * version-2 document (its tables are `md`'s own objects, edited in place), the id of one of its
 * objects, its cache, and a connection in the request's transaction on its database.
 */
function scope(ctx: OpContext) {
  const name = ctx.source;
  return {
    view: (md: Metadata): Metadata => (name === 'default' ? md : sourceView(md, name)!),
    id: (id: Extract<MetadataObjectId, { kind: 'event_trigger' }>): MetadataObjectId => (name === 'default' ? id : { kind: 'source_object', source: name, id }),
    cache: (cache: SchemaCache): SchemaCache | undefined => (name === 'default' ? cache : cache.sources?.get(name)),
    async client(): Promise<DbClient> {
      if (name === 'default') return ctx.client;
      const s = findSource(await ctx.work.metadata(), name)!;
      return ctx.work.sourceClient(name, s.configuration.connection_info);
    },
  };
}

/** Brings the capture triggers of the operation's source in line with the working cache. */
async function syncNow(ctx: OpContext): Promise<void> {
  const cache = (await ctx.work.result()).cache;
  if (ctx.source === 'default') return syncEventTriggers(ctx.client, cache);
  const mine = cache.sources?.get(ctx.source);
  if (!mine) return; // the source cannot be read: the change was refused as inconsistent
  const previous = [...(ctx.engine.state.current.sources?.get(ctx.source)?.eventTriggers?.keys() ?? [])];
  await syncOneSource(await scope(ctx).client(), ctx.client, ctx.source, mine, previous);
}

/** The cache of the operation's source; a source that could not be read answers as in Hasura (its objects unknown). */
async function sourceCache(ctx: OpContext): Promise<SchemaCache> {
  const cache = scope(ctx).cache(await ctx.work.cache());
  if (!cache) throw new ApiError('unexpected', `source ${JSON.stringify(ctx.source)} is inconsistent: its database could not be read`, { path: '$.args' });
  return cache;
}

export const create_event_trigger = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeCreateEventTrigger(args, path),
  async run(ctx, args) {
    const sc = scope(ctx);
    const md = await ctx.work.draft();
    const part = sc.view(md);
    const entry = tableEntry(part, args.table);
    const info = ctx.source === 'default' ? await trackedTableInfo(ctx, args.table) : (await sourceCache(ctx)).tables.get(`${args.table.schema}.${args.table.name}`);
    if (!info) throw new ApiError('not-exists', `table ${quoteTable(args.table)} does not exist`, { path: '$.args.table' });
    if (info.kind !== 'table' && info.kind !== 'partitioned_table') {
      throw new ApiError('not-supported', `event triggers can only be created on tables, ${quoteTable(args.table)} is a ${info.kind.replace('_', ' ')}`, { path: '$.args.table' });
    }
    const existing = findTrigger(part, args.trigger.name);
    if (existing && !args.replace) {
      throw new ApiError('already-exists', `event trigger with name ${JSON.stringify(args.trigger.name)} already exists`, { path: '$.args' });
    }
    if (existing) removeObject(part, { kind: 'event_trigger', table: existing.table.table, name: args.trigger.name });
    entry.event_triggers = [...(findTable(part, args.table)?.event_triggers ?? []), args.trigger];
    await ctx.work.change(md, sc.id({ kind: 'event_trigger', table: args.table, name: args.trigger.name }));
    await syncNow(ctx);
    return SUCCESS;
  },
});

export const delete_event_trigger = op({
  adminOnly: true,
  mutates: true,
  decode(args, path) {
    return { name: required(asObject(args, path), 'name', path, asString) };
  },
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const part = scope(ctx).view(md);
    const found = findTrigger(part, args.name);
    if (!found) throw noTrigger(args.name);
    removeObject(part, { kind: 'event_trigger', table: found.table.table, name: args.name });
    await ctx.work.change(md);
    await syncNow(ctx);
    return SUCCESS;
  },
});

export const redeliver_event = op({
  adminOnly: true,
  mutates: false,
  decode(args, path) {
    return { eventId: required(asObject(args, path), 'event_id', path, asString) };
  },
  async run(ctx, args) {
    // Hasura v1.3's wording (checkEvent).
    const r = await redeliverEvent(await scope(ctx).client(), args.eventId);
    if (r === 'missing') throw new ApiError('not-exists', 'event not found', { path: '$.args' });
    if (r === 'busy') throw new ApiError('busy', 'event is already being processed', { path: '$.args' });
    return SUCCESS;
  },
});

export const invoke_event_trigger = op({
  adminOnly: true,
  mutates: false,
  decode(args, path) {
    const o = asObject(args, path);
    const name = required(o, 'name', path, asString);
    if (!('payload' in o)) throw new ApiError('parse-failed', 'key "payload" not found', { path });
    return { name, payload: o.payload };
  },
  async run(ctx, args) {
    const cache = await sourceCache(ctx);
    const info = cache.eventTriggers?.get(args.name);
    if (!info) throw noTrigger(args.name);
    if (!info.definition.definition.enable_manual) {
      throw new ApiError('not-supported', 'manual mode is not enabled for event trigger', { path: '$.args' });
    }
    const client = await scope(ctx).client();
    if (!(await eventTablesExist(client))) {
      if (ctx.source === 'default') await syncEventTriggers(client, cache);
      else await syncOneSource(client, ctx.client, ctx.source, cache, [...(cache.eventTriggers?.keys() ?? [])]);
    }
    return { event_id: await insertManualEvent(client, info, args.payload, ctx.session.vars) };
  },
});
