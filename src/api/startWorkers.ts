/**
 * Background work of one engine, started by server/startEngine.ts after the schema cache is built
 * and stopped at shutdown: the event-trigger delivery worker, the scheduled-trigger workers (cron occurrences and one-off
 * events, same pool size; all keep their claims while this engine's heartbeat is fresh), and
 * the async-action worker (actions/actionLog.ts, unless its fetch interval is 0) with the NOTIFY its
 * mutations send: all three are queues of the one delivery engine (delivery/).
 */
import type { EngineContext } from '../appState.js';
import { startEventWorker } from '../events/index.js';
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
  registerQueueMetrics(ctx, queues);
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
function registerQueueMetrics(ctx: EngineContext, queues: DeliveryWorker[]): void {
  const m = ctx.metrics;
  if (!m) return;
  m.registerGauge('svc_delivery_queue_depth', 'Rows waiting in a delivery queue (state=pending: all not yet delivered or failed; due: claimable now)', async () => {
    const depths = await Promise.all(queues.map((w) => queueDepth(ctx.db, w.queue)));
    return queues.flatMap((w, i) => [
      { labels: { queue: w.queue.name, state: 'pending' }, value: depths[i].pending },
      { labels: { queue: w.queue.name, state: 'due' }, value: depths[i].due },
    ]);
  }, ['queue', 'state']);
  m.registerGauge('svc_delivery_in_flight', 'Webhook / handler calls this engine has in flight, by queue', () =>
    queues.map((w) => ({ labels: { queue: w.queue.name }, value: w.stats().inFlight })), ['queue']);
  m.registerCounterReading('svc_delivery_attempts_total', 'Delivery attempts made by this engine since it started, by queue and outcome', () =>
    queues.flatMap((w) => {
      const st = w.stats();
      return [
        { labels: { queue: w.queue.name, outcome: 'delivered' }, value: st.delivered },
        { labels: { queue: w.queue.name, outcome: 'failed' }, value: st.failed },
      ];
    }), ['queue', 'outcome']);
}
