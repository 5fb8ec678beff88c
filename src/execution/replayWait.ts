/**
 * Read your writes on demand: has this replica replayed a given WAL position yet? The answer the
 * background check measured may be up to one check interval old, so a request whose commit is newer
 * asks the replica itself (`pg_last_wal_replay_lsn()`, one round trip) before it gives up on it.
 *
 * Requests waiting on the same replica share the round trips: one question is in flight at a time,
 * and its answer settles every waiter it covers. A waiter is answered "no" only by a question sent
 * after it arrived (so each request gets a fresh answer) and once its wait bound has passed: while
 * it has time left, the replica is asked again (after `PAUSE_MS`), so a commit replayed a few
 * milliseconds later is still read there. A replica that does not answer within `HUNG_MS` past the
 * bound is a "no" (the request reads elsewhere).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from './db.js';
import { parseLsn } from './walPosition.js';

const REPLAY_LSN = 'SELECT pg_last_wal_replay_lsn()::text AS lsn';
/** Between two questions to the same replica while a request still waits. */
const PAUSE_MS = 1;
/** A question unanswered this long past a waiter's bound answers it "no". */
const HUNG_MS = 1000;

interface Waiter {
  lsn: bigint;
  deadline: number;
  /** Questions sent before this waiter arrived (only a later one may answer it "no"). */
  seenAsked: number;
  done(ok: boolean): void;
}

export class ReplayWait {
  /** The highest replay position seen (the background check and these questions). */
  replay: bigint | undefined;
  private waiters: Waiter[] = [];
  private asked = 0;
  private asking = false;
  /** Round trips made for waiting requests (for the figures). */
  questions = 0;

  constructor(private readonly probe: Db) {}

  /** Records a position measured elsewhere (never goes back). */
  saw(lsn: bigint | undefined): void {
    if (lsn !== undefined && (this.replay === undefined || lsn > this.replay)) this.replay = lsn;
  }

  /** True once the replica has replayed `lsn`, false when it has not within `waitMs` (0: one question). */
  reached(lsn: bigint, waitMs: number): Promise<boolean> {
    if (this.replay !== undefined && this.replay >= lsn) return Promise.resolve(true);
    return new Promise<boolean>((resolve) => {
      let settled = false;
      const hung = setTimeout(() => finish(false), waitMs + HUNG_MS);
      const finish = (ok: boolean) => {
        if (settled) return;
        settled = true;
        clearTimeout(hung);
        resolve(ok);
      };
      this.waiters.push({ lsn, deadline: Date.now() + waitMs, seenAsked: this.asked, done: finish });
      if (!this.asking) void this.ask();
    });
  }

  /** Gives every waiter its "no" (the replica was removed or stopped). */
  cancel(): void {
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w.done(false);
  }

  private async ask(): Promise<void> {
    this.asking = true;
    try {
      while (this.waiters.length > 0) {
        const sent = ++this.asked;
        this.questions++;
        try {
          this.saw(parseLsn((await this.probe.query(REPLAY_LSN)).rows[0]?.lsn));
        } catch {
          return this.cancel(); // no answer: every waiter reads elsewhere
        }
        const now = Date.now();
        this.waiters = this.waiters.filter((w) => {
          if (this.replay !== undefined && this.replay >= w.lsn) w.done(true);
          else if (sent > w.seenAsked && now >= w.deadline) w.done(false);
          else return true;
          return false;
        });
        if (this.waiters.length > 0) await sleep(PAUSE_MS);
      }
    } finally {
      this.asking = false;
    }
  }
}
