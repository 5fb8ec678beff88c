/**
 * Pure parts of src/scheduled: argument decoders (defaults, unknown keys, cron expressions, ISO-8601
 * timestamps, env variables), the exported form, UTC occurrences, and the webhook body of DECISIONS 4.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { assertEnvResolvable, decodeCronTrigger, decodeScheduledEvent, decodeTimestamp, encodeCronTrigger, nextOccurrences, scheduledBody } from '../../../src/scheduled/index.js';

const fails = (fn: () => unknown, code: string, path: string, message: RegExp) =>
  assert.throws(fn, (e: unknown) => e instanceof ApiError && e.code === code && e.path === path && message.test(e.message));

test('create_cron_trigger args: Hasura defaults, and every malformed field a parse-failed at its path', () => {
  const t = decodeCronTrigger({ name: 'c', webhook: 'http://h', schedule: '*/5 * * * *', include_in_metadata: false }, '$');
  assert.deepEqual(t, {
    name: 'c',
    webhook: 'http://h',
    schedule: '*/5 * * * *',
    payload: null,
    headers: [],
    retry_conf: { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 },
    include_in_metadata: false,
    comment: null,
    replace: false,
  });
  const base = { name: 'c', webhook: 'http://h', schedule: '* * * * *', include_in_metadata: true };
  fails(() => decodeCronTrigger({ ...base, schedule: 'not a cron schedule' }, '$'), 'parse-failed', '$.schedule', /invalid cron expression/);
  fails(() => decodeCronTrigger({ ...base, schedule: '61 * * * *' }, '$'), 'parse-failed', '$.schedule', /invalid cron expression/);
  fails(() => decodeCronTrigger({ ...base, schedule: '0 * * * * *' }, '$'), 'parse-failed', '$.schedule', /5 fields/);
  fails(() => decodeCronTrigger({ ...base, extra: 1 }, '$'), 'parse-failed', '$', /unexpected keys.*"extra"/);
  fails(() => decodeCronTrigger({ ...base, retry_conf: { tolerance: 1 } }, '$'), 'parse-failed', '$.retry_conf', /"tolerance"/);
  fails(() => decodeCronTrigger({ ...base, retry_conf: { timeout_seconds: 0 } }, '$'), 'parse-failed', '$.retry_conf.timeout_seconds', /greater than 0/);
  fails(() => decodeCronTrigger({ ...base, name: '' }, '$'), 'parse-failed', '$.name', /^empty string not allowed$/);
  // any non-empty text, as Hasura's TriggerName (a NonEmptyText)
  for (const name of ['Cleanup notification logs', "it's 1 o'clock; --", 'ünïcode ✓']) assert.equal(decodeCronTrigger({ ...base, name }, '$').name, name);
  fails(() => decodeCronTrigger({ name: 'c', webhook: 'http://h', schedule: '* * * * *' }, '$'), 'parse-failed', '$', /include_in_metadata/);
  fails(() => decodeCronTrigger({ ...base, headers: [{ name: 'h' }] }, '$'), 'parse-failed', '$.headers[0]', /exactly one/);
});

test('create_scheduled_event args: timestamps normalised to UTC, bad ones refused', () => {
  const e = decodeScheduledEvent({ webhook: 'http://h', schedule_at: '2030-05-06T07:08:09+02:00', retry_conf: { num_retries: 3 } }, '$');
  assert.equal(e.schedule_at, '2030-05-06T05:08:09.000Z');
  assert.deepEqual(e.retry_conf, { num_retries: 3, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 });
  assert.equal(decodeTimestamp('2030-05-06T07:08:09', '$'), '2030-05-06T07:08:09.000Z');
  assert.equal(decodeTimestamp('2030-05-06 07:08:09.5Z', '$'), '2030-05-06T07:08:09.500Z');
  fails(() => decodeTimestamp('in 3 days', '$.schedule_at'), 'parse-failed', '$.schedule_at', /ISO-8601/);
  fails(() => decodeTimestamp('2030-02-31T00:00:99Z', '$'), 'parse-failed', '$', /timestamp/);
  fails(() => decodeScheduledEvent({ webhook: 'http://h', schedule_at: '2030-01-01T00:00:00Z', name: 'x' }, '$'), 'parse-failed', '$', /unexpected keys/);
});

test('env variables of webhook and headers must be set when the trigger/event is created', () => {
  assertEnvResolvable('{{HOOK}}/x', [{ name: 'a', value_from_env: 'HDR' }], '$.args', { HOOK: 'http://h', HDR: 'v' });
  fails(() => assertEnvResolvable('{{HOOK}}/x', [], '$.args', {}), 'not-found', '$.args.webhook', /environment variable 'HOOK' not set/);
  fails(() => assertEnvResolvable('http://h', [{ name: 'a', value_from_env: 'HDR' }], '$.args', {}), 'not-found', '$.args.headers', /'HDR'/);
});

test('exported cron triggers leave out defaults and empty values', () => {
  const t = decodeCronTrigger({ name: 'c', webhook: 'http://h', schedule: '0 0 1 1 *', include_in_metadata: true, headers: [{ name: 'h', value: 'v' }], payload: { a: 1 } }, '$');
  assert.deepEqual(encodeCronTrigger(t), { name: 'c', webhook: 'http://h', schedule: '0 0 1 1 *', payload: { a: 1 }, headers: [{ name: 'h', value: 'v' }], include_in_metadata: true });
  assert.deepEqual(encodeCronTrigger({ ...t, comment: 'x', retry_conf: { ...t.retry_conf, num_retries: 1 } }).retry_conf, { num_retries: 1, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 });
});

test('occurrences are computed in UTC, strictly after the given time', () => {
  const after = new Date('2030-01-01T10:07:30Z');
  assert.deepEqual(nextOccurrences('*/15 * * * *', after, 3).map((d) => d.toISOString()), ['2030-01-01T10:15:00.000Z', '2030-01-01T10:30:00.000Z', '2030-01-01T10:45:00.000Z']);
  assert.deepEqual(nextOccurrences('0 0 1 1 *', new Date('2030-01-01T00:00:00Z'), 2).map((d) => d.toISOString()), ['2031-01-01T00:00:00.000Z', '2032-01-01T00:00:00.000Z']);
  assert.equal(nextOccurrences('30 2 * * *', after, 100).length, 100);
});

test('webhook body: name only for cron events, created_at only for one-off events, comment when set', () => {
  const cron = JSON.parse(scheduledBody({ id: 'e1', tries: 0, row: { scheduled_time_text: '2030-01-01T00:00:00Z' } }, { webhook: '', payload: { a: 1 }, headers: null, retry_conf: null, comment: null }, 't1'));
  assert.deepEqual(cron, { id: 'e1', name: 't1', scheduled_time: '2030-01-01T00:00:00Z', payload: { a: 1 } });
  const oneOff = JSON.parse(
    scheduledBody({ id: 'e2', tries: 1, row: { scheduled_time_text: '2030-01-01T00:00:00Z', created_at_text: '2029-12-31T23:00:00.5Z' } }, { webhook: '', payload: null, headers: null, retry_conf: null, comment: 'c' }),
  );
  assert.deepEqual(oneOff, { id: 'e2', scheduled_time: '2030-01-01T00:00:00Z', payload: null, comment: 'c', created_at: '2029-12-31T23:00:00.5Z' });
});
