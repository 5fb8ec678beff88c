/**
 * A streaming subscription (`<t>_stream`, planner/stream.ts): the rows after a cursor, in cursor
 * order, `batch_size` at a time, each row delivered once. The runner keeps the subscriber's cursor
 * (on the subscriber, so a re-plan after a metadata change resumes where it was) and runs the
 * statement (multiplexedQuery.ts, one cohort: its variables plus the cursor) again:
 *
 *   - at once after a batch that returned rows (there may be more);
 *   - change-driven like live queries (changeWatcher.ts) when Postgres can tell what the
 *     statement reads, else every refetch interval.
 *
 * The first result is sent even when empty (the client learns the stream is running); after that
 * only batches with rows. A client resumes on any engine by subscribing with the last cursor value
 * it received as `initial_value`.
 */
import type { Session } from '../core/index.js';
import type { Db } from '../execution/index.js';
import { STREAM_CURSOR_VARIABLE } from '../planner/index.js';
import type { ChangeListener, ChangeWatcher } from './changeWatcher.js';
import type { Subscriber } from './cohort.js';
import { batchValues, cohortVariables, varsElement, type LiveRootField } from './multiplexedQuery.js';
import type { TimerHandle, Timers } from './timers.js';

const STREAM_COHORT_ID = '00000000-0000-0000-0000-000000000001';

export interface StreamOptions {
  db: Db;
  timers: Timers;
  intervalMs: number;
  prepare: boolean;
  /** Set when the statement's tables are watched (else: the interval). */
  watch: { watcher: ChangeWatcher; relids: number[] } | undefined;
  errorBody(e: unknown): string;
  isStale(): boolean;
  /** The plan went stale: the runner stopped; plan the subscriber again. */
  onStale(sub: Subscriber): void;
  onStop(): void;
}

export class StreamRunner implements ChangeListener {
  private cursor: unknown;
  private seenGen = 0;
  private running = false;
  private again = false;
  private stopped = false;
  private timer: TimerHandle | undefined;
  private unwatch: (() => void) | undefined;

  constructor(
    private readonly statement: string, private readonly field: LiveRootField, private readonly variables: Record<string, unknown>,
    private readonly session: Session, private readonly sub: Subscriber, initial: unknown, private readonly opts: StreamOptions,
  ) {
    this.cursor = sub.streamCursor !== undefined ? sub.streamCursor : initial;
  }

  /** Runs the first batch (its result pushed before this resolves), then keeps the stream going. */
  async start(): Promise<void> {
    const w = this.opts.watch;
    if (w) this.unwatch = w.watcher.add(this, w.relids);
    await this.run();
    if (!w) this.schedule();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.opts.timers.clear(this.timer);
    this.timer = undefined;
    this.unwatch?.();
    this.opts.onStop();
  }

  onRead(changed: ReadonlySet<number>): void {
    if (this.stopped) return;
    if (this.opts.isStale()) return this.restale();
    const w = this.opts.watch!;
    if (w.relids.some((id) => changed.has(id)) && w.watcher.changedGen(w.relids) > this.seenGen) void this.run().catch(() => this.stop());
  }

  private restale(): void {
    this.stop();
    this.opts.onStale(this.sub);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.opts.timers.after(this.opts.intervalMs, () => {
      this.timer = undefined;
      if (this.opts.isStale()) return this.restale();
      void this.run().then(() => this.schedule(), () => this.stop());
    });
  }

  /** Batches until one comes back empty (or a change arrived meanwhile: once more). */
  private async run(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        const gen = this.opts.watch?.watcher.gen ?? 0;
        const vars = cohortVariables(this.field, { ...this.variables, [STREAM_CURSOR_VARIABLE]: this.cursor }, this.session);
        let row: Record<string, unknown> | undefined;
        try {
          const r = await this.opts.db.query(this.statement, batchValues([{ id: STREAM_COHORT_ID, varsElement: varsElement(vars) }]), { prepare: this.opts.prepare });
          row = r.rows[0];
        } catch (e) {
          if (this.stopped) return;
          this.seenGen = gen;
          this.sub.lastHash = 'stream';
          this.sub.push(this.opts.errorBody(e));
          return;
        }
        if (this.stopped) return;
        this.seenGen = gen;
        const next = row?.cursor;
        const first = this.sub.lastHash === undefined;
        const got = next !== null && next !== undefined;
        if (got) {
          this.cursor = next;
          this.sub.streamCursor = next;
        }
        if (first || got) {
          this.sub.lastHash = 'stream';
          this.sub.push(`{"data":${String(row?.result ?? 'null')}}`);
        }
        if (got) this.again = true;
      } while (this.again && !this.stopped);
    } finally {
      this.running = false;
    }
  }
}
