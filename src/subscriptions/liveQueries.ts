/**
 * The live queries of one engine: pollers keyed by their multiplexed statement, the counted
 * timers, and the connections' keep-alive. `subscribe` validates a subscriber's values by
 * running the statement for its cohort alone (its first result), then joins it to the cohort of
 * equal values in the poller of its statement, creating either when missing. The returned stop
 * function undoes exactly that; the last subscriber out stops the poller. Pollers belong to the
 * schema cache they were planned on: after a metadata change each subscriber is planned again
 * (so changed permissions apply to running subscriptions too). Where live queries read: a source
 * with read replicas (`default` or another) runs their statements on a usable replica, the first
 * result included; with change tracking on, only on one that has replayed the primary's WAL position
 * taken by the counter read that made the run due (changeWatcher.ts `lsn`: every change that read saw
 * is then visible there), else on the primary, as a request's `X-Svc-Commit-Lsn` is honoured; a
 * subscription started on a connection that sent `X-Svc-Commit-Lsn` reads its first result from a
 * server that has replayed that commit too. The counters, the change triggers and the streams
 * (whose delivery bound is observed on the primary, streamMarks.ts) stay on the primary.
 *
 * One change watcher per database with live queries (`default`'s, and one per source pool); their
 * idle pauses share one budget (`idleMaxMs`), so idle live queries over several databases cost the
 * reads a second of one.
 */
import { ApiError, type Session } from '../core/index.js';
import { sourceDb, sourceReads, type EngineContext } from '../appState.js';
import { sameDatabase, type Db, type ReadAfter, type ReadDb } from '../execution/index.js';
import type { SchemaCache } from '../metadata/index.js';
import { batchValues, cohortVariables, multiplexedStatement, varsElement, type LiveRootField } from './multiplexedQuery.js';
import { resultHash, type Subscriber } from './cohort.js';
import { Poller } from './poller.js';
import { StreamPoller } from './streams.js';
import { StreamMarks } from './streamMarks.js';
import type { LiveKey, StreamPlan } from '../planner/index.js';
import { ChangeWatcher, IDLE_MAX_MS } from './changeWatcher.js';
import type { JoinedStats, JoinedWatch } from './joinedLiveQuery.js';
import { watchStatement } from './liveTriggers.js';
import type { LiveDependencies } from './liveDependencies.js';
import { Timers, type TimerHandle } from './timers.js';

/** Hasura's keep-alive period for `graphql-ws` connections. */
export const KEEP_ALIVE_MS = 5000;
const FIRST_COHORT_ID = '00000000-0000-0000-0000-000000000000';

export interface LiveQueryStats {
  connections: number;
  pollers: number;
  cohorts: number;
  subscribers: number;
  timers: number;
  /** Multiplexed statements run by the current pollers. */
  polls: number;
  /** Cohorts those statements ran (a change to a keyed query's root table runs only the cohorts it concerns). */
  cohortRuns: number;
  /** Pollers refetching on change (the others poll every refetch interval). */
  changeDriven: number;
  /** Reads of the change counters. */
  changeReads: number;
  /** Streaming subscriptions running. */
  streams: number;
  /** Stream pollers (one per statement) and the statements they ran. */
  streamPollers: number;
  streamPolls: number;
  /** Observations of the streams' delivery bound (streamMarks.ts). */
  streamMarks: number;
  /** Live queries joining databases (joinedLiveQuery.ts), those of them on the change counters, and their runs. */
  joined: number;
  joinedChangeDriven: number;
  joinedRuns: number;
}

/** The longest idle pause of the change watchers when several share the budget (one per database). */
const IDLE_SHARED_MAX_MS = 1000;

/**
 * Where a live query of `source` may read: after the connection's read-your-writes position and
 * after `lsn` (the WAL position of the counter read its run follows), whichever is later.
 */
function readAfterWith(after: ReadAfter, source: string, lsn: bigint | undefined): ReadAfter {
  if (lsn === undefined || after === 'primary') return after;
  const own = typeof after === 'bigint' ? (source === 'default' ? after : undefined) : typeof after === 'object' ? after.get(source) : undefined;
  const at = own === undefined || own < lsn ? lsn : own;
  return source === 'default' ? at : new Map([[source, at]]);
}

/** The columns of a streaming field's statement after `root` (planner/stream.ts). */
const STREAM_COLUMNS = ['cursor', 'n'];

