/**
 * A live query whose root field joins other databases (relationships to a source's table, or to a
 * remote schema): no one statement reads everything it answers, so it is answered as a query
 * (the /v1/graphql pipeline: the root field's statement, then one statement per source per level)
 * at once and then every refetch interval, and pushed when the answer changed. Every run reads
 * every database the answer comes from, so a write on either side shows at the next interval.
 */
import { createHash } from 'node:crypto';
import type { Subscriber } from './cohort.js';
import type { Timers } from './timers.js';

export interface JoinedLiveQuery {
  /** Answers the subscription as a query (the same body /v1/graphql would give). */
  run(): Promise<string>;
  timers: Timers;
  intervalMs: number;
  cancelled(): boolean;
  /** Whether the schema cache the subscription was planned on is still the current one. */
  isStale(): boolean;
}

/** Starts `q` for `sub`: the first answer pushed before this resolves. Returns its stop function. */
export async function startJoinedLiveQuery(q: JoinedLiveQuery, sub: Subscriber): Promise<() => void> {
  let running = false;
  let stopped = false;
  const tick = async (): Promise<void> => {
    if (running || stopped || q.cancelled()) return;
    if (q.isStale()) {
      stop();
      sub.replan();
      return;
    }
    running = true;
    try {
      const body = await q.run();
      const hash = createHash('sha1').update(body).digest('base64');
      if (!stopped && !q.cancelled() && hash !== sub.lastHash) {
        sub.lastHash = hash;
        sub.push(body);
      }
    } finally {
      running = false;
    }
  };
  const timer = q.timers.every(q.intervalMs, () => void tick());
  const stop = (): void => {
    stopped = true;
    q.timers.clear(timer);
  };
  await tick();
  return stop;
}
