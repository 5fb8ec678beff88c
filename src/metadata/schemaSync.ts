/**
 * Multi-instance schema sync: every metadata or schema change commits a new `resource_version`
 * and a `svc_schema_update` notification carrying the writer's instance id (catalog/metadataStore).
 * Each engine LISTENs on that channel over a dedicated connection; a notification from another
 * instance with a newer version makes it reload metadata and rebuild its schema cache. Its own
 * notifications are ignored. After (re)connecting it compares the stored version with its own, so
 * changes made while the connection was down are not missed. Rebuilds never overlap: requests
 * arriving during one are coalesced into one more rebuild.
 */
import type { Logger } from 'pino';
import { listenChannel, type Db } from '../execution/index.js';
import { currentResourceVersion, INSTANCE_ID, SCHEMA_UPDATE_CHANNEL } from './catalog/index.js';

export interface SchemaSync {
  /** Resolves once the first LISTEN succeeded. */
  ready: Promise<void>;
  /** Rebuilds now if the stored version is newer than the live one (a hint from elsewhere, e.g. a sibling worker process). */
  wake(reason: string): void;
  stop(): Promise<void>;
}

/** What the sync keeps current: the engine's live state (appState.ts), seen through the three members it uses. */
export interface SyncedState {
  /** The metadata version the live schema cache was built from. */
  readonly resourceVersion?: number;
  /** This engine's id in `svc_schema_update` notifications. */
  readonly instanceId?: string;
  /** Reloads metadata and rebuilds the live schema cache. */
  rebuild(): Promise<unknown>;
}

export interface SchemaSyncOptions {
  /** Reconnect delays of the listener (tests shorten them). */
  retryMs?: number;
  maxRetryMs?: number;
}

/** Starts listening for other instances' schema updates on `databaseUrl` (see the module header). */
export function startSchemaSync(databaseUrl: string, db: Db, state: SyncedState, logger: Logger, options: SchemaSyncOptions = {}): SchemaSync {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const behind = async (): Promise<boolean> => {
    const stored = await db.withClient((c) => currentResourceVersion(c));
    return stored > (state.resourceVersion ?? 0);
  };

  const rebuild = (reason: string, onlyIfBehind: boolean): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          if (onlyIfBehind && !(await behind())) continue;
          const t0 = performance.now();
          await state.rebuild();
          logger.info(
            { type: 'schema-sync', reason, resource_version: state.resourceVersion, duration_ms: Math.round(performance.now() - t0) },
            'schema cache rebuilt after a change by another instance',
          );
        } while (again && !stopped);
      } catch (err) {
        logger.warn({ type: 'schema-sync', reason, err }, 'schema cache rebuild after a change by another instance failed');
      } finally {
        running = undefined;
      }
    })();
  };

  const listener = listenChannel(databaseUrl, SCHEMA_UPDATE_CHANNEL, {
    retryMs: options.retryMs,
    maxRetryMs: options.maxRetryMs,
    onNotify(payload) {
      let msg: { instance_id?: unknown; resource_version?: unknown };
      try {
        msg = JSON.parse(payload) as typeof msg;
      } catch {
        logger.warn({ type: 'schema-sync', payload }, 'ignoring a malformed schema-update notification');
        return;
      }
      if (msg.instance_id === (state.instanceId ?? INSTANCE_ID)) return;
      if (typeof msg.resource_version === 'number' && msg.resource_version <= (state.resourceVersion ?? 0)) return;
      rebuild('notification', false);
    },
    onConnected(reconnected) {
      if (reconnected) logger.info({ type: 'schema-sync' }, 'schema-update listener reconnected');
      // Catch up on changes committed while not listening (also between the first build and LISTEN).
      rebuild(reconnected ? 'reconnect' : 'start', true);
    },
    onError(err, retryInMs) {
      if (!stopped) logger.warn({ type: 'schema-sync', err: err.message, retry_in_ms: retryInMs }, 'schema-update listener lost its connection');
    },
  });

  return {
    ready: listener.ready,
    wake: (reason) => rebuild(reason, true),
    async stop() {
      stopped = true;
      await listener.close();
      await running;
    },
  };
}