export class LiveQueryManager {
  readonly timers = new Timers();
  private readonly pollers = new Map<string, Poller>();
  private readonly streamPollers = new Map<string, StreamPoller>();
  private marks: StreamMarks | undefined;
  private readonly keepAlive = new Set<() => void>();
  private keepAliveTimer: TimerHandle | undefined;
  private watcher: ChangeWatcher | undefined;
  /** The watchers of other sources' change counters, by source, with the pool each reads. */
  private readonly sourceWatchers = new Map<string, { db: Db; watcher: ChangeWatcher }>();
  /** The streams' delivery bounds of other sources, by source (see streamMarks.ts). */
  private readonly sourceMarks = new Map<string, { db: Db; marks: StreamMarks }>();
  /** The live queries joining databases (joinedLiveQuery.ts keeps the counts). */
  readonly joined: JoinedStats = { running: 0, changeDriven: 0, runs: 0 };
  connections = 0;

  constructor(private readonly ctx: EngineContext, private readonly onIdle: () => void) {}

  /**
   * Adds a subscriber of `field`; its first result is pushed before this resolves. Throws (an
   * ApiError) when its values do not run. `cancelled()` is checked after the first query, so an
   * operation stopped meanwhile never joins a cohort.
   */
  async subscribe(
    session: Session, field: LiveRootField, variables: Record<string, unknown>, sub: Subscriber, cancelled: () => boolean,
    cache: SchemaCache, readAfter?: ReadAfter,
  ): Promise<() => void> {
    const statement = multiplexedStatement(field);
    const varsJson = cohortVariables(field, variables, session);
    const name = field.source ?? 'default';
    const source = name !== 'default' ? sourceDb(this.ctx, name) : undefined;
    const prepare = source ? source.prepare : this.ctx.config.usePreparedStatements !== false;
    const poller = this.pollerFor(statement, cache, prepare, field.liveKey, source ? { name, db: source.db } : undefined);
    poller.hold();
    try {
      // The change triggers exist before the first query runs (liveTriggers.ts).
      await poller.ready;
      const gen = poller.generation();
      // On a replica: one that has replayed what the counter read of `gen` saw (and the connection's commit).
      const reads = this.liveReads(name, readAfterWith(readAfter, name, poller.changeDriven ? poller.watchedLsn() : undefined));
      const first = await reads.query(statement, batchValues([{ id: FIRST_COHORT_ID, varsElement: varsElement(varsJson) }]), { prepare });
      if (cancelled()) return () => {};
      const body = `{"data":${String(first.rows[0]?.result ?? 'null')}}`;
      const hash = resultHash(body);
      if (sub.lastHash !== hash) {
        sub.lastHash = hash;
        sub.push(body);
      }
      const cohort = poller.cohort(varsJson, gen);
      cohort.subscribers.add(sub);
      poller.joined(cohort);
      let stopped = false;
      return () => {
        if (stopped) return;
        stopped = true;
        cohort.subscribers.delete(sub);
        poller.release(cohort);
      };
    } finally {
      poller.unhold();
    }
  }

  /**
   * The poller of `statement` planned on `cache`, created when missing. `source`: a source beside
   * `default`, read on its pool and rerun when a table it reads changed, by the change counters in
   * that source's own `hdb_catalog` (its own watcher); otherwise default's read pool and counters.
   */
  private pollerFor(statement: string, cache: SchemaCache, prepare: boolean, key: LiveKey | undefined, source?: { name: string; db: Db }): Poller {
    const id = source ? `${source.name}\u0000${statement}` : statement;
    const existing = this.pollers.get(id);
    // planned against an older schema cache: its subscribers are re-planned at its next round
    if (existing && existing.cache === cache) return existing;
    const { db, config } = this.ctx;
    const name = source?.name ?? 'default';
    const created: Poller = new Poller(statement, {
      db: source ? source.db : db,
      reads: (lsn) => this.liveReads(name, readAfterWith(undefined, name, lsn)),
      timers: this.timers,
      batchSize: config.liveQueries.batchSize,
      intervalMs: config.liveQueries.refetchIntervalMs,
      prepare,
      watcher: this.changeWatcher(source),
      key,
      watch: source ? () => this.watchOnSource(source, statement, cache) : () => watchStatement(db, statement, cache),
      errorBody: (e) => this.errorBody(e),
      isStale: () => this.ctx.state.current !== cache,
      onEmpty: () => {
        if (this.pollers.get(id) === created) this.pollers.delete(id);
        this.checkIdle();
      },
      onStale: (subscribers) => {
        for (const s of subscribers) s.replan();
      },
    }, cache);
    this.pollers.set(id, created);
    return created;
  }

  /** Where live queries of `source` read (see the file's comment): its replicas when it has any, after `after`; else its primary. */
  private liveReads(source: string, after: ReadAfter): Pick<ReadDb, 'query'> {
    return sourceReads(this.ctx, source, after);
  }

