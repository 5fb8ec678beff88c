/**
 * The per-request `http-log` line, written without pino's generic serializer when the logger is
 * one `createLogger` made (its line format is known: `{"level":"info","time":<ISO>,...fields}`).
 * The line is byte-for-byte what `logger.info(entry)` would write; the ISO time string is reused
 * within the same millisecond. Any other logger (tests, embedders) gets `logger.info(entry)`.
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
const isoNow = (): string => {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
};

const str = (s: string): string => JSON.stringify(s);

export function writeHttpLog(logger: Logger, e: HttpLogEntry): void {
  const stream = (logger as unknown as Record<symbol, { write?: (line: string) => unknown } | undefined>)[pino.symbols.streamSym];
  if (!knownFormat.has(logger) || typeof stream?.write !== 'function') {
    logger.info({ type: 'http-log', ...e });
    return;
  }
  if (!logger.isLevelEnabled('info')) return;
  let line = `{"level":"info","time":"${isoNow()}","type":"http-log","status":${e.status},"method":${str(e.method)},"path":${str(e.path)},"request_id":${str(e.request_id)},"duration_ms":${e.duration_ms}`;
  if (e.role !== undefined) line += `,"role":${str(e.role)}`;
  if (e.operation_name !== undefined) line += `,"operation_name":${str(e.operation_name)}`;
  if (e.error !== undefined) line += `,"error":${str(e.error)}`;
  stream.write(line + '}\n');
}
