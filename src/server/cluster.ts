/**
 * `--workers N` (N > 1): N engine processes on one port with node:cluster (on Linux the primary
 * accepts connections and hands them to the workers round-robin).
 *
 * The primary serves no requests. It starts the embedded Postgres when no database URL is set (once:
 * its URL goes to the workers in SVC_GRAPHQL_DATABASE_URL), migrates the catalog once, then forks the
 * workers; each runs `startEngine` as a single engine would (its own pool, instance id, schema sync
 * and background workers: the database arbitrates between workers as between engines).
 *
 * A worker that dies is forked again after a backoff (0.5 s doubling to 30 s, reset once a worker
 * has served for 30 s), with one log line. If every worker dies before any became ready (a bad port,
 * a bad database), the primary stops and exits 1. SIGTERM/SIGINT: each worker is told to stop (it
 * drains its in-flight requests like a single engine), then the embedded Postgres is stopped; a
 * second signal kills the workers at once.
 *
 * IPC: a worker says `ready` once listening and `schema` after a metadata change made through it; the
 * primary relays `schema` to the other workers, which rebuild at once if the stored version is newer
 * than theirs (their schema sync would catch it too, this only makes it instant).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { openAccessWarning, type ServerConfig } from '../config/index.js';
import { checkConnection, createDb, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '../execution/index.js';
import { migrateCatalog } from '../metadata/index.js';
import type { EngineHandle } from './startEngine.js';

/** Messages between the primary and its workers (all carry `svc`). */
type ClusterMessage =
  | { svc: 'ready'; url: string }
  | { svc: 'schema'; resourceVersion?: number }
  | { svc: 'stop' };

const isMessage = (m: unknown): m is ClusterMessage => typeof m === 'object' && m !== null && typeof (m as { svc?: unknown }).svc === 'string';

/** Set by the primary in its workers' environment when it started the embedded Postgres. */
const WORKER_EMBEDDED_ENV = 'SVC_WORKER_EMBEDDED_POSTGRES';
const MAX_BACKOFF_MS = 30_000;
const HEALTHY_AFTER_MS = 30_000;

/** True in a process forked by `runClusterPrimary`. */
export const isClusterWorker = (): boolean => cluster.isWorker;

