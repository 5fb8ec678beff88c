/**
 * The `Db` implementation over one node-postgres pool.
 *
 * - Every new connection runs `SET TIME ZONE 'UTC'` (awaited on its first checkout) and identifies
 *   as `svc-graphql-engine`.
 * - `queryJsonText` reads the single json column as raw text (identity type parsers, array rows),
 *   so response JSON built by Postgres is never parsed in Node. With `prepare: true` the statement
 *   gets a name derived from a hash of its text, is parsed once per connection and then runs as
 *   Bind + Execute + Sync through `JsonTextQuery` (no Describe, no pg.Result per execution).
 *   `queryJsonFramed` is the same with the response's frame around the bytes Postgres sent.
 * - `transaction` opens the transaction and sets the session variables in ONE round trip:
 *   `BEGIN …; SELECT set_config('svc.user', '<json>', true)` (the JSON is escaped as a literal).
 * - `pipeline` sends `set_config('svc.user', …, true)` and the statements as one pipeline (one
 *   write, one Sync, one implicit transaction): a mutation costs one round trip (pipelineQuery.ts).
 * - A session in Hasura-compatible mode (`session.hasura`) also sets `hasura.user` (keys `x-hasura-*`)
 *   in the same statement; otherwise the statement text is the one above.
 * - `queryRaw` (run_sql) uses the simple-query protocol, so one text may hold several statements;
 *   values stay text. A connection that ran raw SQL may carry session changes (SET …), so it is
 *   closed instead of returned to the pool.
 *
 * Errors from Postgres leave here as ApiError (see pgError.ts): `query`/`queryJsonText` use the
 * DML mapping, `queryRaw` the run_sql mapping.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { Lru } from '../lib/index.js';
import { hasuraSessionVars, type Session } from '../core/index.js';
import type { Db, DbClient, PipelinedStatement, PipelineOptions, PipelineResult, QueryResultRows } from './db.js';
import { tracingOn } from '../tracing/index.js';
import { tracedDb } from './tracedDb.js';
import { PipelineQuery, type PipelineOutcome, type PipelineStatement } from './pipelineQuery.js';
import { isPgServerError, pgErrorToApiError } from './pgError.js';
import { JsonTextQuery } from './jsonTextQuery.js';
import type { PgConnection } from './pgSubmittable.js';
import { SharedConnections } from './sharedConnections.js';
import { frameText, type JsonFrame } from './dataRowBytes.js';
import { connectionApiError, describeConnectionFailure } from './connectionFailure.js';
import { messageReaderSocket } from './messageReader.js';

export interface CreateDbOptions {
  /** Called with errors of idle pooled connections (e.g. the server went away). */
  onError?: (err: Error) => void;
  /** Called with one line naming the cause (refused, timed out, auth…) and host:port when a new connection fails. */
  onConnectFailure?: (message: string, err: unknown) => void;
  /** Milliseconds to wait for a free connection before failing (default 60 s). */
  connectionTimeoutMs?: number;
  /** Milliseconds before an idle connection is closed (default 180 s, as Hasura). */
  idleTimeoutMs?: number;
  /** Read into one reused buffer per connection (messageReader.ts; default true); false: pg's own socket. */
  readBuffer?: boolean;
  /** Units on one shared connection at most (sharedConnections.ts; default 2); 1: no pipelining of units. */
  pipelineDepth?: number;
}

const APPLICATION_NAME = 'svc-graphql-engine';
const CONNECTION_SETUP = "SET TIME ZONE 'UTC'";
const identity = (v: string): string => v;
/** Type parsers that keep every value as the text Postgres sent. */
const TEXT_TYPES = { getTypeParser: () => identity } as unknown as pg.CustomTypesConfig;

const ISOLATION = {
  'read committed': 'READ COMMITTED',
  'repeatable read': 'REPEATABLE READ',
  serializable: 'SERIALIZABLE',
} as const;

type TxOptions = Parameters<Db['transaction']>[0];

const statementNames = new Lru<string, string>(5000);

/** A stable prepared-statement name for a statement text. */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = 'svc_' + createHash('sha1').update(text).digest('base64url');
    statementNames.set(text, name);
  }
  return name;
}

/** Escapes a string as a Postgres literal (handles backslashes with E'' like libpq). */
export function escapeLiteral(s: string): string {
  let hasBackslash = false;
  let out = "'";
  for (const ch of s) {
    if (ch === "'") out += "''";
    else if (ch === '\\') {
      out += '\\\\';
      hasBackslash = true;
    } else out += ch;
  }
  out += "'";
  return hasBackslash ? ' E' + out : out;
}

