/**
 * Multi-instance schema sync: every metadata or schema change commits a new `resource_version`
 * and a `svc_schema_update` notification carrying the writer's instance id (catalog/metadataStore).
 * Each engine polls the version row every `pollMs` (one tiny autocommitted SELECT on a pooled
 * connection, so it works through any pooler, PgBouncer in transaction mode included) and rebuilds
 * when the stored version is newer than its own. The notification is only a wake-up: a dedicated
 * session connection (`listenUrl`: Postgres itself, not a transaction pooler) LISTENs on the channel,
 * and a notification from another instance with a newer version rebuilds at once; its own are
 * ignored; losing that connection costs nothing but latency (it reconnects, catching up on
 * reconnect). While that connection is verified (a probe sent through the pool arrived on it:
 * execution/listenChannel.ts) the poll rests, its pause doubling up to `restMaxMs`; an
 * unverified or lost listener (behind a transaction pooler it never verifies) brings it back to
 * `pollMs`. Rebuilds never overlap: requests arriving during one are coalesced into one more.
 * A failed poll logs one line until a poll succeeds again, which logs one; a failure the engine's
 * database watch covers (database or pooler away: the watch logs that once) is logged at debug level,
 * and so is a lost LISTEN connection, a failed rebuild and their recovery.
 *
 * `catchUp()` is the read-your-metadata check a request may await before it is answered
 * (`--strict-schema-sync`): it resolves once the live cache is at least as new as the version
 * stored when it was called. One version read serves every caller that arrived before it started,
 * so under load there is about one read per round trip, not one per request.
 */
import type { Logger } from 'pino';
import { listenChannel, UNWATCHED, type DatabaseWatch, type Db } from '../execution/index.js';
import { restingPoll } from '../lib/index.js';
import { currentResourceVersion, INSTANCE_ID, SCHEMA_UPDATE_CHANNEL, type MetadataTable } from './catalog/index.js';

export interface SchemaSync {
  /** Resolves once the first LISTEN succeeded (at once when polling is on). */
  ready: Promise<void>;
  /** Rebuilds now if the stored version is newer than the live one (a hint from elsewhere, e.g. a sibling worker process). */
  wake(reason: string): void;
  /** Resolves once the live cache is not older than the version stored now (rebuilding first if it is); never rejects. */
  catchUp(): Promise<void>;
  stop(): Promise<void>;
}

/** What the sync keeps current: the engine's live state (appState.ts), seen through the three members it uses. */
export interface SyncedState {
  /** The metadata version the live schema cache was built from. */
  readonly resourceVersion?: number;
  /** This engine's id in `svc_schema_update` notifications. */
  readonly instanceId?: string;
  /** Where the metadata document is stored (default `hdb_metadata`). */
  readonly metadataTable?: MetadataTable;
  /** Reloads metadata and rebuilds the live schema cache. */
  rebuild(): Promise<unknown>;
}

export interface SchemaSyncOptions {
  /** Poll interval of the version row in ms (0: no polling, the LISTEN wake-up only). Default 1000. */
  pollMs?: number;
  /** Longest pause of the poll while the LISTEN connection is verified (--idle-poll-max-interval). Default 30 000. */
  restMaxMs?: number;
  /** Where to LISTEN (a session connection); undefined: no LISTEN, polling only. */
  listenUrl?: string;
  /** Read the version with a prepared statement (the engine's --use-prepared-statements). */
  prepare?: boolean;
  /** The engine's database watch (execution/databaseWatch.ts); none: every failure is logged here. */
  watch?: DatabaseWatch;
  /** Reconnect delays of the listener (tests shorten them). */
  retryMs?: number;
  maxRetryMs?: number;
}

