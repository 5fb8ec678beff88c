/**
 * Event-trigger operations: `create_event_trigger` (with `replace`), `delete_event_trigger`,
 * `redeliver_event`, `invoke_event_trigger`. Definitions live in the metadata document under their
 * table; the capture triggers are brought in line inside the same transaction (`syncEventTriggers`),
 * so a failed request leaves both metadata and database as they were. New events are picked up by
 * the worker after the request commits (runQuery wakes it).
 */
import { ApiError } from '../../core/index.js';
import { asObject, asString, decodeCreateEventTrigger, findTable, removeObject, required } from '../../metadata/index.js';
import type { EventTriggerMetadata, Metadata, TableMetadata } from '../../metadata/index.js';
import { eventTablesExist, insertManualEvent, redeliverEvent, syncEventTriggers } from '../../events/index.js';
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

async function syncNow(ctx: OpContext): Promise<void> {
  await syncEventTriggers(ctx.client, (await ctx.work.result()).cache);
}

export const create_event_trigger = op({
  adminOnly: true,
  mutates: true,
  decode: (args, path) => decodeCreateEventTrigger(args, path),
  async run(ctx, args) {
    const md = await ctx.work.draft();
    const entry = tableEntry(md, args.table);
    const info = await trackedTableInfo(ctx, args.table);
    if (info.kind !== 'table' && info.kind !== 'partitioned_table') {
      throw new ApiError('not-supported', `event triggers can only be created on tables, ${quoteTable(args.table)} is a ${info.kind.replace('_', ' ')}`, { path: '$.args.table' });
    }
    const existing = findTrigger(md, args.trigger.name);
    if (existing && !args.replace) {
      throw new ApiError('already-exists', `event trigger with name ${JSON.stringify(args.trigger.name)} already exists`, { path: '$.args' });
    }
    if (existing) removeObject(md, { kind: 'event_trigger', table: existing.table.table, name: args.trigger.name });
    entry.event_triggers = [...(findTable(md, args.table)?.event_triggers ?? []), args.trigger];
    await ctx.work.change(md, { kind: 'event_trigger', table: args.table, name: args.trigger.name });
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
    const found = findTrigger(md, args.name);
    if (!found) throw noTrigger(args.name);
    removeObject(md, { kind: 'event_trigger', table: found.table.table, name: args.name });
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
    const r = await redeliverEvent(ctx.client, args.eventId);
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
    const cache = await ctx.work.cache();
    const info = cache.eventTriggers?.get(args.name);
    if (!info) throw noTrigger(args.name);
    if (!info.definition.definition.enable_manual) {
      throw new ApiError('not-supported', 'manual mode is not enabled for event trigger', { path: '$.args' });
    }
    if (!(await eventTablesExist(ctx.client))) await syncEventTriggers(ctx.client, cache);
    return { event_id: await insertManualEvent(ctx.client, info, args.payload, ctx.session.vars) };
  },
});
