/**
 * A poller runs one multiplexed statement (see multiplexedQuery.ts) for all of its cohorts every
 * refetch interval: the cohorts are cut into batches of at most `batchSize`, each batch is ONE
 * statement, batches run concurrently on the pool, and the next round starts one interval after
 * the previous one started (at once when it took longer). A poller with no cohorts left stops
 * and tells its owner, so nothing outlives the last subscriber. A poller whose plan is stale (the
 * schema cache was swapped) stops too and hands its subscribers back to be planned again.
 */
import { ApiError } from '../core/index.js';
import type { ReadDb } from '../execution/index.js';
import type { SchemaCache } from '../metadata/index.js';
import { batchValues } from './multiplexedQuery.js';
import { Cohort, resultHash, type Subscriber } from './cohort.js';
import type { TimerHandle, Timers } from './timers.js';

export interface PollerOptions {
  /** The primary, or the read replicas (each poll on a usable one). */
  db: Pick<ReadDb, 'query'>;
  timers: Timers;
  batchSize: number;
  intervalMs: number;
  /** Run the statement as a named prepared statement (parsed once per connection). */
  prepare: boolean;
  /** The `{"errors":[…]}` body for a failed poll. */
  errorBody(e: unknown): string;
  /** True when the plan is out of date (the schema cache changed): the round is not run. */
  isStale(): boolean;
  /** Called once, after the poller stopped for good (no cohorts left, or stale). */
  onEmpty(): void;
  /** Called with the subscribers of a stale poller, after it stopped. */
  onStale(subscribers: Subscriber[]): void;
}

export class Poller {
  readonly cohorts = new Map<string, Cohort>();
  private readonly byId = new Map<string, Cohort>();
  private timer: TimerHandle | undefined;
  private polling = false;
  private stopped = false;
  /** Statements run (for the stats). */
  polls = 0;

  /** `cache`: the schema cache the statement was planned on. */
  constructor(readonly statement: string, private readonly opts: PollerOptions, readonly cache: SchemaCache) {
    this.schedule(opts.intervalMs);
  }

  get subscriberCount(): number {
    let n = 0;
    for (const c of this.cohorts.values()) n += c.subscribers.size;
    return n;
  }

  /** The cohort for `varsJson`, created when new. */
  cohort(varsJson: string): Cohort {
    let c = this.cohorts.get(varsJson);
    if (!c) {
      c = new Cohort(varsJson);
      this.cohorts.set(varsJson, c);
      this.byId.set(c.id, c);
    }
    return c;
  }

  /** Drops a cohort whose last subscriber left; stops the poller when it was the last one. */
  release(c: Cohort): void {
    if (c.subscribers.size > 0 || this.cohorts.get(c.varsJson) !== c) return;
    this.cohorts.delete(c.varsJson);
    this.byId.delete(c.id);
    if (this.cohorts.size === 0) this.stop();
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.opts.timers.clear(this.timer);
    this.timer = undefined;
    this.opts.onEmpty();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.opts.timers.after(ms, () => {
      this.timer = undefined;
      void this.poll();
    });
  }

  /** One round: every batch of cohorts, one statement each. */
  private async poll(): Promise<void> {
    if (this.stopped || this.polling) return;
    if (this.opts.isStale()) {
      const subscribers = [...this.cohorts.values()].flatMap((c) => [...c.subscribers]);
      this.cohorts.clear();
      this.byId.clear();
      this.stop();
      this.opts.onStale(subscribers);
      return;
    }
    this.polling = true;
    const started = Date.now();
    try {
      const all = [...this.cohorts.values()];
      const batches: Cohort[][] = [];
      for (let i = 0; i < all.length; i += this.opts.batchSize) batches.push(all.slice(i, i + this.opts.batchSize));
      await Promise.all(batches.map((b) => this.runBatch(b)));
    } finally {
      this.polling = false;
      this.schedule(this.opts.intervalMs - (Date.now() - started));
    }
  }

  private async runBatch(batch: Cohort[]): Promise<void> {
    this.polls++;
    try {
      const r = await this.opts.db.query(this.statement, batchValues(batch), { prepare: this.opts.prepare });
      for (const row of r.rows) {
        const c = this.byId.get(String(row.result_id));
        if (c) c.deliver(`{"data":${String(row.result)}}`);
      }
    } catch (e) {
      if (this.stopped) return;
      const body = this.opts.errorBody(e instanceof ApiError ? e : new ApiError('unexpected', 'database query error', { status: 500, internal: String(e) }));
      const hash = resultHash(body);
      for (const c of batch) c.deliver(body, hash);
    }
  }
}