  /** The idle pause of each change watcher: IDLE_MAX_MS shared by the watchers reading now (at most IDLE_SHARED_MAX_MS). */
  private idleMaxMs(): number {
    let n = this.watcher?.active ? 1 : 0;
    for (const w of this.sourceWatchers.values()) if (w.watcher.active) n++;
    return Math.min(IDLE_SHARED_MAX_MS, IDLE_MAX_MS * Math.max(1, n));
  }

  /**
   * The change counters' watcher (change tracking on), created on first use: `default`'s, or that of
   * another source's database (one per pool: a source whose pool was remade gets a new one).
   */
  private changeWatcher(source?: { name: string; db: Db }): ChangeWatcher | undefined {
    const ms = this.ctx.config.liveQueries.changePollIntervalMs;
    if (ms === 0) return undefined;
    if (source) {
      const have = this.sourceWatchers.get(source.name);
      if (have && have.db === source.db) return have.watcher;
      const watcher = new ChangeWatcher(source.db, this.timers, ms, (err) =>
        this.ctx.logger.warn({ type: 'livequery-poller-log', source: source.name, err }, 'reading the live-query change counters of a source failed'),
      // A source away (sourceWatch's probes), or whose pool was remade or closed: no read waits on it.
      () => this.ctx.sources?.get(source.name)?.db === source.db, () => this.idleMaxMs(), sourceDb(this.ctx, source.name).prepare);
      this.sourceWatchers.set(source.name, { db: source.db, watcher });
      return watcher;
    }
    this.watcher ??= new ChangeWatcher(this.ctx.db, this.timers, ms, (err) =>
      this.ctx.logger[this.ctx.dbWatch?.covers(err) ? 'debug' : 'warn']({ type: 'livequery-poller-log', err }, 'reading the live-query change counters failed'),
    undefined, () => this.idleMaxMs(), this.ctx.config.usePreparedStatements !== false);
    return this.watcher;
  }

  /**
   * The change triggers of a statement on another source, in that source's database. A source that is
   * the engine's own database (added a second time under another name) keeps the refetch interval:
   * `default`'s metadata changes drop the triggers of tables `default` does not track.
   */
  private async watchOnSource(source: { name: string; db: Db }, statement: string, cache: SchemaCache): Promise<LiveDependencies> {
    const own = cache.sources?.get(source.name);
    if (!own) return { watch: false, reason: `source ${JSON.stringify(source.name)} is not in the schema cache` };
    if (await sameDatabase(source.db, this.ctx.db).catch(() => false)) {
      return { watch: false, reason: `source ${JSON.stringify(source.name)} is the engine's own database` };
    }
    return watchStatement(source.db, statement, own, true);
  }

  /**
   * A statement of a live query joining databases (joinedLiveQuery.ts) watched on `source`: its
   * change triggers installed there, and that source's watcher; undefined with change tracking off.
   */
  async joinedWatch(source: string, text: string, cache: SchemaCache): Promise<JoinedWatch | undefined> {
    const on = source === 'default' ? undefined : { name: source, db: sourceDb(this.ctx, source).db };
    const watcher = this.changeWatcher(on);
    if (!watcher) return undefined;
    const deps = on ? await this.watchOnSource(on, text, cache) : await watchStatement(this.ctx.db, text, cache);
    return { watcher, deps };
  }

  /**
   * Starts a streaming subscription (planner/stream.ts) in the stream poller of its statement; its
   * first batch is pushed before this resolves. Returns its stop function.
   */
  async stream(
    session: Session, plan: StreamPlan, variables: Record<string, unknown>, sub: Subscriber, cancelled: () => boolean, cache: SchemaCache,
    sourceName?: string,
  ): Promise<() => void> {
    const field: LiveRootField = { alias: plan.alias, text: plan.text, params: plan.params };
    const statement = multiplexedStatement(field, STREAM_COLUMNS);
    const source = sourceName !== undefined && sourceName !== 'default' ? { name: sourceName, ...sourceDb(this.ctx, sourceName) } : undefined;
    const id = source ? `${source.name}\u0000${statement}` : statement;
    const existing = this.streamPollers.get(id);
    const poller = existing && existing.cache === cache ? existing : this.streamPollerFor(id, statement, field, plan, cache, source);
    return poller.subscribe(sub, variables, session, plan.initial, cancelled);
  }

