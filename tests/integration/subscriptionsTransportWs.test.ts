/**
 * Subscriptions over `graphql-transport-ws` (the graphql-ws library's protocol) with a real
 * WebSocket client: ack, ping/pong, subscribe/next/complete, queries and mutations, and the
 * protocol's close codes (4400 bad message, 4401 subscribe before ack, 4403 auth failure,
 * 4409 duplicate id, 4429 second connection_init). Refetch interval: 100 ms.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket, eventually } from './subscriptionsClient.js';
import { liveQueryStats } from '../../src/subscriptions/index.js';
import { startWebhookServer } from '../support/webhookServer.js';

const INTERVAL = 100;
const ADMIN = { 'x-svc-admin-secret': 'adm' };
const PROTOCOL = 'graphql-transport-ws';

async function connect(e: TestEngine, headers: Record<string, string> = ADMIN): Promise<TestSocket> {
  const s = await TestSocket.open(e.url, PROTOCOL);
  s.send({ type: 'connection_init', payload: { headers } });
  assert.deepEqual(await s.next(), { type: 'connection_ack' });
  return s;
}

const subscribe = (s: TestSocket, id: string, query: string, variables?: Record<string, unknown>) =>
  s.send({ id, type: 'subscribe', payload: { query, variables } });

test('subscriptions over graphql-transport-ws', async (t) => {
  const e = await startTestEngine({ adminSecret: 'adm', unauthorizedRole: 'anon', liveQueries: { batchSize: 100, refetchIntervalMs: INTERVAL, changePollIntervalMs: 50 } });
  t.after(() => e.stop());
  await e.runSql(`CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL, public boolean NOT NULL DEFAULT true);
    INSERT INTO item (name, public) VALUES ('one', true), ('two', true), ('secret', false);`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'item' } },
      { type: 'create_select_permission', args: { table: 'item', role: 'anon', permission: { columns: ['id', 'name'], filter: { public: { _eq: true } } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  const stats = () => liveQueryStats(e.engine.ctx);

  await t.test('ack, ping → pong', async () => {
    const s = await connect(e);
    assert.equal(s.ws.protocol, PROTOCOL);
    s.send({ type: 'ping' });
    assert.deepEqual(await s.next(), { type: 'pong' });
    s.send({ type: 'pong' });
    await s.none(INTERVAL * 2);
    s.close();
    await s.closed;
  });

  await t.test('subscribe → next on start and on change only; complete stops it', async () => {
    const s = await connect(e);
    subscribe(s, 'a', 'subscription ($id: Int!) { item_by_pk(id: $id) { name } }', { id: 1 });
    assert.deepEqual(await s.next(), { id: 'a', type: 'next', payload: { data: { item_by_pk: { name: 'one' } } } });
    await s.none(INTERVAL * 4);
    await e.runSql("UPDATE item SET name = 'uno' WHERE id = 1");
    assert.deepEqual(await s.next(), { id: 'a', type: 'next', payload: { data: { item_by_pk: { name: 'uno' } } } });
    s.send({ id: 'a', type: 'complete' });
    await eventually(() => stats().cohorts === 0, 15_000, 'the cohort to go');
    await e.runSql("UPDATE item SET name = 'one' WHERE id = 1");
    await s.none(INTERVAL * 4);
    s.close();
    await s.closed;
  });

  await t.test('permissions: the unauthorized role sees public rows only', async () => {
    const s = await connect(e, {});
    subscribe(s, '1', 'subscription { item(order_by: {id: asc}) { name } }');
    assert.deepEqual((await s.next()).payload, { data: { item: [{ name: 'one' }, { name: 'two' }] } });
    await e.runSql("UPDATE item SET name = 'still secret' WHERE id = 3");
    await s.none(INTERVAL * 4);
    await e.runSql('UPDATE item SET public = true WHERE id = 3');
    assert.deepEqual((await s.next()).payload, { data: { item: [{ name: 'one' }, { name: 'two' }, { name: 'still secret' }] } });
    await e.runSql('UPDATE item SET public = false WHERE id = 3');
    s.close();
    await s.closed;
  });

  await t.test('queries and mutations: next, then complete; invalid operations: error (array), no complete', async () => {
    const s = await connect(e);
    subscribe(s, 'q', '{ item_aggregate { aggregate { count } } }');
    assert.deepEqual(await s.next(), { id: 'q', type: 'next', payload: { data: { item_aggregate: { aggregate: { count: 3 } } } } });
    assert.deepEqual(await s.next(), { id: 'q', type: 'complete' });
    subscribe(s, 'm', 'mutation { insert_item(objects: [{name: "four"}]) { affected_rows } }');
    assert.deepEqual(await s.next(), { id: 'm', type: 'next', payload: { data: { insert_item: { affected_rows: 1 } } } });
    assert.deepEqual(await s.next(), { id: 'm', type: 'complete' });
    subscribe(s, 'bad', 'subscription { nope }');
    const err = await s.next();
    assert.equal(err.type, 'error');
    assert.equal(err.id, 'bad');
    assert.ok(Array.isArray(err.payload));
    assert.equal(err.payload[0].extensions.code, 'validation-failed');
    await s.none(INTERVAL * 2);
    s.close();
    await s.closed;
  });

  await t.test('4401: subscribe before connection_ack', async () => {
    const s = await TestSocket.open(e.url, PROTOCOL);
    subscribe(s, '1', 'subscription { item { id } }');
    assert.deepEqual(await s.closed, { code: 4401, reason: 'Unauthorized' });
  });

  await t.test('4403: connection_init with bad credentials', async () => {
    const s = await TestSocket.open(e.url, PROTOCOL);
    s.send({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'wrong' } } });
    assert.deepEqual(await s.closed, { code: 4403, reason: 'Forbidden' });
  });

  await t.test('4409: a second subscribe with an id in use', async () => {
    const s = await connect(e);
    subscribe(s, 'x', 'subscription { item { id } }');
    await s.next();
    subscribe(s, 'x', 'subscription { item { id } }');
    assert.deepEqual(await s.closed, { code: 4409, reason: 'Subscriber for x already exists' });
  });

  await t.test('4429: a second connection_init', async () => {
    const s = await connect(e);
    s.send({ type: 'connection_init', payload: {} });
    assert.deepEqual(await s.closed, { code: 4429, reason: 'Too many initialisation requests' });
  });

  await t.test('4400: messages that are not valid', async () => {
    for (const bad of ['not json', '[]', JSON.stringify({ type: 'start', id: '1' }), JSON.stringify({ type: 'subscribe', payload: {} }), JSON.stringify({ id: '1', type: 'subscribe', payload: { nope: 1 } })]) {
      const s = await connect(e);
      s.send(bad);
      const c = await s.closed;
      assert.equal(c.code, 4400, `${bad} → ${JSON.stringify(c)}`);
    }
  });

  await t.test('all clients gone: 0 pollers, 0 cohorts, 0 timers', async () => {
    await eventually(() => {
      const st = stats();
      return st.connections === 0 && st.pollers === 0 && st.cohorts === 0 && st.timers === 0;
    }, 3000, `everything freed: ${JSON.stringify(stats())}`);
  });
});

test('auth webhook and allow-list on the socket', async (t) => {
  const hook = await startWebhookServer((req) =>
    req.headers.authorization === 'Bearer good' ? { status: 200, body: { 'X-Svc-Role': 'anon' } } : { status: 401, body: {} });
  t.after(() => hook.stop());
  const e = await startTestEngine({ adminSecret: 'adm', authHook: hook.url, enableAllowlist: true, liveQueries: { batchSize: 100, refetchIntervalMs: INTERVAL, changePollIntervalMs: 50 } });
  t.after(() => e.stop());
  await e.runSql('CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL)');
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'item' } },
      { type: 'create_select_permission', args: { table: 'item', role: 'anon', permission: { columns: ['id', 'name'], filter: {} } } },
    ],
  });
  assert.equal(r.status, 200, r.text);

  await t.test('the webhook decides the session; a 401 closes with 4403', async () => {
    const denied = await TestSocket.open(e.url, PROTOCOL);
    denied.send({ type: 'connection_init', payload: { headers: { authorization: 'Bearer bad' } } });
    assert.equal((await denied.closed).code, 4403);
    const s = await connect(e, { authorization: 'Bearer good' });
    assert.equal(hook.requests.at(-1)?.headers.authorization, 'Bearer good');
    // the allow-list is on and empty: a non-admin subscription is refused like an HTTP query
    subscribe(s, '1', 'subscription { item { id } }');
    const err = await s.next();
    assert.equal(err.type, 'error');
    assert.deepEqual(err.payload[0], { extensions: { path: '$', code: 'validation-failed' }, message: 'query is not allowed' });
    s.close();
    await s.closed;
  });

  await t.test('admin subscriptions are not subject to the allow-list', async () => {
    const s = await connect(e);
    subscribe(s, '1', 'subscription { item { id } }');
    assert.deepEqual(await s.next(), { id: '1', type: 'next', payload: { data: { item: [] } } });
    s.close();
    await s.closed;
  });
});
