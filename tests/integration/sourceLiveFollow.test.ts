/**
 * Live queries over several databases (tests/support/threeSources.ts: `default`, `shop` behind
 * PgBouncer, `archive` with a streaming standby), with the refetch interval set to a minute so that
 * every update seen within seconds came from the change counters:
 * - a live query joining all three sources (author → books → reviews) answers again when any of
 *   them changes, and runs nothing while they are idle;
 * - `archive`'s live query is served by its standby (pg_stat_statements on both servers), its
 *   reruns included;
 * - `shop` stopped with pg_ctl: its live query is sent Hasura's error, and its data again once the
 *   server is back, without a restart;
 * - `shop`'s live query follows pg_update_source (a new pool), reload_metadata and rename_source,
 *   and ends with Hasura's error when the source is dropped.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually } from '../support/eventReceiver.js';
import { sqlOn } from '../support/standbyPostgres.js';
import { startThreeSources, type ThreeSources } from '../support/threeSources.js';
import { TestSocket } from './subscriptionsClient.js';
import { liveQueryStats } from '../../src/subscriptions/index.js';

const REFETCH_MS = 60_000;
let three: ThreeSources;

before(async () => {
  three = await startThreeSources({ engine: { liveQueries: { batchSize: 100, refetchIntervalMs: REFETCH_MS, changePollIntervalMs: 50 } } });
});
after(() => three?.stop());

const stats = () => liveQueryStats(three.engine.engine.ctx);

async function open(): Promise<TestSocket> {
  const ws = await TestSocket.open(three.engine.url, 'graphql-transport-ws');
  ws.send({ type: 'connection_init', payload: {} });
  assert.equal((await ws.next()).type, 'connection_ack');
  return ws;
}

/** The next message of operation `id` (within `ms`); messages of other operations are not expected. */
async function nextOf(ws: TestSocket, id: string, ms = 10_000): Promise<any> {
  const m = await ws.next(ms);
  assert.equal(m.id, id, JSON.stringify(m));
  return m;
}

/** The next message of `id`, which must be data (not an error). */
async function dataOf(ws: TestSocket, id: string, ms = 10_000): Promise<any> {
  const m = await nextOf(ws, id, ms);
  assert.equal(m.type, 'next', JSON.stringify(m));
  assert.equal(m.payload.errors, undefined, JSON.stringify(m));
  return m.payload.data;
}

async function ok(body: unknown): Promise<void> {
  const r = await three.metadata(body);
  assert.equal(r.status, 200, r.text);
}

test('a live query joining three databases answers again when any of them changes, and reads nothing while idle', { timeout: 90_000 }, async () => {
  await ok({ type: 'pg_create_remote_relationship', args: { source: 'default', table: 'author', name: 'books',
    definition: { to_source: { source: 'shop', table: 'book', relationship_type: 'array', field_mapping: { id: 'author_id' } } } } });
  await ok({ type: 'pg_create_remote_relationship', args: { source: 'shop', table: 'book', name: 'reviews',
    definition: { to_source: { source: 'archive', table: 'review', relationship_type: 'array', field_mapping: { id: 'book_id' } } } } });
  const ws = await open();
  try {
    ws.send({ id: 'j', type: 'subscribe', payload: { query: 'subscription { author(where: {id: {_eq: 1}}) { name books(order_by: {id: asc}) { title reviews(order_by: {id: asc}) { stars } } } }' } });
    const first = await nextOf(ws, 'j');
    assert.deepEqual(first.payload, { data: { author: [{ name: 'Ann', books: [{ title: 'Blue', reviews: [{ stars: 5 }, { stars: 4 }] }, { title: 'Red', reviews: [] }] }] } });
    assert.equal(stats().joinedChangeDriven, 1, JSON.stringify(stats()));
    // The change triggers are on the tables of all three databases.
    for (const [url, table] of [[three.shop.directUrl, 'book'], [three.archive.url, 'review']] as const) {
      const t = await sqlOn(url, `SELECT count(*)::int AS n FROM pg_trigger WHERE tgrelid = 'public.${table}'::regclass AND tgname LIKE 'svc_live%'`);
      assert.ok(t[0].n >= 1, `${table}: ${JSON.stringify(t)}`);
    }

    // Idle: the counter reads go on, the joined query does not run.
    const settled = stats().changeReads;
    await eventually(() => stats().changeReads, (n) => n >= settled + 4, 20_000, 'counter reads');
    const runs = stats().joinedRuns;
    const reads = stats().changeReads;
    await eventually(() => stats().changeReads, (n) => n >= reads + 8, 20_000, 'more counter reads');
    assert.equal(stats().joinedRuns, runs, 'no run while nothing changed');

    const t0 = Date.now();
    // shop's server straight (not through the engine or PgBouncer): the joined rows of the first level.
    await sqlOn(three.shop.directUrl, "UPDATE book SET title = 'Navy' WHERE id = 11");
    assert.deepEqual((await dataOf(ws, 'j')).author[0].books[1], { title: 'Navy', reviews: [] });
    // archive's primary: the second level.
    await sqlOn(three.archive.url, 'INSERT INTO review (book_id, stars) VALUES (11, 1)');
    assert.deepEqual((await dataOf(ws, 'j')).author[0].books[1], { title: 'Navy', reviews: [{ stars: 1 }] });
    // default: the root rows.
    await three.engine.runSql("UPDATE author SET name = 'Ana' WHERE id = 1");
    assert.equal((await dataOf(ws, 'j')).author[0].name, 'Ana');
    assert.ok(Date.now() - t0 < REFETCH_MS / 2, `three updates took ${Date.now() - t0} ms (refetch interval ${REFETCH_MS} ms)`);
  } finally {
    ws.ws.close();
    await ok({ type: 'pg_delete_remote_relationship', args: { source: 'default', table: 'author', name: 'books' } });
    await ok({ type: 'pg_delete_remote_relationship', args: { source: 'shop', table: 'book', name: 'reviews' } });
  }
});