/** The statement that opens a transaction (and sets the session variables, when given). */
export function beginStatement(opts: TxOptions): string {
  let text = 'BEGIN';
  if (opts.isolation) text += ' ISOLATION LEVEL ' + ISOLATION[opts.isolation];
  if (opts.readOnly) text += ' READ ONLY';
  if (opts.session) {
    text += `; SELECT set_config('svc.user', ${escapeLiteral(JSON.stringify(opts.session.vars))}, true)`;
    if (opts.session.hasura) text += `, set_config('hasura.user', ${escapeLiteral(JSON.stringify(hasuraSessionVars(opts.session.vars)))}, true)`;
  }
  return text;
}

type Queryable = pg.PoolClient;

/** node-postgres' internal connection of a client (prepared-statement bookkeeping). */
const connectionOf = (c: pg.PoolClient): PgConnection => (c as unknown as { connection: PgConnection }).connection;

/** Errors thrown by `fn` pass through; a raw Postgres error (fn used the driver directly) is mapped. */
const passThrough = (err: unknown): unknown => (isPgServerError(err) ? pgErrorToApiError(err) : err);

async function runQuery(q: Queryable, text: string, values?: unknown[], prepare?: boolean): Promise<QueryResultRows> {
  try {
    const r = prepare ? await q.query({ name: statementName(text), text, values }) : await q.query(text, values as unknown[]);
    return { rows: r.rows, fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })), rowCount: r.rowCount, command: r.command };
  } catch (err) {
    throw pgErrorToApiError(err, { statement: text, args: values, prepared: prepare });
  }
}

async function runJsonText(q: Queryable, text: string, values: unknown[], prepare?: boolean): Promise<string | null> {
  if (prepare) return runJsonPrepared(q, text, values);
  const config: pg.QueryArrayConfig = { text, values, rowMode: 'array', types: TEXT_TYPES };
  try {
    const r = await q.query(config);
    const row = r.rows[0];
    return row === undefined ? null : ((row[0] as string | null) ?? null);
  } catch (err) {
    throw pgErrorToApiError(err, { statement: text, args: values, prepared: prepare });
  }
}

/**
 * The prepared fast path (see jsonTextQuery.ts): Bind + Execute + Sync; the first column as text,
 * or, with a `frame`, framed as one Buffer (no string in between).
 */
function runJsonPrepared(q: Queryable, text: string, values: unknown[]): Promise<string | null>;
function runJsonPrepared(q: Queryable, text: string, values: unknown[], frame: JsonFrame): Promise<Buffer>;
function runJsonPrepared(q: Queryable, text: string, values: unknown[], frame?: JsonFrame): Promise<string | Buffer | null> {
  return new Promise((resolve, reject) => {
    const query = new JsonTextQuery(statementName(text), text, values, (err, value) => {
      if (err) reject(pgErrorToApiError(err, { statement: text, args: values, prepared: true }));
      else resolve(value);
    }, frame);
    q.query(query as unknown as pg.Submittable);
  });
}

async function runJsonFramed(q: Queryable, text: string, values: unknown[], frame: JsonFrame, prepare?: boolean): Promise<Buffer> {
  if (prepare) return runJsonPrepared(q, text, values, frame);
  return frameText(await runJsonText(q, text, values, false), frame);
}

/** Sets the session variables for the rest of the (implicit) transaction. */
const SET_SESSION = "SELECT set_config('svc.user', $1, true)";
/** The same, with Hasura's `hasura.user` (keys `x-hasura-*`) beside it (Hasura-compatible mode). */
const SET_SESSION_HASURA = "SELECT set_config('svc.user', $1, true), set_config('hasura.user', $2, true)";

/** The statement that sets the session variables (text and values). */
function sessionStatement(session: Session): { text: string; values: string[] } {
  const vars = JSON.stringify(session.vars);
  if (!session.hasura) return { text: SET_SESSION, values: [vars] };
  return { text: SET_SESSION_HASURA, values: [vars, JSON.stringify(hasuraSessionVars(session.vars))] };
}

/** The statement that sets the session variables of a pipeline. */
function setSessionStatement(session: Session, named: (text: string) => string): PipelineStatement {
  const { text, values } = sessionStatement(session);
  return { name: named(text), text, values };
}

/** Sets the session variables for the rest of `client`'s transaction (as a pipeline's first statement does). */
export async function setSessionVariables(client: DbClient, session: Session): Promise<void> {
  const { text, values } = sessionStatement(session);
  await client.query(text, values);
}

