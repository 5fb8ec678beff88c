/**
 * The per-request `http-log` line, written without pino's generic serializer when the logger is
 * one `createLogger` made (its line format is known: `{"level":"info","time":<ISO>,...fields}`).
 * The line is byte-for-byte what `logger.info(entry)` would write; the ISO time string is reused
 * within the same millisecond. Any other logger (the pretty format, tests, embedders) gets
 * `logger.info(entry, "<method> <path> <status>")`. `/healthz` and `/v1/metrics` are logged at debug
 * (load balancers and Prometheus poll them every few seconds), everything else at info.
 */
import pino, { type Logger } from 'pino';

export interface HttpLogEntry {
  status: number;
  method: string;
  path: string;
  request_id: string;
  duration_ms: number;
  role?: string;
  operation_name?: string;
  error?: string;
}

/** Loggers whose format `writeHttpLog` reproduces (registered by createLogger). */
const knownFormat = new WeakSet<Logger>();
export const registerFastLogger = (logger: Logger): void => void knownFormat.add(logger);

let lastMs = -1;
let lastIso = '';
let lastSecond = -1;
let secondPrefix = '';
/** `new Date().toISOString()`, with the `YYYY-MM-DDTHH:MM:SS.` part built once per second. */
const isoNow = (): string => {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    const second = Math.floor(now / 1000);
    if (second !== lastSecond) {
      lastSecond = second;
      secondPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    }
    const ms = now - second * 1000;
    lastIso = `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  }
  return lastIso;
};

/** Characters JSON.stringify would escape (and non-ASCII, left to it as well). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f-\uffff]/;
/** A JSON string: plain ASCII text (methods, paths, request ids) is quoted without JSON.stringify. */
const str = (s: string): string => (s.length < 256 && !NEEDS_ESCAPE.test(s) ? `"${s}"` : JSON.stringify(s));

/** Paths whose requests are logged at debug: health checks and metric scrapes, polled every few seconds. */
const QUIET_PATHS: ReadonlySet<string> = new Set(['/healthz', '/v1/metrics']);

/** The level of a request's line: debug for health checks and metric scrapes, info otherwise. */
export const httpLogLevel = (path: string): 'debug' | 'info' => (QUIET_PATHS.has(path) ? 'debug' : 'info');

export function writeHttpLog(logger: Logger, e: HttpLogEntry): void {
  const level = httpLogLevel(e.path);
  const stream = (logger as unknown as Record<symbol, { write?: (line: string) => unknown } | undefined>)[pino.symbols.streamSym];
  if (!knownFormat.has(logger) || typeof stream?.write !== 'function') {
    if (logger.isLevelEnabled(level)) logger[level]({ type: 'http-log', ...e }, `${e.method} ${e.path} ${e.status}`);
    return;
  }
  if (!logger.isLevelEnabled(level)) return;
  let line = `{"level":"${level}","time":"${isoNow()}","type":"http-log","status":${e.status},"method":${str(e.method)},"path":${str(e.path)},"request_id":${str(e.request_id)},"duration_ms":${e.duration_ms}`;
  if (e.role !== undefined) line += `,"role":${str(e.role)}`;
  if (e.operation_name !== undefined) line += `,"operation_name":${str(e.operation_name)}`;
  if (e.error !== undefined) line += `,"error":${str(e.error)}`;
  stream.write(line + '}\n');
}
