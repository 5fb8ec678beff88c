/**
 * Reads spread over Postgres hot standbys (streaming replicas), aware of their lag.
 *
 * Each replica has its own pool, plus one connection that measures it in the background every
 * `checkIntervalMs`: `pg_is_in_recovery()` and `pg_last_wal_replay_lsn()`, compared with the
 * primary's insert position sampled in the same tick (walPosition.ts). A replica is usable when it
 * answered its last check, is still a standby, and lags at most `maxLagMs`; reads go round-robin
 * over the usable ones. With none usable, reads go to the primary (a log line when that starts and
 * when it ends; `fallbacks` counts the reads).
 *
 * Read your writes without state on the engine: `commitLsn()` (after a mutation committed) is the
 * primary's insert position, at or past the commit record; a read given that position goes to a
 * replica whose measured replay position has reached it. When none has by its last measurement,
 * the usable replicas are asked on demand (replayWait.ts: one shared round trip, then up to
 * `waitForLsnMs` of waiting for replay), and only then does the read go to the primary.
 *
 * The set of replicas can change while reads run (`update`, from a metadata change): new ones are
 * measured before they get reads; removed ones get no new reads, and their pools close once the
 * reads in flight on them have finished (`drainMs` at most).
 *
 * A read that fails on a replica because the server went away (connection lost or refused, shut
 * down, a recovery conflict) marks the replica down until its next good check and runs again on the
 * next usable replica, then on the primary: the client never sees that failure.
 */
import type { ApiError } from '../core/index.js';
import { createDb } from './createDb.js';
import type { Db } from './db.js';
import { connectionTarget } from './connectionFailure.js';
import { formatLsn, parseLsn, PrimaryHistory } from './walPosition.js';
import { ReplayWait } from './replayWait.js';

/**
 * Where a read may go: anywhere usable (undefined), a server that has replayed this LSN, or the
 * primary. A bare LSN is `default`'s; `CommitPoints` holds one LSN per source (each source's
 * replicas look up their own, readRouting.ts).
 */
export type ReadAfter = bigint | 'primary' | undefined | CommitPoints;

/** Commit positions by source name (positions of different servers are not comparable). */
export type CommitPoints = ReadonlyMap<string, bigint>;

/** The part of a `Db` a GraphQL read uses. */
export type ReadDb = Pick<Db, 'query' | 'queryJsonText' | 'queryJsonFramed' | 'transaction'>;

export interface ReplicaSpec {
  url: string;
  poolSize: number;
}

export interface ReadReplicasOptions {
  maxLagMs: number;
  checkIntervalMs: number;
  /** How long a read with a commit LSN may wait for a usable replica to replay it (ms; 0: ask once, no wait). */
  waitForLsnMs?: number;
  /** How long a removed replica's reads in flight may take before its pool is closed anyway (default 30 s). */
  drainMs?: number;
  /** The source whose replicas these are (default `default`): which entry of a `CommitPoints` applies. */
  source?: string;
  /** Told when a replica becomes usable or unusable, and when reads start or stop falling back to the primary. */
  onChange?: (event: { replica?: string; usable: boolean; reason?: string; again?: boolean }) => void;
}

export interface ReplicaStatus {
  /** `host:port/database` (never the password). */
  name: string;
  usable: boolean;
  /** Lag at the last check, ms (null: not measured). */
  lagMs: number | null;
  /** Why it is not usable. */
  reason?: string;
  /** Reads it served. */
  reads: number;
}

interface Replica {
  name: string;
  /** `url` and pool size: the same key in a new list keeps the replica (and its pool). */
  key: string;
  db: Db;
  probe: Db;
  up: boolean;
  reason?: string;
  lagMs?: number;
  /** Its replay position (the highest seen) and the on-demand questions of read your writes. */
  wait: ReplayWait;
  reads: number;
  /** Reads running on it now. */
  inFlight: number;
  /** Removed from the set: no new reads; `drained` is called when the last one in flight ends. */
  removed?: boolean;
  drained?: () => void;
  /** Has been usable before: becoming usable is then a recovery ("again"), not the first measurement. */
  wasUsable?: boolean;
}

/** Why a read fell back to the primary: no usable replica, none replayed the client's LSN, or the client asked for it. */
export type FallbackReason = 'no_usable_replica' | 'not_replayed' | 'requested';

