/**
 * Streaming subscriptions (`<t>_stream`, as Hasura v2), end to end with real WebSocket clients in
 * both sub-protocols: the schema's types, rows delivered once in cursor order in batches, DESC
 * ordering, the role's filter and columns, resuming from the last cursor on another engine, bad
 * cursors refused, and a stream that survives a metadata change.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine } from './harness.js';
import { eventually, openTransportWs, TestSocket } from './subscriptionsClient.js';
import { liveQueryStats } from '../../src/subscriptions/index.js';
import { nowSeconds, signJwt, svcClaims } from '../support/jwt.js';

const KEY = 'streaming-test-secret-0123456789abcdef';
const ADMIN = { 'x-svc-admin-secret': 'adm' };
const userToken = (userId: string) =>
  `Bearer ${signJwt({ ...svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': userId } }), exp: nowSeconds() + 3600 }, { alg: 'HS256', key: KEY })}`;

const STREAM = 'subscription ($after: Int!, $n: Int!) { message_stream(batch_size: $n, cursor: {initial_value: {id: $after}}) { id body } }';

test('streaming subscriptions', async (t) => {
  const opts = { adminSecret: 'adm', jwtSecret: { type: 'HS256' as const, key: KEY }, liveQueries: { batchSize: 100, refetchIntervalMs: 200, changePollIntervalMs: 50 } };
  const e = await startTestEngine(opts);
  t.after(() => e.stop());
  await e.runSql(`CREATE TABLE message (id serial PRIMARY KEY, room int NOT NULL, body text NOT NULL, secret text);
    INSERT INTO message (room, body) SELECT 1 + g % 2, 'm' || g FROM generate_series(1, 5) g;`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'message' } },
      { type: 'create_select_permission', args: { table: 'message', role: 'user', permission: { columns: ['id', 'body'], filter: { room: { _eq: 'X-Svc-User-Id' } } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  const insert = (body: string, room = 1) => e.runSql(`INSERT INTO message (room, body) VALUES (${room}, '${body}')`);

  await t.test('the schema has <t>_stream with the cursor types', async () => {
    const q = await e.graphql(`{ __type(name: "subscription_root") { fields { name args { name type { kind name ofType { kind name ofType { name } } } } } }
      c: __type(name: "message_stream_cursor_input") { inputFields { name type { kind name ofType { name } } } }
      v: __type(name: "message_stream_cursor_value_input") { inputFields { name } }
      o: __type(name: "cursor_ordering") { enumValues { name } } }`);
    const f = q.body.data.__type.fields.find((x: any) => x.name === 'message_stream');
    assert.deepEqual(f.args.map((a: any) => a.name), ['batch_size', 'cursor', 'where']);
    assert.deepEqual(f.args[1].type, { kind: 'NON_NULL', name: null, ofType: { kind: 'LIST', name: null, ofType: { name: 'message_stream_cursor_input' } } });
    assert.deepEqual(q.body.data.c.inputFields.map((x: any) => x.name), ['initial_value', 'ordering']);
    assert.deepEqual(q.body.data.v.inputFields.map((x: any) => x.name), ['id', 'room', 'body', 'secret']);
    assert.deepEqual(q.body.data.o.enumValues.map((x: any) => x.name), ['ASC', 'DESC']);
    const noQuery = await e.graphql('{ message_stream(batch_size: 1, cursor: {initial_value: {id: 0}}) { id } }');
    assert.equal(noQuery.body.errors[0].extensions.code, 'validation-failed');
  });

  for (const protocol of ['graphql-transport-ws', 'graphql-ws'] as const) {
    await t.test(`${protocol}: batches in cursor order, each row once, new rows as they come`, async () => {
      const s = await TestSocket.open(e.url, protocol);
      s.send({ type: 'connection_init', payload: { headers: ADMIN } });
      assert.equal((await s.next()).type, 'connection_ack');
      s.send({ id: 's', type: protocol === 'graphql-ws' ? 'start' : 'subscribe', payload: { query: STREAM, variables: { after: 0, n: 2 } } });
      const all: number[] = (await e.runSql('SELECT id FROM message ORDER BY id')).result.slice(1).map((x: string[]) => Number(x[0]));
      const ids: number[] = [];
      const batches: number[] = [];
      while (ids.length < all.length) {
        const m = await s.next();
        assert.equal(m.type, protocol === 'graphql-ws' ? 'data' : 'next', JSON.stringify(m));
        const rows = m.payload.data.message_stream;
        batches.push(rows.length);
        ids.push(...rows.map((x: any) => x.id));
      }
      assert.deepEqual(ids, all);
      assert.deepEqual(batches, all.map((_, i) => i).filter((i) => i % 2 === 0).map((i) => Math.min(2, all.length - i)));
      await s.none(300);
      const before = (await e.runSql('SELECT max(id) FROM message')).result[1][0];
      await insert('later');
      const m = await s.next();
      assert.deepEqual(m.payload.data.message_stream, [{ id: Number(before) + 1, body: 'later' }]);
      await s.none(300);
      s.close();
      await s.closed;
    });
  }

  await t.test('DESC streams downwards; where and the role filter apply; hidden columns are not cursors', async () => {
    const s = await openTransportWs(e.url, ADMIN);
    s.send({ id: 'd', type: 'subscribe', payload: { query: 'subscription { message_stream(batch_size: 10, cursor: {initial_value: {id: 4}, ordering: DESC}, where: {room: {_eq: 2}}) { id } }' } });
    assert.deepEqual((await s.next()).payload.data.message_stream, [{ id: 3 }, { id: 1 }]);
    s.close();
    const u = await openTransportWs(e.url, { authorization: userToken('1') });
    u.send({ id: 'u', type: 'subscribe', payload: { query: STREAM, variables: { after: 0, n: 100 } } });
    const rows = (await u.next()).payload.data.message_stream;
    const room1: number[] = (await e.runSql('SELECT id FROM message WHERE room = 1 ORDER BY id')).result.slice(1).map((x: string[]) => Number(x[0]));
    assert.deepEqual(rows.map((x: any) => x.id), room1);
    await insert('other room', 2);
    await insert('mine', 1);
    const next = (await u.next()).payload.data.message_stream;
    assert.deepEqual(next.map((x: any) => x.body), ['mine']);
    u.send({ id: 'bad', type: 'subscribe', payload: { query: 'subscription { message_stream(batch_size: 1, cursor: {initial_value: {room: 1}}) { id } }' } });
    const err = await u.next();
    assert.equal(err.type, 'error');
    assert.equal(err.payload[0].extensions.code, 'validation-failed');
    u.send({ id: 'two', type: 'subscribe', payload: { query: 'subscription { message_stream(batch_size: 1, cursor: {initial_value: {id: 1, body: "x"}}) { id } }' } });
    const two = await u.next();
    assert.equal(two.type, 'error');
    assert.match(two.payload[0].message, /exactly one column/);
    u.close();
    await u.closed;
  });

  await t.test('resumable from the last cursor on another engine', async () => {
    const a = await openTransportWs(e.url, ADMIN);
    a.send({ id: 'a', type: 'subscribe', payload: { query: STREAM, variables: { after: 0, n: 1000 } } });
    const seen = (await a.next()).payload.data.message_stream.map((x: any) => x.id);
    a.close();
    await a.closed;
    const last = seen.at(-1);
    const e2 = await startTestEngine({ ...opts, databaseUrl: e.databaseUrl });
    t.after(() => e2.stop());
    await insert('after reconnect');
    const b = await openTransportWs(e2.url, ADMIN);
    b.send({ id: 'b', type: 'subscribe', payload: { query: STREAM, variables: { after: last, n: 1000 } } });
    assert.deepEqual((await b.next()).payload.data.message_stream.map((x: any) => x.body), ['after reconnect']);
    b.close();
    await b.closed;
  });

  await t.test('a stream started after the last one on its column ended gets the rows written in between', async () => {
    const max = Number((await e.runSql('SELECT max(id) FROM message')).result[1][0]);
    const a = await openTransportWs(e.url, ADMIN);
    a.send({ id: 'a', type: 'subscribe', payload: { query: STREAM, variables: { after: max, n: 10 } } });
    assert.deepEqual((await a.next()).payload.data.message_stream, []);
    a.send({ id: 'a', type: 'complete' });
    await eventually(() => liveQueryStats(e.engine.ctx).streams === 0, 10_000, 'the stream to stop');
    // A live query on the table sees the write first, so the change has been read when the stream starts.
    a.send({ id: 'live', type: 'subscribe', payload: { query: 'subscription { message_aggregate { aggregate { count } } }' } });
    const before = (await a.next()).payload.data.message_aggregate.aggregate.count;
    await insert('while nobody streamed');
    assert.equal((await a.next(10_000)).payload.data.message_aggregate.aggregate.count, before + 1);
    // (the live query stays: the change watcher keeps running and does not report the write again)
    a.send({ id: 'b', type: 'subscribe', payload: { query: STREAM, variables: { after: max, n: 10 } } });
    let rows: any[] = [];
    while (rows.length === 0) {
      const m = await a.next(10_000);
      if (m.id === 'b') rows = m.payload.data.message_stream;
    }
    assert.deepEqual(rows.map((x: any) => x.body), ['while nobody streamed'], 'not held back by the bound observed before the write');
    a.send({ id: 'live', type: 'complete' });
    a.close();
    await a.closed;
  });

  await t.test('a metadata change re-plans the stream, which continues from its cursor; a stopped stream leaves nothing', async () => {
    const s = await openTransportWs(e.url, ADMIN);
    const max = Number((await e.runSql('SELECT max(id) FROM message')).result[1][0]);
    s.send({ id: 'm', type: 'subscribe', payload: { query: STREAM, variables: { after: max, n: 10 } } });
    assert.deepEqual((await s.next()).payload.data.message_stream, []);
    const c = await e.query({ type: 'set_table_custom_fields', args: { table: 'message', custom_column_names: { secret: 'hidden' } } });
    assert.equal(c.status, 200, c.text);
    await insert('after change');
    assert.deepEqual((await s.next()).payload.data.message_stream.map((x: any) => x.body), ['after change']);
    await s.none(300);
    s.send({ id: 'm', type: 'complete' });
    await eventually(() => liveQueryStats(e.engine.ctx).streams === 0, 10_000, 'the stream to stop');
    s.close();
    await s.closed;
  });
});
