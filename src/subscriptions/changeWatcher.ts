/**
 * Watches the change counters (`hdb_catalog.svc_live_change`) of the tables live queries read:
 * every `intervalMs`, ONE statement reads the counters of all watched tables (a few rows of a small
 * table: no multiplexed query runs while nothing changes). Each completed read is a generation;
 * a table whose counter moved is marked changed at that generation, and its listeners are told.
 *
 * The rule that no change is missed: a counter and the rows it stands for commit together, so a
 * query started after generation g completed sees every write generation g saw. A cohort therefore
 * records, before each of its queries, the generation completed so far (`seenGen`), and must run
 * again whenever one of its tables changed at a later generation. A table seen for the first time
 * counts as changed (its earlier writes may postdate a cohort's first query).
 *
 * The same statement reads what changed (`hdb_catalog.svc_live_log`, metadata/catalog/liveChanges.ts):
 * the log rows of the watched tables committed after the previous read's snapshot and visible in
 * this one (by writer transaction id against the previous snapshot: commit order, not start order,
 * so a long transaction's rows are never skipped). A table's changed rows are handed to listeners
 * only when the log is complete for it: as many log rows as its counter moved (one of each per
 * statement), none of them over the bound. Anything else (TRUNCATE, a bulk statement, a table
 * whose capture triggers are missing, log rows pruned under a slow reader, the first read) hands
 * no rows: listeners then rerun everything that reads the table.
 *
 * Pruning: every PRUNE_EVERY_MS the watcher deletes log rows older than the snapshot it took
 * RETAIN_MS ago (any engine's reader further behind just sees an incomplete log).
 *
 * The timer runs only while some table is watched, and also lets listeners check whether the
 * schema cache they were planned on is stale. While reads find nothing changed, the pause doubles up
 * to the idle maximum (never below `intervalMs`); a read that finds a change goes back to `intervalMs`.
 * The idle maximum is IDLE_MAX_MS shared by the watchers of one engine (`idleMaxMs`: one per
 * database with live queries; see liveQueries.ts), so idle live queries cost four reads a second in
 * all instead of twenty per database, and a first change after a quiet spell is seen within it.
 *
 * Each read also takes the primary's WAL insert position (`lsn`): every commit the read saw is at or
 * before it, so a rerun on a read replica that has replayed it sees every change the read saw (the
 * live queries' reads on replicas wait for it, as a request's `X-Svc-Commit-Lsn` does).
 *
 * A read that fails (the database is away) is told to the listeners (`onReadFailed`: they answer
 * their subscribers the error once, or find their plan stale);
 * the first read that succeeds after failures counts every watched table as changed, so the
 * subscribers that were sent the error get their data again without a write.
 */
import { parseLsn, type Db } from '../execution/index.js';
import type { TimerHandle, Timers } from './timers.js';

/** The old and new images of the rows a table's statements changed (column name → JSON value). */
export type RowImages = ReadonlyArray<Record<string, unknown>>;

export interface ChangeListener {
  /**
   * Called after each read; `changed` holds the tables whose counter moved at this generation,
   * `rows` the changed rows of those of them whose log was complete (absent: anything may have changed).
   */
  onRead(changed: ReadonlySet<number>, rows: ReadonlyMap<number, RowImages>): void;
  /** Called when a read failed: `e` is why. */
  onReadFailed?(e: unknown): void;
}

const READ_SQL = `SELECT pg_current_snapshot()::text AS snapshot, pg_current_wal_insert_lsn()::text AS lsn,
  (SELECT coalesce(json_agg(json_build_array(c.relid, c.version)), '[]') FROM (
     SELECT relid::int8 AS relid, sum(version)::text AS version FROM hdb_catalog.svc_live_change WHERE relid = ANY($1::oid[]) GROUP BY relid) c)::text AS versions,
  (SELECT coalesce(json_agg(json_build_array(l.relid::int8, l.rows)), '[]') FROM hdb_catalog.svc_live_log l
    WHERE $2::pg_snapshot IS NOT NULL AND l.relid = ANY($1::oid[])
      AND l.xid >= pg_snapshot_xmin($2::pg_snapshot) AND NOT pg_visible_in_snapshot(l.xid, $2::pg_snapshot))::text AS log`;

