/**
 * Live queries and streaming subscriptions on a source beside `default` are change-driven, against a
 * PG 15 cluster started here: the refetch interval is set to a minute, so an update seen within
 * seconds of another client's write came from the change counters, which live in that source's own
 * `hdb_catalog` (none of the source's tables carry triggers in the engine's database); untracking the
 * table removes its triggers there, and dropping the source leaves its database without `hdb_catalog`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSystemPostgres, type SystemPostgres } from '../support/systemPostgres.js';
import { sqlOn } from '../support/standbyPostgres.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';
import { liveQueryStats } from '../../src/subscriptions/index.js';

let cluster: SystemPostgres;
let e: TestEngine;
let url: string;
const REFETCH_MS = 60_000;

before(async () => {
  cluster = await startSystemPostgres();
  await sqlOn(cluster.url, 'CREATE DATABASE shop');
  url = cluster.url.replace(/\/postgres$/, '/shop');
  await sqlOn(url, "CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL); INSERT INTO item (name) VALUES ('a')");
  e = await startTestEngine({ liveQueries: { batchSize: 100, refetchIntervalMs: REFETCH_MS, changePollIntervalMs: 50 } });
  const post = (body: unknown) => e.request('POST', '/v1/metadata', body);
  const add = await post({ type: 'pg_add_source', args: { name: 'shop', configuration: { connection_info: { database_url: url } }, customization: { root_fields: { prefix: 'shop_' } } } });
  assert.equal(add.status, 200, add.text);
  const doc = (await post({ type: 'export_metadata', version: 2, args: {} })).body;
  doc.sources[1].tables = [{ table: { schema: 'public', name: 'item' } }];
  const replaced = await post({ type: 'replace_metadata', version: 2, args: { metadata: doc } });
  assert.equal(replaced.status, 200, replaced.text);
});

after(async () => {
  await e?.stop();
  cluster?.stop();
});

test('a live query and a stream on another source update on another client\'s write, long before the refetch interval', { timeout: 60_000 }, async () => {
  const ws = await TestSocket.open(e.url, 'graphql-transport-ws');
  try {
    ws.send({ type: 'connection_init', payload: {} });
    assert.equal((await ws.next()).type, 'connection_ack');
    ws.send({ id: 'live', type: 'subscribe', payload: { query: 'subscription { shop_item(order_by: {id: asc}) { name } }' } });
    const first = await ws.next();
    assert.deepEqual(first.payload?.data, { shop_item: [{ name: 'a' }] }, JSON.stringify(first));
    ws.send({ id: 'stream', type: 'subscribe', payload: { query: 'subscription { shop_item_stream(batch_size: 10, cursor: {initial_value: {id: 0}}) { id name } }' } });
    const firstBatch = await ws.next();
    assert.equal(firstBatch.id, 'stream', JSON.stringify(firstBatch));
    assert.deepEqual(firstBatch.payload?.data, { shop_item_stream: [{ id: 1, name: 'a' }] });

    // The counters and change triggers are in the source's database.
    const triggers = await sqlOn(url, "SELECT tgname FROM pg_trigger WHERE tgrelid = 'public.item'::regclass AND tgname LIKE 'svc_live%' ORDER BY 1");
    assert.ok(triggers.length >= 1, JSON.stringify(triggers));
    assert.deepEqual(await sqlOn(url, "SELECT to_regclass('hdb_catalog.svc_live_change') IS NOT NULL AS present"), [{ present: true }]);
    const stats = liveQueryStats(e.engine.ctx);
    assert.equal(stats.changeDriven, 1, JSON.stringify(stats));

    const t0 = Date.now();
    await sqlOn(url, "INSERT INTO item (name) VALUES ('b')");
    const got = new Map<string, any>();
    while (got.size < 2) {
      const m = await ws.next(10_000);
      got.set(m.id, m);
    }
    const elapsed = Date.now() - t0;
    assert.deepEqual(got.get('live').payload.data, { shop_item: [{ name: 'a' }, { name: 'b' }] });
    assert.deepEqual(got.get('stream').payload.data, { shop_item_stream: [{ id: 2, name: 'b' }] });
    assert.ok(elapsed < REFETCH_MS / 4, `updated after ${elapsed} ms (refetch interval ${REFETCH_MS} ms)`);
  } finally {
    ws.ws.close();
  }
});

test('untracking the table removes its change triggers from the source; dropping the source leaves no hdb_catalog there', { timeout: 60_000 }, async () => {
  const post = (body: unknown) => e.request('POST', '/v1/metadata', body);
  const doc = (await post({ type: 'export_metadata', version: 2, args: {} })).body;
  doc.sources[1].tables = [];
  assert.equal((await post({ type: 'replace_metadata', version: 2, args: { metadata: doc } })).status, 200);
  assert.deepEqual(await sqlOn(url, "SELECT count(*)::int AS n FROM pg_trigger WHERE tgname LIKE 'svc_live%'"), [{ n: 0 }]);
  const dropped = await post({ type: 'pg_drop_source', args: { name: 'shop' } });
  assert.equal(dropped.status, 200, dropped.text);
  assert.deepEqual(await sqlOn(url, "SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = 'hdb_catalog'"), [{ n: 0 }]);
});