const PRIMARY_LSN = 'SELECT pg_current_wal_insert_lsn()::text AS lsn';
const REPLICA_STATE = 'SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replay';
const specKey = (s: ReplicaSpec): string => `${s.poolSize} ${s.url}`;

/** A name for a URL in logs and metrics: host:port/database. */
export const replicaName = (url: string): string => {
  const t = connectionTarget(url);
  return `${t.address}/${t.database}`;
};

/** SQLSTATEs after which the same read may succeed elsewhere: connection (08), shut down (57P0x), recovery conflict (40001). */
const LOST = /^(08|57P0)/;
function serverLost(e: unknown): boolean {
  const err = e as ApiError | undefined;
  if (err?.code === 'database-error' && err.status === 500) return true; // no SQLSTATE: the connection itself failed
  const internal = (err as { internal?: { error?: { status_code?: unknown } } } | undefined)?.internal;
  const state = internal?.error?.status_code;
  return typeof state === 'string' && (LOST.test(state) || state === '40001');
}

export class ReadReplicas {
  private replicas: Replica[];
  private readonly history: PrimaryHistory;
  private next = 0;
  private timer?: NodeJS.Timeout;
  private ticking?: Promise<void>;
  private stopped = false;
  private fallingBack = false;
  /** Reads the primary served, by reason (for the metrics). */
  readonly fallbacks: Record<FallbackReason, number> = { no_usable_replica: 0, not_replayed: 0, requested: 0 };
  /** Reads retried elsewhere after their replica failed mid-request. */
  retries = 0;
  private removedQuestions = 0;

  constructor(private readonly primary: Db, specs: readonly ReplicaSpec[], private readonly opts: ReadReplicasOptions) {
    this.replicas = specs.map((s) => this.open(s));
    this.history = new PrimaryHistory(opts.maxLagMs * 2 + opts.checkIntervalMs * 4);
  }

  private open(s: ReplicaSpec): Replica {
    const probe = createDb(s.url, 1, { connectionTimeoutMs: Math.max(1000, this.opts.checkIntervalMs * 2), pipelineDepth: 1, onError: () => undefined });
    return {
      name: replicaName(s.url),
      key: specKey(s),
      db: createDb(s.url, s.poolSize, { connectionTimeoutMs: 5000, onError: () => undefined }),
      probe,
      up: false,
      reason: 'not checked yet',
      wait: new ReplayWait(probe),
      reads: 0,
      inFlight: 0,
    };
  }

  /** This source's part of `after`: a bare LSN is `default`'s, a `CommitPoints` gives each source its own. */
  private own(after: ReadAfter): bigint | 'primary' | undefined {
    const source = this.opts.source ?? 'default';
    if (typeof after === 'bigint') return source === 'default' ? after : undefined;
    if (after === undefined || after === 'primary') return after;
    return after.get(source);
  }

  /** How many replicas are in the set (usable or not). */
  get size(): number {
    return this.replicas.length;
  }

  /**
   * Makes `specs` the set of replicas: those already there (same URL and pool size) are kept as they
   * are; new ones are opened and measured before this resolves (so they get reads from now on);
   * the others get no new reads, and their pools are closed once the reads in flight on them end
   * (`drained` resolves then). Returns the names of the added and removed ones.
   */
  async update(specs: readonly ReplicaSpec[]): Promise<{ added: string[]; removed: string[]; drained: Promise<void> }> {
    const byKey = new Map(this.replicas.map((r) => [r.key, r]));
    const next = specs.map((s) => byKey.get(specKey(s)) ?? this.open(s));
    const kept = new Set(next);
    const added = next.filter((r) => byKey.get(r.key) !== r);
    const gone = this.replicas.filter((r) => !kept.has(r));
    await this.check(added);
    this.replicas = next;
    for (const r of gone) r.removed = true;
    if (gone.length > 0) this.next = 0;
    this.reportAll();
    return { added: added.map((r) => r.name), removed: gone.map((r) => r.name), drained: Promise.all(gone.map((r) => this.drain(r))).then(() => undefined) };
  }

