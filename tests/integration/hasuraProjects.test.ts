/**
 * Real Hasura projects, replayed as a team moving off Hasura would: each sample app's project
 * directory from Hasura's repository (tests/support/fixtures/hasura-projects/, copied as published)
 * goes through the CLI — migrate apply, metadata apply, seed apply, metadata inconsistency list,
 * metadata diff — against a real engine, and then the app's own GraphQL documents (read from its
 * source files) run with the roles and session variables its permissions use.
 */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startTestEngine, type TestEngine } from './harness.js';
import { cliAgainst } from '../support/cliInProcess.js';
import { TestSocket } from './subscriptionsClient.js';
import { startWebhookServer, type WebhookServer } from '../support/webhookServer.js';
import { startRemoteGraphqlServer, type RemoteGraphqlServer } from '../support/remoteGraphqlServer.js';
import { pino } from 'pino';
import { startSystemPostgres, type SystemPostgres } from '../support/systemPostgres.js';
import { sqlOn } from '../support/standbyPostgres.js';

const project = (name: string) => fileURLToPath(new URL(`../support/fixtures/hasura-projects/${name}/`, import.meta.url));

const cli = (e: TestEngine, command: string, argv: string[]) => cliAgainst(e.url, command, argv);

const rows = async (e: TestEngine, sql: string): Promise<string[][]> => ((await e.runSql(sql)).result as string[][]).slice(1);

// The app's documents, as written in community/sample-apps/nextjs-13 (service/queries.graphql, app/components/orders.tsx).
const GET_PRODUCTS = 'query GetProducts {\n  product(limit: 10) {\n    id\n    name\n  }\n}';
const GET_PRODUCT = 'query GetProduct($id: Int!) {\n  product_by_pk(id: $id) {\n    id\n    description\n    name\n    price\n    image_urls(path: "$[0]")\n  }\n}';
const PLACE_ORDER =
  'mutation PlaceOrder($products: order_product_arr_rel_insert_input!) {\n  insert_order_one(\n    object: {\n      products: $products\n      billing_address_id: 222\n      user_id: 225\n      shipping_address_id: 222\n    }\n  ) {\n    id\n  }\n}';
const PRODUCT_ORDERS = `
          subscription ProductOrders($id: Int!) {
            order_product_stream(
              batch_size: 10
              cursor: { initial_value: { created_at: "2021-02-22T18:16:12.95499+00:00" } }
              where: { product_id: { _eq: $id } }
            ) {
              id
              quantity
              created_at
            }
          }`;

