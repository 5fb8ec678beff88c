/**
 * WAL positions (LSNs, `16/B374D848` in Postgres' text form) as bigints, and a replica's lag
 * measured from them. Lag by replay timestamp (`now() - pg_last_xact_replay_timestamp()`) grows
 * while the primary is idle, so it is measured here against the primary's own history instead:
 * the primary's insert position is sampled at each check, and a replica that has replayed up to
 * `replay` lags by the time since the first sample at which the primary was already past
 * `replay` (0 when it has replayed everything the primary had at the latest sample).
 */

/** `hi/lo` (hex) → bigint; undefined for anything else (NULL on a server that is not a standby). */
export function parseLsn(text: unknown): bigint | undefined {
  if (typeof text !== 'string') return undefined;
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim());
  return m ? (BigInt(`0x${m[1]}`) << 32n) | BigInt(`0x${m[2]}`) : undefined;
}

/** bigint → Postgres' `hi/lo` text form. */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** The primary's insert position over time, oldest first, kept for `keepMs`. */
export class PrimaryHistory {
  private readonly samples: Array<{ at: number; lsn: bigint }> = [];

  constructor(private readonly keepMs: number) {}

  add(at: number, lsn: bigint): void {
    this.samples.push({ at, lsn });
    while (this.samples.length > 2 && at - this.samples[1]!.at > this.keepMs) this.samples.shift();
  }

  get latest(): bigint | undefined {
    return this.samples.at(-1)?.lsn;
  }

  /** Milliseconds a replica at `replay` lags at time `now` (undefined before the first sample). */
  lagMs(replay: bigint, now: number): number | undefined {
    if (this.samples.length === 0) return undefined;
    const ahead = this.samples.find((s) => s.lsn > replay);
    return ahead === undefined ? 0 : Math.max(0, now - ahead.at);
  }
}
