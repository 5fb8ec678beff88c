import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createLogger } from '../../../src/server/logger.js';
import { writeHttpLog, type HttpLogEntry } from '../../../src/server/httpLog.js';

type Stream = { once(ev: 'ready', f: () => void): void; flushSync(): void };
const streamOf = (logger: ReturnType<typeof createLogger>) => (logger as unknown as Record<symbol, Stream>)[pino.symbols.streamSym];
/** A createLogger logger writing to a file, once its file is open. */
async function fileLogger(level: string, file: string) {
  const logger = createLogger(level, file);
  await new Promise<void>((resolve) => streamOf(logger).once('ready', resolve));
  return logger;
}
const flushed = async (logger: ReturnType<typeof createLogger>) => streamOf(logger).flushSync();

const entries: HttpLogEntry[] = [
  { status: 200, method: 'POST', path: '/v1/graphql', request_id: 'a-1', duration_ms: 1.234, role: 'admin', operation_name: 'Q' },
  { status: 400, method: 'GET', path: '/v1/"odd"\\path', request_id: 'b\u00e9\n2', duration_ms: 0.001, error: 'bad "thing"' },
  { status: 404, method: 'GET', path: '/x', request_id: 'c', duration_ms: 12 },
];

test('the fast http-log line is what pino writes for the same entry', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'httplog-'));
  const fast = await fileLogger('info', path.join(dir, 'fast.log'));
  const slow = await fileLogger('info', path.join(dir, 'slow.log'));
  for (const e of entries) {
    writeHttpLog(fast, e);
    slow.info({ type: 'http-log', ...e });
  }
  await flushed(fast);
  await flushed(slow);
  const strip = (l: string) => JSON.stringify({ ...JSON.parse(l), time: 'T' });
  const a = readFileSync(path.join(dir, 'fast.log'), 'utf8').trim().split('\n');
  const b = readFileSync(path.join(dir, 'slow.log'), 'utf8').trim().split('\n');
  assert.equal(a.length, 3);
  assert.deepEqual(a.map(strip), b.map(strip));
  // same key order and bytes apart from the timestamp
  assert.deepEqual(a.map((l) => l.replace(/"time":"[^"]+"/, '')), b.map((l) => l.replace(/"time":"[^"]+"/, '')));
  assert.match(JSON.parse(a[0]).time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

test('no http-log line below the info level', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'httplog-'));
  const quiet = await fileLogger('warn', path.join(dir, 'quiet.log'));
  writeHttpLog(quiet, entries[0]);
  quiet.warn('marker');
  await flushed(quiet);
  const lines = readFileSync(path.join(dir, 'quiet.log'), 'utf8').trim().split('\n');
  assert.equal(lines.length, 1);
  assert.equal(JSON.parse(lines[0]).msg, 'marker');
});
