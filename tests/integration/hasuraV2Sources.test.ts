/**
 * Adopting a Hasura v2 project with two databases: the metadata database (also the `default` source,
 * Hasura's v2 catalog) and a second source on a PG 15 cluster started here, whose `hdb_catalog` holds
 * Hasura's per-source event log (fixtures/hasura-v2/source.sql) with an event Hasura captured but had
 * not delivered. With --adopt-hasura-catalog every source is imported and served; the pending event of
 * the second source is delivered from that source's own event log; Hasura's rows there are left as
 * they were (the history row byte for byte, the source catalog version row); Hasura's capture trigger
 * is replaced by the engine's, so a new write is captured once.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase, startTestEngine } from './harness.js';
import { AUTHORS_AND_ARTICLES, HASURA_V13_CATALOG, HASURA_V2_CATALOG, HASURA_V2_SOURCE_CATALOG, sql } from '../support/hasuraFixtures.js';
import { startSystemPostgres } from '../support/systemPostgres.js';
import { eventually, startEventReceiver } from '../support/eventReceiver.js';

const ENV = 'SVC_TEST_HASURA_SHOP_URL';

test('adopting a Hasura v2 project with two databases: both served, the second source\'s pending event delivered from its own event log, Hasura\'s rows untouched', { timeout: 120_000 }, async (t) => {
  const receiver = await startEventReceiver();
  t.after(() => receiver.stop());
  const cluster = await startSystemPostgres();
  t.after(() => cluster.stop());
  await sql(cluster.url, 'CREATE DATABASE shop');
  const shopUrl = cluster.url.replace(/\/postgres$/, '/shop');
  process.env[ENV] = shopUrl;
  t.after(() => {
    delete process.env[ENV];
  });
  await sql(shopUrl, HASURA_V2_SOURCE_CATALOG);
  await sql(shopUrl, `CREATE TABLE public.orders (id serial PRIMARY KEY, item text NOT NULL);
    CREATE FUNCTION hdb_catalog."notify_hasura_order_created_INSERT"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM hdb_catalog.insert_event_log(CAST(TG_TABLE_SCHEMA AS text), CAST(TG_TABLE_NAME AS text), 'order_created', TG_OP, json_build_object('old', NULL, 'new', row_to_json(NEW))); RETURN NULL; END $$;
    CREATE TRIGGER "notify_hasura_order_created_INSERT" AFTER INSERT ON public.orders FOR EACH ROW EXECUTE PROCEDURE hdb_catalog."notify_hasura_order_created_INSERT"();`);
  // What Hasura left: one order whose event it delivered (history), one whose event is pending.
  await sql(shopUrl, "INSERT INTO public.orders (item) VALUES ('delivered-by-hasura'), ('pending')");
  await sql(shopUrl, "UPDATE hdb_catalog.event_log SET delivered = true, tries = 1 WHERE payload->'data'->'new'->>'item' = 'delivered-by-hasura'");
  const historyBefore = await sql(shopUrl, "SELECT row_to_json(e)::text AS row FROM hdb_catalog.event_log e WHERE delivered");
  const versionBefore = await sql(shopUrl, 'SELECT version, upgraded_on::text FROM hdb_catalog.hdb_source_catalog_version');

  const db = await createTestDatabase('hv2sources');
  t.after(() => db.drop());
  await sql(db.url, HASURA_V13_CATALOG);
  await sql(db.url, HASURA_V2_CATALOG);
  await sql(db.url, AUTHORS_AND_ARTICLES);
  const doc = {
    version: 3,
    sources: [
      {
        name: 'default', kind: 'postgres',
        configuration: { connection_info: { database_url: { from_env: 'HASURA_GRAPHQL_DATABASE_URL' }, isolation_level: 'read-committed', use_prepared_statements: false } },
        tables: [{ table: { schema: 'public', name: 'author' } }],
      },
      {
        name: 'shop', kind: 'postgres',
        configuration: { connection_info: { database_url: { from_env: ENV }, isolation_level: 'read-committed', use_prepared_statements: false, pool_settings: { max_connections: 5 } } },
        tables: [{
          table: { schema: 'public', name: 'orders' },
          event_triggers: [{ name: 'order_created', definition: { enable_manual: false, insert: { columns: '*' } }, retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 }, webhook: receiver.url + '/orders' }],
        }],
      },
    ],
  };
  await sql(db.url, 'INSERT INTO hdb_catalog.hdb_metadata (id, metadata, resource_version) VALUES (1, $1, 3)', [JSON.stringify(doc)]);

  const engine = await startTestEngine({ databaseUrl: db.url, adoptHasuraCatalog: true, eventsFetchIntervalMs: 200 });
  t.after(() => engine.stop());

  // Both databases served.
  const q = await engine.graphql('{ author(order_by: {id: asc}) { name } orders(order_by: {id: asc}) { item } }');
  assert.deepEqual(q.body, { data: { author: [{ name: 'ada' }, { name: 'grace' }], orders: [{ item: 'delivered-by-hasura' }, { item: 'pending' }] } });
  const exported = (await engine.request('POST', '/v1/metadata', { type: 'export_metadata', version: 2, args: {} })).body;
  assert.deepEqual(exported.sources.map((s: any) => s.name), ['default', 'shop']);
  assert.deepEqual(exported.sources[1].tables[0].event_triggers.map((e: any) => e.name), ['order_created']);

  // The pending event Hasura left in the source's event log is delivered from there, once.
  await eventually(() => receiver.deliveries.filter((d) => d.path === '/orders').length, (n) => n >= 1, 15_000, 'the pending event');
  const first = receiver.deliveries.filter((d) => d.path === '/orders');
  assert.deepEqual(first.map((d) => d.body.event.data.new.item), ['pending']);
  assert.deepEqual(first[0]!.body.trigger, { name: 'order_created' });

  // Hasura's capture trigger gave way to the engine's: a new order is captured once.
  assert.deepEqual(await sql(shopUrl, "SELECT tgname FROM pg_trigger WHERE tgrelid = 'public.orders'::regclass AND NOT tgisinternal ORDER BY 1"), [{ tgname: 'notify_svc_order_created_INSERT' }]);
  const ins = await engine.graphql('mutation { insert_orders_one(object: {item: "new"}) { id } }');
  assert.equal(ins.body.data?.insert_orders_one?.id, 3, ins.text);
  await eventually(() => receiver.deliveries.filter((d) => d.path === '/orders').length, (n) => n >= 2, 15_000, 'the new order');
  assert.deepEqual(await sql(shopUrl, "SELECT count(*)::int AS n FROM hdb_catalog.event_log WHERE payload->'data'->'new'->>'item' = 'new'"), [{ n: 1 }]);

  // Hasura's rows there are as they were; no event log in the engine's own database for the source's trigger.
  assert.deepEqual(await sql(shopUrl, "SELECT row_to_json(e)::text AS row FROM hdb_catalog.event_log e WHERE delivered AND payload->'data'->'new'->>'item' = 'delivered-by-hasura'")
    .then((rows) => rows.map((r) => { const o = JSON.parse(r.row); delete o.locked_at; delete o.locked_by; return o; })), historyBefore.map((r) => JSON.parse(r.row)));
  assert.deepEqual(await sql(shopUrl, 'SELECT version, upgraded_on::text FROM hdb_catalog.hdb_source_catalog_version'), versionBefore);
  assert.deepEqual(await sql(db.url, "SELECT count(*)::int AS n FROM hdb_catalog.event_log WHERE trigger_name = 'order_created'"), [{ n: 0 }]);
  const [own] = await sql(db.url, 'SELECT adopted_from FROM hdb_catalog.svc_catalog');
  assert.match(own.adopted_from, /sources of hdb_catalog\.hdb_metadata/);
});
