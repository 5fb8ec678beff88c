/**
 * Background work of one engine, started by server/startEngine.ts after the schema cache is built
 * and stopped at shutdown: the event-trigger delivery worker, the scheduled-trigger workers (cron occurrences and one-off
 * events, same pool size; all keep their claims while this engine's heartbeat is fresh), and
 * the async-action worker (actions/actionLog.ts, unless its fetch interval is 0) with the NOTIFY its
 * mutations send: all three are queues of the one delivery engine (delivery/).
 */
import type { EngineContext } from '../appState.js';
import { startEventWorker, type SourceEventWorkers } from '../events/index.js';
import { startScheduledWorker } from '../scheduled/index.js';
import { closeWebhookAgents } from '../webhooks/index.js';
import { ACTION_LOG_CHANNEL, createActionLogTable, startActionWorker } from '../actions/index.js';
import { createNotifier, queueDepth, type DeliveryWorker } from '../delivery/index.js';
import { setActionWaker } from './executeAction.js';

export async function startWorkers(ctx: EngineContext): Promise<() => Promise<void>> {
  const events = startEventWorker(ctx);
  const scheduled = await startScheduledWorker(ctx);
  await createActionLogTable(ctx.db);
  // --async-actions-fetch-interval 0 disables async-action processing in this engine (others may do it).
  const notifier = createNotifier(ctx.db, ACTION_LOG_CHANNEL, { onError: (err) => ctx.logger[ctx.dbWatch?.covers(err) ? 'debug' : 'warn']({ type: 'async-action', err }, 'action log NOTIFY failed') });
  setActionWaker(ctx, () => notifier.notify());
  const queues = [events.worker, scheduled.cron, scheduled.oneOff];
  registerQueueMetrics(ctx, queues, events.sources);
  if (ctx.config.asyncActionsFetchIntervalMs <= 0) {
    const offSilent = wakeOnSilentInstance(ctx, queues);
    return async () => {
      offSilent();
      notifier.close();
      await Promise.all([events.stop(), scheduled.stop()]);
      closeWebhookAgents();
    };
  }
  const actions = startActionWorker({
    db: ctx.db, cache: () => ctx.state.current, logger: ctx.logger, instanceId: ctx.state.instanceId ?? '',
    fetchIntervalMs: ctx.config.asyncActionsFetchIntervalMs, idlePollMaxIntervalMs: ctx.config.idlePollMaxIntervalMs, heartbeatTimeoutSeconds: ctx.config.instanceHeartbeatTimeoutSeconds, concurrency: 20,
    channel: ACTION_LOG_CHANNEL, databaseUrl: ctx.listenDatabaseUrl, userAgent: `svc-graphql-engine/${ctx.version}`, hasuraSession: ctx.hasuraSession === true,
    watch: ctx.dbWatch,
  });
  queues.push(actions);
  // After an async mutation: wake this engine's worker now and the others through NOTIFY.
  notifier.onLocal(() => actions.wake());
  const offSilent = wakeOnSilentInstance(ctx, queues);
  return async () => {
    offSilent();
    notifier.close();
    await actions.stop();
    await Promise.all([events.stop(), scheduled.stop()]);
    closeWebhookAgents();
  };
}

/**
 * Another engine went silent: its claims are claimable now. Wake every queue at once (their backstop
 * polls may be resting while idle: delivery/deliveryWorker.ts), so a crashed engine's work moves
 * within the heartbeat timeout whatever the poll's pause.
 */
function wakeOnSilentInstance(ctx: EngineContext, queues: DeliveryWorker[]): () => void {
  return ctx.onInstanceSilent?.(() => {
    for (const q of queues) q.wake();
  }) ?? (() => undefined);
}

/**
 * Queue metrics, read when scraped: the depth of each queue in the database (pending / due, shared
 * by every engine on it: one count per queue), this engine's calls in flight, and its attempts since
 * start by outcome. `queues` may grow after the call (the async-action worker starts last).
 */
function registerQueueMetrics(ctx: EngineContext, queues: DeliveryWorker[], sources: SourceEventWorkers): void {
  const m = ctx.metrics;
  if (!m) return;
  // The event queues of the other sources (in their own databases) are labelled `event:<source>`.
  const all = () => [
    ...queues.map((w) => ({ name: w.queue.name, w, db: ctx.db })),
    ...[...sources.workers()].map(([source, { worker, db }]) => ({ name: `${worker.queue.name}:${source}`, w: worker, db })),
  ];
  m.registerGauge('svc_delivery_queue_depth', 'Rows waiting in a delivery queue (state=pending: all not yet delivered or failed; due: claimable now)', async () => {
    const list = all();
    // Another source that is down leaves its queue out of the reading (default's failure fails it, as before).
    const depths = await Promise.all(list.map((q) => (q.db === ctx.db ? queueDepth(q.db, q.w.queue) : queueDepth(q.db, q.w.queue).catch(() => undefined))));
    return list.flatMap((q, i) => {
      const d = depths[i];
      return d ? [{ labels: { queue: q.name, state: 'pending' }, value: d.pending }, { labels: { queue: q.name, state: 'due' }, value: d.due }] : [];
    });
  }, ['queue', 'state']);
  m.registerGauge('svc_delivery_in_flight', 'Webhook / handler calls this engine has in flight, by queue', () =>
    all().map((q) => ({ labels: { queue: q.name }, value: q.w.stats().inFlight })), ['queue']);
  m.registerCounterReading('svc_delivery_attempts_total', 'Delivery attempts made by this engine since it started, by queue and outcome', () =>
    all().flatMap((q) => {
      const st = q.w.stats();
      return [
        { labels: { queue: q.name, outcome: 'delivered' }, value: st.delivered },
        { labels: { queue: q.name, outcome: 'failed' }, value: st.failed },
      ];
    }), ['queue', 'outcome']);
}
