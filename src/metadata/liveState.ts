/**
 * The live schema-cache holder behind `AppState` (src/appState.ts re-exports `createAppState`).
 * `rebuild` reads the stored metadata, introspects the database once (plus enum-table rows) and
 * swaps the new cache in; `install` swaps in a cache built elsewhere (by a metadata operation,
 * inside its own transaction). Readers always see a complete cache: the swap is one assignment.
 */
import type { Logger } from 'pino';
import type { ServerConfig } from '../config/serverConfig.js';
import type { Db, DbClient } from '../execution/index.js';
import type { SchemaCache } from './schemaCache/types.js';
import type { Metadata } from './model/metadata.js';
import { loadMetadata } from './catalog/index.js';
import { introspectDatabase } from './introspection/index.js';
import { buildSchemaCache } from './schemaCache/buildSchemaCache.js';

export interface LiveState {
  readonly current: SchemaCache;
  rebuild(): Promise<SchemaCache>;
  install(cache: SchemaCache): void;
}

/** Tables the metadata marks `is_enum` (their rows are read during introspection). */
export const enumTablesOf = (md: Metadata) => md.tables.filter((t) => t.is_enum).map((t) => t.table);

/** Loads metadata and introspects through `c`, then builds the cache (no swap). */
export async function loadSchemaCache(c: DbClient): Promise<SchemaCache> {
  const { metadata } = await loadMetadata(c);
  const snapshot = await introspectDatabase(c, enumTablesOf(metadata));
  return buildSchemaCache(metadata, snapshot);
}

function logInconsistencies(logger: Logger, cache: SchemaCache): void {
  if (cache.inconsistentObjects.length > 0) {
    logger.warn({ type: 'startup', kind: 'inconsistent-metadata', inconsistent_objects: cache.inconsistentObjects }, 'inconsistent objects in metadata');
  }
}

/** Builds the first schema cache and returns the live state holder. */
export async function createAppState(db: Db, _config: ServerConfig, logger: Logger): Promise<LiveState> {
  const build = () => db.transaction({ readOnly: true, isolation: 'repeatable read' }, loadSchemaCache);
  let current = await build();
  logInconsistencies(logger, current);
  return {
    get current() {
      return current;
    },
    async rebuild() {
      const next = await build();
      current = next;
      logInconsistencies(logger, next);
      return next;
    },
    install(cache: SchemaCache) {
      current = cache;
    },
  };
}
