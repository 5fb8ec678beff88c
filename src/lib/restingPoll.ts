/**
 * A backstop poll that rests while idle: `tick` runs every `baseMs`; after a tick that answers `true`
 * (nothing happened, and resting is safe now) the pause doubles, up to `maxMs` (no resting when
 * `maxMs <= baseMs`); a tick answering `false` (or throwing) brings it back to `baseMs`. `soon()` says
 * something happened: the pause is `baseMs` again, and a tick further away than that is moved closer.
 * Ticks never overlap (the next is scheduled after one finishes); every timer is unref'd.
 */
export interface RestingPoll {
  soon(): void;
  stop(): void;
}

export function restingPoll(o: { baseMs: number; maxMs: number; tick: () => Promise<boolean>; /** The first tick after this (default `baseMs`). */ firstMs?: number }): RestingPoll {
  const max = Math.max(o.baseMs, o.maxMs);
  let delay = o.baseMs;
  let due = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const schedule = (ms: number) => {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    due = Date.now() + ms;
    timer = setTimeout(() => void fire(), ms);
    timer.unref();
  };
  const fire = async () => {
    timer = undefined;
    let rest = false;
    try {
      rest = await o.tick();
    } catch {
      rest = false;
    }
    delay = rest ? Math.min(delay * 2, max) : o.baseMs;
    schedule(delay);
  };
  schedule(o.firstMs ?? delay);
  return {
    soon() {
      if (delay === o.baseMs && due <= Date.now() + o.baseMs) return;
      delay = o.baseMs;
      if (timer) schedule(o.baseMs);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
