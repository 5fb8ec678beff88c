/**
 * Connections shared by the hot path (a query's one prepared statement, a mutation's pipeline):
 * when every connection of the pool is busy, a new unit is written behind the units already on
 * the wire of the least-loaded shared connection (node-postgres' pipeline mode) instead of waiting
 * for a connection to come back.
 *
 * Why it is safe: each unit ends with its own Sync, so units on one connection are independent. An
 * error ends its own unit only, and each mutation pipeline is its own implicit transaction.
 * Why it is faster: a Postgres backend that finds the next unit already in its socket buffer does
 * not sleep and wake between units, and the engine skips the pool's checkout and release: fewer
 * wake-ups, reads and context switches on both sides (docs/benchmarks.md).
 *
 * Rules:
 *  - A connection the pool can hand out at once (idle, or room to open one) comes first: parallel
 *    backends before pipelining.
 *  - Nothing is added to a shared connection while another caller (a transaction, a metadata call)
 *    waits for a connection of the pool: the shared ones drain and go back to the pool, and the
 *    hot path's own request for one queues behind that caller.
 *  - At most `maxDepth` units on one connection, and none behind a connection that has finished
 *    nothing for `stallMs` (a lock wait, a slow statement).
 *  - Units that cannot be placed wait here, first come first served, and are placed as units
 *    finish (or on a connection the pool hands over; one request to the pool at a time).
 *  - A unit may refuse a connection it would not be first on (`accepts`): a mutation pipeline that
 *    would Parse there (pipelineQuery.ts matches ParseComplete messages itself).
 *  - A connection goes back to the pool when its last unit is done and nothing waits here.
 */

/** How long this module's own checkout may sit in the pool's queue before it counts as another caller's. */
const IMMEDIATE_MS = 5;

/** A connection with units on the wire. */
interface Lane<C> {
  readonly client: C;
  /** Units written and not settled yet. */
  inFlight: number;
  /** When a unit last settled here (or the connection was taken), for stall detection. */
  progressAt: number;
  /** Emptied, and kept until the next turn of the event loop. */
  lingering: boolean;
}

/** What the shared connections need of the pool. */
export interface LanePool<C> {
  /** A connection, waiting like every other caller when none is free. */
  checkout(): Promise<C>;
  /** Gives a connection back (the pool decides whether it is still usable). */
  release(client: C): void;
  /**
   * Connections a new `checkout` would get without waiting: idle ones plus room to open new ones,
   * less the callers already queued for them (the pool hands idle ones over on the next tick).
   */
  available(): number;
  /** Callers waiting in the pool's queue (the ones of this module included). */
  waiting(): number;
  /** False for a connection that saw an error (nothing more is written to it). */
  usable(client: C): boolean;
}

/** A unit not written yet. */
interface Pending<C> {
  start: (client: C) => Promise<unknown>;
  accepts: ((client: C) => boolean) | undefined;
  resolve: (v: unknown) => void;
  reject: (err: unknown) => void;
}

export interface SharedConnectionsOptions {
  /**
   * Units on one connection at most (default 2: the running one and the next, so a backend never
   * waits for work, while the rest wait here for whichever connection finishes first. Deeper lanes
   * measured no faster and had worse tails: a unit written behind several slow ones waits for all
   * of them even when another connection frees up first).
   */
  maxDepth?: number;
  /** A connection that finished nothing for this long takes no more units (default 50 ms). */
  stallMs?: number;
  /** Clock in ms (tests). */
  now?: () => number;
}

export class SharedConnections<C> {
  private readonly lanes = new Set<Lane<C>>();
  private readonly pending: Array<Pending<C>> = [];
  /** Start times of this module's checkouts made when the pool had a connection to give. */
  private readonly immediate: number[] = [];
  /** Whether the one request for the units waiting here is in the pool's queue. */
  private requesting = false;
  private readonly maxDepth: number;
  private readonly stallMs: number;
  private readonly now: () => number;

  constructor(private readonly pool: LanePool<C>, options: SharedConnectionsOptions = {}) {
    this.maxDepth = options.maxDepth ?? 2;
    this.stallMs = options.stallMs ?? 50;
    this.now = options.now ?? (() => performance.now());
  }