function runPipeline(q: Queryable, statements: PipelineStatement[], bytes: boolean): Promise<PipelineOutcome> {
  return new Promise((resolve) => q.query(new PipelineQuery(statements, resolve, bytes) as unknown as pg.Submittable));
}

type RawResult = Awaited<ReturnType<DbClient['queryRaw']>>;

async function runRaw(q: Queryable, text: string): Promise<RawResult> {
  try {
    const r = (await q.query({ text, rowMode: 'array', types: TEXT_TYPES } as pg.QueryArrayConfig)) as unknown as
      | pg.QueryArrayResult
      | pg.QueryArrayResult[];
    const results = Array.isArray(r) ? r : [r];
    return results.map((res) => ({
      command: res.command ?? '',
      fields: (res.fields ?? []).map((f) => f.name),
      rows: res.rows as Array<Array<string | null>>,
    }));
  } catch (err) {
    throw pgErrorToApiError(err, { mode: 'raw', statement: text });
  }
}

/** A DbClient over a checked-out connection; `dirty` records that raw SQL ran on it. */
function clientOf(c: pg.PoolClient): DbClient & { dirty: boolean } {
  const wrapped = {
    dirty: false,
    query: (text: string, values?: unknown[], opts?: { prepare?: boolean }) => runQuery(c, text, values, opts?.prepare),
    queryJsonText: (text: string, values: unknown[], opts?: { prepare?: boolean }) => runJsonText(c, text, values, opts?.prepare),
    queryJsonFramed: (text: string, values: unknown[], frame: JsonFrame, opts?: { prepare?: boolean }) =>
      runJsonFramed(c, text, values, frame, opts?.prepare),
    queryRaw: (text: string) => {
      wrapped.dirty = true;
      return runRaw(c, text);
    },
  };
  return wrapped;
}

