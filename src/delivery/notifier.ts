/**
 * The wake-up sent AFTER a write committed (DECISIONS 18: a NOTIFY inside the user's transaction
 * takes a global lock at commit and serialises writers). `notify()` wakes local workers at once and
 * sends at most one `pg_notify(channel)` per `minIntervalMs` for the other instances (trailing
 * edge: a call during the quiet period still leads to one notification after it). The payload is the
 * sender's instance id, so a worker can ignore its own notifications.
 */
import type { Db } from '../execution/index.js';

export interface Notifier {
  notify(): void;
  /** Local listeners (workers of this process). */
  onLocal(fn: () => void): () => void;
  close(): void;
}

export function createNotifier(db: Db, channel: string, opts: { minIntervalMs?: number; payload?: string; onError?: (e: unknown) => void } = {}): Notifier {
  const minInterval = opts.minIntervalMs ?? 20;
  const local = new Set<() => void>();
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const send = () => {
    timer = undefined;
    if (closed) return;
    last = Date.now();
    db.query('SELECT pg_notify($1, $2)', [channel, opts.payload ?? '']).catch((e: unknown) => opts.onError?.(e));
  };
  return {
    notify() {
      for (const fn of local) fn();
      if (closed || timer) return;
      const wait = last + minInterval - Date.now();
      if (wait <= 0) send();
      else timer = setTimeout(send, wait);
    },
    onLocal(fn) {
      local.add(fn);
      return () => local.delete(fn);
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
    },
  };
}