  /**
   * Runs one unit: `start` writes it on the connection given and settles when its ReadyForQuery
   * (or its error) arrives. `accepts`, when given, must hold for a connection that already has
   * units on the wire.
   */
  run<T>(start: (client: C) => Promise<T>, accepts?: (client: C) => boolean): Promise<T> {
    if (this.pending.length === 0) {
      const lane = this.othersWaiting() ? undefined : this.pick(accepts);
      // An emptied connection kept for this tick first, then one the pool can give, then pipelining.
      if (lane !== undefined && lane.inFlight === 0) return this.startOn(lane, start);
      if (this.pool.available() > 0) return this.onFreshConnection(start);
      if (lane !== undefined) return this.startOn(lane, start);
    }
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ start, accepts, resolve: resolve as (v: unknown) => void, reject });
      this.requestConnection();
    });
  }

  /** Connections being shared right now, units on them, and units waiting here (tests, `Db.poolStats`). */
  stats(): { connections: number; units: number; waiting: number } {
    let units = 0;
    for (const l of this.lanes) units += l.inFlight;
    return { connections: this.lanes.size, units, waiting: this.pending.length };
  }

  /**
   * Whether a caller other than this module waits for a connection of the pool. The pool hands an
   * idle connection over on the next tick, so this module's own checkouts sit in its queue briefly;
   * one still there after IMMEDIATE_MS (another caller took that connection) counts as a caller
   * like any other, so the shared connections drain and it is served.
   */
  private othersWaiting(): boolean {
    const waiting = this.pool.waiting();
    if (waiting === 0) return false;
    let own = this.requesting ? 1 : 0;
    const now = this.now();
    for (const t of this.immediate) if (now - t < IMMEDIATE_MS) own++;
    return waiting > own;
  }

  private pick(accepts: ((client: C) => boolean) | undefined): Lane<C> | undefined {
    const now = this.now();
    let best: Lane<C> | undefined;
    for (const l of this.lanes) {
      if (l.inFlight >= this.maxDepth || now - l.progressAt >= this.stallMs) continue;
      if (best !== undefined && l.inFlight >= best.inFlight) continue;
      if (!this.pool.usable(l.client) || (accepts !== undefined && !accepts(l.client))) continue;
      best = l;
    }
    return best;
  }

  private async onFreshConnection<T>(start: (client: C) => Promise<T>): Promise<T> {
    const at = this.now();
    this.immediate.push(at);
    let lane: Lane<C>;
    try {
      lane = await this.takeConnection();
    } finally {
      this.immediate.splice(this.immediate.indexOf(at), 1);
    }
    const result = this.startOn(lane, start);
    // Units that came while the pool was answering may join it.
    this.feed(lane);
    return result;
  }

  /** A connection of the pool as a new (empty) lane. */
  private async takeConnection(): Promise<Lane<C>> {
    const client = await this.pool.checkout();
    const lane: Lane<C> = { client, inFlight: 0, progressAt: this.now(), lingering: false };
    this.lanes.add(lane);
    return lane;
  }

  /** One request to the pool for the units waiting here (they are placed as it answers). */
  private requestConnection(): void {
    if (this.requesting) return;
    this.requesting = true;
    this.takeConnection().then(
      (lane) => {
        this.requesting = false;
        this.feed(lane);
        if (lane.inFlight === 0) this.retire(lane);
        if (this.pending.length > 0) this.requestConnection();
      },
      (err: unknown) => {
        this.requesting = false;
        // The pool could not give a connection (the server is unreachable...): every unit waiting
        // here would have failed the same way on its own.
        for (const p of this.pending.splice(0)) p.reject(err);
      },
    );
  }

  /** Places waiting units on `lane` while it has room (the first unit of an empty lane always fits). */
  private feed(lane: Lane<C>): void {
    while (this.pending.length > 0) {
      if (!this.pool.usable(lane.client)) return;
      if (lane.inFlight > 0) {
        if (lane.inFlight >= this.maxDepth || this.othersWaiting()) return;
        const head = this.pending[0]!;
        if (head.accepts !== undefined && !head.accepts(lane.client)) return;
      }
      const p = this.pending.shift()!;
      this.startOn(lane, p.start).then(p.resolve, p.reject);
    }
  }

  private startOn<T>(lane: Lane<C>, start: (client: C) => Promise<T>): Promise<T> {
    lane.inFlight++;
    let p: Promise<T>;
    try {
      p = start(lane.client);
    } catch (err) {
      this.done(lane);
      return Promise.reject(err);
    }
    return p.then(
      (v) => {
        this.done(lane);
        return v;
      },
      (err: unknown) => {
        this.done(lane);
        throw err;
      },
    );
  }

  private done(lane: Lane<C>): void {
    lane.progressAt = this.now();
    lane.inFlight--;
    // An emptied connection goes back to the pool when another caller waits for one (or it broke).
    if (lane.inFlight === 0 && (this.othersWaiting() || !this.pool.usable(lane.client))) return this.retire(lane);
    this.feed(lane);
    if (lane.inFlight > 0 || lane.lingering) return;
    // Kept until the event loop has run the callbacks due now: the requests whose answers just
    // arrived are often followed at once by new ones, which then skip the pool's checkout.
    lane.lingering = true;
    setImmediate(() => {
      lane.lingering = false;
      if (lane.inFlight === 0 && this.lanes.has(lane)) this.retire(lane);
    });
  }

  private retire(lane: Lane<C>): void {
    this.lanes.delete(lane);
    this.pool.release(lane.client);
  }
}
