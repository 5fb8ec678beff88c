/**
 * An open engine says so: no admin secret on a non-loopback address logs one warning at start, and
 * the config API's `warnings` (what the console shows as a banner) carries it; on a loopback address,
 * or with an admin secret, there is none.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { isLoopbackHost } from '../../src/config/index.js';
import { startTestEngine, type TestEngineOptions } from './harness.js';

async function start(t: { after: (fn: () => Promise<void>) => void }, opts: TestEngineOptions) {
  const lines: Array<Record<string, any>> = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const e = await startTestEngine({ ...opts, startOptions: { logger } });
  t.after(() => e.stop());
  const warnings = lines.filter((l) => l.kind === 'open-access');
  const config = await e.request('GET', '/v1alpha1/config');
  assert.equal(config.status, 200, config.text);
  return { warnings, config: config.body };
}

test('no admin secret on every interface: one warning at start, and in the config API for the console', async (t) => {
  const { warnings, config } = await start(t, { serverHost: '0.0.0.0' });
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]!.level, 40, 'a warning');
  assert.equal(warnings[0]!.type, 'startup');
  assert.match(warnings[0]!.msg, /^no admin secret is set and the engine listens on 0\.0\.0\.0 \(every interface\): every request is admin/);
  assert.deepEqual(config.warnings, [{ code: 'open-access', message: warnings[0]!.msg }]);
});

test('no warning on a loopback address, nor with an admin secret', async (t) => {
  const local = await start(t, { serverHost: '127.0.0.1' });
  assert.deepEqual([local.warnings, local.config.warnings], [[], []]);
  const guarded = await start(t, { serverHost: '0.0.0.0', adminSecret: 'guard' });
  assert.deepEqual([guarded.warnings, guarded.config.warnings], [[], []]);
});

test('loopback addresses', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1']) assert.equal(isLoopbackHost(h), true, h);
  for (const h of ['0.0.0.0', '::', '*', '10.0.0.5', '192.168.1.2', 'example.com', '::ffff:10.0.0.1']) assert.equal(isLoopbackHost(h), false, h);
});
