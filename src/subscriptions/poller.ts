/**
 * A poller runs one multiplexed statement (see multiplexedQuery.ts) for its cohorts: the cohorts
 * are cut into batches of at most `batchSize`, each batch is ONE statement, batches run
 * concurrently on the pool. When to run depends on what the statement reads (`watchStatement`):
 *
 *   - change-driven (every table it reads carries a change trigger): no timer of its own; after
 *     each read of the change counters (changeWatcher.ts) that moved one of its tables, the cohorts
 *     whose last query started before that change run again, one round at a time (changes during
 *     a round start another round right after it);
 *     Narrowed (narrowing.ts): when the statement has a row key (planner/liveKey.ts) and the
 *     change to its root table came with the changed rows, only the cohorts those rows concern
 *     run; a change to any other table it reads, or one without rows, runs every cohort;
 *   - interval (a function or view Postgres cannot see through, or change tracking off): every
 *     cohort, every refetch interval, the next round one interval after the previous one started.
 *
 * Where a round reads (`reads`): a change-driven round passes the WAL position of the counter read
 * that made it due, so on a read replica it runs only on one that has replayed every change that
 * read saw (else on the primary); an interval round passes none (any usable replica).
 *
 * A failed read of the change counters (the database away, the pool gone) answers every cohort the
 * error, once; the watcher's next good read reruns them all. A poller whose plan went stale meanwhile
 * hands its subscribers back instead.
 *
 * A poller with no cohorts left stops and tells its owner, so nothing outlives the last
 * subscriber. A poller whose plan is stale (the schema cache was swapped) stops too and hands its
 * subscribers back to be planned again.
 */
import { ApiError } from '../core/index.js';
import type { ReadDb } from '../execution/index.js';
import type { SchemaCache } from '../metadata/index.js';
import { batchValues } from './multiplexedQuery.js';
import { Cohort, resultHash, type Subscriber } from './cohort.js';
import type { ChangeListener, ChangeWatcher, RowImages } from './changeWatcher.js';
import { CohortIndex } from './narrowing.js';
import type { LiveKey } from '../planner/index.js';
import type { LiveDependencies } from './liveDependencies.js';
import type { TimerHandle, Timers } from './timers.js';

export interface PollerOptions {
  /** The primary (catalog questions about the statement's tables). */
  db: Pick<ReadDb, 'query'>;
  /**
   * Where a round reads: the primary, or the read replicas (each poll on a usable one that has
   * replayed `lsn`, the primary's WAL position at the counter read that made the round due).
   */
  reads(lsn: bigint | undefined): Pick<ReadDb, 'query'>;
  timers: Timers;
  batchSize: number;
  intervalMs: number;
  /** Run the statement as a named prepared statement (parsed once per connection). */
  prepare: boolean;
  /** The change counters' watcher; absent when change tracking is off. */
  watcher: ChangeWatcher | undefined;
  /** The statement's row key, when it has one (narrows reruns to the cohorts a change concerns). */
  key: LiveKey | undefined;
  /** What the statement reads (installs the change triggers); only called with a watcher. */
  watch(): Promise<LiveDependencies>;
  /** The `{"errors":[…]}` body for a failed poll. */
  errorBody(e: unknown): string;
  /** True when the plan is out of date (the schema cache changed): the round is not run. */
  isStale(): boolean;
  /** Called once, after the poller stopped for good (no cohorts left, or stale). */
  onEmpty(): void;
  /** Called with the subscribers of a stale poller, after it stopped. */
  onStale(subscribers: Subscriber[]): void;
}

const PENDING_FIRST_READ = Number.MAX_SAFE_INTEGER;

