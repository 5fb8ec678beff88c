/**
 * The generic delivery worker of one queue (see queueTable.ts for what a queue provides).
 *
 *   claim ──► at most `concurrency` webhook calls in flight ──► outcomes buffered ──► one finish
 *   statement per flush (group commit: a flush takes everything buffered since the last one)
 *
 * It claims when woken (`wake()`: a local write committed, or NOTIFY on `channel` from another
 * instance), every `fetchIntervalMs` as a backstop (the notification is only a wake-up: through a
 * transaction pooler none may arrive), and again as slots free up while the last claim came back
 * full. With `idleBackoffMaxMs` (queues whose rows only engines write, each write followed by a
 * NOTIFY) the backstop poll doubles its pause while claims come back empty, up to that maximum, but
 * only while the LISTEN connection is verified (a probe sent through the pool arrived on it:
 * execution/listenChannel.ts); any wake-up, claimed row or lost listener brings it back to
 * `fetchIntervalMs`. Behind a transaction pooler (no notification arrives) it never backs off. Claimed rows carry `locked_at` + this instance's id; they stay claimed while the instance's
 * heartbeat in `hdb_catalog.svc_instances` is fresh (however long a webhook takes: a slow call is
 * never made twice) and become claimable by others as soon as it is older than
 * `heartbeatTimeoutSeconds` (a crashed or stopped instance). Nothing is unlocked at startup, so
 * several instances never deliver a row twice in normal operation.
 * One structured log line per attempt (`type: "<queue>-delivery"`: event id, status, latency, try).
 */
import type { Logger } from 'pino';
import { listenChannel, UNWATCHED, type ChannelListener, type DatabaseWatch, type Db } from '../execution/index.js';
import { postJson } from '../webhooks/index.js';
import { attemptOutcome, deadOutcome, type AttemptOutcome } from './attemptOutcome.js';
import { claimStatement, finishStatement, liveInstancesStatement, releaseStatement } from './queueSql.js';
import type { DeliveryStats, Job, QueueAdapter } from './queueTable.js';
import { runFragment } from './runFragment.js';
import { restingPoll } from '../lib/index.js';
import { isMissingTable } from './missingTable.js';

export interface DeliveryWorkerOptions {
  queue: QueueAdapter;
  db: Db;
  logger: Logger;
  instanceId: string;
  /** Maximum webhook calls in flight. */
  concurrency: number;
  /** Poll interval when idle (ms). */
  fetchIntervalMs: number;
  /** Back the poll off up to this pause (ms) while idle and the LISTEN connection is verified (see the module header). */
  idleBackoffMaxMs?: number;
  /** After a NOTIFY from another instance arrived (besides the claim it triggers). */
  onNotified?: () => void;
  /** After a batch of attempt outcomes was stored (retry times are known from then on). */
  onOutcomesStored?: () => void;
  /** Claims of an instance whose heartbeat (hdb_catalog.svc_instances) is older than this are claimable again. */
  heartbeatTimeoutSeconds: number;
  /**
   * The queue's table is in another database than `hdb_catalog.svc_instances` (an event log in another
   * source's database): the database holding the heartbeats, read just before each claim (see `heldElsewhere`).
   */
  heartbeatDb?: Db;
  /** Rows per claim (default 100, as Hasura). */
  batchSize?: number;
  /** LISTEN here for wake-ups from other instances (needs `databaseUrl`; a payload equal to `instanceId` is our own). */
  channel?: string;
  databaseUrl?: string;
  userAgent: string;
  /** The engine's database watch: a failure it covers (the database is away, logged once for the engine) is a debug line here. */
  watch?: DatabaseWatch;
  /** How long `stop()` waits for in-flight calls before leaving them to the lease (default 5 s). */
  stopWaitMs?: number;
}

export interface DeliveryWorker {
  /** The queue this worker serves (metrics read its table). */
  readonly queue: QueueAdapter;
  wake(): void;
  /** Notifications from other instances verifiably reach this worker (its LISTEN connection passed the probe). */
  listening(): boolean;
  stats(): DeliveryStats;
  stop(): Promise<void>;
}


