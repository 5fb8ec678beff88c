/**
 * The capture triggers of the sources beside `default`, each in its own database (as Hasura v2):
 * `syncSourceEventTriggers` brings every source that has event triggers now, or had them in the
 * cache being replaced, in line with the new cache, inside a transaction on that source that the
 * caller commits with the metadata change (metadataApi's `WorkingState.sourceClient`). A source
 * dropped from the metadata is cleaned after the change committed (`dropSourceCaptures`): its capture
 * triggers, and its event tables and `hdb_catalog` when nothing else is left there.
 */
import type { Logger } from 'pino';
import type { DbClient, SourcePools } from '../execution/index.js';
import { findSource, type SchemaCache, type SourceMetadata } from '../metadata/index.js';
import { syncEventTriggers } from './captureTriggers.js';

type Connection = SourceMetadata['configuration']['connection_info'];

const triggerNames = (c: SchemaCache | undefined): string[] => [...(c?.eventTriggers?.keys() ?? [])];

/** The sources of `previous` with event triggers that `next`'s metadata no longer has. */
export function droppedTriggerSources(previous: SchemaCache, next: SchemaCache): Array<{ name: string; connection: Connection; cache: SchemaCache }> {
  const out: Array<{ name: string; connection: Connection; cache: SchemaCache }> = [];
  for (const [name, c] of previous.sources ?? []) {
    if (triggerNames(c).length === 0 || findSource(next.metadata, name)) continue;
    const s = findSource(previous.metadata, name);
    if (s) out.push({ name, connection: s.configuration.connection_info, cache: c });
  }
  return out;
}

export async function syncSourceEventTriggers(
  next: SchemaCache, previous: SchemaCache, clientFor: (name: string, connection: Connection) => Promise<DbClient>,
): Promise<void> {
  for (const [name, cache] of next.sources ?? []) {
    const before = previous.sources?.get(name);
    if (triggerNames(cache).length === 0 && triggerNames(before).length === 0) continue;
    const s = findSource(next.metadata, name);
    if (!s) continue;
    await syncEventTriggers(await clientFor(name, s.configuration.connection_info), cache, { source: { name, previous: triggerNames(before) } });
  }
}

/** After a source with event triggers left the metadata: its captures removed (best effort: it may be unreachable). */
export async function dropSourceCaptures(pools: SourcePools, dropped: ReturnType<typeof droppedTriggerSources>, current: SchemaCache, logger: Logger): Promise<void> {
  for (const d of dropped) {
    try {
      const { db } = pools.pool(d.name, d.connection);
      await db.transaction({}, (c) => syncEventTriggers(c, { ...d.cache, eventTriggers: new Map() }, { source: { name: d.name, previous: triggerNames(d.cache) } }));
    } catch (err) {
      logger.warn({ type: 'event-trigger', source: d.name, err }, `the event triggers of dropped source ${JSON.stringify(d.name)} could not be removed from its database`);
    }
  }
  // The pools made for the clean-up go again (sources no longer in the metadata).
  if (dropped.length > 0) pools.retain(new Set((current.metadata.sources ?? []).map((s) => s.name)));
}
