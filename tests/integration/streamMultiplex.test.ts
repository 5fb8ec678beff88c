/**
 * Streaming subscriptions multiplexed and change-driven, end to end with real WebSocket clients:
 * 100 streams of one query with different cursors each get their own rows once, in order, from
 * one statement per batch of streams per poll; idle streams run no statement; rows committed out
 * of cursor order (a sequence value taken by a transaction that commits after a later one, a
 * `now()` default of a transaction that began earlier) are delivered, in order; departed and
 * non-reading clients leave nothing behind.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestEngine } from './harness.js';
import { eventually, openTransportWs, TestSocket } from './subscriptionsClient.js';
import { liveQueryStats, wsLimits } from '../../src/subscriptions/index.js';

const ADMIN = { 'x-svc-admin-secret': 'adm' };
const STREAM = 'subscription ($after: Int!) { message_stream(batch_size: 5, cursor: {initial_value: {id: $after}}) { id } }';
const BATCH = 50;

/** Reads `id`'s messages until it saw `last`; returns the ids in order and the batch sizes. */
async function collect(s: TestSocket, byId: Map<string, number[][]>, ids: string[], last: (id: string) => number): Promise<void> {
  const done = () => ids.every((id) => (byId.get(id) ?? []).flat().at(-1) === last(id));
  while (!done()) {
    const m = await s.next(10_000);
    assert.equal(m.type, 'next', JSON.stringify(m));
    const rows = m.payload.data.message_stream.map((r: { id: number }) => r.id);
    if (!byId.has(m.id)) byId.set(m.id, []);
    byId.get(m.id)!.push(rows);
  }
}

