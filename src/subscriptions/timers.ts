/**
 * The timers of the live-query machinery, counted: every poller tick, keep-alive and token-expiry
 * timer goes through one `Timers` so `liveQueryStats()` can show that a closed connection left
 * none behind.
 */

export type TimerHandle = ReturnType<typeof setTimeout>;

/** setTimeout's limit: longer delays are re-armed in steps. */
const MAX_DELAY = 2 ** 31 - 1;

export class Timers {
  private readonly live = new Set<TimerHandle>();

  get size(): number {
    return this.live.size;
  }

  /** Runs `fn` once after `ms`; the handle stops counting once it fired or was cleared. */
  after(ms: number, fn: () => void): TimerHandle {
    const h: TimerHandle = setTimeout(() => {
      this.live.delete(h);
      fn();
    }, Math.max(0, Math.min(ms, MAX_DELAY)));
    this.live.add(h);
    return h;
  }

  /** Runs `fn` once at `when`, however far away (re-arming past setTimeout's ~24.8 day limit). */
  at(when: Date, fn: () => void, onHandle: (h: TimerHandle) => void): void {
    const wait = when.getTime() - Date.now();
    onHandle(wait > MAX_DELAY ? this.after(MAX_DELAY, () => this.at(when, fn, onHandle)) : this.after(wait, fn));
  }

  /** Runs `fn` every `ms` until cleared. */
  every(ms: number, fn: () => void): TimerHandle {
    const h = setInterval(fn, ms);
    this.live.add(h);
    return h;
  }

  clear(h: TimerHandle | undefined): void {
    if (h === undefined) return;
    clearTimeout(h);
    this.live.delete(h);
  }
}
