/**
 * The capture triggers of the sources beside `default`, each in its own database (as Hasura v2):
 * `syncSourceEventTriggers` brings every source that has event triggers now, or had them in the
 * cache being replaced, in line with the new cache, inside a transaction on that source that the
 * caller commits with the metadata change (metadataApi's `WorkingState.sourceClient`). A source
 * dropped from the metadata is cleaned after the change committed (`dropSourceCaptures`): its capture
 * triggers (and, through `also`, the live queries' change triggers), its event tables, and `hdb_catalog`
 * when nothing else is left there.
 */
import type { Logger } from 'pino';
import { ApiError } from '../core/index.js';
import { sameDatabase, sameDatabaseOf, type Db, type DbClient, type SourcePools } from '../execution/index.js';
import { findSource, type SchemaCache, type SourceMetadata } from '../metadata/index.js';
import { syncEventTriggers } from './captureTriggers.js';
import { dropEmptyCatalog } from './eventTables.js';

type Connection = SourceMetadata['configuration']['connection_info'];

const triggerNames = (c: SchemaCache | undefined): string[] => [...(c?.eventTriggers?.keys() ?? [])];

/**
 * The (readable) sources of `previous` that `next`'s metadata no longer has, leaving out one whose
 * connection another source of `next` has (rename_source: the same database under a new name).
 */
export function droppedSources(previous: SchemaCache, next: SchemaCache): Array<{ name: string; connection: Connection; cache: SchemaCache }> {
  const out: Array<{ name: string; connection: Connection; cache: SchemaCache }> = [];
  const kept = new Set((next.metadata.sources ?? []).map((s) => JSON.stringify(s.configuration.connection_info.database_url)));
  for (const [name, c] of previous.sources ?? []) {
    if (findSource(next.metadata, name)) continue;
    const s = findSource(previous.metadata, name);
    if (s && !kept.has(JSON.stringify(s.configuration.connection_info.database_url))) out.push({ name, connection: s.configuration.connection_info, cache: c });
  }
  return out;
}

export async function syncSourceEventTriggers(
  next: SchemaCache, previous: SchemaCache, clientFor: (name: string, connection: Connection) => Promise<DbClient>, engine: DbClient,
): Promise<void> {
  for (const [name, cache] of next.sources ?? []) {
    const before = previous.sources?.get(name);
    if (triggerNames(cache).length === 0 && triggerNames(before).length === 0) continue;
    const s = findSource(next.metadata, name);
    if (!s) continue;
    await syncOneSource(await clientFor(name, s.configuration.connection_info), engine, name, cache, triggerNames(before));
  }
}

/**
 * One source's captures in line with its cache (`previous`: its trigger names before). A source that
 * is the engine's own database under another name cannot have its own: `default`'s captures and
 * event log are there (refused by name, nothing changed).
 */
export async function syncOneSource(client: DbClient, engine: DbClient, name: string, cache: SchemaCache, previous: readonly string[]): Promise<void> {
  if (await sameDatabaseOf(client, engine)) {
    if (triggerNames(cache).length === 0) return;
    throw new ApiError('not-supported', `source ${JSON.stringify(name)} is the engine's own database (that of "default"): define its event triggers on the "default" source`, { path: '$.args' });
  }
  await syncEventTriggers(client, cache, { source: { name, previous } });
}

/**
 * After a source left the metadata: the engine's objects in its database removed (best effort: it may
 * be unreachable), `also` first (the live queries' change counters), then the event captures and tables
 * and, when nothing else is left in it, `hdb_catalog` (as Hasura v2's pg_drop_source).
 */
export async function dropSourceCaptures(
  pools: SourcePools, dropped: ReturnType<typeof droppedSources>, current: SchemaCache, logger: Logger, also: (c: DbClient) => Promise<void>, engine: Db,
): Promise<void> {
  for (const d of dropped) {
    try {
      const { db } = pools.pool(d.name, d.connection);
      // The engine's own database added under another name: what is there is `default`'s.
      if (await sameDatabase(db, engine)) continue;
      await db.transaction({}, async (c) => {
        await also(c);
        await syncEventTriggers(c, { ...d.cache, eventTriggers: new Map() }, { source: { name: d.name, previous: triggerNames(d.cache) } });
        await dropEmptyCatalog(c);
      });
    } catch (err) {
      logger.warn({ type: 'event-trigger', source: d.name, err }, `the engine's triggers could not be removed from the database of dropped source ${JSON.stringify(d.name)}`);
    }
  }
  // The pools made for the clean-up go again (sources no longer in the metadata).
  if (dropped.length > 0) pools.retain(new Set((current.metadata.sources ?? []).map((s) => s.name)));
}
