import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createLogger, logFormatFor } from '../../../src/server/logger.js';
import { loadConfig } from '../../../src/config/index.js';

test('the log format: the configured one, else pretty on a terminal and JSON otherwise', () => {
  assert.equal(logFormatFor(undefined, true), 'pretty');
  assert.equal(logFormatFor(undefined, false), 'json');
  assert.equal(logFormatFor('json', true), 'json');
  assert.equal(logFormatFor('pretty', false), 'pretty');
  assert.equal(loadConfig([], {}).logFormat, undefined);
  assert.equal(loadConfig(['--log-format', 'PRETTY'], {}).logFormat, 'pretty');
  assert.equal(loadConfig([], { SVC_GRAPHQL_LOG_FORMAT: 'json' }).logFormat, 'json');
  assert.throws(() => loadConfig(['--log-format', 'yaml'], {}), /--log-format/);
});

test('pretty lines: time, level, message, then the fields on the same line; no colour into a file', () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'pretty-')), 'pretty.log');
  const logger = createLogger('info', file, 'pretty');
  logger.info({ type: 'startup', port: 8080 }, 'listening on http://127.0.0.1:8080');
  logger.debug('not at info');
  logger.warn({ type: 'database' }, 'database unreachable');
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 2, lines.join('\n'));
  assert.match(lines[0], /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: listening on http:\/\/127\.0\.0\.1:8080 \{"type":"startup","port":8080\}$/);
  assert.match(lines[1], /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: database unreachable \{"type":"database"\}$/);
  assert.doesNotMatch(lines.join(''), /\u001b\[/);
});
