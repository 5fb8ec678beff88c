/**
 * The engine's logger: pino. Two formats (`--log-format`):
 * - json: one JSON object per line on stdout, ISO timestamps and textual levels. Writes are
 *   asynchronous and batched (lineBatch.ts): lines collect up to 16 KiB and go out in one write (at
 *   least every 100 ms), instead of one write syscall per request log line; what is left is written
 *   synchronously when the process exits.
 * - pretty: pino-pretty, one coloured line per entry (time, level, message, then the fields), written
 *   synchronously; for a person at a terminal, the default when stdout is one. pino-pretty (and its
 *   dependencies) is loaded only then: an engine logging JSON starts without it.
 */
import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';
import { registerFastLogger } from './httpLog.js';
import { LineBatch } from './lineBatch.js';

export type { Logger };
export type LogFormat = 'pretty' | 'json';

/** The format in force: the configured one, else pretty when stdout is a terminal (as pino's tools do), else JSON. */
export const logFormatFor = (configured: LogFormat | undefined, isTTY = process.stdout.isTTY === true): LogFormat => configured ?? (isTTY ? 'pretty' : 'json');

export function createLogger(level: string, destination: number | string = 1, format: LogFormat = 'json'): Logger {
  if (format === 'pretty') {
    const pretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');
    const stream = pretty({
      destination,
      sync: true,
      colorize: typeof destination === 'number' ? pretty.isColorSupported && (destination === 2 ? process.stderr.isTTY : process.stdout.isTTY) === true : false,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      singleLine: true,
    });
    return pino({ level, base: undefined }, stream);
  }
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
