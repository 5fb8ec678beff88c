/**
 * Finds where a request head ends (its blank line, CRLFCRLF) in bytes that arrive in pieces,
 * looking at each byte once: a head trickled one byte per read costs one scan in all, not one
 * scan of everything received so far per read. The few bytes of a CRLFCRLF cut by a read
 * boundary are carried as a state (how much of the pattern the bytes so far end with).
 */
const CRLFCRLF = Buffer.from('\r\n\r\n');

/** The next state (bytes of CRLFCRLF matched) after byte `b` in state `s` (0-3). */
function step(s: number, b: number): number {
  if (b === CRLFCRLF[s]) return s + 1;
  return b === 13 ? 1 : 0;
}

export class HeadScanner {
  /** Bytes fed so far. */
  private offset = 0;
  /** How many bytes of CRLFCRLF the bytes fed so far end with (0-3). */
  private state = 0;

  /** Bytes fed since the last reset. */
  get scanned(): number {
    return this.offset;
  }

  reset(): void {
    this.offset = 0;
    this.state = 0;
  }

  /**
   * Feeds the next bytes; returns the offset (from the first byte fed since the last reset) of
   * the CRLFCRLF that ends the head, or -1 while there is none. Once found, feed no more before
   * `reset`.
   */
  feed(chunk: Buffer): number {
    const base = this.offset;
    let s = this.state;
    let i = 0;
    // A pattern begun before this chunk: at most 3 more bytes complete or break it.
    while (s > 0 && i < 3 && i < chunk.length) {
      s = step(s, chunk[i]!);
      i++;
      if (s === 4) {
        this.offset += i;
        return base + i - 4;
      }
    }
    if (i === chunk.length) {
      this.state = s;
      this.offset += i;
      return -1;
    }
    // Whatever partial match survives now began inside this chunk, at i - s.
    const at = chunk.indexOf(CRLFCRLF, i - s);
    if (at >= 0) {
      this.offset += at + 4;
      return base + at;
    }
    // The state at the end: a partial match there lies within this chunk's last 3 bytes.
    s = 0;
    for (let j = Math.max(0, chunk.length - 3); j < chunk.length; j++) s = step(s, chunk[j]!);
    this.state = s;
    this.offset += chunk.length;
    return -1;
  }
}
