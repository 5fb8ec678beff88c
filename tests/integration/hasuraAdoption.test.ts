/**
 * Taking over a database Hasura has used. The catalog is built from Hasura's own catalog SQL
 * (tests/support/fixtures/hasura-v1.3) with metadata rows inserted the way Hasura v1.3 writes them;
 * the engine then starts on it: refusing (and changing nothing) without consent, adopting with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, startTestEngine } from './harness.js';
import { AUTHORS_AND_ARTICLES, HASURA_V13_CATALOG, sql } from '../support/hasuraFixtures.js';
import { startEventReceiver } from '../support/eventReceiver.js';
import { startWebhookServer } from '../support/webhookServer.js';


/** What a user (or Hasura itself) would compare before and after: the version row and the metadata rows. */
async function hasuraState(url: string): Promise<string> {
  const rows = await sql(
    url,
    `SELECT json_build_object(
       'version', (SELECT json_agg(json_build_object('uuid', hasura_uuid, 'version', version, 'upgraded_on', upgraded_on)) FROM hdb_catalog.hdb_version),
       'tables', (SELECT json_agg(t ORDER BY table_schema, table_name) FROM hdb_catalog.hdb_table t),
       'perms', (SELECT json_agg(p ORDER BY table_name, role_name, perm_type) FROM hdb_catalog.hdb_permission p),
       'rels', (SELECT json_agg(r ORDER BY table_name, rel_name) FROM hdb_catalog.hdb_relationship r),
       'triggers', (SELECT json_agg(e ORDER BY name) FROM hdb_catalog.event_triggers e)
     )::text AS s`,
  );
  return rows[0].s;
}

async function hasuraDatabase(t: { after: (fn: () => Promise<void>) => void }, prefix: string): Promise<string> {
  const db = await createTestDatabase(prefix);
  t.after(() => db.drop());
  await sql(db.url, HASURA_V13_CATALOG);
  return db.url;
}

/** A small Hasura v1.3 project: two tables, a relationship, a user permission, an event trigger and its pending event. */
async function hasuraProject(url: string, webhook: string): Promise<void> {
  await sql(
    url,
    `${AUTHORS_AND_ARTICLES}
     INSERT INTO hdb_catalog.hdb_table (table_schema, table_name, configuration) VALUES
       ('public', 'author', '{"custom_root_fields":{},"custom_column_names":{}}'),
       ('public', 'article', '{"custom_root_fields":{},"custom_column_names":{}}');
     INSERT INTO hdb_catalog.hdb_relationship (table_schema, table_name, rel_name, rel_type, rel_def) VALUES
       ('public', 'article', 'author', 'object', '{"foreign_key_constraint_on":"author_id"}'),
       ('public', 'author', 'articles', 'array', '{"foreign_key_constraint_on":{"table":{"schema":"public","name":"article"},"column":"author_id"}}');
     INSERT INTO hdb_catalog.hdb_permission (table_schema, table_name, role_name, perm_type, perm_def) VALUES
       ('public', 'article', 'user', 'select', '{"columns":["id","title","author_id"],"filter":{"author_id":{"_eq":"X-Hasura-User-Id"}}}'),
       ('public', 'author', 'user', 'select', '{"columns":["id","name"],"filter":{}}');
     INSERT INTO hdb_catalog.event_triggers (name, type, schema_name, table_name, configuration) VALUES
       ('article_created', 'table', 'public', 'article',
        json_build_object('definition', json_build_object('enable_manual', false, 'insert', json_build_object('columns', '*')),
                          'retry_conf', json_build_object('num_retries', 0, 'interval_sec', 10, 'timeout_sec', 60),
                          'webhook', $1::text, 'headers', '[]'::json));`.replace('$1::text', `'${webhook}'`),
  );
  // Hasura's capture trigger, as v1.3 installs it (a function in hdb_views calling insert_event_log).
  await sql(
    url,
    `CREATE FUNCTION hdb_views."notify_hasura_article_created_INSERT"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN PERFORM hdb_catalog.insert_event_log(CAST(TG_TABLE_SCHEMA AS text), CAST(TG_TABLE_NAME AS text), 'article_created', TG_OP, json_build_object('old', NULL, 'new', row_to_json(NEW))); RETURN NULL; END $$;
     CREATE TRIGGER "notify_hasura_article_created_INSERT" AFTER INSERT ON public.article FOR EACH ROW EXECUTE PROCEDURE hdb_views."notify_hasura_article_created_INSERT"();`,
  );
  // A change Hasura captured (through its insert_event_log) but had not delivered when it stopped.
  await sql(url, `SELECT set_config('hasura.user', '{"x-hasura-role":"admin"}', false), hdb_catalog.insert_event_log('public', 'article', 'article_created', 'INSERT', json_build_object('old', NULL, 'new', json_build_object('id', 3, 'title', 'g1', 'author_id', 2)))`);
}