test('multiplexed, change-driven streams', async (t) => {
  const e = await startTestEngine({ adminSecret: 'adm', liveQueries: { batchSize: BATCH, refetchIntervalMs: 1000, changePollIntervalMs: 50 } });
  t.after(() => e.stop());
  await e.runSql(`CREATE TABLE message (id serial PRIMARY KEY, body text NOT NULL DEFAULT 'x');
    INSERT INTO message (body) SELECT 'm' || g FROM generate_series(1, 120) g;
    CREATE TABLE event (at timestamptz PRIMARY KEY DEFAULT now(), body text NOT NULL);`);
  for (const table of ['message', 'event']) {
    const r = await e.query({ type: 'track_table', args: { table } });
    assert.equal(r.status, 200, r.text);
  }
  const stats = () => liveQueryStats(e.engine.ctx);
  const client = new pg.Client({ connectionString: e.databaseUrl });
  client.on('error', () => {}); // the database is dropped at the end
  await client.connect();
  /** Waits for `n` more reads of the change counters (time in which nothing should happen). */
  const reads = async (n: number) => {
    const target = stats().changeReads + n;
    await eventually(() => stats().changeReads >= target, 15_000, `${n} change reads`);
  };

  await t.test('100 streams, different cursors: own rows once, in order, one statement per batch of streams', async () => {
    const sockets = await Promise.all(Array.from({ length: 10 }, () => openTransportWs(e.url, ADMIN)));
    const byId = new Map<string, number[][]>();
    const after = (id: string) => Number(id.slice(1));
    sockets.forEach((s, i) => {
      for (let j = 0; j < 10; j++) s.send({ id: `s${i * 10 + j}`, type: 'subscribe', payload: { query: STREAM, variables: { after: i * 10 + j } } });
    });
    const idsOf = (i: number) => Array.from({ length: 10 }, (_, j) => `s${i * 10 + j}`);
    await Promise.all(sockets.map((s, i) => collect(s, byId, idsOf(i), () => 120)));
    assert.equal(stats().streams, 100);
    assert.equal(stats().streamPollers, 1, 'one statement for all 100');
    for (const [id, batches] of byId) {
      const want = Array.from({ length: 120 - after(id) }, (_, k) => after(id) + 1 + k);
      assert.deepEqual(batches.flat(), want, `${id}: its own rows, once, in order`);
      assert.ok(batches.every((b) => b.length <= 5), `${id}: batch_size respected`);
    }

    // idle: the tables do not change, nothing runs
    const idle = stats();
    await reads(20);
    for (const s of sockets) await s.none(0);
    assert.equal(stats().streamPolls, idle.streamPolls, 'no stream statement while idle');
    assert.equal(stats().streamMarks, idle.streamMarks, 'no observation while idle');

    // one new row: every stream gets it, from ceil(100 / batch) statements
    const before = stats();
    await e.runSql("INSERT INTO message (body) VALUES ('new')");
    const got = new Map<string, number[][]>();
    await Promise.all(sockets.map((s, i) => collect(s, got, idsOf(i), () => 121)));
    for (const [id, batches] of got) assert.deepEqual(batches, [[121]], id);
    await reads(4);
    assert.equal(stats().streamPolls - before.streamPolls, Math.ceil(100 / BATCH), 'one statement per batch of streams');
    assert.ok(stats().streamMarks - before.streamMarks <= 3, `observations: ${stats().streamMarks - before.streamMarks}`);

    // an update changes the table but moves no bound: no stream statement
    const beforeUpdate = stats();
    await e.runSql("UPDATE message SET body = 'changed' WHERE id = 3");
    await reads(6);
    assert.equal(stats().streamPolls, beforeUpdate.streamPolls);
    for (const s of sockets) await s.none(0);

    for (const s of sockets) s.close();
    await eventually(() => stats().streams === 0 && stats().streamPollers === 0, 15_000, () => `streams gone: ${JSON.stringify(stats())}`);
  });

  await t.test('DESC: committed rows downwards in batches, each once, later writes deliver nothing again', async () => {
    const s = await openTransportWs(e.url, ADMIN);
    s.send({ id: 'd', type: 'subscribe', payload: { query: 'subscription { message_stream(batch_size: 4, cursor: {initial_value: {id: 11}, ordering: DESC}) { id } }' } });
    const batches: number[][] = [];
    while (batches.flat().at(-1) !== 1) batches.push((await s.next(10_000)).payload.data.message_stream.map((r: { id: number }) => r.id));
    assert.deepEqual(batches, [[10, 9, 8, 7], [6, 5, 4, 3], [2, 1]]);
    await e.runSql("INSERT INTO message (body) VALUES ('above')");
    await reads(10);
    await s.none(0);
    s.close();
  });

  await t.test('a sequence value committed after a later one is delivered, in order', async () => {
    const s = await openTransportWs(e.url, ADMIN);
    const max = Number((await e.runSql('SELECT max(id) FROM message')).result[1][0]);
    s.send({ id: 'o', type: 'subscribe', payload: { query: STREAM, variables: { after: max } } });
    assert.deepEqual((await s.next()).payload.data.message_stream, []);
    await client.query('BEGIN');
    const early = Number((await client.query("INSERT INTO message (body) VALUES ('early') RETURNING id")).rows[0].id);
    await e.runSql("INSERT INTO message (body) VALUES ('late')");
    await reads(10);
    await s.none(0); // the later row waits for the open transaction
    await client.query('COMMIT');
    const byId = new Map<string, number[][]>();
    await collect(s, byId, ['o'], () => early + 1);
    assert.deepEqual(byId.get('o')!.flat(), [early, early + 1]);
    s.close();
  });

  await t.test('a now() cursor of a transaction that began before a later write is delivered, in order', async () => {
    const s = await openTransportWs(e.url, ADMIN);
    s.send({ id: 'n', type: 'subscribe', payload: { query: 'subscription { event_stream(batch_size: 10, cursor: {initial_value: {at: "2000-01-01T00:00:00Z"}}) { body } }' } });
    assert.deepEqual((await s.next()).payload.data.event_stream, []);
    await client.query('BEGIN');
    await client.query('SELECT now()'); // the transaction's now() is fixed; no transaction id yet
    await e.runSql("INSERT INTO event (body) VALUES ('second')");
    await reads(10);
    await s.none(0);
    await client.query("INSERT INTO event (body) VALUES ('first')");
    await client.query('COMMIT');
    const bodies: string[] = [];
    while (bodies.length < 2) bodies.push(...(await s.next(10_000)).payload.data.event_stream.map((r: { body: string }) => r.body));
    assert.deepEqual(bodies, ['first', 'second']);
    s.close();
  });

  await t.test('300 subscriptions sent at once on one connection, right behind connection_init (as a reconnecting client does)', async () => {
    const s = await TestSocket.open(e.url, 'graphql-transport-ws');
    s.send({ type: 'connection_init', payload: { headers: ADMIN } });
    for (let i = 0; i < 300; i++) s.send({ id: `r${i}`, type: 'subscribe', payload: { query: STREAM, variables: { after: 100_000 + i } } });
    assert.equal((await s.next()).type, 'connection_ack');
    const seen = new Set<string>();
    while (seen.size < 300) {
      const m = await s.next(10_000);
      assert.equal(m.type, 'next', JSON.stringify(m));
      assert.deepEqual(m.payload.data.message_stream, []);
      seen.add(m.id);
    }
    assert.equal(stats().streams, 300);
    s.close();
    await eventually(() => stats().streams === 0, 15_000, 'the 300 streams to go');
  });

  await t.test('departed clients: a disconnect frees its streams; a client that stops reading is closed, others go on', async () => {
    await eventually(() => stats().streams === 0, 15_000, 'earlier streams to go');
    const gone = await openTransportWs(e.url, ADMIN);
    for (let i = 0; i < 20; i++) gone.send({ id: `g${i}`, type: 'subscribe', payload: { query: STREAM, variables: { after: 200 + i } } });
    for (let i = 0; i < 20; i++) await gone.next();
    assert.equal(stats().streams, 20);
    gone.ws.terminate();
    await eventually(() => stats().streams === 0 && stats().streamPollers === 0 && stats().connections === 0, 15_000, () => `freed: ${JSON.stringify(stats())}`);

    const saved = wsLimits.maxBufferedBytes;
    wsLimits.maxBufferedBytes = 256 * 1024;
    t.after(() => (wsLimits.maxBufferedBytes = saved));
    const q = 'subscription ($after: Int!) { message_stream(batch_size: 10, cursor: {initial_value: {id: $after}}) { id body } }';
    const max = Number((await e.runSql('SELECT max(id) FROM message')).result[1][0]);
    const slow = await openTransportWs(e.url, ADMIN);
    const fast = await openTransportWs(e.url, ADMIN);
    slow.send({ id: 's', type: 'subscribe', payload: { query: q, variables: { after: max } } });
    fast.send({ id: 'f', type: 'subscribe', payload: { query: q, variables: { after: max } } });
    await slow.next();
    await fast.next();
    (slow.ws as any)._socket.pause();
    for (let i = 0; i < 60 && stats().connections === 2; i++) {
      await e.runSql(`INSERT INTO message (body) SELECT repeat('${i % 10}', 200000) FROM generate_series(1, 5)`);
      let n = 0;
      while (n < 5) n += (await fast.next(10_000)).payload.data.message_stream.length;
    }
    assert.equal(stats().connections, 1, 'the client that stopped reading was closed');
    assert.equal(stats().streams, 1, 'its stream is gone');
    await e.runSql("INSERT INTO message (body) VALUES ('small')");
    assert.deepEqual((await fast.next(10_000)).payload.data.message_stream.map((r: { body: string }) => r.body), ['small']);
    fast.close();
    slow.ws.terminate();
    await eventually(() => stats().streams === 0 && stats().connections === 0 && stats().timers === 0, 15_000, () => `freed: ${JSON.stringify(stats())}`);
  });
  await client.end();
});
