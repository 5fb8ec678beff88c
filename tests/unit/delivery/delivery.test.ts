/**
 * The generic delivery queue's pure parts (src/delivery): an attempt's outcome (2xx, Retry-After,
 * client errors, what the invocation log keeps) and the SQL of claim / finish (lease, SKIP LOCKED,
 * retry decision in SQL, only rows still held by this instance).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { attemptOutcome, claimStatement, finishStatement } from '../../../src/delivery/index.js';
import type { DeliveryPlan, Job } from '../../../src/delivery/index.js';
import { EVENT_LOG_QUEUE } from '../../../src/events/index.js';
import { compile } from '../../../src/sql/index.js';

const job: Job = { id: 'e1', tries: 2, row: {} };
const plan: DeliveryPlan = {
  url: 'http://x',
  headers: [{ name: 'a', value: '1', fromEnv: false }, { name: 's', value: 'secret', fromEnv: true }],
  body: '{"id":"e1"}',
  timeoutMs: 1000,
  numRetries: 3,
  intervalSec: 10,
  log: {},
};

test('2xx is a success; a non-2xx answer keeps its status and an integer Retry-After', () => {
  const ok = attemptOutcome(job, plan, { kind: 'response', rawHeaders: [], status: 204, headers: {}, body: '', truncated: false, latencyMs: 1 });
  assert.equal(ok.ok, true);
  assert.equal(ok.retryAfter, null);
  const busy = attemptOutcome(job, plan, { kind: 'response', rawHeaders: [], status: 503, headers: { 'retry-after': '7' }, body: 'later', truncated: false, latencyMs: 1 });
  assert.deepEqual([busy.ok, busy.status, busy.retryAfter], [false, 503, 7]);
  assert.deepEqual(JSON.parse(busy.response), { type: 'webhook_response', data: { status: 503, headers: [{ name: 'retry-after', value: '7' }], body: 'later' }, version: '2' });
  const date = attemptOutcome(job, plan, { kind: 'response', rawHeaders: [], status: 503, headers: { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' }, body: '', truncated: false, latencyMs: 1 });
  assert.equal(date.retryAfter, null);
  const zero = attemptOutcome(job, plan, { kind: 'response', rawHeaders: [], status: 503, headers: { 'retry-after': '0' }, body: '', truncated: false, latencyMs: 1 });
  assert.equal(zero.retryAfter, null);
});

test('a network error is status 1000 with a client_error response; env header values are not logged', () => {
  const out = attemptOutcome(job, plan, { kind: 'error', message: 'connect ECONNREFUSED', timedOut: false, latencyMs: 2 });
  assert.deepEqual([out.ok, out.status], [false, 1000]);
  assert.deepEqual(JSON.parse(out.response), { type: 'client_error', data: { message: 'connect ECONNREFUSED' }, version: '2' });
  assert.deepEqual(JSON.parse(out.request), { payload: { id: 'e1' }, headers: [{ name: 'a', value: '1' }, { name: 's', value: '<from env>' }], version: '2' });
  assert.ok(!out.request.includes('secret'));
  const badUrl = attemptOutcome(job, plan, { kind: 'error', message: 'invalid webhook URL: x', timedOut: false, latencyMs: 0, invalidUrl: true });
  assert.equal(badUrl.status, 1001);
});

test('claim: due rows only, rows of instances without a fresh heartbeat claimable, SKIP LOCKED, stamped with the instance', () => {
  const { text, params } = compile(claimStatement(EVENT_LOG_QUEUE, { instanceId: 'me', limit: 100, heartbeatTimeoutSeconds: 20 }));
  assert.match(text, /FOR UPDATE SKIP LOCKED/);
  assert.match(text, /LIMIT 100/);
  assert.match(text, /t\.locked_at IS NULL OR NOT EXISTS \(SELECT 1 FROM hdb_catalog\.svc_instances AS i\s+WHERE i\.instance_id = t\.locked_by AND i\.heartbeat_at > now\(\) - make_interval\(secs => \$1::"float8"\)\)/);
  assert.match(text, /next_retry_at IS NULL OR t\.next_retry_at <= now\(\)/);
  assert.match(text, /NOT t\.delivered AND NOT t\.error AND NOT t\.archived/);
  assert.deepEqual(params.map((p) => (p.source as { value: unknown }).value), [20, 'me']);
});

test('claim in another database than the heartbeats: held while the holder is among the live instances given, or claimed within the timeout', () => {
  const { text, params } = compile(claimStatement(EVENT_LOG_QUEUE, { instanceId: 'me', limit: 10, heartbeatTimeoutSeconds: 20, liveInstances: ['a', 'b'] }));
  assert.doesNotMatch(text, /svc_instances/);
  assert.match(text, /t\.locked_at IS NULL OR NOT \(t\.locked_by = ANY\(\$1::"text"\[\]\) OR t\.locked_at > now\(\) - make_interval\(secs => \$2::"float8"\)\)/);
  assert.deepEqual(params.map((p) => (p.source as { value: unknown }).value), [['a', 'b'], 20, 'me']);
});

test('finish: one statement for a batch; retries and errors decided in SQL; only rows this instance holds', () => {
  const out = attemptOutcome(job, plan, { kind: 'error', message: 'x', timedOut: true, latencyMs: 2 });
  const { text } = compile(finishStatement(EVENT_LOG_QUEUE, 'me', [out, out]));
  assert.match(text, /unnest\(/);
  assert.match(text, /t\.tries >= o\.num_retries AND o\.retry_after IS NULL/);
  assert.match(text, /coalesce\(o\.retry_after, o\.interval_sec\)/);
  assert.match(text, /t\.locked_by = \$10::"text"/);
  assert.match(text, /INSERT INTO "hdb_catalog"\."event_invocation_logs"/);
});