  /** Waits for the reads in flight on a removed replica (at most `drainMs`), then closes its pools. */
  private async drain(r: Replica): Promise<void> {
    r.wait.cancel();
    this.removedQuestions += r.wait.questions;
    if (r.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        r.drained = resolve;
        timer = setTimeout(resolve, this.opts.drainMs ?? 30_000);
      });
      clearTimeout(timer);
    }
    await Promise.all([r.db.close(), r.probe.close()]);
  }

  /** Measures every replica once, then keeps measuring every `checkIntervalMs`. */
  async start(): Promise<void> {
    await this.check();
    const loop = () => {
      if (this.stopped) return;
      this.timer = setTimeout(() => {
        this.ticking = this.check().finally(loop);
      }, this.opts.checkIntervalMs);
      this.timer.unref();
    };
    loop();
  }

  /**
   * The server a read with `after` would use now: a usable replica (round robin) or the primary.
   * `count: false` (explain) leaves the round robin and the fallback counts as they are.
   */
  choose(after: ReadAfter, count = true): { name: string; db: Db; replica?: Replica } {
    const picked = this.pick(this.own(after), count);
    if (picked.replica) return { name: picked.replica.name, db: picked.replica.db, replica: picked.replica };
    if (count) this.fallbacks[picked.reason]++;
    return { name: 'primary', db: this.primary };
  }

  /** The next usable replica that has replayed `after` by its last measurement, else why not. */
  private pick(after: bigint | 'primary' | undefined, count: boolean): { replica: Replica; reason?: undefined } | { replica?: undefined; reason: FallbackReason } {
    if (after === 'primary') return { reason: 'requested' };
    let usable = false;
    const n = this.replicas.length;
    for (let i = 0; i < n; i++) {
      const r = this.replicas[(this.next + i) % n]!;
      if (!this.usable(r)) continue;
      usable = true;
      if (after !== undefined && (r.wait.replay === undefined || r.wait.replay < after)) continue;
      if (count) this.next = (this.next + i + 1) % n;
      return { replica: r };
    }
    return { reason: usable ? 'not_replayed' : 'no_usable_replica' };
  }

  /**
   * A commit no usable replica had replayed at its last measurement: asks them now (one shared round
   * trip each, then up to `waitForLsnMs` while replay goes on; a replica lagging by more than that is
   * asked once, without waiting) and takes the first that has it; else the primary.
   */
  private async replayed(after: bigint): Promise<{ db: Db; replica?: Replica }> {
    const waitMs = this.opts.waitForLsnMs ?? 0;
    const candidates = this.replicas.filter((r) => this.usable(r));
    const found = candidates.length === 0 ? undefined : await new Promise<Replica | undefined>((resolve) => {
      let left = candidates.length;
      for (const r of candidates) {
        void r.wait.reached(after, (r.lagMs ?? 0) > waitMs ? 0 : waitMs).then((ok) => {
          left--;
          if (ok && !r.removed && this.usable(r)) resolve(r);
          else if (left === 0) resolve(undefined);
        });
      }
    });
    if (found) return { db: found.db, replica: found };
    this.fallbacks.not_replayed++;
    return { db: this.primary };
  }

  /** Runs `fn` on the chosen server; when a replica is lost mid-read, again on the next choice (the primary last). */
  async read<T>(readAfter: ReadAfter, fn: (db: ReadDb) => Promise<T>): Promise<T> {
    const after = this.own(readAfter);
    for (let attempt = 0; ; attempt++) {
      let db: Db = this.primary;
      let replica: Replica | undefined;
      if (attempt < this.replicas.length) {
        const picked = this.pick(after, true);
        if (picked.replica) ({ db } = replica = picked.replica);
        else if (picked.reason === 'not_replayed' && attempt === 0) ({ db, replica } = await this.replayed(after as bigint));
        else this.fallbacks[picked.reason]++;
      }
      if (!replica) return fn(db);
      replica.inFlight++;
      try {
        const out = await fn(db);
        replica.reads++;
        return out;
      } catch (e) {
        if (!serverLost(e)) throw e;
        this.retries++;
        this.setUp(replica, false, `failed a read: ${(e as Error).message}`);
      } finally {
        if (--replica.inFlight === 0) replica.drained?.();
      }
    }
  }

  /** A `ReadDb` whose every call runs through `read(after, …)`. */
  reads(after: ReadAfter): ReadDb {
    return {
      query: (text, values, o) => this.read(after, (db) => db.query(text, values, o)),
      queryJsonText: (text, values, o) => this.read(after, (db) => db.queryJsonText(text, values, o)),
      queryJsonFramed: (text, values, frame, o) => this.read(after, (db) => db.queryJsonFramed(text, values, frame, o)),
      transaction: (o, fn) => this.read(after, (db) => db.transaction(o, fn)),
    };
  }

  /** The primary's insert position now, in text form: after a commit, the token a client sends back to read its writes. */
  async commitLsn(): Promise<string> {
    const r = await this.primary.query(PRIMARY_LSN);
    return String(r.rows[0]!.lsn);
  }

  /** Round trips asked on demand for reads with a commit LSN (all replicas, removed ones included). */
  get replayQuestions(): number {
    return this.replicas.reduce((n, r) => n + r.wait.questions, this.removedQuestions);
  }

  statuses(): ReplicaStatus[] {
    return this.replicas.map((r) => ({
      name: r.name,
      usable: this.usable(r),
      lagMs: r.lagMs ?? null,
      ...(this.usable(r) ? {} : { reason: r.reason ?? `lag ${r.lagMs} ms is over the maximum ${this.opts.maxLagMs} ms` }),
      reads: r.reads,
    }));
  }

  /** Stops measuring; the pools close once the reads in flight on them have ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking?.catch(() => undefined);
    const all = this.replicas;
    this.replicas = [];
    for (const r of all) r.removed = true;
    await Promise.all(all.map((r) => this.drain(r)));
  }

  private usable(r: Replica): boolean {
    return r.up && !r.removed && r.lagMs !== undefined && r.lagMs <= this.opts.maxLagMs;
  }

  private setUp(r: Replica, up: boolean, reason?: string): void {
    const before = this.usable(r);
    r.up = up;
    r.reason = reason;
    this.report(r, before);
  }

  /** Tells `onChange` when a replica's usability changed, and when falling back to the primary starts or ends. */
  private report(r: Replica, before: boolean): void {
    if (r.removed) return;
    const now = this.usable(r);
    if (now !== before) {
      this.opts.onChange?.({ replica: r.name, usable: now, again: now ? r.wasUsable === true : undefined, reason: now ? undefined : (r.reason ?? `lag ${r.lagMs} ms is over the maximum ${this.opts.maxLagMs} ms`) });
      if (now) r.wasUsable = true;
    }
    this.reportAll();
  }

  /** Tells `onChange` when falling back to the primary starts or ends. */
  private reportAll(): void {
    const none = !this.replicas.some((x) => this.usable(x));
    if (none !== this.fallingBack) {
      this.fallingBack = none;
      this.opts.onChange?.({ usable: !none });
    }
  }

  /** One measurement: the primary's position, then each replica's (in parallel, each bounded in time). */
  private async check(replicas: readonly Replica[] = this.replicas): Promise<void> {
    if (replicas.length === 0) return;
    const now = Date.now();
    try {
      const lsn = parseLsn((await this.primary.query(PRIMARY_LSN)).rows[0]?.lsn);
      if (lsn !== undefined) this.history.add(now, lsn);
    } catch {
      // The primary did not answer: the replicas keep their last measurements.
    }
    const limit = Math.max(1000, this.opts.checkIntervalMs * 2);
    await Promise.all(replicas.map(async (r) => {
      let timer: NodeJS.Timeout | undefined;
      try {
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${limit} ms`)), limit);
        });
        const row = (await Promise.race([r.probe.query(REPLICA_STATE), timeout])).rows[0]!;
        const before = this.usable(r);
        const replay = parseLsn(row.replay);
        if (row.recovery !== true || replay === undefined) {
          r.up = false;
          r.reason = 'not a standby any more (pg_is_in_recovery() is false)';
        } else {
          r.up = true;
          r.reason = undefined;
          r.wait.saw(replay);
          r.lagMs = this.history.lagMs(replay, Date.now());
        }
        this.report(r, before);
      } catch (e) {
        if (this.stopped || r.removed) return;
        this.setUp(r, false, `did not answer its check: ${(e as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    }));
  }
}

export { formatLsn, parseLsn };
