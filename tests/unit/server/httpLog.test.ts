import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createLogger } from '../../../src/server/logger.js';
import { writeHttpLog, type HttpLogEntry } from '../../../src/server/httpLog.js';

type Stream = { once(ev: 'ready', f: () => void): void };
const streamOf = (logger: ReturnType<typeof createLogger>) => (logger as unknown as Record<symbol, { sonic: Stream }>)[pino.symbols.streamSym].sonic;
/** A createLogger logger writing to a file, once its file is open. */
async function fileLogger(level: string, file: string) {
  const logger = createLogger(level, file);
  await new Promise<void>((resolve) => streamOf(logger).once('ready', resolve));
  return logger;
}
/**
 * The file's lines once `n` have been written. (Not `flushSync`: called while an asynchronous write
 * is in flight, it writes the buffered lines first, so the file's order would not be the call order.)
 */
async function linesOf(file: string, n: number): Promise<string[]> {
  for (let i = 0; i < 400; i++) {
    const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
    if (lines.length >= n) return lines;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error(`${file}: fewer than ${n} lines after 2 s`);
}

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
  const strip = (l: string) => JSON.stringify({ ...JSON.parse(l), time: 'T' });
  const a = await linesOf(path.join(dir, 'fast.log'), 3);
  const b = await linesOf(path.join(dir, 'slow.log'), 3);
  assert.equal(a.length, 3);
  assert.deepEqual(a.map(strip), b.map(strip));
  // same key order and bytes apart from the timestamp
  assert.deepEqual(a.map((l) => l.replace(/"time":"[^"]+"/, '')), b.map((l) => l.replace(/"time":"[^"]+"/, '')));
  assert.match(JSON.parse(a[0]).time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // the time is now's (the ISO prefix is cached per second, the milliseconds appended)
  assert.ok(Math.abs(Date.parse(JSON.parse(a[2]).time) - Date.now()) < 10_000);
  assert.equal(new Date(Date.parse(JSON.parse(a[2]).time)).toISOString(), JSON.parse(a[2]).time);
});

test('no http-log line below the info level', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'httplog-'));
  const quiet = await fileLogger('warn', path.join(dir, 'quiet.log'));
  writeHttpLog(quiet, entries[0]);
  quiet.warn('marker');
  const lines = await linesOf(path.join(dir, 'quiet.log'), 1);
  await new Promise((r) => setTimeout(r, 50)); // an http-log line, if one were written, lands by now
  assert.deepEqual(readFileSync(path.join(dir, 'quiet.log'), 'utf8').split('\n').filter((l) => l !== ''), lines);
  assert.equal(lines.length, 1);
  assert.equal(JSON.parse(lines[0]).msg, 'marker');
});

test('http-log times across second boundaries read as the ISO time of the write', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'httplog-'));
  const logger = await fileLogger('info', path.join(dir, 'times.log'));
  const before = Date.now();
  const n = 40;
  for (let i = 0; i < n; i++) {
    writeHttpLog(logger, entries[2]);
    await new Promise((r) => setTimeout(r, 30)); // spans at least one second boundary
  }
  const times = (await linesOf(path.join(dir, 'times.log'), n)).map((l) => JSON.parse(l).time as string);
  let last = before - 1;
  for (const t of times) {
    const ms = Date.parse(t);
    assert.equal(new Date(ms).toISOString(), t);
    assert.ok(ms >= last && ms <= Date.now(), `${t} out of order or in the future`);
    last = ms;
  }
});

test('/healthz and /v1/metrics are logged at debug: absent at info, "level":"debug" at debug; other paths at info', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'httplog-'));
  const polled = (p: string): HttpLogEntry => ({ status: 200, method: 'GET', path: p, request_id: p, duration_ms: 0.1 });
  const info = await fileLogger('info', path.join(dir, 'info.log'));
  for (const p of ['/healthz', '/v1/metrics', '/v1/version']) writeHttpLog(info, polled(p));
  const atInfo = await linesOf(path.join(dir, 'info.log'), 1);
  await new Promise((r) => setTimeout(r, 150)); // a batch, if one more were pending, lands by now
  assert.deepEqual(readFileSync(path.join(dir, 'info.log'), 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l).path), ['/v1/version']);
  assert.equal(JSON.parse(atInfo[0]).level, 'info');

  const debug = await fileLogger('debug', path.join(dir, 'debug.log'));
  for (const p of ['/healthz', '/v1/metrics', '/v1/version']) writeHttpLog(debug, polled(p));
  const atDebug = (await linesOf(path.join(dir, 'debug.log'), 3)).map((l) => JSON.parse(l));
  assert.deepEqual(atDebug.map((l) => [l.path, l.level]), [['/healthz', 'debug'], ['/v1/metrics', 'debug'], ['/v1/version', 'info']]);

  // Any other logger (the pretty format, embedders): the same levels through pino itself.
  const seen: Array<[string, number]> = [];
  const other = pino({ level: 'info' }, { write: (l: string) => void seen.push([JSON.parse(l).path, JSON.parse(l).level]) });
  for (const p of ['/healthz', '/v1/metrics', '/v1/version']) writeHttpLog(other, polled(p));
  assert.deepEqual(seen, [['/v1/version', 30]]);
});