const PRUNE_EVERY_MS = 10_000;
/** How often a read in flight checks whether its database was found away meanwhile. */
const AWAY_CHECK_MS = 250;
/** A read given up because the watcher's pool is no longer its source's. */
const SUPERSEDED = new Error('the pool was replaced');
/** The longest pause between reads while nothing changes. */
export const IDLE_MAX_MS = 250;
const RETAIN_MS = 60_000;

interface Watched {
  refs: number;
  /** Sum of the table's slot counters at the last read; undefined before the first read. */
  version: string | undefined;
  /** Generation at which the counter last moved. */
  changedGen: number;
}

export class ChangeWatcher {
  /** Completed reads. */
  gen = 0;
  /** Reads run (for the stats). */
  reads = 0;
  private readonly tables = new Map<number, Watched>();
  private readonly listeners = new Set<ChangeListener>();
  private timer: TimerHandle | undefined;
  private reading = false;
  private failing = false;
  /** The snapshot of the last completed read (the log is read from there). */
  private snapshot: string | null = null;
  /** Snapshots' xmin by time, for pruning (one per PRUNE_EVERY_MS). */
  private readonly marks: Array<{ at: number; xmin: string }> = [];
  /** The pause before the next read: `intervalMs`, doubling while reads find nothing changed. */
  private pauseMs: number;
  /** The primary's WAL insert position at the last completed read (see the file's comment). */
  lsn: bigint | undefined;

  /**
   * `available`: throws (Hasura's `database connection error`) while the database is known to be
   * away, so no read waits on a server that is gone; false when this watcher's pool is no longer the
   * source's (remade for new settings, closed with the source): no read, the listeners are told
   * nothing changed (so they find their plan stale). `idleMaxMs`: the longest idle pause now.
   * `prepare`: the database's prepared-statement setting (off behind a transaction pooler).
   */
  constructor(
    private readonly db: Db, private readonly timers: Timers, private readonly intervalMs: number, private readonly onError: (e: unknown) => void,
    private readonly available?: () => boolean, private readonly idleMaxMs: () => number = () => IDLE_MAX_MS, private readonly prepare = true,
  ) {
    this.pauseMs = intervalMs;
  }

  /** Whether some listener is watching (the watcher reads then). */
  get active(): boolean {
    return this.listeners.size > 0;
  }

