/**
 * Subscriptions over `graphql-ws` (Apollo subscriptions-transport-ws, as Hasura v1.3), end to end
 * with a real WebSocket client: connection_init/ack/ka, live results pushed only on change,
 * multiplexing (one statement per batch of cohorts), permissions, auth failures, bad messages,
 * stop, JWT expiry, queries and mutations over the socket, slow clients, and the cleanup of every
 * poller, cohort and timer once the clients are gone. Refetch interval: 100 ms.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket, eventually } from './subscriptionsClient.js';
import { liveQueryStats, wsLimits } from '../../src/subscriptions/index.js';
import { nowSeconds, signJwt, svcClaims } from '../support/jwt.js';

const KEY = 'subscriptions-test-secret-0123456789abcdef';
const ADMIN = { 'x-svc-admin-secret': 'adm' };
const INTERVAL = 100;

async function seed(e: TestEngine): Promise<void> {
  await e.runSql(`CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int NOT NULL, body text);
    INSERT INTO article (title, author_id) VALUES ('a1', 1), ('a2', 1), ('b1', 2);
    CREATE FUNCTION articles_by(author int) RETURNS SETOF article AS $$ SELECT * FROM article WHERE author_id = author $$ LANGUAGE sql STABLE;`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'article' } },
      { type: 'track_function', args: { schema: 'public', name: 'articles_by' } },
      { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
}

const userToken = (userId: string, extra: Record<string, unknown> = {}) =>
  `Bearer ${signJwt({ ...svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': userId } }), ...extra }, { alg: 'HS256', key: KEY })}`;

/** An initialised graphql-ws connection (ack and the first ka consumed). */
async function connect(e: TestEngine, headers: Record<string, string> = ADMIN, path?: string): Promise<TestSocket> {
  const s = await TestSocket.open(e.url, 'graphql-ws', path);
  s.send({ type: 'connection_init', payload: { headers } });
  assert.deepEqual(await s.next(), { type: 'connection_ack' });
  assert.deepEqual(await s.next(3000, false), { type: 'ka' });
  return s;
}

const start = (s: TestSocket, id: string, query: string, variables?: Record<string, unknown>) =>
  s.send({ type: 'start', id, payload: { query, variables } });

