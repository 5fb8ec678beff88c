/**
 * The scheduled-trigger background work of one engine: two `delivery/` workers (cron occurrences
 * and one-off events, the same generic claim/lease/retry/invocation-log engine as event triggers) and
 * a scheduler that
 *  - arms a timer at the next due time (so an idle engine delivers within milliseconds of the time,
 *    not at the next poll) and wakes both workers when it fires,
 *  - every tick (`fetchIntervalMs`) tops cron triggers up to 100 future occurrences and re-arms;
 *    each re-arm first marks first tries later than their tolerance `dead`; while both workers'
 *    LISTEN connections are verified, the pause doubles up to
 *    `--idle-poll-max-interval` (the timer at the next due time and the NOTIFY of other engines' writes
 *    carry the work meanwhile), back to `fetchIntervalMs` at any write or lost listener,
 *  - re-arms after each batch of outcomes is stored (a failed attempt's retry time becomes known
 *    only then).
 * After `create_scheduled_event` / `create_cron_trigger` commit, `scheduledWritten()` re-arms this
 * engine at once and sends one NOTIFY `svc_scheduled` to the others (their workers re-claim; their
 * timers re-arm on their next tick). Several engines may run this: claims use SKIP LOCKED + a lease,
 * generation relies on the UNIQUE (trigger_name, scheduled_time) key.
 */
import { randomUUID } from 'node:crypto';
import type { EngineContext } from '../appState.js';
import { createNotifier, runFragment, startDeliveryWorker, type DeliveryWorker, type Notifier } from '../delivery/index.js';
import { generateCronEvents } from './cronTriggers.js';
import { cronEventQueue, MARK_DEAD, NEXT_DUE, scheduledEventQueue } from './scheduledQueues.js';
import { ensureScheduledTables } from './scheduledTables.js';
import { restingPoll } from '../lib/index.js';

export const SCHEDULED_CHANNEL = 'svc_scheduled';

const notifiers = new WeakMap<object, Notifier>();

/** After a committed write that added scheduled rows: re-arm this engine, wake the others. */
export function scheduledWritten(engine: Pick<EngineContext, 'db'>): void {
  notifiers.get(engine.db)?.notify();
}

export interface ScheduledWorkerHandle {
  cron: DeliveryWorker;
  oneOff: DeliveryWorker;
  stop(): Promise<void>;
}

export async function startScheduledWorker(ctx: EngineContext): Promise<ScheduledWorkerHandle> {
  await ctx.db.transaction({}, (c) => ensureScheduledTables(c));
  const userAgent = `svc-graphql-engine/${ctx.version}`;
  const instanceId = ctx.state.instanceId ?? randomUUID();
  const qo = { env: process.env };
  const log = ctx.logger.child({ type: 'scheduled-trigger' });
  const common = {
    db: ctx.db,
    logger: ctx.logger,
    instanceId,
    concurrency: ctx.config.eventsHttpPoolSize,
    fetchIntervalMs: ctx.config.eventsFetchIntervalMs,
    heartbeatTimeoutSeconds: ctx.config.instanceHeartbeatTimeoutSeconds,
    channel: SCHEDULED_CHANNEL,
    databaseUrl: ctx.listenDatabaseUrl,
    userAgent,
    watch: ctx.dbWatch,
    // Rows here are written only by engines, each write followed by a NOTIFY: the poll may rest while notifications arrive.
    idleBackoffMaxMs: ctx.config.idlePollMaxIntervalMs,
    onNotified: () => void arm(),
    onOutcomesStored: () => void arm(),
  };
  const cron = startDeliveryWorker({ ...common, queue: cronEventQueue(qo) });
  const oneOff = startDeliveryWorker({ ...common, queue: scheduledEventQueue(qo) });
  const wakeAll = () => {
    cron.wake();
    oneOff.wake();
  };

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let armedFor = Infinity;
  let arming = false;
  let rearm = false;

  /** Reads the next due time and sets the timer to it (capped by the tick). */
  async function arm(): Promise<void> {
    if (arming) {
      rearm = true;
      return;
    }
    arming = true;
    try {
      do {
        rearm = false;
        for (const f of MARK_DEAD) await runFragment(ctx.db, f);
        const r = await runFragment(ctx.db, NEXT_DUE);
        const next = r.rows[0].next_due;
        if (stopped || next === null || next === undefined) continue;
        // Compare in the database's clock: the delay is (next - db_now), measured here from now.
        // Capped at a minute (setTimeout's range is 24 days; a far schedule is re-read anyway).
        const delay = Math.min(60_000, Math.max(0, new Date(next as string).getTime() - new Date(r.rows[0].db_now as string).getTime()));
        const at = Date.now() + delay;
        if (timer && at >= armedFor) continue;
        if (timer) clearTimeout(timer);
        armedFor = at;
        timer = setTimeout(() => {
          timer = undefined;
          armedFor = Infinity;
          wakeAll();
          void arm();
        }, delay + 2);
        timer.unref();
      } while (rearm && !stopped);
    } catch (e) {
      if (!stopped) log[ctx.dbWatch?.covers(e) ? 'debug' : 'warn']({ err: e }, 'scheduled triggers: next due time could not be read');
    } finally {
      arming = false;
    }
  }

  /** The tick: every `fetchIntervalMs`, resting while both workers' LISTEN connections are verified (see the module header). */
  const ticker = restingPoll({
    baseMs: ctx.config.eventsFetchIntervalMs,
    maxMs: ctx.config.idlePollMaxIntervalMs,
    firstMs: 0, // top cron triggers up at start
    tick: async () => {
      if (stopped) return false;
      try {
        // Not in a transaction: a read and one INSERT … ON CONFLICT DO NOTHING, safe when two engines race.
        await generateCronEvents(ctx.db);
        await arm();
      } catch (e) {
        if (!stopped) log[ctx.dbWatch?.covers(e) ? 'debug' : 'warn']({ err: e }, 'scheduled triggers: tick failed');
        return false;
      }
      return cron.listening() && oneOff.listening();
    },
  });
  const notifier = createNotifier(ctx.db, SCHEDULED_CHANNEL, { payload: instanceId, onError: (err) => log[ctx.dbWatch?.covers(err) ? 'debug' : 'warn']({ err }, 'scheduled NOTIFY failed') });
  const off = notifier.onLocal(() => {
    wakeAll();
    ticker.soon();
    void arm();
  });
  notifiers.set(ctx.db, notifier);

  return {
    cron,
    oneOff,
    async stop() {
      stopped = true;
      ticker.stop();
      if (timer) clearTimeout(timer);
      notifiers.delete(ctx.db);
      off();
      notifier.close();
      await Promise.all([cron.stop(), oneOff.stop()]);
    },
  };
}
