/**
 * Postgres errors → ApiError, following Hasura v1.3 (`Hasura.Db.mkTxErrorHandler`,
 * `dmlTxErrorHandler`, run_sql's raw handler):
 *
 * | mode      | SQLSTATE                          | result                                                |
 * |-----------|-----------------------------------|-------------------------------------------------------|
 * | dml       | 23502/23503/23505/23P01/23001     | 400 constraint-violation "<Prefix>. <pg message>"     |
 * | dml       | 23514 check                       | 400 permission-error "Check constraint violation. …"  |
 * | dml       | other 23xxx                       | 400 constraint-violation "<pg message>"               |
 * | dml       | 22025 invalid escape sequence     | 400 bad-request "<pg message>"                        |
 * | dml       | other 22xxx                       | 400 data-exception "<pg message>"                     |
 * | dml       | 42P10 invalid column reference    | 400 constraint-error "there is no unique or exclusion constraint on target column(s)" |
 * | dml       | 42704 undefined object            | 400 constraint-error "<pg message>"                   |
 * | raw       | any                               | 400 database-error "query execution failed"           |
 * | dml/def.  | 40xxx (serialization, deadlock)   | 400 concurrent-update "<pg message>"                  |
 * | any       | anything else (a trigger's RAISE  | 500 unexpected "database query error" (Hasura's        |
 * |           | EXCEPTION P0001, 42703, …)        | `internalError`; the message only in `internal`)      |
 * | any       | no SQLSTATE (network, closed)     | 500 database-error "database connection error"        |
 *
 * The statement, its arguments and the Postgres error fields go to `internal`, in the shape of
 * Hasura's PGTxErr JSON, so only admins (or dev mode) see them.
 */
import pg from 'pg';
import { ApiError } from '../core/index.js';

/** The fields node-postgres puts on a server error (DatabaseError). */
export interface PgServerError extends Error {
  code: string;
  detail?: string;
  hint?: string;
  severity?: string;
  schema?: string;
  table?: string;
  column?: string;
  constraint?: string;
}

export type PgErrorMode = 'dml' | 'raw' | 'default';

export interface PgErrorOptions {
  /** `dml` (default) reports data errors to the user; `raw` is run_sql; `default` reports only rollbacks. */
  mode?: PgErrorMode;
  /** When false, no `internal` details are attached at all. Default true (they are shown only to admins anyway). */
  isAdmin?: boolean;
  statement?: string;
  args?: readonly unknown[];
  prepared?: boolean;
}

export function isPgServerError(e: unknown): e is PgServerError {
  if (e instanceof pg.DatabaseError) return typeof e.code === 'string';
  if (!(e instanceof Error) || !('severity' in e)) return false;
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code);
}

const CONSTRAINT_PREFIX: Record<string, string> = {
  '23001': 'Can not delete or update due to data being referred. ',
  '23502': 'Not-NULL violation. ',
  '23503': 'Foreign key violation. ',
  '23505': 'Uniqueness violation. ',
  '23P01': 'Exclusion violation. ',
};

/** Hasura's PGTxErr JSON: what went wrong, for `internal`. */
export function pgErrorInternal(err: PgServerError, opts: PgErrorOptions = {}): Record<string, unknown> {
  return {
    statement: opts.statement ?? null,
    prepared: opts.prepared ?? false,
    arguments: (opts.args ?? []).map((a) => (a === null || a === undefined ? 'null' : typeof a === 'string' ? a : JSON.stringify(a))),
    error: {
      exec_status: 'FatalError',
      hint: err.hint ?? null,
      message: err.message,
      status_code: err.code,
      description: err.detail ?? null,
    },
  };
}

/** Maps any error thrown while talking to Postgres to an ApiError (ApiErrors pass through unchanged). */
export function pgErrorToApiError(err: unknown, opts: PgErrorOptions = {}): ApiError {
  if (err instanceof ApiError) return err;
  const showInternal = opts.isAdmin !== false;
  if (!isPgServerError(err)) {
    const message = err instanceof Error ? err.message : String(err);
    return new ApiError('database-error', 'database connection error', {
      status: 500,
      internal: showInternal ? { statement: opts.statement ?? null, error: message } : undefined,
    });
  }
  const internal = showInternal ? pgErrorInternal(err, opts) : undefined;
  const mode = opts.mode ?? 'dml';
  const code = err.code;
  const cls = code.slice(0, 2);
  const bad = (apiCode: string, message: string) => new ApiError(apiCode, message, { status: 400, internal });

  if (mode === 'raw') return bad('database-error', 'query execution failed');
  if (cls === '40') return bad('concurrent-update', err.message);
  // Program limits (stack depth, too many columns/arguments): a request too big or too deep, not a server fault.
  if (cls === '54') return bad('bad-request', `the request is too large or too complex for the database: ${err.message}`);
  if (mode === 'dml') {
    if (cls === '23') {
      if (code === '23514') return bad('permission-error', 'Check constraint violation. ' + err.message);
      return bad('constraint-violation', (CONSTRAINT_PREFIX[code] ?? '') + err.message);
    }
    if (cls === '22') return bad(code === '22025' ? 'bad-request' : 'data-exception', err.message);
    if (code === '42P10') return bad('constraint-error', 'there is no unique or exclusion constraint on target column(s)');
    if (code === '42704') return bad('constraint-error', err.message);
  }
  return new ApiError('unexpected', 'database query error', { status: 500, internal });
}
