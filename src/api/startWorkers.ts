/**
 * Background work of one engine, started by server/startEngine.ts after the schema cache is built
 * and stopped at shutdown: the event-trigger delivery worker (its lease: `--events-lease-seconds`)
 * and the scheduled-trigger workers (cron occurrences and one-off events, same lease and pool size).
 * Other background work (async actions) starts here too.
 */
import type { EngineContext } from '../appState.js';
import { startEventWorker } from '../events/index.js';
import { startScheduledWorker } from '../scheduled/index.js';
import { closeWebhookAgents } from '../webhooks/index.js';

export async function startWorkers(ctx: EngineContext): Promise<() => Promise<void>> {
  const events = startEventWorker(ctx, { leaseSeconds: ctx.config.eventsLeaseSeconds });
  const scheduled = await startScheduledWorker(ctx);
  return async () => {
    await Promise.all([events.stop(), scheduled.stop()]);
    closeWebhookAgents();
  };
}
