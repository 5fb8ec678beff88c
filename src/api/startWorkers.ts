/**
 * Background work of one engine, started by server/startEngine.ts after the schema cache is built
 * and stopped at shutdown: the event-trigger delivery worker (its lease: `--events-lease-seconds`).
 * Other background work (scheduled events, async actions) starts here too.
 */
import type { EngineContext } from '../appState.js';
import { startEventWorker } from '../events/index.js';
import { closeWebhookAgents } from '../webhooks/index.js';

export async function startWorkers(ctx: EngineContext): Promise<() => Promise<void>> {
  const events = startEventWorker(ctx, { leaseSeconds: ctx.config.eventsLeaseSeconds });
  return async () => {
    await events.stop();
    closeWebhookAgents();
  };
}
