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

export const EVENTS_CHANNEL = 'svc_events';

const notifiers = new WeakMap<object, Notifier>();

/** After a committed write that may have captured events: wake this engine's worker, and the others. */
export function eventsWritten(engine: Pick<EngineContext, 'db' | 'state'>): void {
  const n = notifiers.get(engine.db);
  if (!n) return;
  const triggers = engine.state.current.eventTriggers;
  if (triggers && triggers.size > 0) n.notify();
}

/** Starts delivering events; resolves to its stop function. */
export function startEventWorker(ctx: EngineContext): { worker: DeliveryWorker; stop: () => Promise<void> } {
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
  return {
    worker,
    async stop() {
      notifiers.delete(ctx.db);
      off();
      notifier.close();
      await worker.stop();
    },
  };
}
