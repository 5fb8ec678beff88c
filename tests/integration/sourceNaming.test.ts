/**
 * A naming convention per source (Hasura v2's `customization.naming_convention`), against a second real
 * database: `graphql-default` on one source while `default` stays `hasura-default`, and the reverse. The
 * source's root fields (with its prefix and suffix joined as Hasura joins them), arguments, types (with its
 * type-name prefix), aggregates, input types, enum values and its tables' fields follow its convention, the
 * other source's keep theirs; queries and mutations over HTTP, a live query over WebSocket, introspection,
 * clashes the convention makes refused, and a metadata round trip.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sqlOn } from '../support/standbyPostgres.js';
import { createTestDatabase, startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';

let e: TestEngine;
let db: { url: string; drop(): Promise<void> };
const metadata = (body: unknown) => e.request('POST', '/v1/metadata', body);
const exportV3 = async () => (await metadata({ type: 'export_metadata', version: 2, args: {} })).body;
const ok = async (body: unknown) => {
  const r = await metadata(body);
  assert.equal(r.status, 200, `${JSON.stringify(body)} → ${r.text}`);
  return r.body;
};
const configuration = () => ({ connection_info: { database_url: db.url, pool_settings: { max_connections: 4 } } });
const GRAPHQL_SHOP = { naming_convention: 'graphql-default', root_fields: { prefix: 'shop_' }, type_names: { prefix: 'Shop' } };

before(async () => {
  db = await createTestDatabase('naming');
  await sqlOn(db.url, `
    CREATE TABLE item_kind (value text PRIMARY KEY);
    INSERT INTO item_kind VALUES ('small_box'), ('big_box');
    CREATE TABLE store_item (item_id int PRIMARY KEY, item_name text NOT NULL, unit_price int NOT NULL, kind text REFERENCES item_kind(value));
    INSERT INTO store_item VALUES (1, 'pen', 2, 'small_box'), (2, 'desk', 90, 'big_box');
  `);
  e = await startTestEngine({ liveQueries: { batchSize: 100, refetchIntervalMs: 60_000, changePollIntervalMs: 50 } });
  await e.runSql("CREATE TABLE author_info (author_id int PRIMARY KEY, full_name text NOT NULL); INSERT INTO author_info VALUES (1, 'Ann');");
  await ok({ type: 'pg_add_source', args: { name: 'shop', configuration: configuration(), customization: GRAPHQL_SHOP } });
  await ok({
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: 'author_info' } },
      { type: 'pg_track_table', args: { source: 'shop', table: 'item_kind' } },
      { type: 'pg_set_table_is_enum', args: { source: 'shop', table: 'item_kind', is_enum: true } },
      { type: 'pg_track_table', args: { source: 'shop', table: 'store_item' } },
    ],
  });
});

after(async () => {
  await e?.stop();
  await db?.drop();
});

test('graphql-default on one source, hasura-default on default: each source\'s names follow its own convention', async () => {
  const r = await e.graphql(`{
    shop_StoreItem(orderBy: {itemId: DESC}, where: {kind: {_eq: SMALL_BOX}}) { itemId itemName kind __typename }
    shop_StoreItemByPk(itemId: 2) { itemName }
    shop_StoreItemAggregate { aggregate { count sum { unitPrice } } }
    author_info(order_by: {author_id: asc}, where: {full_name: {_is_null: false}}) { full_name __typename }
    author_info_by_pk(author_id: 1) { author_id }
  }`);
  assert.deepEqual(r.body, {
    data: {
      shop_StoreItem: [{ itemId: 1, itemName: 'pen', kind: 'small_box', __typename: 'ShopStoreItem' }],
      shop_StoreItemByPk: { itemName: 'desk' },
      shop_StoreItemAggregate: { aggregate: { count: 2, sum: { unitPrice: 92 } } },
      author_info: [{ full_name: 'Ann', __typename: 'author_info' }],
      author_info_by_pk: { author_id: 1 },
    },
  }, r.text);
  // The other convention's names are not there.
  const wrong = await e.graphql('{ shop_store_item { item_id } }');
  assert.equal(wrong.body.errors[0].message, 'field "shop_store_item" not found in type: \'query_root\'');
  const arg = await e.graphql('{ shop_StoreItem(order_by: {itemId: ASC}) { itemId } }');
  assert.equal(arg.body.errors[0].message, 'no such argument "order_by" is expected', arg.text);
  // Input types and mutations of the graphql-default source.
  const m = await e.graphql('mutation { shop_InsertStoreItemOne(object: {itemId: 3, itemName: "ink", unitPrice: 1, kind: SMALL_BOX}) { itemId } shop_UpdateStoreItem(where: {itemId: {_eq: 3}}, _set: {itemName: "INK"}) { affectedRows returning { itemName } } shop_DeleteStoreItemByPk(itemId: 3) { itemId } }');
  assert.deepEqual(m.body, { data: { shop_InsertStoreItemOne: { itemId: 3 }, shop_UpdateStoreItem: { affectedRows: 1, returning: [{ itemName: 'INK' }] }, shop_DeleteStoreItemByPk: { itemId: 3 } } }, m.text);
});

test('introspection: both conventions\' types side by side (OrderBy and order_by), named with the type-name prefix', async () => {
  const r = await e.graphql('{ __schema { types { name } } t: __type(name: "ShopStoreItemBoolExp") { inputFields { name } } k: __type(name: "ShopItemKindEnum") { enumValues { name } } o: __type(name: "ShopOrderBy") { enumValues { name } } }');
  const names = new Set(r.body.data.__schema.types.map((t: any) => t.name));
  for (const n of ['ShopStoreItem', 'ShopStoreItemBoolExp', 'ShopStoreItemAggregateFields', 'ShopOrderBy', 'ShopIntComparisonExp', 'ShopStoreItemInsertInput', 'ShopItemKindEnum',
    'author_info', 'author_info_bool_exp', 'order_by', 'Int_comparison_exp', 'String_comparison_exp']) assert.ok(names.has(n), `${n} in ${[...names].join(', ')}`);
  assert.ok(!names.has('store_item') && !names.has('StoreItem') && !names.has('OrderBy'), 'no type of the other convention for the source');
  assert.deepEqual(r.body.data.t.inputFields.map((f: any) => f.name), ['_and', '_not', '_or', 'itemId', 'itemName', 'kind', 'unitPrice']);
  assert.deepEqual(r.body.data.k.enumValues.map((v: any) => v.name), ['BIG_BOX', 'SMALL_BOX']);
  assert.ok(r.body.data.o.enumValues.some((v: any) => v.name === 'DESC_NULLS_LAST'));
});

test('a live query over WebSocket on the graphql-default source', { timeout: 30_000 }, async () => {
  const ws = await TestSocket.open(e.url, 'graphql-transport-ws');
  try {
    ws.send({ type: 'connection_init', payload: {} });
    assert.equal((await ws.next()).type, 'connection_ack');
    ws.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { shop_StoreItem(orderBy: {itemId: ASC}) { itemName } }' } });
    assert.deepEqual((await ws.next(10_000)).payload?.data, { shop_StoreItem: [{ itemName: 'pen' }, { itemName: 'desk' }] });
    await sqlOn(db.url, "UPDATE store_item SET item_name = 'pencil' WHERE item_id = 1");
    assert.deepEqual((await ws.next(10_000)).payload?.data, { shop_StoreItem: [{ itemName: 'pencil' }, { itemName: 'desk' }] });
  } finally {
    ws.close();
    await sqlOn(db.url, "UPDATE store_item SET item_name = 'pen' WHERE item_id = 1");
  }
});

test('a clash the source\'s convention makes is refused (nothing changed); the metadata round trip keeps the convention', async () => {
  await sqlOn(db.url, 'CREATE TABLE clash (id int PRIMARY KEY, item_name text, "itemName" text)');
  const before = await exportV3();
  const r = await metadata({ type: 'pg_track_table', args: { source: 'shop', table: 'clash' } });
  assert.equal(r.status, 400, r.text);
  assert.deepEqual([r.body.code, r.body.error], ['unexpected', 'following fields of table "clash" are duplicated: "itemName"']);
  assert.deepEqual(await exportV3(), before);
  assert.deepEqual(before.sources.find((s: any) => s.name === 'shop').customization, GRAPHQL_SHOP);
  const schema = async () => (await e.graphql('{ __schema { types { name fields { name args { name } } inputFields { name } enumValues { name } } } }')).body;
  const was = await schema();
  await ok({ type: 'replace_metadata', version: 2, args: { metadata: before } });
  assert.deepEqual(await exportV3(), before);
  assert.deepEqual(await schema(), was);
});

test('the reverse: graphql-default on default, the source\'s own hasura-default kept', async () => {
  await ok({ type: 'pg_update_source', args: { name: 'default', customization: { naming_convention: 'graphql-default' } } });
  await ok({ type: 'pg_update_source', args: { name: 'shop', configuration: configuration(), customization: { naming_convention: 'hasura-default', root_fields: { prefix: 'shop_' } } } });
  try {
    const r = await e.graphql('{ authorInfo(orderBy: {authorId: ASC}) { fullName __typename } shop_store_item(order_by: {item_id: asc}, where: {kind: {_eq: big_box}}) { item_name kind __typename } }');
    assert.deepEqual(r.body, { data: { authorInfo: [{ fullName: 'Ann', __typename: 'AuthorInfo' }], shop_store_item: [{ item_name: 'desk', kind: 'big_box', __typename: 'store_item' }] } }, r.text);
  } finally {
    await ok({ type: 'pg_update_source', args: { name: 'default', customization: {} } });
    await ok({ type: 'pg_update_source', args: { name: 'shop', configuration: configuration(), customization: GRAPHQL_SHOP } });
  }
});

test('--default-naming-convention graphql-default: default and a source without their own follow it, a source with its own hasura-default keeps it', async (t) => {
  const g = await startTestEngine({ defaultNamingConvention: 'graphql-default' });
  t.after(() => g.stop());
  const post = async (body: unknown) => {
    const r = await g.request('POST', '/v1/metadata', body);
    assert.equal(r.status, 200, `${JSON.stringify(body)} → ${r.text}`);
  };
  await g.runSql("CREATE TABLE author_info (author_id int PRIMARY KEY, full_name text NOT NULL); INSERT INTO author_info VALUES (1, 'Ann');");
  await post({ type: 'pg_add_source', args: { name: 'shop', configuration: configuration() } });
  await post({ type: 'pg_add_source', args: { name: 'plain', configuration: configuration(), customization: { naming_convention: 'hasura-default', root_fields: { prefix: 'plain_' }, type_names: { prefix: 'plain_' } } } });
  await post({ type: 'bulk', args: [
    { type: 'pg_track_table', args: { source: 'default', table: 'author_info' } },
    { type: 'pg_track_table', args: { source: 'shop', table: 'store_item' } },
    { type: 'pg_track_table', args: { source: 'plain', table: 'store_item' } },
  ] });
  const r = await g.graphql('{ authorInfo(orderBy: {authorId: ASC}) { fullName } storeItemByPk(itemId: 1) { itemName __typename } plain_store_item_by_pk(item_id: 1) { item_name __typename } }');
  assert.deepEqual(r.body, { data: { authorInfo: [{ fullName: 'Ann' }], storeItemByPk: { itemName: 'pen', __typename: 'StoreItem' }, plain_store_item_by_pk: { item_name: 'pen', __typename: 'plain_store_item' } } }, r.text);
  const types = await g.graphql('{ a: __type(name: "OrderBy") { name } b: __type(name: "plain_order_by") { name } }');
  assert.deepEqual(types.body, { data: { a: { name: 'OrderBy' }, b: { name: 'plain_order_by' } } });
});
