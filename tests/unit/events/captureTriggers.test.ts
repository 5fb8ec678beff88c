/**
 * Capture-trigger text (src/events/captureTriggers.ts) and the event-trigger decoders
 * (src/metadata/model/decodeEventTrigger.ts): Hasura's validation order and messages, defaults,
 * and the export form round trip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../../src/core/index.js';
import { captureFunctionBody, captureFunctionName, eventBody } from '../../../src/events/index.js';
import { decodeCreateEventTrigger, decodeEventTriggerMetadata, encodeEventTrigger } from '../../../src/metadata/index.js';

const parseFailed = (message: string, path = '$') => (e: unknown) => e instanceof ApiError && e.code === 'parse-failed' && e.message === message && e.path === path;

test('create_event_trigger args: Hasura\'s checks, in order, at $', () => {
  const base = { name: 't1', table: 'a', insert: { columns: '*' }, webhook: 'http://x' };
  assert.throws(() => decodeCreateEventTrigger({ ...base, name: "bad'name" }, '$'), parseFailed('only alphanumeric and underscore and hyphens allowed for name'));
  assert.throws(() => decodeCreateEventTrigger({ name: 't1', table: 'a', webhook: 'http://x' }, '$'), parseFailed('at least one among the insert/update/delete/manual specs must be provided'));
  assert.throws(() => decodeCreateEventTrigger({ name: 't1', table: 'a', insert: { columns: '*' } }, '$'), parseFailed('must provide webhook or webhook_from_env'));
  assert.throws(() => decodeCreateEventTrigger({ ...base, webhook_from_env: 'X' }, '$'), parseFailed('only one of webhook or webhook_from_env should be given'));
  assert.throws(() => decodeCreateEventTrigger({ ...base, insert: { columns: [] } }, '$'), parseFailed('found empty column specification'));
  assert.throws(() => decodeCreateEventTrigger({ ...base, update: { columns: ['a'], payload: [] } }, '$'), parseFailed('found empty column specification'));
  assert.throws(() => decodeCreateEventTrigger({ ...base, headers: [{ name: 'h', value_from_env: 'SVC_GRAPHQL_ADMIN_SECRET' }] }, '$'), (e) => e instanceof ApiError && e.code === 'parse-failed');
  const ok = decodeCreateEventTrigger({ ...base, name: 't-1', enable_manual: true, retry_conf: { num_retries: 2 } }, '$');
  assert.deepEqual(ok.table, { schema: 'public', name: 'a' });
  assert.equal(ok.replace, false);
  assert.deepEqual(ok.trigger, { name: 't-1', definition: { enable_manual: true, insert: { columns: '*' } }, retry_conf: { num_retries: 2, interval_sec: 10, timeout_sec: 60 }, webhook: 'http://x' });
  assert.deepEqual(decodeEventTriggerMetadata(encodeEventTrigger(ok.trigger), '$'), ok.trigger);
});

test('capture function: names fit 63 bytes; update guard compares listed columns; payload columns', () => {
  assert.equal(captureFunctionName('t1', 'insert'), 'notify_svc_t1_INSERT');
  const long = captureFunctionName('x'.repeat(80), 'update');
  assert.ok(Buffer.byteLength(long) <= 63 && long.endsWith('_UPDATE'));
  assert.notEqual(long, captureFunctionName('x'.repeat(79) + 'y', 'update'));
  const upd = captureFunctionBody('t1', 'update', { columns: ['c1'], payload: ['c"2'] });
  assert.match(upd, /IF ROW\(OLD\."c1"::text\) IS NOT DISTINCT FROM ROW\(NEW\."c1"::text\) THEN RETURN NULL; END IF;/);
  assert.match(upd, /json_build_object\('c"2', OLD\."c""2"\)/);
  assert.match(upd, /NULLIF\(current_setting\('svc\.user', true\), ''\)::json/);
  const all = captureFunctionBody("it's", 'update', { columns: '*' });
  assert.match(all, /IF OLD::text IS NOT DISTINCT FROM NEW::text THEN/);
  assert.match(all, /'it''s'/);
  const ins = captureFunctionBody('t1', 'insert', { columns: ['c1'] });
  assert.doesNotMatch(ins, /IF /);
  assert.match(ins, /'old', NULL::json, 'new', row_to_json\(NEW\)/);
  assert.match(captureFunctionBody('t1', 'delete', { columns: '*' }), /'old', row_to_json\(OLD\), 'new', NULL::json/);
});

test('webhook body: Hasura\'s EventPayload around the stored payload text', () => {
  const body = eventBody(
    { id: 'e1', tries: 1, row: { schema_name: 's', table_name: 'T', trigger_name: 't', payload: '{"op":"INSERT"}', created_at_text: '2020-01-01T00:00:00.000000Z' } },
    4,
  );
  assert.deepEqual(JSON.parse(body), { id: 'e1', table: { schema: 's', name: 'T' }, trigger: { name: 't' }, event: { op: 'INSERT' }, delivery_info: { current_retry: 1, max_retries: 4 }, created_at: '2020-01-01T00:00:00.000000Z' });
});
