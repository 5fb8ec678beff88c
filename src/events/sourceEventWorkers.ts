/**
 * The event queues of the sources beside `default`: each source with event triggers has its own
 * `hdb_catalog.event_log` in its own database (as Hasura v2), delivered by one delivery worker over
 * that source's pool. Claims, leases, retries and invocation logs are the generic queue's
 * (delivery/); the lease's holders are checked against `hdb_catalog.svc_instances` of the engine's
 * own database (read before each claim: `heartbeatDb`), so an engine killed mid-flight leaves its
 * claims to the others once its heartbeat is stale, and two engines never deliver an event twice.
 *
 * The set of workers follows the installed schema cache (checked on every wake-up and each fetch
 * interval): a source that gains its first trigger gets a worker, one whose pool was remade (its
 * connection changed) a new one, a dropped source's stops. A source that is down makes only its own
 * worker's claims fail (logged, retried each interval): the others go on, and it resumes by itself.
 */
import type { EngineContext } from '../appState.js';
import { createNotifier, startDeliveryWorker, type DeliveryWorker, type Notifier } from '../delivery/index.js';
import { sourceUrl, type Db } from '../execution/index.js';
import { findSource, type SchemaCache } from '../metadata/index.js';
import { eventQueue } from './eventQueue.js';

interface Running {
  db: Db;
  url: string;
  worker: DeliveryWorker;
  notifier: Notifier;
}

export interface SourceEventWorkers {
  /** Wakes the workers of `sources` (all when absent) and the other engines' (NOTIFY on each source's database). */
  written(sources?: Iterable<string>): void;
  /** Wakes every worker in this engine (another engine went silent: its claims are claimable now). */
  wakeAll(): void;
  /** The running workers by source, with the pool each works on (metrics). */
  workers(): ReadonlyMap<string, { worker: DeliveryWorker; db: Db }>;
  stop(): Promise<void>;
}

/** The sources of `cache` that have event triggers. */
function sourcesWithTriggers(cache: SchemaCache): string[] {
  const out: string[] = [];
  for (const [name, c] of cache.sources ?? []) if ((c.eventTriggers?.size ?? 0) > 0) out.push(name);
  return out;
}

export function startSourceEventWorkers(ctx: EngineContext, instanceId: string, channel: string): SourceEventWorkers {
  const userAgent = `svc-graphql-engine/${ctx.version}`;
  const running = new Map<string, Running>();
  let seen: SchemaCache | undefined;
  let stopped = false;

  const stopOne = (name: string) => {
    const r = running.get(name);
    if (!r) return;
    running.delete(name);
    r.notifier.close();
    void r.worker.stop();
  };

  /** Brings the running workers in line with the installed cache and the pools in use. */
  const reconcile = () => {
    if (stopped) return;
    const cache = ctx.state.current;
    const wanted = new Set(sourcesWithTriggers(cache));
    for (const name of [...running.keys()]) {
      const pool = ctx.sources?.get(name);
      if (!wanted.has(name) || !pool || pool.db !== running.get(name)!.db) stopOne(name);
    }
    if (cache === seen && [...wanted].every((n) => running.has(n))) return;
    seen = cache;
    for (const name of wanted) {
      if (running.has(name)) continue;
      const pool = ctx.sources?.get(name);
      const source = findSource(cache.metadata, name);
      if (!pool || !source) continue;
      let url: string;
      try {
        url = sourceUrl(source.configuration.connection_info);
      } catch {
        continue; // its env var went away: the source is inconsistent at the next build
      }
      const worker = startDeliveryWorker({
        queue: eventQueue(() => ctx.state.current.sources?.get(name), userAgent, ctx.hasuraSession === true),
        db: pool.db,
        heartbeatDb: ctx.db,
        logger: ctx.logger.child({ source: name }),
        instanceId,
        concurrency: ctx.config.eventsHttpPoolSize,
        fetchIntervalMs: ctx.config.eventsFetchIntervalMs,
        heartbeatTimeoutSeconds: ctx.config.instanceHeartbeatTimeoutSeconds,
        channel,
        databaseUrl: url,
        userAgent,
      });
      const notifier = createNotifier(pool.db, channel, {
        payload: instanceId,
        onError: (err) => ctx.logger.debug({ type: 'event-delivery', source: name, err }, 'events NOTIFY failed'),
      });
      notifier.onLocal(() => worker.wake());
      running.set(name, { db: pool.db, url, worker, notifier });
    }
  };

  const timer = setInterval(reconcile, Math.max(200, ctx.config.eventsFetchIntervalMs));
  timer.unref();
  reconcile();

  return {
    written(sources) {
      reconcile();
      const names = sources ? [...sources] : [...running.keys()];
      for (const n of names) running.get(n)?.notifier.notify();
    },
    wakeAll() {
      reconcile();
      for (const r of running.values()) r.worker.wake();
    },
    workers: () => new Map([...running].map(([n, r]) => [n, { worker: r.worker, db: r.db }])),
    async stop() {
      stopped = true;
      clearInterval(timer);
      const all = [...running.values()];
      running.clear();
      for (const r of all) r.notifier.close();
      await Promise.all(all.map((r) => r.worker.stop()));
    },
  };
}
