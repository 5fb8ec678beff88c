/**
 * The delivery bound of streaming subscriptions: for each (table, cursor column) streamed, the
 * highest cursor value below which no transaction can still commit a row. A stream (ASC) delivers
 * rows up to that bound only, so a row committed late with a smaller cursor value (an id taken from
 * a sequence by a transaction that commits after a later one) is never skipped.
 *
 * An observation is ONE statement: the column's highest committed value (`max(col)`, an index
 * probe) for every key, then the transactions open in this database (each holds a lock on its
 * virtual transaction id, `pg_locks`, read after the statement's snapshot). Observation k's value
 * V_k becomes the bound once a later observation j finds none of the transactions open at k still
 * open (O_k ∩ O_j = ∅; k = j when nothing was open at all):
 *
 *   a row with cursor x < V_k that is not visible to k was written by a transaction T that
 *   generated x before the writer of V_k generated V_k, so T started before that writer
 *   committed, hence before k's snapshot; T still open after k's snapshot would be in O_k and,
 *   open until after j, in O_j. None is, so every row up to V_k was committed before j, and a
 *   statement started after j sees them all.
 *
 * This holds for cursor values generated increasing in time as the row is written: sequences,
 * identity columns, `now()`/`clock_timestamp()` defaults. A transaction that stays open (idle in
 * transaction, a long report) holds the bound back until it ends, whoever it is.
 *
 * Observations run when a streamed table changed or a bound is waiting for open transactions to
 * end (streams.ts); requests made while one runs share the next one. Reused virtual transaction
 * ids can only make an observation wait longer, never shorter.
 */
import type { QualifiedTable } from '../core/index.js';
import type { Db } from '../execution/index.js';
import { compile, sql } from '../sql/index.js';

interface Key {
  table: QualifiedTable;
  column: string;
  refs: number;
}

interface Mark {
  open: Set<string>;
  values: Map<string, string | null>;
}

/** Marks kept between the bound and the newest (older ones are thinned out). */
const MAX_MARKS = 512;

const OPEN_TRANSACTIONS = `(SELECT coalesce(array_agg(DISTINCT l.virtualtransaction), '{}') FROM pg_locks l
  WHERE l.granted AND l.locktype IN ('virtualxid', 'transactionid') AND l.pid IS DISTINCT FROM pg_backend_pid()
    AND (l.pid IS NULL OR l.pid IN (SELECT a.pid FROM pg_stat_activity a JOIN pg_database d ON d.oid = a.datid WHERE d.datname = current_database())))`;

export const markKey = (table: QualifiedTable, column: string): string => JSON.stringify([table.schema, table.name, column]);

export class StreamMarks {
  /** Observations run (for the stats). */
  observations = 0;
  private readonly keys = new Map<string, Key>();
  /** marks[0] is the bound's observation once one is safe (`hasSafe`). */
  private marks: Mark[] = [];
  private hasSafe = false;
  private running: Promise<void> = Promise.resolve();
  private next: Promise<void> | undefined;

  constructor(private readonly db: Db) {}

  /** Starts computing the bound of `key`; the returned function undoes it. */
  add(table: QualifiedTable, column: string): () => void {
    const key = markKey(table, column);
    const k = this.keys.get(key);
    if (k) k.refs++;
    else {
      this.keys.set(key, { table, column, refs: 1 });
      // Observations made while nobody streamed this key may hold a value from before writes no
      // observation saw: forget it, so the bound is unknown until one that includes the key now.
      for (const m of this.marks) m.values.delete(key);
    }
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      const e = this.keys.get(key);
      if (e && --e.refs === 0) this.keys.delete(key);
    };
  }

  /** The bound of `key` (`known` false until an observation that included it is safe). */
  bound(key: string): { known: boolean; value: string | null } {
    const m = this.hasSafe ? this.marks[0] : undefined;
    if (!m || !m.values.has(key)) return { known: false, value: null };
    return { known: true, value: m.values.get(key) ?? null };
  }

  /** True while the newest observation of `key` is not the bound yet (open transactions to wait for). */
  pending(key: string): boolean {
    const last = this.marks[this.marks.length - 1];
    if (!last) return false;
    const b = this.bound(key);
    return !b.known || last.values.get(key) !== b.value;
  }

  /** Runs an observation that starts after this call (shared by the calls made before it starts). */
  observe(): Promise<void> {
    this.next ??= this.running.then(() => {
      this.next = undefined;
      this.running = this.run().catch(() => undefined);
      return this.running;
    });
    return this.next;
  }

  private async run(): Promise<void> {
    const keys = [...this.keys];
    if (keys.length === 0) return;
    const probes = keys.map(([, k], i) => sql`, (SELECT max(${sql.ident(k.column)})::text FROM ${sql.ident(k.table.schema, k.table.name)}) AS ${sql.ident(`v${i}`)}`);
    const text = compile(sql`SELECT ${sql.unsafeRaw(OPEN_TRANSACTIONS)} AS ${sql.ident('open')}${sql.join(probes, '')}`).text;
    this.observations++;
    const r = await this.db.query(text, [], { prepare: false });
    const row = r.rows[0] ?? {};
    const values = new Map<string, string | null>();
    keys.forEach(([key], i) => values.set(key, row[`v${i}`] === null || row[`v${i}`] === undefined ? null : String(row[`v${i}`])));
    this.append({ open: new Set((row.open as string[] | null) ?? []), values });
  }

  private append(mark: Mark): void {
    this.marks.push(mark);
    const last = this.marks.length - 1;
    for (let k = last; k >= (this.hasSafe ? 1 : 0); k--) {
      if (disjoint(this.marks[k]!.open, mark.open)) {
        this.marks = this.marks.slice(k);
        this.hasSafe = true;
        break;
      }
    }
    if (this.marks.length > MAX_MARKS) {
      // keep the bound's mark and the newest; drop every other one between (waits longer, never less)
      this.marks = this.marks.filter((_, i) => i === 0 || i === this.marks.length - 1 || i % 2 === 0);
    }
  }
}

function disjoint(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const x of a) if (b.has(x)) return false;
  return true;
}
