/**
 * Background work of one engine, started by server/startEngine.ts after the schema cache is built
 * and stopped at shutdown: the event-trigger delivery worker (its lease: `--events-lease-seconds`).
 * The async-action worker (actions/actionLog.ts) starts here too; scheduled events will.
 */
import type { EngineContext } from '../appState.js';
import { startEventWorker } from '../events/index.js';
import { closeWebhookAgents } from '../webhooks/index.js';
import { INSTANCE_ID } from '../metadata/index.js';
import { createActionLogTable, startActionWorker } from '../actions/index.js';
import { setActionWorker } from './executeAction.js';

export async function startWorkers(ctx: EngineContext): Promise<() => Promise<void>> {
  const events = startEventWorker(ctx, { leaseSeconds: ctx.config.eventsLeaseSeconds });
  await createActionLogTable(ctx.db);
  const actions = startActionWorker({
    db: ctx.db, cache: () => ctx.state.current, instanceId: INSTANCE_ID, fetchIntervalMs: ctx.config.asyncActionsFetchIntervalMs,
    leaseSeconds: 300, onError: (err) => ctx.logger.error({ type: 'async-action', err }, 'async action worker pass failed'),
  });
  setActionWorker(actions);
  return async () => {
    setActionWorker(undefined);
    await actions.stop();
    await events.stop();
    closeWebhookAgents();
  };
}
