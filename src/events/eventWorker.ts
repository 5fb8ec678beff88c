/**
 * The event-trigger worker of one engine: the generic delivery worker over `event_log`, woken by
 * NOTIFY on `svc_events` (other instances) and in-process after this engine's own writes commit
 * (`eventsWritten`, called by the mutation and /v1/query paths). Hasura's `unlockAllEvents` at
 * startup is deliberately absent: a dead instance's claims expire with their lease.
 */
import { randomUUID } from 'node:crypto';
import type { EngineContext } from '../appState.js';
import { createNotifier, startDeliveryWorker, type DeliveryWorker, type Notifier } from '../delivery/index.js';
import { eventQueue } from './eventQueue.js';
import { startSourceEventWorkers, type SourceEventWorkers } from './sourceEventWorkers.js';

export const EVENTS_CHANNEL = 'svc_events';

const notifiers = new WeakMap<object, Notifier>();
const sourceWorkers = new WeakMap<object, SourceEventWorkers>();

/**
 * After a committed write that may have captured events: wake this engine's worker, and the others.
 * `sources`: the sources written to (absent: any; another source's queue is in its own database).
 */
export function eventsWritten(engine: Pick<EngineContext, 'db' | 'state'>, sources?: ReadonlySet<string>): void {
  const n = notifiers.get(engine.db);
  if (!n) return;
  const triggers = engine.state.current.eventTriggers;
  if (triggers && triggers.size > 0 && (!sources || sources.has('default'))) n.notify();
  if (engine.state.current.sources?.size) sourceWorkers.get(engine.db)?.written(sources ? [...sources].filter((s) => s !== 'default') : undefined);
}

/** Starts delivering events; resolves to its stop function. */
export function startEventWorker(ctx: EngineContext): { worker: DeliveryWorker; sources: SourceEventWorkers; stop: () => Promise<void> } {
  const userAgent = `svc-graphql-engine/${ctx.version}`;
  const instanceId = ctx.state.instanceId ?? randomUUID();
  const worker = startDeliveryWorker({
    queue: eventQueue(() => ctx.state.current, userAgent, ctx.hasuraSession === true),
    db: ctx.db,
    logger: ctx.logger,
    instanceId,
    concurrency: ctx.config.eventsHttpPoolSize,
    fetchIntervalMs: ctx.config.eventsFetchIntervalMs,
    heartbeatTimeoutSeconds: ctx.config.instanceHeartbeatTimeoutSeconds,
    channel: EVENTS_CHANNEL,
    databaseUrl: ctx.listenDatabaseUrl,
    userAgent,
    watch: ctx.dbWatch,
  });
  const notifier = createNotifier(ctx.db, EVENTS_CHANNEL, { payload: instanceId, onError: (err) => ctx.logger[ctx.dbWatch?.covers(err) ? 'debug' : 'warn']({ type: 'event-delivery', err }, 'events NOTIFY failed') });
  const off = notifier.onLocal(() => worker.wake());
  notifiers.set(ctx.db, notifier);
  // The queues of the other sources, each in its own database.
  const sources = startSourceEventWorkers(ctx, instanceId, EVENTS_CHANNEL);
  sourceWorkers.set(ctx.db, sources);
  const offSilent = ctx.onInstanceSilent?.(() => sources.wakeAll()) ?? (() => undefined);
  return {
    worker,
    sources,
    async stop() {
      notifiers.delete(ctx.db);
      sourceWorkers.delete(ctx.db);
      offSilent();
      off();
      notifier.close();
      await Promise.all([worker.stop(), sources.stop()]);
    },
  };
}