test('a Hasura v1.3 catalog: without consent the engine refuses with one line and changes nothing', async (t) => {
  const url = await hasuraDatabase(t, 'hv1');
  await hasuraProject(url, 'http://127.0.0.1:9/none');
  const before = await hasuraState(url);
  await assert.rejects(startTestEngine({ databaseUrl: url }), (err: Error) => {
    assert.match(err.message, /Hasura v1\.3 \(catalog version 43/);
    assert.match(err.message, /--adopt-hasura-catalog/);
    assert.equal(err.message.includes('\n'), false);
    return true;
  });
  assert.equal(await hasuraState(url), before);
  const [left] = await sql(url, "SELECT to_regclass('hdb_catalog.hdb_metadata') AS md, to_regclass('hdb_catalog.svc_catalog') AS own");
  assert.deepEqual(left, { md: null, own: null });
});

test('catalog versions the engine does not know, and Hasura v2 catalogs without consent, are refused and left as they were', async (t) => {
  const unknown = await hasuraDatabase(t, 'h999');
  await sql(unknown, "UPDATE hdb_catalog.hdb_version SET version = '999'");
  await assert.rejects(startTestEngine({ databaseUrl: unknown, adoptHasuraCatalog: true }), /does not know \(999\)/);
  assert.deepEqual(await sql(unknown, 'SELECT version FROM hdb_catalog.hdb_version'), [{ version: '999' }]);

  const v2 = await createTestDatabase('hv2');
  t.after(() => v2.drop());
  const doc = JSON.stringify({ version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'x' } }], configuration: {} }] });
  await sql(
    v2.url,
    `CREATE SCHEMA hdb_catalog;
     CREATE TABLE hdb_catalog.hdb_version (hasura_uuid uuid PRIMARY KEY DEFAULT gen_random_uuid(), version text NOT NULL, upgraded_on timestamptz NOT NULL, cli_state jsonb NOT NULL DEFAULT '{}', console_state jsonb NOT NULL DEFAULT '{}');
     CREATE TABLE hdb_catalog.hdb_metadata (id integer PRIMARY KEY, metadata json NOT NULL, resource_version integer NOT NULL DEFAULT 1 UNIQUE);
     INSERT INTO hdb_catalog.hdb_version (version, upgraded_on) VALUES ('47', now());`,
  );
  await sql(v2.url, 'INSERT INTO hdb_catalog.hdb_metadata (id, metadata, resource_version) VALUES (1, $1, 7)', [doc]);
  await assert.rejects(startTestEngine({ databaseUrl: v2.url }), (err: Error) => {
    assert.match(err.message, /Hasura v2 \(catalog version 47/);
    assert.match(err.message, /--adopt-hasura-catalog/);
    assert.equal(err.message.includes('\n'), false);
    return true;
  });
  assert.deepEqual(await sql(v2.url, 'SELECT version FROM hdb_catalog.hdb_version'), [{ version: '47' }]);
  assert.deepEqual(await sql(v2.url, 'SELECT metadata::text AS m, resource_version FROM hdb_catalog.hdb_metadata'), [{ m: doc, resource_version: 7 }]);
});

