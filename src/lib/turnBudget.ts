/**
 * Work done in slices of the event loop: `due` turns true once the current turn has run `sliceMs`, and
 * `next()` lets the event loop run its other callbacks (a `setImmediate`) before the next slice. Callers
 * check `due` between small units of work (a table, a JSON value) so that no turn holds other clients
 * up for longer than about one slice.
 */
export class TurnBudget {
  private start = performance.now();
  constructor(readonly sliceMs = 10) {}

  /** Whether this turn has used its slice. */
  get due(): boolean {
    return performance.now() - this.start >= this.sliceMs;
  }

  /** A turn of the event loop, then a fresh slice. */
  async next(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.start = performance.now();
  }

  /** `next()` when the slice is used up. */
  async pause(): Promise<void> {
    if (this.due) await this.next();
  }
}
