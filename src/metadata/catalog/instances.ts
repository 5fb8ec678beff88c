/**
 * The registry of running engines, `hdb_catalog.svc_instances`: each engine inserts its row at
 * start, renews `heartbeat_at` every quarter of the heartbeat timeout, and deletes it when it stops.
 * The delivery queues (delivery/queueSql.ts) treat a row as held only while its holder's heartbeat
 * is fresh, so a crashed engine's claims are taken over within the timeout, and a live engine keeps
 * its claims however long a webhook takes. Every statement is one autocommitted statement on a
 * pooled connection (nothing session-bound: works through a transaction pooler). The renewal also
 * reads which other instances have gone silent for longer than the timeout: each engine logs one line
 * per such instance (an engine that crashed or lost its database), once.
 */
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Db } from '../../execution/index.js';

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
  stop(): Promise<void>;
}

/**
 * Registers `instanceId` and keeps its heartbeat fresh. A failed renewal (database or pooler down)
 * logs once until the next success, which logs once again; rows of instances silent for a day are
 * removed at start.
 */
export async function startHeartbeat(db: Db, instanceId: string, timeoutSeconds: number, logger: Logger): Promise<Heartbeat> {
  let reported = new Set<string>();
  const beat = async () => {
    const r = await db.query(
      `WITH beat AS (
         INSERT INTO hdb_catalog.svc_instances (instance_id, hostname, pid) VALUES ($1, $2, $3)
         ON CONFLICT (instance_id) DO UPDATE SET heartbeat_at = now()
       )
       SELECT instance_id, hostname, pid, floor(extract(epoch FROM now() - heartbeat_at))::int AS silent_s
       FROM hdb_catalog.svc_instances
       WHERE instance_id <> $1 AND heartbeat_at < now() - make_interval(secs => $4)`,
      [instanceId, hostname(), process.pid, timeoutSeconds],
    );
    const silent = r.rows as Array<{ instance_id: string; hostname: string | null; pid: number | null; silent_s: number }>;
    for (const i of silent) {
      if (reported.has(i.instance_id)) continue;
      logger.warn(
        { type: 'heartbeat', instance_id: instanceId, silent_instance: i.instance_id, hostname: i.hostname, pid: i.pid, silent_s: i.silent_s },
        `engine ${i.instance_id} (${i.hostname ?? '?'} pid ${i.pid ?? '?'}) has sent no heartbeat for ${i.silent_s} s: its deliveries are claimable by the other engines`,
      );
    }
    reported = new Set(silent.map((i) => i.instance_id));
  };
  await db.query(`DELETE FROM hdb_catalog.svc_instances WHERE heartbeat_at < now() - interval '1 day'`);
  await beat();
  let failing = false;
  let stopped = false;
  let pending: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    pending = beat().then(
      () => {
        if (failing) logger.info({ type: 'heartbeat', instance_id: instanceId }, 'instance heartbeat restored');
        failing = false;
      },
      (err: unknown) => {
        if (!failing && !stopped) logger.error({ type: 'heartbeat', instance_id: instanceId, err: err instanceof Error ? err.message : String(err) }, 'instance heartbeat failed; other engines take over this one\'s deliveries after the heartbeat timeout');
        failing = true;
      },
    );
  }, Math.max(50, Math.floor((timeoutSeconds * 1000) / 4)));
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await pending;
      // Gone at once: what it still held (nothing after a clean stop) is claimable by the others.
      await db.query('DELETE FROM hdb_catalog.svc_instances WHERE instance_id = $1', [instanceId]).catch(() => undefined);
    },
  };
}
