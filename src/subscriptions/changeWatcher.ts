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
 * The timer runs only while some table is watched, and also lets listeners check whether the
 * schema cache they were planned on is stale.
 */
import type { Db } from '../execution/index.js';
import type { TimerHandle, Timers } from './timers.js';

export interface ChangeListener {
  /** Called after each read; `changed` holds the tables whose counter moved at this generation. */
  onRead(changed: ReadonlySet<number>): void;
}

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

  constructor(private readonly db: Db, private readonly timers: Timers, private readonly intervalMs: number, private readonly onError: (e: unknown) => void) {}

  /** Starts watching `relids` for `l`; the returned function undoes it. */
  add(l: ChangeListener, relids: readonly number[]): () => void {
    this.listeners.add(l);
    for (const id of relids) {
      const w = this.tables.get(id);
      if (w) w.refs++;
      else this.tables.set(id, { refs: 1, version: undefined, changedGen: Number.MAX_SAFE_INTEGER });
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
    this.timer = this.timers.after(this.intervalMs, () => {
      this.timer = undefined;
      void this.read().finally(() => this.schedule());
    });
  }

  private async read(): Promise<void> {
    if (this.reading || this.tables.size === 0) return;
    this.reading = true;
    try {
      const relids = [...this.tables.keys()];
      this.reads++;
      const r = await this.db.query(
        `SELECT relid::int8 AS relid, sum(version)::text AS version FROM hdb_catalog.svc_live_change WHERE relid = ANY($1::oid[]) GROUP BY relid`,
        [relids],
        { prepare: true },
      );
      const versions = new Map<number, string>();
      for (const row of r.rows) versions.set(Number(row.relid), String(row.version));
      const gen = this.gen + 1;
      const changed = new Set<number>();
      for (const id of relids) {
        const w = this.tables.get(id);
        if (!w) continue;
        const v = versions.get(id) ?? '0';
        if (w.version !== v) {
          w.version = v;
          w.changedGen = gen;
          changed.add(id);
        }
      }
      this.gen = gen;
      this.failing = false;
      for (const l of [...this.listeners]) l.onRead(changed);
    } catch (e) {
      // logged once until a read succeeds again
      if (!this.failing) this.onError(e);
      this.failing = true;
    } finally {
      this.reading = false;
    }
  }
}