/** Connects a pool of at most `poolSize` connections to `url`. Connections open lazily. */
export function createDb(url: string, poolSize: number, options: CreateDbOptions = {}): Db {
  const pool = new pg.Pool({
    connectionString: url,
    // Queries are written as soon as they are issued (sharedConnections.ts); a connection used by
    // one caller at a time (transactions, metadata) behaves as without it.
    pipeline: true,
    max: poolSize,
    application_name: APPLICATION_NAME,
    idleTimeoutMillis: options.idleTimeoutMs ?? 180_000,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 60_000,
    ...(options.readBuffer === false ? {} : { stream: messageReaderSocket }),
  });
  let closing = false;
  pool.on('error', (err) => {
    if (!closing) options.onError?.(err);
  });
  // pool.end() resolves before its connections have actually closed; track them so close() can wait.
  const open = new Set<pg.PoolClient>();
  let allClosed: (() => void) | undefined;
  /**
   * Connections that saw an error. pg-pool listens for errors of idle connections only: one that is
   * checked out between two statements when the server goes away (e.g. `57P01` at shutdown) would
   * emit an unhandled 'error' and crash the process. Every connection gets a listener; a broken one
   * is destroyed when it is released.
   */
  const broken = new WeakSet<pg.PoolClient>();
  pool.on('connect', (c) => {
    open.add(c);
    c.on('error', () => broken.add(c));
  });
  pool.on('remove', (c) => {
    open.delete(c);
    if (open.size === 0) allClosed?.();
  });
  /** Connections that already ran the per-connection setup. */
  const ready = new WeakSet<pg.PoolClient>();

  /** Returns the connection to the pool, or closes it when it is broken, dirty or mid-transaction. */
  const release = (c: pg.PoolClient, destroy: boolean): void => {
    c.release(destroy || broken.has(c) || c.getTransactionStatus() !== 'I' ? true : undefined);
  };

  const checkout = async (): Promise<pg.PoolClient> => {
    let c: pg.PoolClient;
    try {
      c = await pool.connect();
    } catch (err) {
      options.onConnectFailure?.(describeConnectionFailure(err, url), err);
      throw connectionApiError(err, url);
    }
    if (!ready.has(c)) {
      try {
        await c.query(CONNECTION_SETUP);
      } catch (err) {
        c.release(true);
        throw pgErrorToApiError(err, { statement: CONNECTION_SETUP });
      }
      ready.add(c);
    }
    return c;
  };

  /** Runs `fn` on a pooled connection outside any explicit transaction. */
  const onConnection = async <T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> => {
    const c = await checkout();
    try {
      return await fn(c);
    } finally {
      release(c, false);
    }
  };

  /** The hot path's connections: pipelined when the pool is busy (sharedConnections.ts). */
  const shared = new SharedConnections<pg.PoolClient>({
    checkout,
    release: (c) => release(c, false),
    available: () => pool.idleCount + poolSize - pool.totalCount - pool.waitingCount,
    waiting: () => pool.waitingCount,
    usable: (c) => !broken.has(c),
  }, { maxDepth: options.pipelineDepth });

  /** The GraphQL hot path: one prepared statement on a (possibly shared) connection. */
  const preparedJson = (text: string, values: unknown[], frame?: JsonFrame): Promise<string | Buffer | null> =>
    shared.run<string | Buffer | null>((c) => (frame ? runJsonPrepared(c, text, values, frame) : runJsonPrepared(c, text, values)));

  const db: Db = {
    query: (text, values, opts) => onConnection((c) => runQuery(c, text, values, opts?.prepare)),
    queryJsonText: (text, values, opts) =>
      opts?.prepare ? (preparedJson(text, values) as Promise<string | null>) : onConnection((c) => runJsonText(c, text, values, false)),
    queryJsonFramed: (text, values, frame, opts) =>
      opts?.prepare ? (preparedJson(text, values, frame) as Promise<Buffer>) : onConnection((c) => runJsonFramed(c, text, values, frame, false)),
    async queryRaw(text) {
      const c = await checkout();
      try {
        return await runRaw(c, text);
      } finally {
        release(c, true);
      }
    },

    // One implementation of both signatures: strings unless `bytes`.
    pipeline: (async (statements: readonly PipelinedStatement[], opts: PipelineOptions): Promise<PipelineResult<string | Buffer | null>> => {
      const prepare = opts.prepare !== false;
      const bytes = opts.bytes === true;
      const named = (text: string) => (prepare ? statementName(text) : '');
      const all: PipelineStatement[] = statements.map((s) => ({ name: named(s.text), text: s.text, values: s.values }));
      const offset = opts.session ? 1 : 0;
      if (opts.session) all.unshift(setSessionStatement(opts.session, named));
      // Shared only with a connection on which it would Parse nothing (it must be first on the wire otherwise).
      const outcome = await shared.run(
        (c) => runPipeline(c, all, bytes),
        prepare ? (c) => PipelineQuery.parsesNothing(all, connectionOf(c)) : () => false,
      );
      if (outcome.ok) return { ok: true, results: offset === 0 ? outcome.results : outcome.results.slice(offset) };
      const failed = all[outcome.index];
      return {
        ok: false,
        index: Math.max(0, outcome.index - offset),
        error: pgErrorToApiError(outcome.error, { statement: failed?.text, args: failed?.values as unknown[], prepared: prepare }),
      };
    }) as Db['pipeline'],

    async transaction(opts, fn) {
      const c = await checkout();
      const client = clientOf(c);
      let broken = false;
      try {
        try {
          await c.query(beginStatement(opts));
        } catch (err) {
          broken = true;
          throw pgErrorToApiError(err, { statement: 'BEGIN' });
        }
        let result;
        try {
          result = await fn(client);
        } catch (err) {
          try {
            await c.query('ROLLBACK');
          } catch {
            broken = true;
          }
          throw passThrough(err);
        }
        try {
          await c.query('COMMIT');
        } catch (err) {
          broken = true;
          throw pgErrorToApiError(err, { statement: 'COMMIT' });
        }
        return result;
      } finally {
        release(c, broken || client.dirty);
      }
    },

    async withClient(fn) {
      const c = await checkout();
      const client = clientOf(c);
      try {
        return await fn(client);
      } catch (err) {
        throw passThrough(err);
      } finally {
        release(c, client.dirty);
      }
    },

    async ping() {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), 5000);
        timer.unref();
      });
      const probe = onConnection((c) => c.query('SELECT 1')).then(
        () => true,
        () => false,
      );
      try {
        return await Promise.race([probe, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },

    poolStats() {
      // Units waiting for a place on a shared connection wait for a connection too.
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount + shared.stats().waiting };
    },

    async close() {
      closing = true;
      const closed = open.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => (allClosed = resolve));
      await pool.end();
      await Promise.race([closed, new Promise((r) => setTimeout(r, 5000).unref())]);
    },
  };
  // Spans around each round trip only while tracing is on (no wrapper otherwise).
  return tracingOn() ? tracedDb(db) : db;
}
