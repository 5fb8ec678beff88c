/**
 * The engine's structured logger: pino, one JSON object per line on stdout, ISO timestamps and
 * textual levels. Writes are asynchronous and batched (lineBatch.ts): lines collect up to 16 KiB and
 * go out in one write (at least every 100 ms), instead of one write syscall per request log line;
 * what is left is written synchronously when the process exits.
 */
import pino, { type Logger } from 'pino';
import { registerFastLogger } from './httpLog.js';
import { LineBatch } from './lineBatch.js';

export type { Logger };

export function createLogger(level: string, destination: number | string = 1): Logger {
  const logger = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    new LineBatch(pino.destination({ dest: destination, sync: false })),
  );
  registerFastLogger(logger);
  return logger;
}

/** A logger that drops everything (tests, embedding). */
export const silentLogger = (): Logger => pino({ level: 'silent' });