  /** Starts watching `relids` for `l`; the returned function undoes it. */
  add(l: ChangeListener, relids: readonly number[]): () => void {
    this.listeners.add(l);
    for (const id of relids) {
      const w = this.tables.get(id);
      if (w) w.refs++;
      else {
        this.tables.set(id, { refs: 1, version: undefined, changedGen: Number.MAX_SAFE_INTEGER });
        this.pauseMs = this.intervalMs;
      }
    }
    this.schedule();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      this.listeners.delete(l);
      for (const id of relids) {
        const w = this.tables.get(id);
        if (w && --w.refs === 0) this.tables.delete(id);
      }
      if (this.listeners.size === 0) {
        this.timers.clear(this.timer);
        this.timer = undefined;
      }
    };
  }

  /**
   * The latest generation at which one of `relids` changed (MAX_SAFE_INTEGER while one of them
   * has not been read yet: anything run before the first read must run again).
   */
  changedGen(relids: readonly number[]): number {
    let g = 0;
    for (const id of relids) g = Math.max(g, this.tables.get(id)?.changedGen ?? Number.MAX_SAFE_INTEGER);
    return g;
  }

  private schedule(): void {
    if (this.timer !== undefined || this.listeners.size === 0) return;
    this.timer = this.timers.after(this.pauseMs, () => {
      this.timer = undefined;
      void this.read().finally(() => this.schedule());
    });
  }

  private async read(): Promise<void> {
    if (this.reading || this.tables.size === 0) return;
    this.reading = true;
    try {
      if (this.available && !this.available()) {
        for (const l of [...this.listeners]) l.onRead(new Set(), new Map());
        return;
      }
      const relids = [...this.tables.keys()];
      this.reads++;
      const query = this.db.query(READ_SQL, [relids, this.snapshot], { prepare: this.prepare });
      const r = this.available ? await this.whileAvailable(query, this.available) : await query;
      const recovered = this.failing;
      const row = r.rows[0]!;
      const versions = new Map<number, string>();
      for (const [relid, v] of JSON.parse(String(row.versions)) as Array<[number, string]>) versions.set(Number(relid), v);
      const logged = new Map<number, { statements: number; images: Array<Record<string, unknown>> | undefined }>();
      for (const [relid, images] of JSON.parse(String(row.log)) as Array<[number, Array<Record<string, unknown>> | null]>) {
        let l = logged.get(relid);
        if (!l) logged.set(relid, (l = { statements: 0, images: [] }));
        l.statements++;
        if (images === null) l.images = undefined;
        else l.images?.push(...images);
      }
      const gen = this.gen + 1;
      const changed = new Set<number>();
      const rows = new Map<number, RowImages>();
      for (const id of relids) {
        const w = this.tables.get(id);
        if (!w) continue;
        const v = versions.get(id) ?? '0';
        if (w.version !== v || recovered) {
          const l = logged.get(id);
          if (!recovered && w.version !== undefined && l?.images && BigInt(v) - BigInt(w.version) === BigInt(l.statements)) rows.set(id, l.images);
          w.version = v;
          w.changedGen = gen;
          changed.add(id);
        }
      }
      this.snapshot = String(row.snapshot);
      this.lsn = parseLsn(row.lsn);
      this.gen = gen;
      this.pauseMs = changed.size > 0 ? this.intervalMs : Math.max(this.intervalMs, Math.min(this.idleMaxMs(), this.pauseMs * 2));
      this.failing = false;
      for (const l of [...this.listeners]) l.onRead(changed, rows);
      await this.prune();
    } catch (e) {
      if (e === SUPERSEDED) {
        for (const l of [...this.listeners]) l.onRead(new Set(), new Map());
        return;
      }
      // logged once until a read succeeds again; told every time (a listener may find its plan stale)
      if (!this.failing) this.onError(e);
      this.failing = true;
      for (const l of [...this.listeners]) l.onReadFailed?.(e);
      this.pauseMs = this.idleMaxMs();
    } finally {
      this.reading = false;
    }
  }

  /**
   * `read`, unless the database is found away (or the pool superseded) while it runs: a server that
   * went away behind a pooler holds a query until the pooler's timeout, and the listeners must hear
   * of it meanwhile. The abandoned read ends by itself (its outcome ignored).
   */
  private async whileAvailable<T>(read: Promise<T>, available: () => boolean): Promise<T> {
    let timer: TimerHandle | undefined;
    const away = new Promise<never>((_, reject) => {
      const check = (): void => {
        try {
          if (available()) timer = this.timers.after(AWAY_CHECK_MS, check);
          else reject(SUPERSEDED);
        } catch (e) {
          reject(e);
        }
      };
      timer = this.timers.after(AWAY_CHECK_MS, check);
    });
    try {
      return await Promise.race([read, away]);
    } finally {
      this.timers.clear(timer);
      read.catch(() => undefined);
      away.catch(() => undefined);
    }
  }

  /** Deletes log rows older than the snapshot taken RETAIN_MS ago (see the file's comment). */
  private async prune(): Promise<void> {
    const now = Date.now();
    const last = this.marks[this.marks.length - 1];
    if (!last || now - last.at >= PRUNE_EVERY_MS) this.marks.push({ at: now, xmin: this.snapshot!.split(':')[0]! });
    if (now - this.marks[0]!.at < RETAIN_MS) return;
    const { xmin } = this.marks.shift()!;
    await this.db.query('DELETE FROM hdb_catalog.svc_live_log WHERE xid < $1::xid8', [xmin]);
  }
}