test("a source's live query is served by its read replica, its reruns too", { timeout: 60_000 }, async () => {
  const { url, standbyUrl } = three.archive;
  await sqlOn(url, 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  await eventually(() => sqlOn(standbyUrl, "SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_stat_statements'"), (r) => r[0].n === 1, 10_000, 'the extension on the standby');
  await sqlOn(url, 'SELECT pg_stat_statements_reset()');
  await sqlOn(standbyUrl, 'SELECT pg_stat_statements_reset()');
  // The multiplexed statements of review (unnest of the cohorts).
  const calls = async (on: string) => (await sqlOn(on, `SELECT coalesce(sum(calls), 0)::int AS n FROM pg_stat_statements WHERE query ~* '^\\s*select' AND query ~ 'unnest' AND query ~ '"review"'`))[0].n as number;
  const ws = await open();
  try {
    ws.send({ id: 'r', type: 'subscribe', payload: { query: 'subscription { archive_review(where: {book_id: {_eq: 12}}, order_by: {id: asc}) { stars } }' } });
    assert.deepEqual((await nextOf(ws, 'r')).payload, { data: { archive_review: [{ stars: 3 }] } });
    await sqlOn(url, 'INSERT INTO review (book_id, stars) VALUES (12, 2)');
    assert.deepEqual((await nextOf(ws, 'r')).payload, { data: { archive_review: [{ stars: 3 }, { stars: 2 }] } });
    assert.ok(await calls(standbyUrl) >= 2, `the standby ran ${await calls(standbyUrl)} live statements`);
    assert.equal(await calls(url), 0, 'the primary ran none');
  } finally {
    ws.ws.close();
  }
});

test('a source stopped with pg_ctl: its live query gets the error, then its data again when it is back', { timeout: 90_000 }, async () => {
  const ws = await open();
  try {
    ws.send({ id: 's', type: 'subscribe', payload: { query: 'subscription { shop_book(where: {author_id: {_eq: 2}}, order_by: {id: asc}) { title } }' } });
    assert.deepEqual((await nextOf(ws, 's')).payload, { data: { shop_book: [{ title: 'Green' }] } });
    three.shop.server.halt();
    await eventually(() => three.engine.engine.ctx.sources!.outages().has('shop'), Boolean, 20_000, 'shop away');
    // Errors in Hasura's shape (a read cut off by the stop may come first), then the one of a source away.
    for (;;) {
      const m = await nextOf(ws, 's', 30_000);
      assert.equal(m.type, 'next', JSON.stringify(m));
      assert.equal(m.payload.data, null, JSON.stringify(m));
      assert.equal(typeof m.payload.errors[0].extensions.code, 'string', JSON.stringify(m));
      if (m.payload.errors[0].message !== 'database connection error') continue;
      assert.equal(m.payload.errors[0].extensions.code, 'database-error', JSON.stringify(m));
      break;
    }
    three.shop.server.start();
    assert.deepEqual((await nextOf(ws, 's', 30_000)).payload, { data: { shop_book: [{ title: 'Green' }] } });
    await sqlOn(three.shop.directUrl, "INSERT INTO book VALUES (15, 2, 'Lime')");
    assert.deepEqual((await nextOf(ws, 's')).payload, { data: { shop_book: [{ title: 'Green' }, { title: 'Lime' }] } });
  } finally {
    ws.ws.close();
  }
});

test("a source's live query follows pg_update_source, reload_metadata and rename_source, and ends with the error of pg_drop_source", { timeout: 90_000 }, async () => {
  const ws = await open();
  try {
    ws.send({ id: 'u', type: 'subscribe', payload: { query: 'subscription { shop_book(where: {author_id: {_eq: 1}}, order_by: {id: asc}) { id } }' } });
    assert.deepEqual((await nextOf(ws, 'u')).payload, { data: { shop_book: [{ id: 10 }, { id: 11 }] } });
    const before = three.engine.engine.ctx.sources!.get('shop')!.db;

    // New pool settings: a new pool, the old one closed.
    const shop = (await three.exportMetadata()).sources.find((s: any) => s.name === 'shop');
    await ok({ type: 'pg_update_source', args: { name: 'shop', configuration: { ...shop.configuration, connection_info: { ...shop.configuration.connection_info, pool_settings: { max_connections: 5 } } } } });
    assert.notEqual(three.engine.engine.ctx.sources!.get('shop')!.db, before, 'a new pool');
    let id = 20;
    const write = async () => {
      id++;
      await sqlOn(three.shop.directUrl, `INSERT INTO book VALUES (${id}, 1, 'New')`);
      const data = await dataOf(ws, 'u');
      assert.deepEqual(data.shop_book.at(-1), { id }, JSON.stringify(data));
    };
    await write();

    await ok({ type: 'reload_metadata', args: { reload_sources: true } });
    await write();

    await ok({ type: 'rename_source', args: { name: 'shop', new_name: 'store' } });
    await write();

    await ok({ type: 'pg_drop_source', args: { name: 'store' } });
    const end = await nextOf(ws, 'u');
    assert.equal(end.type, 'error', JSON.stringify(end));
    assert.equal(end.payload[0].extensions.code, 'validation-failed', JSON.stringify(end));
    assert.match(end.payload[0].message, /shop_book/, JSON.stringify(end));
  } finally {
    ws.ws.close();
  }
});
