/**
 * CONTRACT (implemented by the platform work): the engine's handle on Postgres.
 * One pg.Pool; JSON results come back as text (json/jsonb type parsers are identity for the
 * statements that build the response), so the engine passes them through without re-parsing.
 */
import type { Session } from '../core/index.js';
import type { ApiError } from '../core/index.js';
import type { JsonFrame } from './dataRowBytes.js';

/** A statement of `Db.pipeline`: its text and bound values. */
export interface PipelinedStatement {
  text: string;
  values: readonly unknown[];
}

/**
 * Every statement's first column (JSON text or null; with `bytes`, the bytes Postgres sent where it
 * could take them), or the first failure and the index of its statement.
 */
export type PipelineResult<T = string | null> =
  | { ok: true; results: T[] }
  | { ok: false; index: number; error: ApiError };

/** How `Db.pipeline` runs: the session to set first, named statements, answers as bytes. */
export interface PipelineOptions {
  session?: Session;
  prepare?: boolean;
  /** Answers as the bytes Postgres sent (an HTTP response assembled from them), not decoded to strings. */
  bytes?: boolean;
}

export interface QueryResultRows {
  rows: Record<string, unknown>[];
  fields: Array<{ name: string; dataTypeID: number }>;
  rowCount: number | null;
  command: string;
}

/** A connection inside a transaction (or a plain checked-out connection). */
export interface DbClient {
  /**
   * Runs a statement with bound values; rows parsed by pg's default type parsers. With `prepare`,
   * the statement is a named prepared statement (parsed once per connection; subscription polls).
   */
  query(text: string, values?: unknown[], opts?: { prepare?: boolean }): Promise<QueryResultRows>;
  /** Runs a statement that returns one row with one json column; returns that column's raw text (or null). */
  queryJsonText(text: string, values: unknown[], opts?: { prepare?: boolean }): Promise<string | null>;
  /**
   * Like `queryJsonText`, but answers `frame.prefix` + the column's bytes (`null` for SQL NULL or no
   * row) + `frame.suffix` as one Buffer, the JSON never decoded to a string: the HTTP response body.
   */
  queryJsonFramed(text: string, values: unknown[], frame: JsonFrame, opts?: { prepare?: boolean }): Promise<Buffer>;
  /** Runs SQL text as-is (may contain several statements); rows as arrays of text values, for run_sql. */
  queryRaw(text: string): Promise<Array<{ command: string; fields: string[]; rows: Array<Array<string | null>> }>>;
}

export interface Db extends DbClient {
  /**
   * Runs `fn` in a transaction: BEGIN [READ ONLY], then the session variables set in one
   * `set_config('svc.user', <json>, true)` when a session is given, then fn; COMMIT, or ROLLBACK
   * when fn throws (the error is rethrown, mapped to an ApiError when it came from Postgres).
   */
  transaction<T>(opts: { readOnly?: boolean; session?: Session; isolation?: 'read committed' | 'repeatable read' | 'serializable' }, fn: (c: DbClient) => Promise<T>): Promise<T>;
  /**
   * Runs `statements` in ONE round trip and ONE transaction (Postgres pipelining: Parse/Bind/Execute
   * per statement, one Sync; see pipelineQuery.ts), after `set_config('svc.user', <json>, true)`
   * when a session is given. Commits when all succeed; when one fails nothing is kept and its index
   * comes back with the error. Statements are prepared (named) unless `prepare` is false.
   */
  pipeline(statements: readonly PipelinedStatement[], opts: PipelineOptions & { bytes: true }): Promise<PipelineResult<string | Buffer | null>>;
  pipeline(statements: readonly PipelinedStatement[], opts: PipelineOptions): Promise<PipelineResult>;
  /** A connection outside any transaction (for run_sql, which manages its own). */
  withClient<T>(fn: (c: DbClient) => Promise<T>): Promise<T>;
  /** True when a trivial query succeeds (for /healthz). */
  ping(): Promise<boolean>;
  /** The pool's connections right now (for metrics): open, idle, and callers waiting for one. */
  poolStats(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}
