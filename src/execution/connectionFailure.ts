/**
 * Why a connection to Postgres failed, in one line that names the cause and `host:port` and
 * never the password: refused, timed out, unknown host, authentication failed, database does not
 * exist, TLS, or (anything else) the driver's own words. Used at start (`checkConnection`: the
 * engine refuses to start with that line) and for connections the pool fails to open later
 * (logged for the operator; clients still get Hasura's plain "database connection error").
 */
import pg from 'pg';
import { ApiError } from '../core/index.js';

/** A failed connection, its message one line fit for a terminal. */
export class DatabaseConnectionError extends Error {
  override name = 'DatabaseConnectionError';
}

/** `host:port` and database of a Postgres URL (defaults as libpq's), without user or password. */
export function connectionTarget(url: string): { address: string; host: string; database: string; user: string } {
  try {
    const u = new URL(url);
    const host = decodeURIComponent(u.hostname || u.searchParams.get('host') || 'localhost');
    const port = u.port || u.searchParams.get('port') || '5432';
    const user = decodeURIComponent(u.username) || 'postgres';
    const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || user;
    return { address: host.startsWith('/') ? `${host}/.s.PGSQL.${port}` : `${host.includes(':') ? `[${host}]` : host}:${port}`, host, database, user };
  } catch {
    return { address: '(unparseable URL)', host: '', database: '', user: '' };
  }
}

const TLS_CODES = new Set(['EPROTO', 'ERR_SSL_WRONG_VERSION_NUMBER', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY']);

/** The cause of a connection failure, e.g. `connection refused` or `authentication failed for user "app"`. */
export function connectionFailureCause(err: unknown, url: string): string {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; errno?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : String(err);
  const target = connectionTarget(url);
  if (code === 'ECONNREFUSED') return 'connection refused (is Postgres running and listening there?)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME') return `unknown host "${target.host}"`;
  if (code === 'ETIMEDOUT' || /timeout|timed out/i.test(message)) return 'timed out (no answer from the server)';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  if (code === '28P01' || code === '28000') return `authentication failed for user "${target.user}"`;
  if (code === '3D000') return `database "${target.database}" does not exist`;
  if (code === '53300') return 'too many connections on the server';
  if (code === '57P03') return 'the server is starting up or shutting down';
  if (TLS_CODES.has(code) || /ssl|tls|certificate/i.test(message)) return `TLS: ${message}`;
  if (code === 'ECONNRESET' || /terminated unexpectedly|Connection terminated/i.test(message)) return 'the server closed the connection';
  return redact(message, url) + (code && !message.includes(code) ? ` (${code})` : '');
}

/** The one line for a failed connection: `cannot connect to Postgres at host:port: <cause>`. */
export function describeConnectionFailure(err: unknown, url: string): string {
  return `cannot connect to Postgres at ${connectionTarget(url).address}: ${connectionFailureCause(err, url)}`;
}

/** Removes the URL's password from a message, should a driver ever echo it. */
function redact(message: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    /* nothing to hide */
  }
  return password ? message.split(password).join('***') : message;
}

/** Opens one connection to `url` and runs `SELECT 1`; throws DatabaseConnectionError naming the cause. */
export async function checkConnection(url: string, timeoutMs = 10_000): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined); // reported through connect()/query()
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new DatabaseConnectionError(describeConnectionFailure(err, url));
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The client-facing error for a connection the pool could not open: Hasura's words, the cause in `internal` (admins only). */
export function connectionApiError(err: unknown, url: string): ApiError {
  return new ApiError('database-error', 'database connection error', { status: 500, internal: { error: describeConnectionFailure(err, url) } });
}
