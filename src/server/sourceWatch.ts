/**
 * Whether each Postgres source beside `default` answers, watched while the engine runs: every
 * source is probed (a fresh connection and `SELECT 1`, SourcePools.probe) every `everyMs`, and every
 * `downEveryMs` after a failed probe and while it is away. Two failed probes in a row make it away
 * (SourcePools.markAway): one warning line, its requests fail at once with Hasura's `database
 * connection error` (its fields stay in the schema), `get_inconsistent_metadata` reports it; when
 * it answers again, one info line, its pool is handed out again and the report clears. A source
 * the schema was built without (unreachable at the build: start, reload, the schema sync) is built
 * in again once it answers (`state.rebuild()`), so it comes back without a restart or a reload.
 */
import type { Logger } from 'pino';
import type { AppState } from '../appState.js';
import type { SourcePools } from '../execution/index.js';

export interface SourceWatchOptions {
  everyMs: number;
  downEveryMs: number;
  /** How long a probe may take before the source counts as away. */
  timeoutMs: number;
}

export const SOURCE_WATCH: SourceWatchOptions = { everyMs: 5000, downEveryMs: 1000, timeoutMs: 5000 };

/** Names of the sources the current schema holds as unreachable (`source` inconsistencies). */
function unbuilt(state: AppState): Set<string> {
  const out = new Set<string>();
  for (const o of state.current.inconsistentObjects) {
    const def = o.definition as { name?: unknown } | undefined;
    if (o.type === 'source' && typeof def?.name === 'string') out.add(def.name);
  }
  return out;
}

export function startSourceWatch(state: AppState, pools: SourcePools, logger: Logger, o: SourceWatchOptions = SOURCE_WATCH): { stop(): Promise<void> } {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> = Promise.resolve();
  /** When each source was last probed, and its failed probes in a row. */
  const probedAt = new Map<string, number>();
  const failing = new Map<string, number>();
  /** The cache a rebuild for a source was made from: not again for the same one (its reason was not the connection). */
  let rebuiltFrom: unknown;

  const tick = async () => {
    const sources = (state.current.metadata.sources ?? []).map((s) => s.name);
    const missing = unbuilt(state);
    const now = Date.now();
    let rebuild = false;
    await Promise.all(sources.map(async (name) => {
      const wasDown = pools.outages().get(name);
      const every = wasDown || failing.has(name) || missing.has(name) ? o.downEveryMs : o.everyMs;
      if (now - (probedAt.get(name) ?? 0) < every) return;
      probedAt.set(name, now);
      const reason = await pools.probe(name, o.timeoutMs);
      if (stopped) return;
      if (reason === undefined) {
        failing.delete(name);
        pools.markAway(name, undefined);
        if (wasDown) logger.info({ type: 'source', source: name }, `source ${JSON.stringify(name)} answers again after ${((Date.now() - wasDown.since) / 1000).toFixed(1)} s`);
      } else {
        const n = (failing.get(name) ?? 0) + 1;
        failing.set(name, n);
        if (n >= 2) {
          pools.markAway(name, reason);
          if (!wasDown) logger.warn({ type: 'source', source: name, reason }, `source ${JSON.stringify(name)} does not answer: ${reason}; its requests fail until it is back`);
        }
      }
      if (reason === undefined && missing.has(name) && (wasDown || rebuiltFrom !== state.current)) rebuild = true;
    }));
    for (const name of probedAt.keys()) {
      if (sources.includes(name)) continue;
      probedAt.delete(name);
      failing.delete(name);
    }
    if (rebuild && !stopped) {
      logger.info({ type: 'source' }, 'a source the schema was built without answers: rebuilding the schema');
      rebuiltFrom = await state.rebuild();
    }
  };
  const loop = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      round = tick().catch((e: unknown) => {
        logger.error({ type: 'source', err: e }, `watching the sources failed: ${(e as Error).message}`);
      }).finally(loop);
    }, Math.min(o.everyMs, o.downEveryMs));
    timer.unref();
  };
  loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await round;
    },
  };
}