/** Starts following other instances' schema updates (see the module header). */
export function startSchemaSync(db: Db, state: SyncedState, logger: Logger, options: SchemaSyncOptions = {}): SchemaSync {
  const pollMs = options.pollMs ?? 1000;
  const watch = options.watch ?? UNWATCHED;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const behind = async (): Promise<boolean> => {
    const stored = await db.withClient((c) => currentResourceVersion(c, state.metadataTable));
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
        logger[watch.covers(err) ? 'debug' : 'warn']({ type: 'schema-sync', reason, err }, 'schema cache rebuild after a change by another instance failed');
      } finally {
        running = undefined;
      }
    })();
  };

  /** The last poll failed; `quiet`: the watch covered it. */
  let pollFailing: { quiet: boolean } | undefined;
  const poll = async (): Promise<void> => {
    try {
      const isBehind = await behind();
      if (pollFailing) logger[pollFailing.quiet ? 'debug' : 'info']({ type: 'schema-sync' }, 'metadata version poll works again');
      pollFailing = undefined;
      if (isBehind) rebuild('poll', true);
    } catch (err) {
      if (!pollFailing && !stopped) {
        const quiet = watch.covers(err);
        logger[quiet ? 'debug' : 'warn']({ type: 'schema-sync', err: err instanceof Error ? err.message : String(err) }, 'metadata version poll failed; retrying every interval');
        pollFailing = { quiet };
      }
    }
  };
  let polling: Promise<void> | undefined;
  /**
   * The poll's pause: `pollMs`, doubling up to `restMaxMs` while the LISTEN connection is
   * verified (a probe sent through the pool arrived on it) and nothing changed: every metadata change
   * NOTIFYs in its own transaction, so a verified listener hears each one. Back to `pollMs` when the
   * listener is lost or unverified (a transaction pooler never verifies) and after each change.
   */
  const poller = pollMs > 0 ? restingPoll({
    baseMs: pollMs,
    maxMs: options.restMaxMs ?? 30_000,
    tick: async () => {
      if (polling || running || stopped) return false;
      const before = state.resourceVersion;
      polling = poll();
      await polling;
      polling = undefined;
      return listener?.verified() === true && state.resourceVersion === before && !pollFailing;
    },
  }) : undefined;
  const pollSoon = () => poller?.soon();
  if (pollMs > 0) rebuild('start', true);

  /** The LISTEN connection is lost; `quiet`: the watch covered it. */
  let listenerDown: { quiet: boolean } | undefined;
  const listener = options.listenUrl === undefined ? undefined : listenChannel(options.listenUrl, SCHEMA_UPDATE_CHANNEL, {
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
      pollSoon();
      rebuild('notification', false);
    },
    probe: pollMs > 0 ? (channel, payload) => db.query('SELECT pg_notify($1, $2)', [channel, payload]) : undefined,
    onVerified(verified) {
      if (!verified) pollSoon();
    },
    onConnected(reconnected) {
      if (reconnected) logger[listenerDown?.quiet ? 'debug' : 'info']({ type: 'schema-sync' }, 'LISTEN connection to Postgres restored');
      listenerDown = undefined;
      // Catch up on changes committed while not listening (also between the first build and LISTEN).
      rebuild(reconnected ? 'reconnect' : 'start', true);
    },
    onError(err, retryInMs) {
      if (stopped) return;
      // One warning per outage (none when the watch covers it); the failed reconnect attempts after it are debug lines.
      const quiet = listenerDown?.quiet ?? watch.covers(err, 'listen');
      logger[listenerDown || quiet ? 'debug' : 'warn'](
        { type: 'schema-sync', err: err.message, retry_in_ms: retryInMs, polling: pollMs > 0 },
        `LISTEN connection to Postgres lost (${err.message}); reconnecting in ${retryInMs} ms${pollMs > 0 ? ', polling meanwhile' : ''}`,
      );
      listenerDown ??= { quiet };
    },
  });

  // A check that started after the caller arrived: the running one serves only those who came before it.
  let check: Promise<void> | undefined;
  let nextCheck: Promise<void> | undefined;
  const startCheck = (): Promise<void> =>
    (check = (async () => {
      try {
        const stored = await currentResourceVersion(db, state.metadataTable, options.prepare);
        for (let tries = 0; tries < 2 && stored > (state.resourceVersion ?? 0) && !stopped; tries++) {
          rebuild('request', false);
          await running;
        }
      } catch {
        // The request's own statements meet the same failure; the poll logs it once.
      }
    })().finally(() => (check = undefined)));
  const catchUp = (): Promise<void> =>
    check === undefined ? startCheck() : (nextCheck ??= check.then(() => {
      nextCheck = undefined;
      return check ?? startCheck();
    }));

  return {
    // With polling on, a LISTEN that cannot be had (e.g. through a pooler that refuses it) is not fatal.
    ready: listener === undefined || pollMs > 0 ? Promise.resolve() : listener.ready,
    wake: (reason) => rebuild(reason, true),
    catchUp,
    async stop() {
      stopped = true;
      poller?.stop();
      await listener?.close();
      await polling;
      await running;
    },
  };
}
