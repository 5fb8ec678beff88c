/**
 * Whether the engine can reach its database, told to the operator once. Every part that talks to
 * Postgres (the pool, the instance heartbeat, the schema sync and its LISTEN connection, the delivery
 * workers, the scheduler, live queries) asks `covers(err, url)` when it fails. A failure that means
 * the database cannot be reached — connection refused or lost, Postgres shutting down or starting
 * up, a pooler that cannot reach its server (SQLSTATE class 08, 57P01–57P03, socket errors) — is
 * checked with a probe (a fresh connection and `SELECT 1` on the URL that failed), and:
 *
 * - the probe fails: the engine logs ONE warning, `database unreachable at host:port (the database
 *   URL): <cause>; the engine keeps retrying …`; every part logs its own failures at debug level
 *   while the outage lasts (`covers` returns true); the watch probes every `probeMs` until each URL
 *   that failed answers, then logs ONE info line, `database reachable again after N s: host:port (the
 *   database URL)`;
 * - the probe answers (one connection terminated by an administrator, say): one warning naming the
 *   lost connection, and the engine goes on.
 *
 * Any other failure is not covered: the part logs it as its own line. A part whose pooled query
 * merely hangs (a pooler holding queries while its server is away) reports `stalled()`: the same
 * probe, and nothing is logged when the database answers.
 */
import pg from 'pg';
import type { Logger } from 'pino';
import { ApiError } from '../core/index.js';
import { connectionFailureCause, connectionTarget } from './connectionFailure.js';
import { isPgServerError } from './pgError.js';

/** Which of the engine's URLs a part talks to: the pooled database URL, or the LISTEN URL. */
export type WatchedUrl = 'database' | 'listen';

export interface DatabaseWatch {
  /** True when `err` means the database cannot be reached at `url`: the watch logs that once; the part logs it at debug. */
  covers(err: unknown, url?: WatchedUrl): boolean;
  /** A pooled query has had no answer for a while: probe, and log an outage only if the database cannot be reached. */
  stalled(url?: WatchedUrl): void;
  /** True while an outage is known. */
  readonly down: boolean;
  stop(): void;
}

/** For parts used without an engine (tests, embedders): covers nothing, every failure is the part's own line. */
export const UNWATCHED: DatabaseWatch = { covers: () => false, stalled: () => undefined, down: false, stop: () => undefined };

const LOST_SQLSTATES = new Set(['57P01', '57P02', '57P03']);
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED']);
const lostSqlstate = (code: string) => code.startsWith('08') || LOST_SQLSTATES.has(code);

/** True when `err` (a driver error, or the ApiError it became) means the connection to the database failed or was lost. */
export function isConnectionLoss(err: unknown): boolean {
  if (err instanceof ApiError) {
    if (err.code === 'database-error' && err.message === 'database connection error') return true;
    const code = (err.internal as { error?: { status_code?: unknown } } | undefined)?.error?.status_code;
    return typeof code === 'string' && lostSqlstate(code);
  }
  if (isPgServerError(err)) return lostSqlstate(err.code);
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  return /Connection terminated|not queryable|timeout exceeded when trying to connect|Query read timeout/i.test(err.message);
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** One connection, `SELECT 1`, closed: undefined when it answered, else the error. */
async function probe(url: string, timeoutMs: number): Promise<unknown> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, application_name: 'svc-graphql-engine-probe' });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.query('SELECT 1');
    return undefined;
  } catch (err) {
    return err ?? new Error('probe failed');
  } finally {
    void c.end().catch(() => undefined);
  }
}

export interface DatabaseWatchOptions {
  databaseUrl: string;
  /** The LISTEN URL (--listen-database-url); the database URL when not given. */
  listenUrl?: string;
  /** Probe interval while the database is away (default 1000 ms). */
  probeMs?: number;
  /** A probe's connect and query timeout (default 5000 ms). */
  probeTimeoutMs?: number;
}

/** Starts watching (see the module header); `stop()` ends the probes. */
export function createDatabaseWatch(logger: Logger, o: DatabaseWatchOptions): DatabaseWatch {
  const probeMs = o.probeMs ?? 1000;
  const timeoutMs = o.probeTimeoutMs ?? 5000;
  const urls: Record<WatchedUrl, string> = { database: o.databaseUrl, listen: o.listenUrl ?? o.databaseUrl };
  const label = (url: string) => `${connectionTarget(url).address} (${url === urls.database ? 'the database URL' : 'the LISTEN URL'})`;
  let state: 'up' | 'checking' | 'down' = 'up';
  let since = 0;
  /** URLs that failed since the outage began, with the first failure's message. */
  const failing = new Map<string, string>();
  let lostOnly = true;
  let timer: NodeJS.Timeout | undefined;
  let probing = false;
  let stopped = false;

  const check = async (): Promise<void> => {
    if (probing || stopped) return;
    probing = true;
    try {
      const round = [...failing.keys()];
      const errs = await Promise.all(round.map((url) => probe(url, timeoutMs)));
      if (stopped) return;
      const bad = round.map((url, i) => ({ url, err: errs[i] })).filter((p) => p.err !== undefined);
      if (bad.length === 0 && failing.size === round.length) {
        const down = state === 'down';
        const secs = ((Date.now() - since) / 1000).toFixed(1);
        if (down) logger.info({ type: 'database', down_ms: Date.now() - since, urls: round.map((u) => connectionTarget(u).address) }, `database reachable again after ${secs} s: ${round.map(label).join(', ')}`);
        else if (!lostOnly) {
          const [url, cause] = [...failing][0]!;
          logger.warn({ type: 'database', url: connectionTarget(url).address }, `a connection to the database at ${label(url)} was lost (${cause}); the database answers, so the connection is replaced`);
        }
        state = 'up';
        failing.clear();
        return;
      }
      if (bad.length > 0 && state === 'checking') {
        state = 'down';
        const first = bad[0]!;
        logger.warn(
          { type: 'database', url: connectionTarget(first.url).address, cause: connectionFailureCause(first.err, first.url) },
          `database unreachable at ${label(first.url)}: ${connectionFailureCause(first.err, first.url)}; the engine keeps retrying (probing every ${probeMs / 1000} s), requests that need the database fail or wait until it is back`,
        );
      }
      timer = setTimeout(() => void check(), bad.length > 0 ? probeMs : 0);
      timer.unref();
    } finally {
      probing = false;
    }
  };

  const suspect = (which: WatchedUrl, cause: string | undefined): void => {
    if (stopped) return;
    const url = urls[which];
    if (!failing.has(url)) failing.set(url, cause ?? 'no answer');
    if (cause !== undefined) lostOnly = false;
    if (state !== 'up') return;
    state = 'checking';
    since = Date.now();
    lostOnly = cause === undefined;
    void check();
  };

  return {
    covers(err, which = 'database') {
      if (stopped || !isConnectionLoss(err)) return false;
      suspect(which, message(err));
      return true;
    },
    stalled(which = 'database') {
      suspect(which, undefined);
    },
    get down() {
      return state === 'down';
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