test('subscriptions over graphql-ws', async (t) => {
  const e = await startTestEngine({
    adminSecret: 'adm', jwtSecret: { type: 'HS256', key: KEY }, jwtLeewaySeconds: 0,
    liveQueries: { batchSize: 2, refetchIntervalMs: INTERVAL, changePollIntervalMs: 50 },
  });
  t.after(() => e.stop());
  await seed(e);
  const stats = () => liveQueryStats(e.engine.ctx);

  await t.test('the sub-protocol is graphql-ws; connection_init → connection_ack, then ka', async () => {
    const s = await connect(e);
    assert.equal(s.ws.protocol, 'graphql-ws');
    s.close();
    await s.closed;
  });

  await t.test('data on start; an update pushes a new result; no message while unchanged', async () => {
    const s = await connect(e);
    start(s, '1', 'subscription { article(order_by: {id: asc}) { id title } }');
    assert.deepEqual(await s.next(), {
      type: 'data', id: '1',
      payload: { data: { article: [{ id: 1, title: 'a1' }, { id: 2, title: 'a2' }, { id: 3, title: 'b1' }] } },
    });
    await s.none(INTERVAL * 4);
    const t0 = Date.now();
    await e.graphql('mutation { update_article_by_pk(pk_columns: {id: 2}, _set: {title: "a2 edited"}) { id } }');
    const m = await s.next();
    assert.ok(Date.now() - t0 < INTERVAL * 5, `pushed after ${Date.now() - t0} ms`);
    assert.deepEqual(m.payload.data.article[1], { id: 2, title: 'a2 edited' });
    await s.none(INTERVAL * 4);
    s.close();
    await s.closed;
  });

  await t.test('<t>_by_pk, <t>_aggregate and function fields, with variables', async () => {
    const s = await connect(e);
    start(s, 'pk', 'subscription ($id: Int!) { article_by_pk(id: $id) { title } }', { id: 3 });
    start(s, 'agg', 'subscription ($a: Int!) { article_aggregate(where: {author_id: {_eq: $a}}) { aggregate { count } } }', { a: 1 });
    start(s, 'fn', 'subscription { articles_by(args: {author: 2}) { id } }');
    const got = new Map<string, any>();
    for (let i = 0; i < 3; i++) {
      const m = await s.next();
      got.set(m.id, m.payload);
    }
    assert.deepEqual(got.get('pk'), { data: { article_by_pk: { title: 'b1' } } });
    assert.deepEqual(got.get('agg'), { data: { article_aggregate: { aggregate: { count: 2 } } } });
    assert.deepEqual(got.get('fn'), { data: { articles_by: [{ id: 3 }] } });
    await e.runSql("INSERT INTO article (id, title, author_id) VALUES (10, 'a3', 1)");
    const m = await s.next();
    assert.equal(m.id, 'agg');
    assert.deepEqual(m.payload, { data: { article_aggregate: { aggregate: { count: 3 } } } });
    await s.none(INTERVAL * 3);
    await e.runSql('DELETE FROM article WHERE id = 10');
    assert.equal((await s.next()).id, 'agg');
    s.close();
    await s.closed;
  });

  await t.test('multiplexing: one poller per query, one cohort per distinct values, one statement per batch', async () => {
    const s = await connect(e);
    const q = 'subscription ($id: Int!) { article_by_pk(id: $id) { id title } }';
    start(s, 'a', q, { id: 1 });
    start(s, 'b', q, { id: 2 });
    start(s, 'c', q, { id: 3 });
    start(s, 'd', q, { id: 1 });
    for (let i = 0; i < 4; i++) await s.next();
    const st = stats();
    assert.equal(st.pollers, 1);
    assert.equal(st.cohorts, 3);
    assert.equal(st.subscribers, 4);
    assert.equal(st.changeDriven, 1);
    // Nothing changes: the change counters are read, the multiplexed statement never runs.
    // (The first read of a newly watched table counts as a change: one round, awaited by count.)
    const reads0 = stats().changeReads;
    await eventually(() => stats().changeReads - reads0 >= 3, 30_000, '3 reads of the change counters');
    const before = stats().polls;
    const reads1 = stats().changeReads;
    await eventually(() => stats().changeReads - reads1 >= 5, 30_000, '5 more reads of the change counters');
    await s.none(INTERVAL);
    assert.equal(stats().polls, before, 'no multiplexed statement while nothing changed');
    await e.runSql("UPDATE article SET title = 'a1!' WHERE id = 1");
    const pushed = [await s.next(), await s.next()].map((m) => m.id).sort();
    assert.deepEqual(pushed, ['a', 'd']);
    // the change touched one cohort's row: one statement, for that cohort alone
    assert.equal(stats().polls - before, 1);
    // batch size 2: a write touching all three cohorts' rows → one round of two statements (the
    // results are unchanged: nothing is pushed)
    await e.runSql('UPDATE article SET title = title WHERE id IN (1, 2, 3)');
    await eventually(() => stats().polls - before === 3, 30_000, 'a round of two statements');
    await s.none(INTERVAL * 3);
    assert.equal(stats().polls - before, 3);
    s.close();
    await s.closed;
  });

  await t.test('explain of a subscription shows the multiplexed statement and its plan', async () => {
    const r = await e.request('POST', '/v1/graphql/explain', { query: { query: 'subscription ($id: Int!) { article_by_pk(id: $id) { id } }', variables: { id: 1 } } });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.sql, /FROM unnest\(\$1::"_uuid", \$2::"_json"\) AS "_subs"\("result_id", "result_vars"\)/);
    assert.match(r.body.sql, /\("_subs"\."result_vars"->>0\)::"int4"/);
    assert.ok(r.body.plan.length > 0);
  });

  await t.test('permissions filter live results (JWT session variables)', async () => {
    const s = await connect(e, { authorization: userToken('2') });
    start(s, '1', 'subscription { article(order_by: {id: asc}) { id title } }');
    assert.deepEqual((await s.next()).payload, { data: { article: [{ id: 3, title: 'b1' }] } });
    await e.runSql("UPDATE article SET title = 'not yours' WHERE id = 1");
    await s.none(INTERVAL * 4);
    await e.runSql("UPDATE article SET title = 'b1 edited' WHERE id = 3");
    assert.deepEqual((await s.next()).payload, { data: { article: [{ id: 3, title: 'b1 edited' }] } });
    start(s, '2', 'subscription { article { body } }');
    const err = await s.next();
    assert.equal(err.type, 'error');
    assert.equal(err.payload.errors[0].extensions.code, 'validation-failed');
    assert.deepEqual(await s.next(), { type: 'complete', id: '2' });
    s.close();
    await s.closed;
  });

  await t.test('auth failure: connection_error, then starts are refused', async () => {
    const s = await TestSocket.open(e.url, 'graphql-ws');
    s.send({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'wrong' } } });
    assert.deepEqual(await s.next(), { type: 'connection_error', payload: 'invalid x-svc-admin-secret/x-svc-access-key' });
    start(s, '1', 'subscription { article { id } }');
    assert.deepEqual(await s.next(), {
      type: 'error', id: '1',
      payload: { extensions: { path: '$', code: 'start-failed' }, message: 'cannot start as connection_init failed with : invalid x-svc-admin-secret/x-svc-access-key' },
    });
    assert.deepEqual(await s.next(), { type: 'complete', id: '1' });
    s.send({ type: 'connection_init', payload: { headers: { authorization: 'Bearer not-a-jwt' } } });
    const m = await s.next();
    assert.equal(m.type, 'connection_error');
    assert.match(m.payload, /JWT|jwt|Authorization/);
    s.close();
    await s.closed;
  });

  await t.test('start before connection_init, duplicate ids and bad messages get errors, not a crash', async () => {
    const s = await TestSocket.open(e.url, 'graphql-ws');
    start(s, '1', 'subscription { article { id } }');
    assert.equal((await s.next()).payload.message, 'start received before the connection is initialised');
    assert.deepEqual(await s.next(), { type: 'complete', id: '1' });
    s.send('not json');
    const bad = await s.next();
    assert.equal(bad.type, 'connection_error');
    assert.match(bad.payload, /^parsing ClientMessage failed/);
    s.send({ type: 'bogus' });
    assert.equal((await s.next()).type, 'connection_error');
    s.send({ type: 'start', payload: { query: '{ article { id } }' } });
    assert.equal((await s.next()).type, 'connection_error');
    s.send({ type: 'connection_init', payload: { headers: ADMIN } });
    assert.deepEqual(await s.next(), { type: 'connection_ack' });
    s.send({ type: 'start', id: 'x', payload: { nope: 1 } });
    assert.equal((await s.next()).payload.errors[0].extensions.code, 'parse-failed');
    assert.deepEqual(await s.next(), { type: 'complete', id: 'x' });
    start(s, 'dup', 'subscription { article_by_pk(id: 1) { id } }');
    assert.equal((await s.next()).type, 'data');
    start(s, 'dup', 'subscription { article_by_pk(id: 2) { id } }');
    assert.equal((await s.next()).payload.message, 'an operation already exists with this id: dup');
    assert.deepEqual(await s.next(), { type: 'complete', id: 'dup' });
    start(s, 'v', 'subscription ($id: Int!) { article_by_pk(id: $id) { id } }', { id: 'abc' });
    const verr = await s.next();
    assert.equal(verr.type, 'error');
    const http = await e.graphql('query ($id: Int!) { article_by_pk(id: $id) { id } }', { id: 'abc' });
    assert.deepEqual(verr.payload.errors[0].extensions.code, http.body.errors[0].extensions.code);
    assert.deepEqual(await s.next(), { type: 'complete', id: 'v' });
    s.close();
    await s.closed;
  });

  await t.test('/v1alpha1/graphql errors keep the v1 error shape {path, error, code}', async () => {
    const s = await connect(e, ADMIN, '/v1alpha1/graphql');
    start(s, '1', 'subscription { nope { id } }');
    const m = await s.next();
    assert.equal(m.type, 'error');
    assert.deepEqual(Object.keys(m.payload).sort(), ['code', 'error', 'path']);
    s.close();
    await s.closed;
  });

  await t.test('stop ends a subscription: no more data, its cohort is gone', async () => {
    await eventually(() => stats().connections === 0, 15_000, 'earlier connections to go');
    const s = await connect(e);
    start(s, '1', 'subscription ($id: Int!) { article_by_pk(id: $id) { title } }', { id: 2 });
    await s.next();
    assert.equal(stats().cohorts, 1);
    s.send({ type: 'stop', id: '1' });
    await eventually(() => stats().cohorts === 0 && stats().pollers === 0, 15_000, 'the cohort to go');
    await e.runSql("UPDATE article SET title = 'after stop' WHERE id = 2");
    await s.none(INTERVAL * 4);
    s.send({ type: 'stop', id: 'unknown' });
    s.send({ type: 'connection_terminate' });
    const c = await s.closed;
    assert.equal(c.code, 1000);
  });

  await t.test('queries and mutations over the socket: data, then complete', async () => {
    const s = await connect(e);
    start(s, 'q', 'query { article_by_pk(id: 3) { id } }');
    assert.deepEqual(await s.next(), { type: 'data', id: 'q', payload: { data: { article_by_pk: { id: 3 } } } });
    assert.deepEqual(await s.next(), { type: 'complete', id: 'q' });
    start(s, 'm', 'mutation { insert_article_one(object: {title: "ws", author_id: 5}) { title author_id } }');
    assert.deepEqual(await s.next(), { type: 'data', id: 'm', payload: { data: { insert_article_one: { title: 'ws', author_id: 5 } } } });
    assert.deepEqual(await s.next(), { type: 'complete', id: 'm' });
    const r = await e.graphql('{ article(where: {title: {_eq: "ws"}}) { author_id } }');
    assert.deepEqual(r.body, { data: { article: [{ author_id: 5 }] } });
    start(s, 'bad', 'query { nope }');
    assert.equal((await s.next()).type, 'error');
    assert.deepEqual(await s.next(), { type: 'complete', id: 'bad' });
    s.close();
    await s.closed;
  });

  await t.test('a JWT expiry closes the connection', async () => {
    const s = await connect(e, { authorization: userToken('1', { exp: nowSeconds() + 2 }) });
    start(s, '1', 'subscription { article { id } }');
    await s.next();
    const t0 = Date.now();
    const c = await s.closed;
    assert.ok(Date.now() - t0 < 3500, `closed after ${Date.now() - t0} ms`);
    assert.equal(c.code, 1000);
    await eventually(() => stats().subscribers === 0, 15_000, 'the subscriber to go');
  });

  await t.test('a slow client is cut off and does not hold up others', async () => {
    const saved = wsLimits.maxBufferedBytes;
    wsLimits.maxBufferedBytes = 256 * 1024;
    t.after(() => (wsLimits.maxBufferedBytes = saved));
    await e.runSql("UPDATE article SET body = repeat('x', 1000000) WHERE id = 1");
    const q = 'subscription { article_by_pk(id: 1) { title body } }';
    const slow = await connect(e);
    const fast = await connect(e);
    start(slow, '1', q);
    start(fast, '1', q);
    await slow.next();
    await fast.next();
    (slow.ws as any)._socket.pause();
    const before = stats().connections;
    for (let i = 0; i < 40 && stats().connections === before; i++) {
      await e.runSql(`UPDATE article SET body = repeat('${i % 10}', 1000000) WHERE id = 1`);
      const m = await fast.next(3000);
      assert.equal(m.payload.data.article_by_pk.body[0], String(i % 10));
    }
    assert.equal(stats().connections, before - 1, 'the slow connection was dropped');
    await e.runSql("UPDATE article SET body = 'small' WHERE id = 1");
    assert.equal((await fast.next()).payload.data.article_by_pk.body, 'small');
    fast.close();
    await fast.closed;
    slow.ws.terminate();
  });

  await t.test('metadata changes re-plan running subscriptions: no duplicate, revoked permissions end them', async () => {
    const s = await connect(e, { authorization: userToken('2') });
    start(s, '1', 'subscription { article(order_by: {id: asc}) { id } }');
    assert.deepEqual((await s.next()).payload, { data: { article: [{ id: 3 }] } });
    await e.runSql('CREATE TABLE other (id int PRIMARY KEY)');
    const tracked = await e.query({ type: 'track_table', args: { schema: 'public', name: 'other' } });
    assert.equal(tracked.status, 200, tracked.text);
    await s.none(INTERVAL * 4);
    await e.runSql("INSERT INTO article (id, title, author_id) VALUES (20, 'b2', 2)");
    assert.deepEqual((await s.next()).payload, { data: { article: [{ id: 3 }, { id: 20 }] } });
    const dropped = await e.query({ type: 'drop_select_permission', args: { table: 'article', role: 'user' } });
    assert.equal(dropped.status, 200, dropped.text);
    const err = await s.next();
    assert.equal(err.type, 'error');
    assert.equal(err.payload.errors[0].extensions.code, 'validation-failed');
    assert.deepEqual(await s.next(), { type: 'complete', id: '1' });
    await eventually(() => stats().subscribers === 0, 15_000, 'the subscriber to go');
    const restored = await e.query({ type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } } });
    assert.equal(restored.status, 200, restored.text);
    await e.runSql('DELETE FROM article WHERE id = 20');
    s.close();
    await s.closed;
  });

  await t.test('disconnects free everything: 0 pollers, 0 cohorts, 0 timers', async () => {
    const sockets = await Promise.all(Array.from({ length: 6 }, (_, i) => connect(e, i % 2 ? ADMIN : { authorization: userToken(String(i)) })));
    sockets.forEach((s, i) => {
      start(s, 'a', 'subscription ($id: Int!) { article_by_pk(id: $id) { id } }', { id: i });
      start(s, 'b', 'subscription { article_aggregate { aggregate { count } } }');
    });
    // one also has a query in flight when it goes
    start(sockets[0]!, 'q', 'query { article { id } }');
    for (const s of sockets) {
      await s.next();
      await s.next();
    }
    // Conditions, not instants: under load a poller may be mid-round when the messages arrive.
    await eventually(() => {
      const busy = stats();
      return busy.connections === 6 && busy.pollers >= 2 && busy.cohorts >= 6 && busy.timers >= 3;
    }, 30_000, () => `all busy: ${JSON.stringify(stats())}`);
    sockets.forEach((s, i) => (i % 2 ? s.close() : s.ws.terminate()));
    await eventually(() => {
      const st = stats();
      return st.connections === 0 && st.pollers === 0 && st.cohorts === 0 && st.subscribers === 0 && st.timers === 0;
    }, 30_000, () => `everything freed: ${JSON.stringify(stats())}`);
    assert.deepEqual(stats().timers, 0);
  });
});