  /** `source`: a source beside `default` (its pool, its change counters and its delivery bounds, as for live queries). */
  private streamPollerFor(id: string, statement: string, field: LiveRootField, plan: StreamPlan, cache: SchemaCache, source?: { name: string; db: Db; prepare: boolean }): StreamPoller {
    const { db, config } = this.ctx;
    const created: StreamPoller = new StreamPoller(statement, field, plan, {
      db: source ? source.db : db,
      timers: this.timers,
      batchSize: config.liveQueries.batchSize,
      intervalMs: config.liveQueries.refetchIntervalMs,
      prepare: source ? source.prepare : config.usePreparedStatements !== false,
      marks: this.marksFor(source),
      watcher: this.changeWatcher(source),
      watch: source ? () => this.watchOnSource(source, statement, cache) : () => watchStatement(db, statement, cache),
      errorBody: (e) => this.errorBody(e),
      isStale: () => this.ctx.state.current !== cache,
      onEmpty: () => {
        if (this.streamPollers.get(id) === created) this.streamPollers.delete(id);
        this.checkIdle();
      },
      onStale: (subscribers) => {
        for (const s of subscribers) s.replan();
      },
    }, cache);
    this.streamPollers.set(id, created);
    return created;
  }

  /** The streams' delivery bounds of `default`'s database, or of another source's (one per pool). */
  private marksFor(source?: { name: string; db: Db }): StreamMarks {
    if (!source) return (this.marks ??= new StreamMarks(this.ctx.db));
    const have = this.sourceMarks.get(source.name);
    if (have && have.db === source.db) return have.marks;
    const marks = new StreamMarks(source.db);
    this.sourceMarks.set(source.name, { db: source.db, marks });
    return marks;
  }

  /** The `{"data":null,"errors":[…]}` body of a failed read. */
  errorBody(e: unknown): string {
    const err = e instanceof ApiError ? e : new ApiError('unexpected', 'database query error', { status: 500, internal: String(e) });
    return JSON.stringify({ data: null, errors: [err.toGraphqlError(this.ctx.config.devMode)] });
  }

  /** Registers a connection; `ka` (when given) is called every KEEP_ALIVE_MS. Returns its release. */
  openConnection(ka?: () => void): () => void {
    this.connections++;
    if (ka) {
      this.keepAlive.add(ka);
      this.keepAliveTimer ??= this.timers.every(KEEP_ALIVE_MS, () => {
        for (const f of this.keepAlive) f();
      });
    }
    let closed = false;
    return () => {
      if (closed) return;
      closed = true;
      this.connections--;
      if (ka) this.keepAlive.delete(ka);
      if (this.keepAlive.size === 0) {
        this.timers.clear(this.keepAliveTimer);
        this.keepAliveTimer = undefined;
      }
      this.checkIdle();
    };
  }

  stats(): LiveQueryStats {
    const s: LiveQueryStats = {
      connections: this.connections, pollers: this.pollers.size, cohorts: 0, subscribers: 0, timers: this.timers.size, polls: 0, cohortRuns: 0, changeDriven: 0,
      changeReads: (this.watcher?.reads ?? 0) + [...this.sourceWatchers.values()].reduce((n, w) => n + w.watcher.reads, 0), streams: 0, streamPollers: this.streamPollers.size, streamPolls: 0, streamMarks: this.marks?.observations ?? 0,
      joined: this.joined.running, joinedChangeDriven: this.joined.changeDriven, joinedRuns: this.joined.runs,
    };
    for (const p of this.streamPollers.values()) {
      s.streams += p.streams.size;
      s.streamPolls += p.polls;
    }
    for (const p of this.pollers.values()) {
      s.cohorts += p.cohorts.size;
      s.subscribers += p.subscriberCount;
      s.polls += p.polls;
      s.cohortRuns += p.cohortRuns;
      if (p.changeDriven) s.changeDriven++;
    }
    return s;
  }

  private checkIdle(): void {
    if (this.connections === 0 && this.pollers.size === 0 && this.streamPollers.size === 0 && this.timers.size === 0) this.onIdle();
  }
}

const managers = new Map<EngineContext, LiveQueryManager>();

/** The live-query manager of an engine (created on first use, forgotten when idle). */
export function liveQueriesFor(ctx: EngineContext): LiveQueryManager {
  let m = managers.get(ctx);
  if (!m) {
    const created: LiveQueryManager = new LiveQueryManager(ctx, () => {
      if (managers.get(ctx) === created) managers.delete(ctx);
    });
    managers.set(ctx, (m = created));
  }
  return m;
}

/** Counts of live connections, pollers, cohorts, subscribers and timers (of one engine, or all). */
export function liveQueryStats(ctx?: EngineContext): LiveQueryStats {
  const total: LiveQueryStats = {
    connections: 0, pollers: 0, cohorts: 0, subscribers: 0, timers: 0, polls: 0, cohortRuns: 0, changeDriven: 0, changeReads: 0, streams: 0, streamPollers: 0, streamPolls: 0, streamMarks: 0,
    joined: 0, joinedChangeDriven: 0, joinedRuns: 0,
  };
  for (const [c, m] of managers) {
    if (ctx && c !== ctx) continue;
    const s = m.stats();
    for (const k of Object.keys(total) as Array<keyof LiveQueryStats>) total[k] += s[k];
  }
  return total;
}
