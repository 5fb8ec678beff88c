/**
 * The registry of running engines, `hdb_catalog.svc_instances`: each engine inserts its row at
 * start, renews `heartbeat_at` every quarter of the heartbeat timeout, and deletes it when it stops.
 * The delivery queues (delivery/queueSql.ts) treat a row as held only while its holder's heartbeat
 * is fresh, so a crashed engine's claims are taken over within the timeout, and a live engine keeps
 * its claims however long a webhook takes. Every statement is one autocommitted statement on a
 * pooled connection (nothing session-bound: works through a transaction pooler). The renewal also
 * reads which other instances have gone silent for longer than the timeout: each engine logs one line
 * per such instance (an engine that crashed or lost its database), once — counting only silence while
 * its own heartbeats were unbroken for a timeout (after a database outage every heartbeat is stale,
 * and engines behind a pooler may come back a few seconds after those connected directly).
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { UNWATCHED, type DatabaseWatch, type Db } from '../../execution/index.js';

/** Catalog steps of the registry (idempotent; run by migrateCatalog after the base layout). */
export const INSTANCE_STEPS = [
  `CREATE TABLE IF NOT EXISTS hdb_catalog.svc_instances (
     instance_id text PRIMARY KEY,
     started_at timestamptz NOT NULL DEFAULT now(),
     heartbeat_at timestamptz NOT NULL DEFAULT now(),
     hostname text,
     pid integer
   )`,
];

export interface Heartbeat {
  /** Calls `fn` each time another engine is newly found silent (its claims are claimable now); returns the unsubscribe. */
  onSilent(fn: () => void): () => void;
  stop(): Promise<void>;
}

/**
 * Registers `instanceId` and keeps its heartbeat fresh. A failed renewal logs once until the next
 * success, which logs once again — at debug level when `watch` covers it (the database is away: the
 * watch logs that for the engine). A renewal still unanswered when the next one is due (a pooler
 * holding queries while its server is away) is reported to `watch` as a stall, and the next renewal
 * waits for it. Rows of instances silent for a day are removed at start.
 */
export async function startHeartbeat(db: Db, instanceId: string, timeoutSeconds: number, logger: Logger, watch: DatabaseWatch = UNWATCHED): Promise<Heartbeat> {
  const intervalMs = Math.max(50, Math.floor((timeoutSeconds * 1000) / 4));
  let reported = new Set<string>();
  const silentListeners = new Set<() => void>();
  /** Since when this engine's own heartbeats have been unbroken (local clock). */
  let seeingSince = Date.now();
  const beat = async () => {
    // The outer SELECT sees the rows as before this renewal: our own row's gap since our previous heartbeat.
    const r = await db.query(
      `WITH beat AS (
         INSERT INTO hdb_catalog.svc_instances (instance_id, hostname, pid) VALUES ($1, $2, $3)
         ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = now()
       )
       SELECT instance_id, hostname, pid, extract(epoch FROM now() - heartbeat_at)::float8 AS silent_s
       FROM hdb_catalog.svc_instances
       WHERE instance_id = $1 OR heartbeat_at < now() - make_interval(secs => $4)`,
      [instanceId, hostname(), process.pid, timeoutSeconds],
    );
    const rows = r.rows as Array<{ instance_id: string; hostname: string | null; pid: number | null; silent_s: number }>;
    const own = rows.find((i) => i.instance_id === instanceId);
    // Our own renewals missed a beat (the database was away, or this process stalled): start counting again.
    if (!own || own.silent_s * 1000 > 2 * intervalMs || watch.down) seeingSince = Date.now();
    // Another engine's silence counts only while this one could see the database: after an outage of
    // our own, everyone's heartbeat is stale; who is still silent a timeout later is reported then.
    if (Date.now() - seeingSince < timeoutSeconds * 1000) return;
    const silent = rows.filter((i) => i.instance_id !== instanceId);
    if (silent.some((i) => !reported.has(i.instance_id))) for (const fn of silentListeners) fn();
    for (const i of silent) {
      if (reported.has(i.instance_id)) continue;
      const secs = Math.floor(i.silent_s);
      logger.warn(
        { type: 'heartbeat', instance_id: instanceId, silent_instance: i.instance_id, hostname: i.hostname, pid: i.pid, silent_s: secs },
        `engine ${i.instance_id} (${i.hostname ?? '?'} pid ${i.pid ?? '?'}) has sent no heartbeat for ${secs} s: its deliveries are claimable by the other engines`,
      );
    }
    reported = new Set(silent.map((i) => i.instance_id));
  };
  await db.query(`DELETE FROM hdb_catalog.svc_instances WHERE heartbeat_at < now() - interval '1 day'`);
  await beat();
  /** The last renewal failed; `quiet`: the watch covered it (the restore is then a debug line too). */
  let failing: { quiet: boolean } | undefined;
  let stopped = false;
  let pending: Promise<unknown> | undefined;
  let pendingSince = 0;
  const timer = setInterval(() => {
    if (pending) {
      // Still unanswered a whole interval later: a hang, not a failure (yet).
      if (Date.now() - pendingSince >= intervalMs) watch.stalled();
      return;
    }
    pendingSince = Date.now();
    pending = beat().then(
      () => {
        if (failing) logger[failing.quiet ? 'debug' : 'info']({ type: 'heartbeat', instance_id: instanceId }, 'instance heartbeat restored');
        failing = undefined;
      },
      (err: unknown) => {
        if (!failing && !stopped) {
          const quiet = watch.covers(err);
          logger[quiet ? 'debug' : 'error']({ type: 'heartbeat', instance_id: instanceId, err: err instanceof Error ? err.message : String(err) }, 'instance heartbeat failed; other engines take over this one\'s deliveries after the heartbeat timeout');
          failing = { quiet };
        }
      },
    ).finally(() => (pending = undefined));
  }, intervalMs);
  timer.unref();
  return {
    onSilent(fn) {
      silentListeners.add(fn);
      return () => silentListeners.delete(fn);
    },
    async stop() {
      stopped = true;
      silentListeners.clear();
      clearInterval(timer);
      await pending?.catch(() => undefined);
      // Gone at once: what it still held (nothing after a clean stop) is claimable by the others.
      await db.query('DELETE FROM hdb_catalog.svc_instances WHERE instance_id = $1', [instanceId]).catch(() => undefined);
    },
  };
}