describe('nextjs-13 (config v3: identity columns, a domain, triggers, enum tables, tables named "order" and "user", actions, seeds)', () => {
  let e: TestEngine;
  let hooks: WebhookServer;
  const dir = project('nextjs-13');
  const asUser = (id: number) => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

  before(async () => {
    hooks = await startWebhookServer(() => ({ status: 200, body: { name: 'Admin', email: 'admin@site.com', token: 't', refreshToken: 'r' } }));
    // The project's actions call {{NEXTJS_SERVER_URL}}/api/actions/… (its docker-compose sets it).
    process.env.NEXTJS_SERVER_URL = hooks.url;
    e = await startTestEngine();
  });
  after(async () => {
    await e?.stop();
    await hooks?.stop();
    delete process.env.NEXTJS_SERVER_URL;
  });

  test('migrate apply, metadata apply, seed apply, consistent, no drift', async () => {
    // As Hasura's CLI runs in the project folder: config.yaml names the folders (its endpoint and
    // admin secret give way to SVC_GRAPHQL_ENDPOINT, as Hasura's CLI lets HASURA_GRAPHQL_ENDPOINT win).
    const m = await cli(e, 'migrate', ['apply', '--project', dir]);
    assert.equal(m.code, 0, m.err);
    assert.match(m.err, /applied 1 migration/);
    assert.deepEqual(await rows(e, "SELECT count(*)::text FROM information_schema.tables WHERE table_schema = 'public'"), [['9']]);

    const md = await cli(e, 'metadata', ['apply', '--project', dir]);
    assert.equal(md.code, 0, md.err + md.out);
    assert.match(md.err, /X-Hasura-User-Id → x-svc-user-id/);

    // The seeds wrap themselves in BEGIN … COMMIT; they are applied whole, as one transaction.
    const s = await cli(e, 'seed', ['apply', '--project', dir]);
    assert.equal(s.code, 0, s.err);
    assert.match(s.err, /01_A_user_seeds\.sql: its BEGIN\/COMMIT \(line 1, 503\) left out/);
    assert.deepEqual(await rows(e, 'SELECT (SELECT count(*) FROM "user")::text, (SELECT count(*) FROM address)::text, (SELECT max(id) FROM "user")::text'), [['499', '497', '502']]);

    const ic = await cli(e, 'metadata', ['ic', 'list']);
    assert.equal(ic.code, 0, ic.out);
    assert.match(ic.err, /metadata is consistent/);
    const diff = await cli(e, 'metadata', ['diff', '--dir', dir + 'metadata']);
    assert.equal(diff.code, 0, diff.out);
    assert.match(diff.err, /no differences/);
  });

  test("the app's queries, its order mutation and its stream subscription, with its roles", async () => {
    // The products seed is not in the published project: the site admin adds two, as the admin pages would.
    const added = await e.graphql(
      'mutation { insert_product(objects: [{id: 101, name: "Chair", category_display_name: "Furniture", price: 49, description: "A chair", image_urls: ["https://example.com/chair-1.jpg", "https://example.com/chair-2.jpg"]}, {id: 102, name: "Laptop", category_display_name: "Computers", price: 999}]) { affected_rows } }',
      undefined,
      { 'x-svc-role': 'site-admin' },
    );
    assert.deepEqual(added.body, { data: { insert_product: { affected_rows: 2 } } });

    const anon = { 'x-svc-role': 'anonymous' };
    assert.deepEqual((await e.graphql(GET_PRODUCTS, undefined, anon)).body, { data: { product: [{ id: 101, name: 'Chair' }, { id: 102, name: 'Laptop' }] } });
    assert.deepEqual((await e.graphql(GET_PRODUCT, { id: 101 }, anon)).body, {
      data: { product_by_pk: { id: 101, description: 'A chair', name: 'Chair', price: 49, image_urls: 'https://example.com/chair-1.jpg' } },
    });
    // anonymous has no select permission on users.
    assert.equal((await e.graphql('{ user { id } }', undefined, anon)).body.errors?.[0]?.message, 'field "user" not found in type: \'query_root\'');

    // The subscription the product page opens, before and after an order.
    const ws = await TestSocket.open(e.url, 'graphql-transport-ws');
    after(() => ws.ws.close());
    ws.send({ type: 'connection_init', payload: {} });
    assert.equal((await ws.next()).type, 'connection_ack');
    ws.send({ id: '1', type: 'subscribe', payload: { query: PRODUCT_ORDERS, variables: { id: 101 } } });
    const first = await ws.next();
    assert.deepEqual(first.payload?.data, { order_product_stream: [] }, JSON.stringify(first));

    // PlaceOrder as the app sends it (its server-side client holds the admin secret): user 225, address 222 of the seeds.
    const placed = await e.graphql(PLACE_ORDER, { products: { data: [{ product_id: 101, quantity: 1 }] } });
    const orderId = placed.body.data?.insert_order_one?.id;
    assert.equal(typeof orderId, 'number', JSON.stringify(placed.body));
    const streamed = await ws.next();
    assert.equal(streamed.type, 'next');
    assert.deepEqual(streamed.payload.data.order_product_stream.map((r: { quantity: number }) => r.quantity), [1]);

    // A user sees only their own orders (and their own user row); another user sees none of them.
    const mine = await e.graphql('{ order { id user_id status products { quantity product { name } } } user { id name } }', undefined, asUser(225));
    assert.deepEqual(mine.body, { data: { order: [{ id: orderId, user_id: 225, status: 'CREATED', products: [{ quantity: 1, product: { name: 'Chair' } }] }], user: [{ id: 225, name: 'Leland' }] } });
    assert.deepEqual((await e.graphql('{ order { id } order_product { id } }', undefined, asUser(226))).body, { data: { order: [], order_product: [] } });

    // The insert check: user 226 cannot order in 225's name, and nothing is left behind.
    const forged = await e.graphql('mutation { insert_order_one(object: {user_id: 225, billing_address_id: 222, shipping_address_id: 222, products: {data: [{product_id: 102, quantity: 1}]}}) { id } }', undefined, asUser(226));
    assert.equal(forged.body.errors?.[0]?.extensions?.code, 'permission-error', JSON.stringify(forged.body));
    assert.deepEqual(await rows(e, 'SELECT count(*)::text FROM "order"'), [['1']]);
    // Their own order (their address 223) goes through; the enum column reads as the enum.
    const own = await e.graphql('mutation { insert_order_one(object: {user_id: 226, billing_address_id: 223, shipping_address_id: 223}) { user_id status order_status { status } } }', undefined, asUser(226));
    assert.deepEqual(own.body, { data: { insert_order_one: { user_id: 226, status: 'CREATED', order_status: { status: 'CREATED' } } } });
    // Only the site admin may update orders; the sum_order trigger then fills the total.
    const update = await e.graphql('mutation { update_order(where: {}, _set: {status: PAID}) { affected_rows } }', undefined, asUser(225));
    assert.equal(update.body.errors?.[0]?.message, 'field "update_order" not found in type: \'mutation_root\'');
    const paid = await e.graphql(`mutation { update_order_by_pk(pk_columns: {id: ${orderId}}, _set: {status: PAID}) { status order_total } }`, undefined, { 'x-svc-role': 'site-admin' });
    assert.deepEqual(paid.body, { data: { update_order_by_pk: { status: 'PAID', order_total: 49 } } });

    // A review takes user_id from the session (the permission's `set`).
    await e.runSql(`INSERT INTO order_product (id, order_id, product_id, quantity) VALUES (101, ${orderId}, 101, 1)`);
    const review = await e.graphql('mutation { insert_product_review_one(object: {product_id: 101, rating: 5, comment: "sturdy"}) { user_id product_id rating } }', undefined, asUser(225));
    assert.deepEqual(review.body, { data: { insert_product_review_one: { user_id: 225, product_id: 101, rating: 5 } } });
  });

  test('a query action written with kind: "" calls its handler', async () => {
    const r = await e.graphql('query { adminLogin(params: {email: "admin@site.com", password: "password"}) { name token } }', undefined, { 'x-svc-role': 'anonymous' });
    assert.deepEqual(r.body, { data: { adminLogin: { name: 'Admin', token: 't' } } });
    const req = hooks.requests.at(-1)!;
    assert.equal(new URL(req.url, hooks.url).pathname.endsWith('/api/actions/admin-login'), true, req.url);
    assert.deepEqual((req.body as { input: unknown }).input, { params: { email: 'admin@site.com', password: 'password' } });
  });
});