export class Poller implements ChangeListener {
  readonly cohorts = new Map<string, Cohort>();
  private readonly byId = new Map<string, Cohort>();
  private timer: TimerHandle | undefined;
  private polling = false;
  private again = false;
  private stopped = false;
  /** Subscribers between `hold` and `unhold` (the poller does not stop under them). */
  private holds = 0;
  /** Tables watched (change-driven); undefined = interval. */
  private relids: number[] | undefined;
  private unwatch: (() => void) | undefined;
  /** Why the statement keeps the interval (when it does). */
  intervalReason: string | undefined;
  /** Resolves once the poller knows how it runs (triggers installed when change-driven). */
  readonly ready: Promise<void>;
  /** Statements run (for the stats). */
  polls = 0;
  /** Cohorts run by those statements (for the stats). */
  cohortRuns = 0;
  /** Keyed, change-driven: the cohorts by key value, and the oid of the root table. */
  private index: CohortIndex<Cohort> | undefined;
  private rootRelid: number | undefined;
  /** The last generation at which a change concerned every cohort. */
  private fullGen = 0;
  /** Since the last round: whether a change concerned every cohort, and the cohorts concerned otherwise. */
  private allMarked = false;
  private readonly marked = new Set<Cohort>();

  /** `cache`: the schema cache the statement was planned on. */
  constructor(readonly statement: string, private readonly opts: PollerOptions, readonly cache: SchemaCache) {
    this.ready = this.start();
  }

  private async start(): Promise<void> {
    const watcher = this.opts.watcher;
    const deps = watcher ? await this.opts.watch() : { watch: false as const, reason: 'change tracking is off' };
    if (this.stopped) return;
    if (watcher && deps.watch && deps.relids.length > 0) {
      this.relids = deps.relids;
      const key = this.opts.key;
      const root = key ? deps.tables.indexOf(`${key.table.schema}.${key.table.name}`) : -1;
      const exact = key && root >= 0 ? await this.exactKey(deps.relids[root]!, key) : false;
      if (this.stopped) return;
      if (key && exact) {
        this.rootRelid = deps.relids[root];
        this.index = new CohortIndex(key);
        for (const c of this.cohorts.values()) this.index.add(c);
      }
      this.unwatch = watcher.add(this, deps.relids);
    } else {
      this.intervalReason = deps.watch ? 'reads no table' : deps.reason;
      this.schedule(this.opts.intervalMs);
    }
  }

  /**
   * Whether the key column's equality is the comparison of canonical texts: false for a text
   * column with a nondeterministic collation (case-insensitive equality), or when it cannot be told.
   */
  private async exactKey(relid: number, key: LiveKey): Promise<boolean> {
    if (key.kind !== 'text') return true;
    try {
      const r = await this.opts.db.query(
        `SELECT coalesce((SELECT l.collisdeterministic FROM pg_collation l WHERE l.oid = a.attcollation), true) AS exact
           FROM pg_attribute a WHERE a.attrelid = $1 AND a.attname = $2`,
        [relid, key.column],
      );
      return r.rows[0]?.exact === true;
    } catch {
      return false;
    }
  }

  get changeDriven(): boolean {
    return this.relids !== undefined;
  }

  /** The primary's WAL position at the watcher's last counter read (change-driven), for reads on a replica. */
  watchedLsn(): bigint | undefined {
    return this.relids ? this.opts.watcher!.lsn : undefined;
  }

  /** The generation a query started now is current with (0 for interval pollers). */
  generation(): number {
    return this.relids ? this.opts.watcher!.gen : 0;
  }

  get subscriberCount(): number {
    let n = 0;
    for (const c of this.cohorts.values()) n += c.subscribers.size;
    return n;
  }

  hold(): void {
    this.holds++;
  }

  unhold(): void {
    this.holds--;
    if (this.holds === 0 && this.cohorts.size === 0) this.stop();
  }

  /** The cohort for `varsJson`, created when new (its first query having started at `gen`). */
  cohort(varsJson: string, gen: number): Cohort {
    let c = this.cohorts.get(varsJson);
    if (!c) {
      c = new Cohort(varsJson, gen);
      this.cohorts.set(varsJson, c);
      this.byId.set(c.id, c);
      this.index?.add(c);
    }
    return c;
  }

  /** A subscriber joined `c`: a change its first query may have missed runs the cohort again. */
  joined(c: Cohort): void {
    if (!this.relids) return;
    const changedGen = this.opts.watcher!.changedGen(this.relids);
    if (changedGen !== PENDING_FIRST_READ && c.seenGen < changedGen) {
      c.changedGen = Math.max(c.changedGen, changedGen);
      this.marked.add(c);
      void this.refetch();
    }
  }

