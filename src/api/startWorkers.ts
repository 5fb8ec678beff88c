/**
 * Background work of one engine, started by server/startEngine.ts after the schema cache is built
 * and stopped at shutdown: the event-trigger delivery worker (its lease: `--events-lease-seconds`),
 * the scheduled-trigger workers (cron occurrences and one-off events, same lease and pool size), and
 * the async-action worker (actions/actionLog.ts, unless its fetch interval is 0) with the NOTIFY its
 * mutations send.
 */
import type { EngineContext } from '../appState.js';
import { startEventWorker } from '../events/index.js';
import { startScheduledWorker } from '../scheduled/index.js';
import { closeWebhookAgents } from '../webhooks/index.js';
import { INSTANCE_ID } from '../metadata/index.js';
import { ACTION_LOG_CHANNEL, createActionLogTable, startActionWorker } from '../actions/index.js';
import { createNotifier } from '../delivery/index.js';
import { setActionWaker } from './executeAction.js';

export async function startWorkers(ctx: EngineContext): Promise<() => Promise<void>> {
  const events = startEventWorker(ctx, { leaseSeconds: ctx.config.eventsLeaseSeconds });
  const scheduled = await startScheduledWorker(ctx);
  await createActionLogTable(ctx.db);
  // --async-actions-fetch-interval 0 disables async-action processing in this engine (others may do it).
  const notifier = createNotifier(ctx.db, ACTION_LOG_CHANNEL, { onError: (err) => ctx.logger.warn({ type: 'async-action', err }, 'action log NOTIFY failed') });
  setActionWaker(ctx, () => notifier.notify());
  if (ctx.config.asyncActionsFetchIntervalMs <= 0) {
    return async () => {
      notifier.close();
      await Promise.all([events.stop(), scheduled.stop()]);
      closeWebhookAgents();
    };
  }
  const actions = startActionWorker({
    db: ctx.db, cache: () => ctx.state.current, instanceId: INSTANCE_ID, fetchIntervalMs: ctx.config.asyncActionsFetchIntervalMs,
    leaseSeconds: 300, onError: (err) => ctx.logger.error({ type: 'async-action', err }, 'async action worker pass failed'),
    channel: ACTION_LOG_CHANNEL, databaseUrl: ctx.databaseUrl,
  });
  // After an async mutation: wake this engine's worker now and the others through NOTIFY.
  notifier.onLocal(() => actions.wake());
  return async () => {
    notifier.close();
    await actions.stop();
    await Promise.all([events.stop(), scheduled.stop()]);
    closeWebhookAgents();
  };
}
