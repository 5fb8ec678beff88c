/**
 * The engine's structured logger: pino, one JSON object per line on stdout, ISO timestamps and
 * textual levels. Writes are asynchronous and batched: lines collect up to 4 KiB and go out in one
 * write (at least every 100 ms), instead of one write syscall per request log line; pino flushes
 * what is left when the process exits.
 */
import pino, { type Logger } from 'pino';
import { registerFastLogger } from './httpLog.js';

export type { Logger };

export function createLogger(level: string, destination: number | string = 1): Logger {
  const logger = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.destination({ dest: destination, sync: false, minLength: 4096, periodicFlush: 100 }),
  );
  registerFastLogger(logger);
  return logger;
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger = (): Logger => pino({ level: 'silent' });
