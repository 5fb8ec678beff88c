/**
 * Streaming subscriptions (`<t>_stream`, planner/stream.ts), multiplexed: a stream poller runs the
 * streams of one statement (same query, same role's permissions, same batch size), each with its
 * own cursor, variables and session, as rows of ONE multiplexed statement per batch of streams
 * (multiplexedQuery.ts: the cursor and the delivery bound are two more of each row's values).
 * Each stream gets its rows once, in cursor order, at most its batch size at a time.
 *
 * When it runs: a stream is due when the delivery bound of its table and cursor column moved past
 * where it last ran (streamMarks.ts), or its last batch was full. The bound is observed when a
 * table the statement reads changed (changeWatcher.ts), or while it waits for open transactions
 * to end; with a statement Postgres cannot see through (or change tracking off), every refetch
 * interval. So idle streams run no statement, and one that fell behind catches up batch after
 * batch. The first result is sent even when empty (the client learns the stream is running); after
 * that only batches with rows. A client resumes on any engine by subscribing with the last cursor
 * value it received as `initial_value`. The subscriber keeps its cursor, so a re-plan after a
 * metadata change resumes where it was.
 */
import { randomUUID } from 'node:crypto';
import { ApiError, type QualifiedTable, type Session } from '../core/index.js';
import type { Db } from '../execution/index.js';
import type { SchemaCache } from '../metadata/index.js';
import { STREAM_BOUND_VARIABLE, STREAM_CURSOR_VARIABLE } from '../planner/index.js';
import type { ChangeListener, ChangeWatcher } from './changeWatcher.js';
import type { Subscriber } from './cohort.js';
import type { LiveDependencies } from './liveDependencies.js';
import { batchValues, cohortVariables, varsElement, type LiveRootField } from './multiplexedQuery.js';
import { markKey, type StreamMarks } from './streamMarks.js';
import type { TimerHandle, Timers } from './timers.js';

export interface StreamShape {
  table: QualifiedTable;
  column: string;
  /** Rows per batch (a full batch may be followed by more). */
  limit: number;
}

export interface StreamOptions {
  db: Db;
  timers: Timers;
  batchSize: number;
  intervalMs: number;
  prepare: boolean;
  marks: StreamMarks;
  /** The change counters' watcher; absent when change tracking is off. */
  watcher: ChangeWatcher | undefined;
  /** What the statement reads (installs the change triggers); only called with a watcher. */
  watch(): Promise<LiveDependencies>;
  errorBody(e: unknown): string;
  isStale(): boolean;
  /** Called once, after the poller stopped for good (no streams left, or stale). */
  onEmpty(): void;
  /** Called with the subscribers of a stale poller, after it stopped. */
  onStale(subscribers: Subscriber[]): void;
}

interface Stream {
  id: string;
  sub: Subscriber;
  variables: Record<string, unknown>;
  session: Session;
  cursor: unknown;
  /** The bound of its last run (undefined: never ran). */
  lastBound: string | null | undefined;
  /** Its last batch was full. */
  more: boolean;
}

export class StreamPoller implements ChangeListener {
  readonly streams = new Map<string, Stream>();
  /** Statements run (for the stats). */
  polls = 0;
  readonly ready: Promise<void>;
  private readonly key: string;
  private relids: number[] | undefined;
  /** What stop() undoes: the bound's key, the watched tables. */
  private readonly undo: Array<() => void> = [];
  private timer: TimerHandle | undefined;
  private running = false;
  private again = false;
  private stopped = false;
  private holds = 0;

  constructor(readonly statement: string, private readonly field: LiveRootField, private readonly shape: StreamShape, private readonly opts: StreamOptions, readonly cache: SchemaCache) {
    this.key = markKey(shape.table, shape.column);
    this.undo.push(opts.marks.add(shape.table, shape.column));
    this.ready = this.start();
  }

  get changeDriven(): boolean {
    return this.relids !== undefined;
  }

  private async start(): Promise<void> {
    const watcher = this.opts.watcher;
    const deps = watcher ? await this.opts.watch() : undefined;
    if (this.stopped) return;
    if (watcher && deps?.watch && deps.relids.length > 0) {
      this.relids = deps.relids;
      this.undo.push(watcher.add(this, deps.relids));
    } else this.schedule();
  }