test('adopting a Hasura v1.3 database: its metadata is served with its permissions, its pending event is delivered, Hasura\'s catalog rows are kept', async (t) => {
  const receiver = await startEventReceiver();
  t.after(() => receiver.stop());
  const url = await hasuraDatabase(t, 'hadopt');
  await hasuraProject(url, receiver.url + '/hook');
  // A one-off scheduled event Hasura had not delivered yet (rows as its create_scheduled_event writes them).
  await sql(
    url,
    `INSERT INTO hdb_catalog.hdb_scheduled_events (webhook_conf, scheduled_time, retry_conf, payload, header_conf, comment)
     VALUES ($1::json, now() - interval '1 second', '{"num_retries":0,"retry_interval_seconds":10,"timeout_seconds":60,"tolerance_seconds":21600}', '{"remind":"ada"}', '[]', 'left by Hasura')`,
    [JSON.stringify(receiver.url + '/scheduled')],
  );
  // A cron trigger with an occurrence that was due, and an async action Hasura had not run (rows as v1.3 writes them).
  const handler = await startWebhookServer((req) => ({ status: 200, body: { text: `later ${(req.body as any).session_variables['x-hasura-user-id']}` } }));
  t.after(() => handler.stop());
  await sql(
    url,
    `INSERT INTO hdb_catalog.hdb_cron_triggers (name, webhook_conf, cron_schedule, payload, retry_conf, header_conf, include_in_metadata)
     VALUES ('hourly', $1::json, '0 * * * *', '{"k":"v"}', '{"num_retries":0,"retry_interval_seconds":10,"timeout_seconds":60,"tolerance_seconds":21600}', '[]', true);
     INSERT INTO hdb_catalog.hdb_cron_events (trigger_name, scheduled_time) VALUES ('hourly', now() - interval '1 minute');`.replace('$1::json', `'${JSON.stringify(receiver.url + '/cron')}'`),
  );
  await sql(
    url,
    `INSERT INTO hdb_catalog.hdb_custom_types (custom_types) VALUES ('{"objects":[{"name":"Later","fields":[{"name":"text","type":"String!"}]}]}');
     INSERT INTO hdb_catalog.hdb_action (action_name, action_defn) VALUES ('greet_later', $1::jsonb);
     INSERT INTO hdb_catalog.hdb_action_permission (action_name, role_name) VALUES ('greet_later', 'user');
     INSERT INTO hdb_catalog.hdb_action_log (action_name, input_payload, request_headers, session_variables, status)
     VALUES ('greet_later', '{}', '{}', '{"x-hasura-role":"user","x-hasura-user-id":"2"}', 'created');`.replace(
      '$1::jsonb',
      `'${JSON.stringify({ handler: handler.url + '/later', output_type: 'Later', arguments: [], kind: 'asynchronous', type: 'mutation' })}'`,
    ),
  );
  const before = await hasuraState(url);

  const engine = await startTestEngine({ databaseUrl: url, adoptHasuraCatalog: true });
  t.after(() => engine.stop());

  // The cron occurrence and the async action Hasura left are delivered; the action's row completed.
  const until = async (cond: () => Promise<boolean> | boolean) => {
    const end = Date.now() + 15_000;
    while (!(await cond()) && Date.now() < end) await new Promise((res) => setTimeout(res, 50));
  };
  await until(() => receiver.deliveries.some((x) => x.path === '/cron') && handler.requests.length > 0);
  const cron = receiver.deliveries.filter((x) => x.path === '/cron');
  assert.deepEqual(cron.map((x) => [x.body.name, x.body.payload]), [['hourly', { k: 'v' }]]);
  assert.deepEqual((handler.requests[0]!.body as any).action, { name: 'greet_later' });
  const logRow = async () => (await sql(url, "SELECT status, response_payload FROM hdb_catalog.hdb_action_log WHERE action_name = 'greet_later'"))[0];
  await until(async () => (await logRow()).status === 'completed');
  assert.deepEqual(await logRow(), { status: 'completed', response_payload: { text: 'later 2' } });
  await until(async () => (await sql(url, "SELECT status FROM hdb_catalog.hdb_cron_events WHERE scheduled_time < now()"))[0]?.status === 'delivered');
  assert.deepEqual(await sql(url, "SELECT status FROM hdb_catalog.hdb_cron_events WHERE scheduled_time < now()"), [{ status: 'delivered' }]);
  // Its next occurrences are scheduled (Hasura's partial unique key serves the engine's generator).
  assert.deepEqual(await sql(url, "SELECT count(*)::int AS n FROM hdb_catalog.hdb_cron_events WHERE scheduled_time > now() AND status = 'scheduled'"), [{ n: 100 }]);

  // The user's permission was written for x-hasura-user-id; it now reads x-svc-user-id.
  const r = await engine.graphql('{ article(order_by: {id: asc}) { title author { name } } }', {}, { 'x-svc-role': 'user', 'x-svc-user-id': '1' });
  assert.deepEqual(r.body, { data: { article: [{ title: 'a1', author: { name: 'ada' } }, { title: 'a2', author: { name: 'ada' } }] } });
  const exported = await engine.query({ type: 'export_metadata', args: {} });
  const article = exported.body.tables.find((x: any) => x.table.name === 'article');
  assert.deepEqual(article.select_permissions[0].permission.filter, { author_id: { _eq: 'X-Svc-User-Id'.toLowerCase() } });
  assert.equal(exported.body.tables.some((x: any) => x.table.schema === 'hdb_catalog'), false);

  // The event Hasura captured and never delivered, and its scheduled event, reach their webhooks.
  const deadline = Date.now() + 15_000;
  const hook = () => receiver.deliveries.filter((x) => x.path === '/hook');
  while ((hook().length === 0 || !receiver.deliveries.some((x) => x.path === '/scheduled')) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
  const scheduled = receiver.deliveries.filter((x) => x.path === '/scheduled');
  assert.equal(scheduled.length, 1);
  assert.deepEqual([scheduled[0]!.body.payload, scheduled[0]!.body.comment], [{ remind: 'ada' }, 'left by Hasura']);
  assert.deepEqual(await sql(url, 'SELECT status FROM hdb_catalog.hdb_scheduled_events'), [{ status: 'delivered' }]);
  assert.equal(hook().length, 1);
  const d = hook()[0]!;
  // Captured by Hasura: its session_variables as Hasura wrote them.
  assert.deepEqual(d.body.event.session_variables, { 'x-hasura-role': 'admin' });
  // Adopted from Hasura: Hasura-compatible session variables are on by default (--hasura-session-variables auto).
  assert.deepEqual((await engine.runSql("SELECT current_setting('hasura.user', true) AS u")).result[1], ['{"x-hasura-role":"admin"}']);
  assert.equal(d.body.trigger.name, 'article_created');
  assert.deepEqual(d.body.event.data.new, { id: 3, title: 'g1', author_id: 2 });

  // The engine's own captures work too.
  const ins = await engine.graphql('mutation { insert_article_one(object: {title: "a3", author_id: 1}) { id } }');
  assert.deepEqual(ins.body, { data: { insert_article_one: { id: 4 } } });
  while (hook().length < 2 && Date.now() < deadline + 15_000) await new Promise((res) => setTimeout(res, 50));
  assert.equal(hook()[1]?.body.event.data.new.title, 'a3');
  assert.deepEqual(hook()[1]?.body.event.session_variables, { 'x-svc-role': 'admin', 'x-hasura-role': 'admin' });
  // Once: Hasura's own capture trigger was dropped, only the engine's records the change.
  assert.deepEqual(await sql(url, "SELECT count(*)::int AS n FROM hdb_catalog.event_log WHERE payload->'data'->'new'->>'title' = 'a3'"), [{ n: 1 }]);

  // What Hasura reads at start is as it was: the version row and the metadata rows.
  assert.equal(await hasuraState(url), before);
  const [own] = await sql(url, 'SELECT version, adopted_from, adoption_report FROM hdb_catalog.svc_catalog');
  assert.equal(own.version, '1');
  assert.match(own.adopted_from, /Hasura v1\.3/);
  assert.equal(own.adoption_report.imported.tables, 2);
  assert.equal(own.adoption_report.imported.permissions, 2);
  assert.equal(own.adoption_report.imported.event_triggers, 1);
  assert.equal(own.adoption_report.imported.cron_triggers, 1);
  assert.equal(own.adoption_report.imported.actions, 1);

  // A second start (no flag needed any more) serves the same adopted metadata.
  await engine.stop();
  const again = await startTestEngine({ databaseUrl: url });
  t.after(() => again.stop());
  const r2 = await again.graphql('{ article { title } }', {}, { 'x-svc-role': 'user', 'x-svc-user-id': '2' });
  assert.deepEqual(r2.body, { data: { article: [{ title: 'g1' }] } });
  assert.equal(await hasuraState(url), before);
});