/** Runs the primary until it is told to stop; resolves to the exit code. */
export async function runClusterPrimary(config: ServerConfig, logger: Logger): Promise<number> {
  const env: Record<string, string> = {};
  let embedded: EmbeddedPostgresHandle | undefined;
  let databaseUrl = config.databaseUrl;
  if (databaseUrl === undefined) {
    embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPgPort, onLog: (line) => logger.debug({ type: 'pg-log', line }) });
    databaseUrl = embedded.url;
    env.SVC_GRAPHQL_DATABASE_URL = databaseUrl;
    // So each worker's start-up line says the embedded Postgres serves it (it only sees a URL).
    env[WORKER_EMBEDDED_ENV] = '1';
    // The console's default follows the embedded Postgres, which the workers no longer see.
    if (config.enableConsole === undefined) env.SVC_GRAPHQL_ENABLE_CONSOLE = 'true';
    logger.info({ type: 'startup', kind: 'embedded-postgres', data_dir: embedded.dataDir, port: embedded.port }, 'embedded Postgres started');
  }
  try {
    await checkConnection(databaseUrl);
    const db = createDb(databaseUrl, 1);
    try {
      await migrateCatalog(db, { adoptHasura: config.adoptHasuraCatalog });
    } finally {
      await db.close();
    }
  } catch (err) {
    await embedded?.stop();
    throw err;
  }

  const workers = new Set<Worker>();
  const readyWorkers = new WeakSet<Worker>();
  let stopping = false;
  let everReady = false;
  let failures = 0;
  let readyCount = 0;
  let allExited!: () => void;
  const exited = new Promise<void>((resolve) => (allExited = resolve));
  let finish!: (code: number) => void;
  const finished = new Promise<number>((resolve) => (finish = resolve));

  const fork = (): void => {
    const worker = cluster.fork(env);
    const bornAt = Date.now();
    workers.add(worker);
    worker.on('message', (msg: unknown) => {
      if (!isMessage(msg)) return;
      if (msg.svc === 'ready') {
        everReady = true;
        readyWorkers.add(worker);
        if (++readyCount === config.workers) {
          logger.info({ type: 'startup', kind: 'cluster', workers: config.workers, pid: process.pid }, `${config.workers} workers listening on ${msg.url}`);
          // Once for the whole cluster (the workers do not log it).
          const open = openAccessWarning(config);
          if (open) logger.warn({ type: 'startup', kind: open.code, host: config.serverHost }, open.message);
        }
      } else if (msg.svc === 'schema') {
        for (const other of workers) if (other !== worker && other.isConnected()) other.send(msg);
      }
    });
    worker.on('exit', (code, signal) => {
      workers.delete(worker);
      if (stopping) {
        if (workers.size === 0) allExited();
        return;
      }
      if (!everReady) {
        if (workers.size === 0) {
          logger.error({ type: 'cluster', code, signal }, 'every worker exited before serving; stopping');
          void shutdown(1);
        }
        return; // its siblings are starting; forked again only if one of them serves
      }
      failures = Date.now() - bornAt > HEALTHY_AFTER_MS ? 0 : failures + 1;
      const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.max(0, failures - 1));
      logger.error({ type: 'cluster', worker_pid: worker.process.pid, code, signal, restart_in_ms: delay }, `worker ${worker.process.pid} exited (${signal ?? `code ${code}`}); starting another in ${delay} ms`);
      setTimeout(() => {
        if (!stopping) fork();
      }, delay).unref();
          });
  };

  const shutdown = async (code: number): Promise<void> => {
    stopping = true;
    logger.info({ type: 'shutdown', kind: 'cluster', workers: workers.size }, 'stopping workers');
    // A ready worker is told over IPC; one still booting may not listen to IPC yet: SIGTERM (it serves nothing yet).
    for (const w of workers) {
      if (readyWorkers.has(w) && w.isConnected()) w.send({ svc: 'stop' } satisfies ClusterMessage);
      else w.process.kill('SIGTERM');
    }
    // A worker drains for at most shutdownTimeoutMs; past that (and a margin to close its pool) it is killed.
    const force = setTimeout(() => {
      for (const w of workers) w.process.kill('SIGKILL');
    }, config.shutdownTimeoutMs + 10_000);
    if (workers.size > 0) await exited;
    clearTimeout(force);
    try {
      await embedded?.stop();
    } catch (err) {
      logger.error({ type: 'shutdown', err }, 'stopping the embedded Postgres failed');
    }
    logger.info({ type: 'shutdown', kind: 'cluster' }, 'stopped');
    finish(code);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (!stopping) {
      void shutdown(0);
      return;
    }
    logger.warn({ type: 'shutdown', kind: 'cluster' }, `${signal} again, killing the workers`);
    for (const w of workers) w.process.kill('SIGKILL');
    void Promise.resolve(embedded?.stop()).finally(() => finish(1));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  for (let i = 0; i < config.workers; i++) fork();
  return finished;
}

/**
 * In a worker: tells the primary the engine is ready, relays its metadata changes, applies the
 * siblings' ones, and calls `stop` when the primary says so. Returns the `onLocalSchemaChange` hook
 * for `startEngine` (call before starting the engine) and `ready` (call once it listens).
 */
export function clusterWorkerLink(stop: () => void): {
  onLocalSchemaChange: (resourceVersion: number | undefined) => void;
  ready: (engine: EngineHandle) => void;
  /** The primary started the embedded Postgres this worker's database URL points at. */
  embeddedPostgres: boolean;
} {
  const send = (msg: ClusterMessage): void => {
    if (process.send && process.connected) process.send(msg);
  };
  let engine: EngineHandle | undefined;
  process.on('message', (msg: unknown) => {
    if (!isMessage(msg)) return;
    if (msg.svc === 'stop') stop();
    else if (msg.svc === 'schema' && engine) {
      const live = engine.ctx.state.resourceVersion ?? 0;
      if (msg.resourceVersion === undefined || msg.resourceVersion > live) engine.syncSchema('cluster');
    }
  });
  return {
    embeddedPostgres: process.env[WORKER_EMBEDDED_ENV] === '1',
    onLocalSchemaChange: (resourceVersion) => send({ svc: 'schema', resourceVersion }),
    ready(e) {
      engine = e;
      send({ svc: 'ready', url: e.url });
    },
  };
}