  /**
   * Adds a stream; its first batch is pushed before this resolves (or this throws, when its values
   * do not run). `cancelled()` is checked after that batch. Returns its stop function.
   */
  async subscribe(sub: Subscriber, variables: Record<string, unknown>, session: Session, initial: unknown, cancelled: () => boolean): Promise<() => void> {
    this.holds++;
    try {
      await this.ready;
      // a bound that includes this table (a few observations at most: open transactions end)
      for (let i = 0; i < 3 && !this.opts.marks.bound(this.key).known; i++) await this.opts.marks.observe();
      const s: Stream = { id: randomUUID(), sub, variables, session, cursor: sub.streamCursor !== undefined ? sub.streamCursor : initial, lastBound: undefined, more: false };
      const bound = this.opts.marks.bound(this.key).value;
      const r = await this.opts.db.query(this.statement, batchValues([{ id: s.id, varsElement: this.vars(s, bound) }]), { prepare: this.opts.prepare });
      this.polls++;
      if (cancelled()) return () => {};
      this.deliver(s, r.rows[0], bound, sub.lastHash === undefined);
      this.streams.set(s.id, s);
      if (this.isDue(s)) void this.round();
      let left = false;
      return () => {
        if (left) return;
        left = true;
        this.streams.delete(s.id);
        if (this.streams.size === 0 && this.holds === 0) this.stop();
      };
    } finally {
      this.holds--;
      if (this.holds === 0 && this.streams.size === 0) this.stop();
    }
  }

  /** ChangeListener: the counters were read. */
  onRead(changed: ReadonlySet<number>): void {
    if (this.stopped) return;
    if (this.opts.isStale()) return this.handBack();
    if (this.relids!.some((id) => changed.has(id)) || this.opts.marks.pending(this.key)) void this.tick();
  }

  /**
   * ChangeListener: the counters could not be read (the database away, the pool gone): a stale plan
   * is handed back; otherwise each stream is sent the error once (until its next batch). Its cursor stays: when the
   * database answers again it goes on from there.
   */
  onReadFailed(e: unknown): void {
    if (this.stopped) return;
    if (this.opts.isStale()) return this.handBack();
    const body = this.opts.errorBody(e);
    for (const s of this.streams.values()) {
      if (s.sub.lastHash === 'error') continue;
      s.sub.lastHash = 'error';
      s.sub.push(body);
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.opts.timers.after(this.opts.intervalMs, () => {
      this.timer = undefined;
      if (this.opts.isStale()) return this.handBack();
      void this.tick().finally(() => this.schedule());
    });
  }

  /** A fresh observation of the bound, then the streams it made due. */
  private async tick(): Promise<void> {
    await this.opts.marks.observe();
    await this.round();
  }

  private isDue(s: Stream): boolean {
    const b = this.opts.marks.bound(this.key);
    return s.more || (b.known && b.value !== s.lastBound);
  }

  /** Rounds of the due streams, one statement per batch, until none is due. */
  private async round(): Promise<void> {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.again = false;
        const due = [...this.streams.values()].filter((s) => this.isDue(s));
        if (due.length === 0) break;
        const bound = this.opts.marks.bound(this.key).value;
        const batches: Stream[][] = [];
        for (let i = 0; i < due.length; i += this.opts.batchSize) batches.push(due.slice(i, i + this.opts.batchSize));
        await Promise.all(batches.map((b) => this.runBatch(b, bound)));
        this.again ||= due.some((s) => s.more);
      } while (this.again && !this.stopped);
    } finally {
      this.running = false;
    }
  }

  private async runBatch(batch: Stream[], bound: string | null): Promise<void> {
    this.polls++;
    try {
      const r = await this.opts.db.query(this.statement, batchValues(batch.map((s) => ({ id: s.id, varsElement: this.vars(s, bound) }))), { prepare: this.opts.prepare });
      const rows = new Map<string, Record<string, unknown>>();
      for (const row of r.rows) rows.set(String(row.result_id), row);
      for (const s of batch) if (this.streams.get(s.id) === s) this.deliver(s, rows.get(s.id), bound, false);
    } catch (e) {
      if (this.stopped) return;
      const body = this.opts.errorBody(e instanceof ApiError ? e : new ApiError('unexpected', 'database query error', { status: 500, internal: String(e) }));
      for (const s of batch) {
        s.lastBound = bound;
        s.more = false;
        s.sub.push(body);
      }
    }
  }

  private vars(s: Stream, bound: string | null): string {
    return varsElement(cohortVariables(this.field, { ...s.variables, [STREAM_CURSOR_VARIABLE]: s.cursor, [STREAM_BOUND_VARIABLE]: bound }, s.session));
  }

  private deliver(s: Stream, row: Record<string, unknown> | undefined, bound: string | null, first: boolean): void {
    const n = Number(row?.n ?? 0);
    s.lastBound = bound;
    s.more = n >= this.shape.limit;
    const next = row?.cursor;
    if (next !== null && next !== undefined) {
      s.cursor = next;
      s.sub.streamCursor = next;
    }
    if (first || n > 0) {
      s.sub.lastHash = 'stream';
      s.sub.push(`{"data":${String(row?.result ?? 'null')}}`);
    }
  }

  /** The plan went stale: stop, and hand the subscribers back to be planned again. */
  private handBack(): void {
    const subs = [...this.streams.values()].map((s) => s.sub);
    this.streams.clear();
    this.stop();
    this.opts.onStale(subs);
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.opts.timers.clear(this.timer);
    for (const f of this.undo.splice(0)) f();
    this.opts.onEmpty();
  }
}