describe('realtime-location-tracking (config v3 project; its config v1 migrations as Hasura 1.0 wrote them)', () => {
  let e: TestEngine;
  before(async () => {
    e = await startTestEngine();
  });
  after(async () => {
    await e?.stop();
  });

  test('config v1 flat .up.yaml migrations: SQL and metadata operations, versions recorded; the one whose sequence is not published fails naming its file', async () => {
    const dir = project('realtime-location-tracking-v1') + 'migrations';
    const r = await cli(e, 'migrate', ['apply', '--dir', dir]);
    assert.equal(r.code, 1);
    assert.match(r.err, /1536071857738_run_sql_migration\.up\.yaml \(operation 1, run_sql\): postgres error: relation "vehicle_loc" does not exist \(migration 1536071857738 up not applied\)/);
    const s = await cli(e, 'migrate', ['status', '--dir', dir]);
    assert.match(s.out, /^1536071612723\tadd_relationship_locations_table_public_vehicle\tPresent\tApplied$/m);
    assert.match(s.out, /^1536071857738\trun_sql_migration\tPresent\tNot Applied$/m);
    // add_existing_table_or_view tracked the tables and create_array_relationship joined them.
    await e.runSql("INSERT INTO vehicle VALUES ('v1', 'Van'); INSERT INTO vehicle_location VALUES (1, 'v1', '(12.93958, 77.62047)')");
    assert.deepEqual((await e.graphql('{ vehicle { id locations { location } } }')).body, { data: { vehicle: [{ id: 'v1', locations: [{ location: '(12.93958, 77.62047)' }] }] } });
    await e.runSql('DROP TABLE vehicle_location, vehicle CASCADE; DELETE FROM hdb_catalog.schema_migrations');
    assert.equal((await cli(e, 'metadata', ['ic', 'drop'])).code, 0);
  });

  test("config v3: the app's mutations and subscription over /v1alpha1/graphql", async () => {
    const dir = project('realtime-location-tracking');
    assert.equal((await cli(e, 'migrate', ['apply', '--dir', dir + 'migrations'])).code, 0);
    const md = await cli(e, 'metadata', ['apply', '--dir', dir + 'metadata']);
    assert.equal(md.code, 0, md.err);
    assert.equal((await cli(e, 'metadata', ['diff', '--dir', dir + 'metadata'])).code, 0);

    // The app's client speaks Apollo's subscriptions-transport-ws (graphql-ws) to /v1alpha1/graphql.
    const ws = await TestSocket.open(e.url, 'graphql-ws', '/v1alpha1/graphql');
    after(() => ws.ws.close());
    ws.send({ type: 'connection_init', payload: {} });
    assert.equal((await ws.next()).type, 'connection_ack');
    const getVehicle = 'subscription getVehicle($vehicleId: String!) {\n  vehicle (where: { id: { _eq: $vehicleId }}) {\n    id\n    name\n  }\n}';
    ws.send({ id: '1', type: 'start', payload: { query: getVehicle, variables: { vehicleId: 'c9f6' } } });
    assert.deepEqual((await ws.next()).payload, { data: { vehicle: [] } });

    const post = (query: string, variables: unknown) => e.request('POST', '/v1alpha1/graphql', { query, variables });
    const insertVehicle = 'mutation insert_vehicle ($objects: [vehicle_insert_input!]! )  {\n  insert_vehicle (objects: $objects){\n    returning {\n      id\n    }\n  }\n}';
    assert.deepEqual((await post(insertVehicle, { objects: [{ id: 'c9f6', name: 'c9f6' }] })).body, { data: { insert_vehicle: { returning: [{ id: 'c9f6' }] } } });
    assert.deepEqual((await ws.next()).payload, { data: { vehicle: [{ id: 'c9f6', name: 'c9f6' }] } });

    const insertLocation = 'mutation insert_vehicle_location ($objects: [vehicle_location_insert_input!]! )  {\n  insert_vehicle_location (objects: $objects){\n    returning {\n      id\n    }\n  }\n}';
    for (const location of ['(12.93958, 77.62047)', '(12.93960, 77.62050)']) {
      const r = await post(insertLocation, { objects: [{ vehicle_id: 'c9f6', location }] });
      assert.equal(typeof r.body.data?.insert_vehicle_location?.returning?.[0]?.id, 'number', JSON.stringify(r.body));
    }
    const latest = await post('query { vehicle_location(where: {vehicle_id: {_eq: "c9f6"}}, order_by: {timestamp: desc, id: desc}, limit: 1) { location } }', {});
    assert.deepEqual(latest.body, { data: { vehicle_location: [{ location: '(12.93960, 77.62050)' }] } });
  });
});

