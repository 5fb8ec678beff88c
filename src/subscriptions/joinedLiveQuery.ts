/**
 * A live query whose root field joins other databases (relationships to a source's table, or to a
 * remote schema): no one statement reads everything it answers, so it is answered as a query (the
 * /v1/graphql pipeline: the root field's statement, then one statement per source per level) and
 * pushed when the answer changed.
 *
 * When it runs again: change-driven over every database it reads. Before the first answer, each of
 * its statements (joinedReads.ts: the root field's and every relationship's, at every level) is
 * watched like any live query's on its source (`watch`: the change triggers installed on the tables
 * it reads there, the tables added to that source's change watcher); a read of any of those
 * watchers that saw one of them change runs it again, so a write on either side shows within a
 * change-poll interval and an idle one costs no read of its own (the watchers' reads are shared with
 * every live query of the source). A read that fails (a source away) answers the error; the
 * watcher's next good read runs it again. When one of its statements cannot be watched (a function
 * Postgres cannot see through, change tracking off) or a relationship goes to a remote schema, it
 * runs every refetch interval instead.
 */
import type { Subscriber } from './cohort.js';
import { resultHash } from './cohort.js';
import type { ChangeListener, ChangeWatcher } from './changeWatcher.js';
import type { JoinedReads } from './joinedReads.js';
import type { LiveDependencies } from './liveDependencies.js';
import type { Timers } from './timers.js';

/** A statement watched on its source: the watcher of that source and what the statement reads. */
export interface JoinedWatch {
  watcher: ChangeWatcher;
  deps: LiveDependencies;
}

export interface JoinedLiveQuery {
  /** Answers the subscription as a query (the same body /v1/graphql would give). */
  run(): Promise<string>;
  timers: Timers;
  intervalMs: number;
  cancelled(): boolean;
  /** Whether the schema cache the subscription was planned on is still the current one. */
  isStale(): boolean;
  /** What it reads (its statements on their sources). */
  reads: JoinedReads;
  /** Installs the change triggers of `text` on `source`; undefined: change tracking is off. */
  watch(source: string, text: string): Promise<JoinedWatch | undefined>;
  /** The `{"errors":[…]}` body of a failed read of the change counters. */
  errorBody(e: unknown): string;
  stats: JoinedStats;
}

/** Joined live queries running, how many follow the change counters, and their runs (the manager's stats). */
export interface JoinedStats {
  running: number;
  changeDriven: number;
  runs: number;
}

/** Starts `q` for `sub`: the first answer pushed before this resolves. Returns its stop function. */
export async function startJoinedLiveQuery(q: JoinedLiveQuery, sub: Subscriber): Promise<() => void> {
  let running = false;
  let again = false;
  let stopped = false;
  let timer: ReturnType<Timers['every']> | undefined;
  const unwatch: Array<() => void> = [];
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    q.stats.running--;
    if (timer === undefined) q.stats.changeDriven--;
    q.timers.clear(timer);
    for (const f of unwatch.splice(0)) f();
  };
  const replan = (): void => {
    stop();
    sub.replan();
  };
  const tick = async (): Promise<void> => {
    if (stopped || q.cancelled()) return;
    if (q.isStale()) return replan();
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        q.stats.runs++;
        let body: string;
        try {
          body = await q.run();
        } catch (e) {
          body = q.errorBody(e);
        }
        const hash = resultHash(body);
        if (!stopped && !q.cancelled() && hash !== sub.lastHash) {
          sub.lastHash = hash;
          sub.push(body);
        }
      } while (again && !stopped && !q.cancelled());
    } finally {
      running = false;
    }
  };
  const watched = await watchAll(q, (relevant) => {
    if (stopped || q.cancelled()) return;
    // a metadata change re-plans it at the next counter read, changed or not
    if (relevant || q.isStale()) void tick();
  }, (e) => {
    if (stopped || q.cancelled()) return;
    if (q.isStale()) return replan();
    const body = q.errorBody(e);
    const hash = resultHash(body);
    if (hash !== sub.lastHash) {
      sub.lastHash = hash;
      sub.push(body);
    }
  });
  q.stats.running++;
  if (watched.ok) {
    q.stats.changeDriven++;
    unwatch.push(...watched.undo);
  } else timer = q.timers.every(q.intervalMs, () => void tick());
  if (q.cancelled()) {
    stop();
    return stop;
  }
  await tick();
  return stop;
}

/**
 * Watches every statement of `q` on its source: one listener per watcher, over the tables of all the
 * statements read through it. `ok` false: one of them cannot be watched (the query keeps the interval).
 */
async function watchAll(q: JoinedLiveQuery, read: (changed: boolean) => void, failed: (e: unknown) => void): Promise<{ ok: boolean; undo: Array<() => void> }> {
  if (q.reads.remote) return { ok: false, undo: [] };
  const byWatcher = new Map<ChangeWatcher, Set<number>>();
  for (const s of q.reads.statements) {
    const w = await q.watch(s.source, s.text);
    if (!w || !w.deps.watch) return { ok: false, undo: [] };
    let relids = byWatcher.get(w.watcher);
    if (!relids) byWatcher.set(w.watcher, (relids = new Set()));
    for (const id of w.deps.relids) relids.add(id);
  }
  const undo: Array<() => void> = [];
  for (const [watcher, relids] of byWatcher) {
    if (relids.size === 0) continue;
    const listener: ChangeListener = {
      onRead: (c) => {
        for (const id of relids) {
          if (c.has(id)) return read(true);
        }
        read(false);
      },
      onReadFailed: failed,
    };
    undo.push(watcher.add(listener, [...relids]));
  }
  return { ok: true, undo };
}