  /** Drops a cohort whose last subscriber left; stops the poller when it was the last one. */
  release(c: Cohort): void {
    if (c.subscribers.size > 0 || this.cohorts.get(c.varsJson) !== c) return;
    this.cohorts.delete(c.varsJson);
    this.byId.delete(c.id);
    this.index?.delete(c);
    this.marked.delete(c);
    if (this.cohorts.size === 0 && this.holds === 0) this.stop();
  }

  /** ChangeListener: the counters were read. */
  onRead(changed: ReadonlySet<number>, rows: ReadonlyMap<number, RowImages>): void {
    if (this.stopped || !this.relids) return;
    if (this.opts.isStale()) return void this.poll();
    const gen = this.opts.watcher!.gen;
    let any = false;
    for (const id of this.relids) {
      if (!changed.has(id)) continue;
      any = true;
      const images = id === this.rootRelid ? rows.get(id) : undefined;
      const concerned = images && this.index!.concerned(images);
      if (!concerned) {
        this.fullGen = gen;
        this.allMarked = true;
      } else {
        for (const c of concerned) {
          c.changedGen = gen;
          this.marked.add(c);
        }
      }
    }
    if (any) void this.refetch();
  }

  /** ChangeListener: the counters could not be read (see the file's comment). */
  onReadFailed(e: unknown): void {
    if (this.stopped || !this.relids) return;
    if (this.opts.isStale()) return void this.poll();
    const body = this.opts.errorBody(e);
    const hash = resultHash(body);
    for (const c of this.cohorts.values()) c.deliver(body, hash);
  }

  private isDue(c: Cohort): boolean {
    return c.seenGen < Math.max(this.fullGen, c.changedGen);
  }

  /** Change-driven rounds: the due cohorts, until no change arrived during the last round. */
  private async refetch(): Promise<void> {
    if (this.polling) {
      this.again = true;
      return;
    }
    this.polling = true;
    try {
      do {
        this.again = false;
        const watcher = this.opts.watcher!;
        const gen = watcher.gen;
        const lsn = watcher.lsn;
        const candidates = this.allMarked ? [...this.cohorts.values()] : [...this.marked].filter((c) => this.cohorts.get(c.varsJson) === c);
        this.allMarked = false;
        this.marked.clear();
        const due = candidates.filter((c) => this.isDue(c));
        for (const c of due) c.seenGen = gen;
        await this.runAll(due, lsn);
      } while (this.again && !this.stopped);
    } finally {
      this.polling = false;
    }
  }

  private stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.opts.timers.clear(this.timer);
    this.timer = undefined;
    this.unwatch?.();
    this.opts.onEmpty();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = this.opts.timers.after(ms, () => {
      this.timer = undefined;
      void this.poll();
    });
  }

  /** One interval round (every cohort), or the hand-back of a stale poller's subscribers. */
  private async poll(): Promise<void> {
    if (this.stopped) return;
    if (this.opts.isStale()) {
      const subscribers = [...this.cohorts.values()].flatMap((c) => [...c.subscribers]);
      this.cohorts.clear();
      this.byId.clear();
      this.stop();
      this.opts.onStale(subscribers);
      return;
    }
    if (this.polling) return;
    this.polling = true;
    const started = Date.now();
    try {
      await this.runAll([...this.cohorts.values()]);
    } finally {
      this.polling = false;
      this.schedule(this.opts.intervalMs - (Date.now() - started));
    }
  }

  private async runAll(cohorts: Cohort[], lsn?: bigint): Promise<void> {
    const batches: Cohort[][] = [];
    for (let i = 0; i < cohorts.length; i += this.opts.batchSize) batches.push(cohorts.slice(i, i + this.opts.batchSize));
    await Promise.all(batches.map((b) => this.runBatch(b, lsn)));
  }

  private async runBatch(batch: Cohort[], lsn: bigint | undefined): Promise<void> {
    this.polls++;
    this.cohortRuns += batch.length;
    try {
      const r = await this.opts.reads(lsn).query(this.statement, batchValues(batch), { prepare: this.opts.prepare });
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