// A developer portal, written for this test in Hasura v2's own project format (tests/support/fixtures/
// hasura-projects/dev-portal/): a key list whose secret only some screens show (`@include` on a column
// the developer role cannot select), a cron trigger named "Cleanup notification logs", `now()` in a
// permission filter and in the app's own filters, and api_limits with every kind of limit — a depth limit
// of 2 that the app's own depth-3 operations exceed, which Hasura's open-source edition never applies.
const KEYS = `query Keys($withSecret: Boolean!) {
  api_key(where: {expires_at: {_gt: "now()"}}, order_by: {id: asc}) {
    id
    name
    secret @include(if: $withSecret)
  }
}`;
const RECENT = `query Recent {
  notification_log(where: {created_at: {_lte: "now()"}}, order_by: {id: asc}) {
    message
    api_key { name }
  }
}`;

describe('dev-portal (Hasura v2 format: @include on a hidden column, a cron trigger name with spaces, now() in filters, api_limits)', () => {
  const dir = project('dev-portal');
  const developer = { 'x-svc-role': 'developer', 'x-svc-user-id': '7' };
  let e: TestEngine;
  before(async () => {
    e = await startTestEngine({ hasuraCompat: 'true' });
  });
  after(async () => {
    await e?.stop();
  });

  test('migrate apply, metadata apply (cron trigger and api_limits included), consistent, no drift', async () => {
    assert.equal((await cli(e, 'migrate', ['apply', '--project', dir])).code, 0);
    const md = await cli(e, 'metadata', ['apply', '--project', dir]);
    assert.equal(md.code, 0, md.err + md.out);
    const diff = await cli(e, 'metadata', ['diff', '--project', dir]);
    assert.equal(diff.code, 0, diff.out);
    assert.match(diff.err, /no differences/);
    // The cron trigger keeps its name, and its occurrences are scheduled under it.
    assert.deepEqual(await rows(e, "SELECT name, cron_schedule, (SELECT count(*) FROM hdb_catalog.hdb_cron_events WHERE trigger_name = name)::text FROM hdb_catalog.hdb_cron_triggers"), [['Cleanup notification logs', '0 3 * * *', '100']]);
    const exported = (await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body;
    assert.equal(exported.cron_triggers[0].name, 'Cleanup notification logs');
    assert.deepEqual(exported.api_limits, {
      disabled: false,
      rate_limit: { global: { max_reqs_per_min: 100, unique_params: 'IP' }, per_role: {} },
      depth_limit: { global: 2, per_role: {} },
      node_limit: { global: 50, per_role: {} },
      time_limit: { global: 5, per_role: {} },
      batch_limit: { global: 5, per_role: {} },
    });
  });

  test("the app's documents as the developer role: @include on the hidden secret, now() in filters, depth 3 under the stored depth limit of 2", async () => {
    // As the portal's backend seeds it, over Hasura v2's /v2/query: one live key, one expired, one of another owner.
    const seeded = await e.request('POST', '/v2/query', {
      type: 'bulk',
      args: [
        { type: 'insert', args: { source: 'default', table: 'api_key', objects: [
          { owner_id: 7, name: 'live', expires_at: 'infinity' },
          { owner_id: 7, name: 'expired', expires_at: 'epoch' },
          { owner_id: 8, name: 'other', expires_at: 'infinity' },
        ] } },
        { type: 'insert', args: { table: 'notification_log', objects: [{ api_key_id: 1, message: 'hello', created_at: 'now()' }] } },
        { type: 'count', args: { source: 'default', table: 'api_key', where: { expires_at: { $gt: 'now()' } } } },
      ],
    });
    assert.deepEqual(seeded.body, [{ affected_rows: 3 }, { affected_rows: 1 }, { count: 2 }]);

    // The list screen leaves the secret out: not an error though the role cannot see it (Hasura's Collect.hs).
    assert.deepEqual((await e.graphql(KEYS, { withSecret: false }, developer)).body, { data: { api_key: [{ id: 1, name: 'live' }] } });
    // Asking for it is refused, as Hasura refuses it.
    assert.deepEqual((await e.graphql(KEYS, { withSecret: true }, developer)).body.errors[0], {
      extensions: { path: '$.selectionSet.api_key.selectionSet.secret', code: 'validation-failed' }, message: 'field "secret" not found in type: \'api_key\'',
    });
    // The admin sees the secret.
    const admin = await e.graphql(KEYS, { withSecret: true });
    assert.deepEqual(admin.body.data.api_key.map((k: { name: string; secret: string }) => [k.name, typeof k.secret]), [['live', 'string'], ['other', 'string']]);

    // Depth 3 (notification_log → api_key → name): the stored depth limit of 2 is not applied under --hasura-compat.
    assert.deepEqual((await e.graphql(RECENT, undefined, developer)).body, { data: { notification_log: [{ message: 'hello', api_key: { name: 'live' } }] } });
    // now() as an insert value, and a time in the future still filtered out by the permission's now().
    const ins = await e.graphql('mutation { insert_notification_log_one(object: {api_key_id: 1, message: "later", created_at: "NOW()"}) { message } }', undefined, developer);
    assert.deepEqual(ins.body, { data: { insert_notification_log_one: { message: 'later' } } });
    // Still a value of the column's type (explain prints each bound parameter as a typed literal), never SQL text.
    const explain = await e.request('POST', '/v1/graphql/explain', { query: { query: RECENT }, user: developer });
    assert.equal(explain.status, 200, explain.text);
    const sqlText = explain.body.map((s: { sql: string }) => s.sql).join('\n');
    assert.match(sqlText, /"created_at" <= 'now\(\)'::"timestamptz"/);
    assert.match(sqlText, /"expires_at" > 'now\(\)'::"timestamptz"/);
    assert.doesNotMatch(sqlText, /[<>=] now\(\)/i);
    // A string Postgres cannot read as a timestamp is still refused before any SQL.
    const bad = await e.graphql('{ api_key(where: {expires_at: {_gt: "now() + 1"}}) { id } }', undefined, developer);
    assert.equal(bad.body.errors[0].extensions.code, 'validation-failed');
  });

  test('a second engine on the same database reports the stored limits at start; without compat they apply', async () => {
    const lines: Array<Record<string, any>> = [];
    const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
    const again = await startTestEngine({ databaseUrl: e.databaseUrl, hasuraCompat: 'true', startOptions: { logger } });
    after(() => again.stop());
    const report = lines.find((l) => l.kind === 'api-limits');
    assert.equal(report?.applied, false, JSON.stringify(lines.map((l) => l.msg)));
    assert.match(report.msg, /depth_limit: global 2.*not applied.*--apply-api-limits/);
    const own = await startTestEngine({ databaseUrl: e.databaseUrl });
    after(() => own.stop());
    assert.match((await own.graphql(RECENT, undefined, developer)).body.errors[0].message, /the query depth 3 exceeds the depth limit of 2 for role "developer"/);
  });

  test('cron trigger names with spaces over the metadata API', async () => {
    const create = await e.request('POST', '/v1/metadata', { type: 'create_cron_trigger', args: { name: 'Weekly digest: all developers', webhook: 'http://127.0.0.1:9/digest', schedule: '0 9 * * 1', payload: {}, include_in_metadata: true } });
    assert.deepEqual([create.status, create.body], [200, { message: 'success' }]);
    const empty = await e.request('POST', '/v1/metadata', { type: 'create_cron_trigger', args: { name: '', webhook: 'http://127.0.0.1:9/x', schedule: '0 9 * * 1', include_in_metadata: true } });
    assert.deepEqual([empty.status, empty.body.code, empty.body.error], [400, 'parse-failed', 'empty string not allowed']);
    const del = await e.request('POST', '/v1/metadata', { type: 'delete_cron_trigger', args: { name: 'Weekly digest: all developers' } });
    assert.deepEqual([del.status, del.body], [200, { message: 'success' }]);
    assert.deepEqual(await rows(e, 'SELECT name FROM hdb_catalog.hdb_cron_triggers ORDER BY name'), [['Cleanup notification logs']]);
  });
});

describe('music-archive (Hasura v2 format, two databases: default and archive on its own server, migrations per database)', () => {
  const dir = project('music-archive');
  const listener = { 'x-svc-role': 'listener', 'x-svc-user-id': '5' };
  let e: TestEngine;
  let archive: SystemPostgres;
  before(async () => {
    archive = await startSystemPostgres();
    process.env.ARCHIVE_DATABASE_URL = archive.url;
    e = await startTestEngine({ hasuraCompat: 'true' });
  });
  after(async () => {
    await e?.stop();
    archive?.stop();
    delete process.env.ARCHIVE_DATABASE_URL;
  });

  test('migrate apply per database, metadata apply with both databases, consistent, no drift; queries and a mutation on each', async () => {
    // The archive's migrations need its source: without it the engine does not know the database.
    const early = await cli(e, 'migrate', ['apply', '--project', dir, '--database-name', 'archive']);
    assert.equal(early.code, 1);
    assert.match(early.err, /source with name "archive" does not exist/);
    assert.equal((await cli(e, 'migrate', ['apply', '--project', dir, '--database-name', 'default'])).code, 0);
    // A first apply adds the archive source (no tables there yet: its tables are inconsistent until migrated).
    const first = await cli(e, 'metadata', ['apply', '--project', dir, '--allow-inconsistent-metadata']);
    assert.equal(first.code, 0, first.err + first.out);
    const migrated = await cli(e, 'migrate', ['apply', '--project', dir, '--database-name', 'archive']);
    assert.equal(migrated.code, 0, migrated.err);
    assert.deepEqual(await sqlOn(archive.url, 'SELECT version::text FROM hdb_catalog.schema_migrations'), [{ version: '1700000000001' }]);
    assert.deepEqual(await rows(e, 'SELECT version::text FROM hdb_catalog.schema_migrations'), [['1700000000000']]);
    const md = await cli(e, 'metadata', ['apply', '--project', dir]);
    assert.equal(md.code, 0, md.err + md.out);
    const status = await cli(e, 'migrate', ['status', '--project', dir, '--database-name', 'archive']);
    assert.match(status.out, /1700000000001\tinit\tPresent\tApplied/);
    const inconsistency = await e.request('POST', '/v1/metadata', { type: 'get_inconsistent_metadata', args: {} });
    assert.deepEqual(inconsistency.body, { is_consistent: true, inconsistent_objects: [] });
    const diff = await cli(e, 'metadata', ['diff', '--project', dir]);
    assert.equal(diff.code, 0, diff.out);
    assert.match(diff.err, /no differences/);

    const both = await e.graphql('{ artist(order_by: {id: asc}) { name } archive_album(order_by: {id: asc}) { title } archive_album_aggregate { aggregate { count } } }', undefined, listener);
    assert.deepEqual(both.body, { data: { artist: [{ name: 'Nina' }, { name: 'Miles' }], archive_album: [{ title: 'Pastel Blues' }, { title: 'Kind of Blue' }], archive_album_aggregate: { aggregate: { count: 2 } } } });
    const played = await e.graphql('mutation { archive_insert_play_one(object: {album_id: 20}) { album_id listener_id } }', undefined, listener);
    assert.deepEqual(played.body, { data: { archive_insert_play_one: { album_id: 20, listener_id: 5 } } });
    assert.deepEqual(await sqlOn(archive.url, 'SELECT album_id, listener_id FROM play'), [{ album_id: 20, listener_id: 5 }]);
    const mine = await e.graphql('{ archive_album(where: {id: {_eq: 20}}) { plays { listener_id } } }', { }, { 'x-svc-role': 'listener', 'x-svc-user-id': '6' });
    assert.deepEqual(mine.body, { data: { archive_album: [{ plays: [] }] } });
    const renamed = await e.graphql('mutation { update_artist(where: {id: {_eq: 2}}, _set: {name: "Miles D."}) { affected_rows } }');
    assert.deepEqual(renamed.body, { data: { update_artist: { affected_rows: 1 } } });
  });
});

// A support desk, written for this test in Hasura v2's own project format (tests/support/fixtures/
// hasura-projects/support-desk/): a native query over a logical model with a select permission, a
// knowledge-base remote schema with a customization (namespace, type prefix, a field mapping) and a
// permission presetting an argument from X-Hasura-User-Id, an action calling a REST endpoint through
// request and response transforms, and an event trigger with both transforms.
const KB_SDL = `
  type Query { articles(author: Int!, tag: String): [Article] search(q: String!): [Article] }
  type Article { id: Int! title: String body: String author: Int! }
`;
const ARTICLES = [{ id: 1, title: 'Invoices', body: 'How to read an invoice', author: 7, tag: 'billing' }, { id: 2, title: 'Login', body: 'Resetting a password', author: 7, tag: 'account' }, { id: 3, title: 'Refunds', body: 'Refund rules', author: 8, tag: 'billing' }];

describe('support-desk (Hasura v2 format: native query and logical model permissions, remote schema permissions with @preset and customization, action and event trigger transforms)', () => {
  const dir = project('support-desk');
  const agent = { 'x-svc-role': 'agent', 'x-svc-user-id': '7' };
  let e: TestEngine;
  let api: WebhookServer;
  let kb: RemoteGraphqlServer;
  before(async () => {
    api = await startWebhookServer((req) => {
      const url = new URL(req.url, 'http://x');
      if (url.pathname === '/customers') return { status: 200, body: { data: { customer_id: 41, full_name: `Customer ${url.searchParams.get('email')}`, plan: 'pro' } } };
      return { status: 200, body: { ok: true, reference: `T-${url.pathname.split('/').at(-1)}` } };
    });
    kb = await startRemoteGraphqlServer(KB_SDL, {
      articles: ({ author, tag }: { author: number; tag?: string }) => ARTICLES.filter((a) => a.author === author && (!tag || a.tag === tag)),
      search: ({ q }: { q: string }) => ARTICLES.filter((a) => a.title.includes(q)),
    });
    const origin = new URL(api.url).origin;
    // What the team's deployment sets beside the project.
    process.env.SUPPORT_API_URL = origin;
    process.env.SUPPORT_HOOK_URL = origin;
    process.env.SUPPORT_KB_URL = kb.url;
    e = await startTestEngine({ enableRemoteSchemaPermissions: true });
  });
  after(async () => {
    await e?.stop();
    await api?.stop();
    await kb?.stop();
    delete process.env.SUPPORT_API_URL;
    delete process.env.SUPPORT_HOOK_URL;
    delete process.env.SUPPORT_KB_URL;
  });

  test('migrate apply, metadata apply, seed apply, consistent, no drift', async () => {
    const m = await cli(e, 'migrate', ['apply', '--project', dir]);
    assert.equal(m.code, 0, m.err);
    const md = await cli(e, 'metadata', ['apply', '--project', dir]);
    assert.equal(md.code, 0, md.err + md.out);
    assert.match(md.err, /X-Hasura-User-Id → x-svc-user-id/);
    const s = await cli(e, 'seed', ['apply', '--project', dir]);
    assert.equal(s.code, 0, s.err);
    const ic = await cli(e, 'metadata', ['ic', 'list']);
    assert.equal(ic.code, 0, ic.out);
    assert.match(ic.err, /metadata is consistent/);
    const diff = await cli(e, 'metadata', ['diff', '--project', dir]);
    assert.equal(diff.code, 0, diff.out);
    assert.match(diff.err, /no differences/);
  });

  test("the desk's operations as the agent role: native query, customized remote with its preset, REST action through transforms", async () => {
    const stats = await e.graphql('query Stats($s: String!) { ticket_stats_by_status(args: {status: $s}) { author_id open_count latest_title } }', { s: 'open' }, agent);
    assert.deepEqual(stats.body, { data: { ticket_stats_by_status: [{ author_id: 7, open_count: 2, latest_title: 'Invoice is wrong' }] } });
    assert.deepEqual((await e.graphql('{ ticket_stats_by_status(args: {status: "open"}, order_by: {author_id: asc}) { author_id } }')).body, {
      data: { ticket_stats_by_status: [{ author_id: 7 }, { author_id: 8 }] },
    });

    const articles = await e.graphql('query Kb($tag: String) { kb { __typename articles(tag: $tag) { __typename id title text } } }', { tag: 'billing' }, agent);
    assert.deepEqual(articles.body, { data: { kb: { __typename: 'kbQuery', articles: [{ __typename: 'Kb_Article', id: 1, title: 'Invoices', text: 'How to read an invoice' }] } } });
    const sent = kb.queries().at(-1)!.body;
    assert.match(sent.query, /text: body/);
    assert.equal(sent.variables?.__svc_preset_0, 7);
    // The agent's part of the knowledge base: no search, no author argument.
    assert.equal((await e.graphql('{ kb { search(q: "R") { id } } }', undefined, agent)).body.errors[0].extensions.code, 'validation-failed');
    assert.equal((await e.graphql('{ kb { articles(author: 8) { id } } }', undefined, agent)).body.errors[0].extensions.code, 'validation-failed');
    assert.deepEqual((await e.graphql('{ kb { search(q: "R") { title } } }')).body, { data: { kb: { search: [{ title: 'Refunds' }] } } });

    const customer = await e.graphql('query Lookup($email: String!) { lookupCustomer(email: $email) { id name plan } }', { email: 'ann@example.com' }, agent);
    assert.deepEqual(customer.body, { data: { lookupCustomer: { id: 41, name: 'Customer ann@example.com', plan: 'pro' } } });
    const call = api.requests.at(-1)!;
    assert.equal(call.method, 'GET');
    assert.equal(call.url, '/customers?email=ann%40example.com');
  });

  test('a new ticket (the seeded ones too): the event trigger sends the transformed request and logs the transformed answer', async () => {
    const added = await e.graphql('mutation { insert_ticket_one(object: {author_id: 8, title: "Card declined"}) { id } }');
    const id = added.body.data?.insert_ticket_one?.id;
    assert.equal(typeof id, 'number', JSON.stringify(added.body));
    const deadline = Date.now() + 15_000;
    let logged: string[][] = [];
    while (Date.now() < deadline) {
      logged = await rows(e, `SELECT l.status::text, l.response::text FROM hdb_catalog.event_invocation_logs l JOIN hdb_catalog.event_log v ON v.id = l.event_id WHERE v.trigger_name = 'ticket_created' AND v.payload->'data'->'new'->>'id' = '${id}'`);
      if (logged.length > 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(logged.length, 1);
    const hook = api.requests.find((r) => r.url === `/tickets/${id}`);
    assert.equal(hook?.method, 'PUT');
    assert.deepEqual(hook?.body, { ticket: id, title: 'Card declined' });
    assert.equal(logged[0][0], '200');
    assert.deepEqual(JSON.parse(JSON.parse(logged[0][1]).data.body), { accepted: true, ref: `T-${id}` });
  });
});
