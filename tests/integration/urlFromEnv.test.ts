/**
 * Hasura's `{from_env: VAR}` URL form (its `UrlConf`) wherever a URL is written: an event trigger's
 * `webhook`, a remote schema's `url`, an action's `handler`, a cron trigger's and a scheduled event's
 * `webhook`. Each is called at the variable's URL and exported as written; a variable that is not set
 * is refused with Hasura's `environment variable 'X' not set` and changes nothing.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { startWebhookServer, type WebhookServer } from '../support/webhookServer.js';
import { startRemoteGraphqlServer, type RemoteGraphqlServer } from '../support/remoteGraphqlServer.js';
import { eventually } from '../support/eventReceiver.js';

let e: TestEngine;
let hook: WebhookServer;
let remote: RemoteGraphqlServer;
const MISSING = 'SVC_TEST_URL_NOT_SET_ANYWHERE';

before(async () => {
  hook = await startWebhookServer((r) => (r.url.endsWith('/action') ? { status: 200, body: { n: 7 } } : { status: 200, body: { ok: true } }));
  remote = await startRemoteGraphqlServer('type Query { hello: String }', { hello: () => 'from remote' });
  process.env.SVC_TEST_HOOK_URL = `${hook.url}/event`;
  process.env.SVC_TEST_ACTION_URL = `${hook.url}/action`;
  process.env.SVC_TEST_CRON_URL = `${hook.url}/cron`;
  process.env.SVC_TEST_REMOTE_URL = remote.url;
  delete process.env[MISSING];
  e = await startTestEngine();
  await e.runSql('CREATE TABLE thing (id serial PRIMARY KEY, name text)');
  assert.equal((await e.query({ type: 'track_table', args: 'thing' })).status, 200);
});
after(async () => {
  await e?.stop();
  await hook?.stop();
  await remote?.stop();
  for (const k of ['SVC_TEST_HOOK_URL', 'SVC_TEST_ACTION_URL', 'SVC_TEST_CRON_URL', 'SVC_TEST_REMOTE_URL']) delete process.env[k];
});

async function refusedUnchanged(q: unknown): Promise<void> {
  const before = (await e.query({ type: 'export_metadata', args: {} })).text;
  const r = await e.query(q);
  assert.equal(r.status, 400, r.text);
  assert.match(r.body.error, new RegExp(`environment variable '${MISSING}' not set`), r.text);
  assert.equal((await e.query({ type: 'export_metadata', args: {} })).text, before);
}

test('event trigger webhook', async () => {
  const r = await e.query({ type: 'create_event_trigger', args: { name: 'on_thing', table: 'thing', insert: { columns: '*' }, webhook: { from_env: 'SVC_TEST_HOOK_URL' } } });
  assert.equal(r.status, 200, r.text);
  await e.graphql('mutation { insert_thing(objects: [{name: "a"}]) { affected_rows } }');
  await eventually(() => hook.requests.filter((x) => x.url.endsWith('/event')), (xs) => xs.length === 1, 10_000, 'the event delivered');
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.deepEqual(md.tables.find((t: { table: { name: string } }) => t.table.name === 'thing').event_triggers[0].webhook, { from_env: 'SVC_TEST_HOOK_URL' });
  await refusedUnchanged({ type: 'create_event_trigger', args: { name: 'bad', table: 'thing', insert: { columns: '*' }, webhook: { from_env: MISSING } } });
});

test('remote schema url', async () => {
  const r = await e.query({ type: 'add_remote_schema', args: { name: 'rs', definition: { url: { from_env: 'SVC_TEST_REMOTE_URL' } } } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual((await e.graphql('{ hello }')).body, { data: { hello: 'from remote' } });
  await refusedUnchanged({ type: 'add_remote_schema', args: { name: 'rs2', definition: { url: { from_env: MISSING } } } });
});

test('action handler', async () => {
  assert.equal((await e.query({ type: 'set_custom_types', args: { objects: [{ name: 'N', fields: [{ name: 'n', type: 'Int!' }] }] } })).status, 200);
  const r = await e.query({ type: 'create_action', args: { name: 'count', definition: { arguments: [], output_type: 'N', handler: { from_env: 'SVC_TEST_ACTION_URL' } } } });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual((await e.graphql('mutation { count { n } }')).body, { data: { count: { n: 7 } } });
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.deepEqual(md.actions[0].definition.handler, { from_env: 'SVC_TEST_ACTION_URL' });
  await refusedUnchanged({ type: 'create_action', args: { name: 'bad', definition: { arguments: [], output_type: 'N', handler: { from_env: MISSING } } } });
});

test('cron trigger and scheduled event webhook', async () => {
  const r = await e.query({ type: 'create_cron_trigger', args: { name: 'tick', webhook: { from_env: 'SVC_TEST_CRON_URL' }, schedule: '0 0 1 1 *', include_in_metadata: true } });
  assert.equal(r.status, 200, r.text);
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.deepEqual(md.cron_triggers[0].webhook, { from_env: 'SVC_TEST_CRON_URL' });
  const ev = await e.query({ type: 'create_scheduled_event', args: { webhook: { from_env: 'SVC_TEST_CRON_URL' }, schedule_at: new Date().toISOString(), payload: { k: 1 } } });
  assert.equal(ev.status, 200, ev.text);
  const got = await eventually(() => hook.requests.filter((x) => x.url.endsWith('/cron')), (xs) => xs.length === 1, 15_000, 'the scheduled event delivered');
  assert.deepEqual((got[0].body as { payload: unknown }).payload, { k: 1 });
  await refusedUnchanged({ type: 'create_cron_trigger', args: { name: 'bad', webhook: { from_env: MISSING }, schedule: '* * * * *', include_in_metadata: false } });
  await refusedUnchanged({ type: 'create_scheduled_event', args: { webhook: { from_env: MISSING }, schedule_at: new Date().toISOString() } });
});

test('neither a string nor an object is refused with Hasura\'s message', async () => {
  const r = await e.query({ type: 'create_cron_trigger', args: { name: 'num', webhook: 42, schedule: '* * * * *' } });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.error, 'one of string or object must be provided for url/webhook');
});