export function startDeliveryWorker(o: DeliveryWorkerOptions): DeliveryWorker {
  const { queue, db, logger } = o;
  const batchSize = o.batchSize ?? 100;
  const log = logger.child({ type: `${queue.name}-delivery` });
  const watch = o.watch ?? UNWATCHED;
  const stats: DeliveryStats = { claimed: 0, delivered: 0, failed: 0, inFlight: 0 };
  let stopped = false;
  /** After stop() has flushed: late outcomes are left to the lease (the pool may be closed). */
  let closed = false;
  let pumping = false;
  let wanted = false;
  /** The last claim filled its batch: more rows are probably due. */
  let backlog = false;
  const inFlight = new Set<Promise<void>>();
  let buffer: AttemptOutcome[] = [];
  let releases: string[] = [];
  let flushing: Promise<void> | undefined;
  let flushRetryTimer: NodeJS.Timeout | undefined;

  async function claim(limit: number): Promise<Job[]> {
    const filter = queue.claimFilter();
    if (filter === null) return [];
    const liveInstances = o.heartbeatDb
      ? ((await runFragment(o.heartbeatDb, liveInstancesStatement(o.heartbeatTimeoutSeconds))).rows[0].ids as string[])
      : undefined;
    const r = await runFragment(db, claimStatement(queue.table, { instanceId: o.instanceId, limit, heartbeatTimeoutSeconds: o.heartbeatTimeoutSeconds, filter, liveInstances }));
    return r.rows.map((row) => ({ id: String(row.id), tries: Number(row.tries), row }));
  }

  function track(p: Promise<void>): void {
    stats.inFlight++;
    const tracked = p.finally(() => {
      stats.inFlight--;
      inFlight.delete(tracked);
      if (!stopped && (backlog || wanted) && (inFlight.size === 0 || o.concurrency - inFlight.size >= Math.max(1, Math.floor(Math.min(batchSize, o.concurrency) / 4)))) void pump();
    });
    inFlight.add(tracked);
  }

  function start(job: Job): void {
    if (queue.execute) {
      track(queue.execute(job).then((r) => record({
        id: job.id, ok: r.ok, dead: false, status: r.status, retryAfter: null, numRetries: 0, intervalSec: 0,
        request: 'null', response: r.response, latencyMs: r.latencyMs, error: r.error,
      }, { ...r.log, try: job.tries + 1 })));
      return;
    }
    const plan = queue.plan!(job);
    if (plan === undefined) {
      releases.push(job.id);
      scheduleFlush();
      return;
    }
    if ('dead' in plan) {
      record(deadOutcome(job, plan.dead), {});
      return;
    }
    track(postJson({ url: plan.url, headers: Object.fromEntries(plan.headers.map((h) => [h.name, h.value])), body: plan.body, method: plan.method, timeoutMs: plan.timeoutMs, userAgent: o.userAgent })
      .then((r) => record(attemptOutcome(job, plan, r), { ...plan.log, try: job.tries + 1 })));
  }

  function record(out: AttemptOutcome, fields: Record<string, unknown>): void {
    if (out.ok) stats.delivered++;
    else stats.failed++;
    log.info({ event_id: out.id, status: out.status, latency_ms: out.latencyMs, ok: out.ok, ...fields, ...(out.error ? { error: out.error } : {}) }, `${queue.name} delivery ${out.ok ? 'succeeded' : 'failed'}`);
    buffer.push(out);
    scheduleFlush();
  }

  function scheduleFlush(): void {
    if (closed || flushing || flushRetryTimer) return;
    flushing = flush().finally(() => {
      flushing = undefined;
      if ((buffer.length > 0 || releases.length > 0) && !flushRetryTimer) scheduleFlush();
    });
  }

  async function flush(): Promise<void> {
    const batch = buffer;
    const rel = releases;
    buffer = [];
    releases = [];
    try {
      if (batch.length > 0) await runFragment(db, finishStatement(queue.table, o.instanceId, batch));
      if (rel.length > 0) await runFragment(db, releaseStatement(queue.table, o.instanceId, rel));
      if (batch.length > 0) o.onOutcomesStored?.();
    } catch (e) {
      if (isMissingTable(e)) return; // the queue was dropped (clear_metadata): nothing left to record
      log[watch.covers(e) ? 'debug' : 'error']({ err: e, outcomes: batch.length }, `${queue.name} outcomes could not be stored; retrying`);
      buffer = batch.concat(buffer);
      releases = rel.concat(releases);
      flushRetryTimer = setTimeout(() => {
        flushRetryTimer = undefined;
        scheduleFlush();
      }, 1000);
      flushRetryTimer.unref();
    }
  }

  async function pump(): Promise<void> {
    if (stopped) return;
    if (pumping) {
      wanted = true;
      return;
    }
    pumping = true;
    try {
      do {
        wanted = false;
        while (!stopped && inFlight.size < o.concurrency) {
          const limit = Math.min(batchSize, o.concurrency - inFlight.size);
          const jobs = await claim(limit);
          stats.claimed += jobs.length;
          backlog = jobs.length === limit;
          for (const j of jobs) start(j);
          if (!backlog) break;
        }
      } while (wanted && !stopped && inFlight.size < o.concurrency);
    } catch (e) {
      if (!isMissingTable(e)) log[watch.covers(e) ? 'debug' : 'error']({ err: e }, `${queue.name} claim failed`);
    } finally {
      pumping = false;
    }
  }

  /** The backstop poll, resting while idle and listening (see the module header). */
  let claimedAtLastPoll = 0;
  const poll = restingPoll({
    baseMs: o.fetchIntervalMs,
    maxMs: o.idleBackoffMaxMs ?? 0,
    tick: async () => {
      await pump();
      const idle = stats.claimed === claimedAtLastPoll && inFlight.size === 0;
      claimedAtLastPoll = stats.claimed;
      return idle && listener?.verified() === true;
    },
  });
  /** A wake-up: pump now and keep the backstop at its base pause while things happen. */
  const woken = () => {
    poll.soon();
    void pump();
  };
  let listener: ChannelListener | undefined;
  if (o.channel && o.databaseUrl) {
    listener = listenChannel(o.databaseUrl, o.channel, {
      applicationName: `svc-graphql-engine-${queue.name}-listener`,
      onNotify: (payload) => {
        if (payload === o.instanceId) return;
        woken();
        o.onNotified?.();
      },
      onConnected: () => woken(),
      probe: o.idleBackoffMaxMs === undefined ? undefined : (channel, payload) => db.query('SELECT pg_notify($1, $2)', [channel, payload]),
      onVerified: (v) => {
        if (!v) woken();
      },
      // Debug only: the schema sync LISTENs on the same URL and logs the loss once for the engine;
      // this connection is only a wake-up (the poll goes on), and it reconnects by itself.
      onError: (err, retryInMs) => {
        watch.covers(err, 'listen');
        log.debug({ err: err.message, retry_in_ms: retryInMs }, `${queue.name} listener lost; reconnecting`);
      },
    });
  }
  void pump();

  return {
    queue,
    wake: woken,
    listening: () => listener?.verified() === true,
    stats: () => ({ ...stats }),
    async stop() {
      if (stopped) return;
      stopped = true;
      poll.stop();
      await listener?.close();
      const wait = new Promise<void>((resolve) => setTimeout(resolve, o.stopWaitMs ?? 5000).unref());
      await Promise.race([Promise.allSettled([...inFlight]), wait]);
      if (flushRetryTimer) {
        clearTimeout(flushRetryTimer);
        flushRetryTimer = undefined;
      }
      while (flushing) await flushing;
      if (buffer.length > 0 || releases.length > 0) await flush();
      closed = true;
    },
  };
}
