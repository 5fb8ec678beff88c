/**
 * Table and subquery aliases of one statement: `_t0`, `_j1`, `_t2`... from a counter, so they are
 * unique within the statement and never come from user input. One `Aliases` per compiled statement.
 */
import { sql, type SqlFragment } from './fragment.js';

export class Aliases {
  private n = 0;
  /** `prefix` lets a caller that writes its own aliases keep ours apart (default `_`). */
  constructor(private readonly prefix = '_') {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) throw new TypeError(`Aliases: bad prefix ${prefix}`);
  }

  /** A fresh alias: `t` for rows of a table or function, `j` for a lateral subquery's result. */
  next(kind: 't' | 'j' = 't'): SqlFragment {
    // Engine-written text: prefix + letter + counter.
    return sql.unsafeRaw(`${this.prefix}${kind}${this.n++}`);
  }
}
