/**
 * Taking over a database Hasura v2 has used, in place. The catalog is built from Hasura's own catalog
 * SQL (tests/support/fixtures/hasura-v1.3 then hasura-v2: the v1.3 catalog migrated to version 48) with
 * a metadata document in hdb_metadata as Hasura v2 stores it; the engine adopts it with consent, serves
 * the default source's metadata, delivers the event Hasura left, and leaves Hasura's rows as they were.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, startTestEngine } from './harness.js';
import { AUTHORS_AND_ARTICLES, HASURA_V13_CATALOG, HASURA_V2_CATALOG, sql } from '../support/hasuraFixtures.js';
import { startEventReceiver } from '../support/eventReceiver.js';
import { startWebhookServer } from '../support/webhookServer.js';
import { pino } from 'pino';


/** What Hasura v2 reads at start, as text: its version row, its metadata document and version, its notification row. */
async function hasuraState(url: string): Promise<string> {
  const [row] = await sql(
    url,
    `SELECT json_build_object(
       'version', (SELECT json_agg(v) FROM hdb_catalog.hdb_version v),
       'metadata', (SELECT json_agg(json_build_object('id', id, 'text', metadata::text, 'resource_version', resource_version)) FROM hdb_catalog.hdb_metadata),
       'notifications', (SELECT json_agg(n) FROM hdb_catalog.hdb_schema_notifications n),
       'columns', (SELECT json_agg(c ORDER BY c.table_name, c.ordinal_position) FROM information_schema.columns c
                    WHERE c.table_schema = 'hdb_catalog' AND c.table_name IN ('hdb_version', 'hdb_metadata', 'hdb_schema_notifications'))
     )::text AS s`,
  );
  return row.s;
}

/** Hasura v2's export of a small project: the default source, an action, a collection on the allow-list, a cron trigger. */
function hasuraDocument(hook: string, handler: string, cron: string) {
  return {
    version: 3,
    sources: [
      {
        name: 'default',
        kind: 'postgres',
        configuration: { connection_info: { database_url: { from_env: 'HASURA_GRAPHQL_DATABASE_URL' }, isolation_level: 'read-committed', use_prepared_statements: false } },
        tables: [
          {
            table: { schema: 'public', name: 'article' },
            object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }],
            select_permissions: [{ role: 'user', permission: { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Hasura-User-Id' } } } }],
            insert_permissions: [{ role: 'user', permission: { check: {}, set: { author_id: 'x-hasura-User-Id' }, columns: ['title'] } }],
            event_triggers: [
              {
                name: 'article_created',
                definition: { enable_manual: false, insert: { columns: '*' } },
                retry_conf: { num_retries: 0, interval_sec: 10, timeout_sec: 60 },
                webhook: hook,
              },
            ],
          },
          {
            table: { schema: 'public', name: 'author' },
            array_relationships: [{ name: 'articles', using: { foreign_key_constraint_on: { column: 'author_id', table: { schema: 'public', name: 'article' } } } }],
            computed_fields: [{ name: 'article_count', definition: { function: { schema: 'public', name: 'author_article_count' } } }],
            select_permissions: [{ role: 'user', permission: { columns: ['id', 'name'], computed_fields: ['article_count'], filter: {} } }],
          },
        ],
        functions: [{ function: { schema: 'public', name: 'search_articles' }, permissions: [{ role: 'user' }] }],
      },
    ],
    actions: [
      { name: 'shout', definition: { handler, output_type: 'Shout', arguments: [{ name: 'text', type: 'String!' }], type: 'mutation', kind: 'synchronous' }, permissions: [{ role: 'user' }] },
      { name: 'shout_later', definition: { handler, output_type: 'Shout', arguments: [{ name: 'text', type: 'String!' }], type: 'mutation', kind: 'asynchronous' }, permissions: [{ role: 'user' }] },
    ],
    custom_types: { objects: [{ name: 'Shout', fields: [{ name: 'text', type: 'String!' }] }] },
    query_collections: [{ name: 'allowed-queries', definition: { queries: [{ name: 'titles', query: 'query titles { article { title } }' }] } }],
    allowlist: [{ collection: 'allowed-queries' }],
    cron_triggers: [{ name: 'nightly', webhook: cron, schedule: '0 3 * * *', include_in_metadata: true, payload: {}, retry_conf: { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 } }],
    inherited_roles: [{ role_name: 'staff', role_set: ['user'] }],
  };
}

test('adopting a Hasura v2 database in place: its default source is served, its pending event delivered, its own rows left byte for byte', async (t) => {
  const receiver = await startEventReceiver();
  t.after(() => receiver.stop());
  const handler = await startWebhookServer((req) => ({ status: 200, body: { text: String((req.body as any).input.text).toUpperCase() } }));
  const cronHook = receiver.url + '/cron';
  t.after(() => handler.stop());
  const db = await createTestDatabase('hv2adopt');
  t.after(() => db.drop());
  const url = db.url;
  await sql(url, HASURA_V13_CATALOG);
  await sql(url, HASURA_V2_CATALOG);
  await sql(
    url,
    `${AUTHORS_AND_ARTICLES}
     CREATE FUNCTION public.author_article_count(a public.author) RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT count(*) FROM public.article WHERE author_id = a.id $$;
     CREATE FUNCTION public.search_articles(q text) RETURNS SETOF public.article LANGUAGE sql STABLE AS $$ SELECT * FROM public.article WHERE title ILIKE q || '%' $$;
     -- Hasura v2's capture trigger (function in hdb_catalog) and an event it captured but had not delivered.
     CREATE FUNCTION hdb_catalog."notify_hasura_article_created_INSERT"() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN PERFORM hdb_catalog.insert_event_log(CAST(TG_TABLE_SCHEMA AS text), CAST(TG_TABLE_NAME AS text), 'article_created', TG_OP, json_build_object('old', NULL, 'new', row_to_json(NEW))); RETURN NULL; END $$;
     CREATE TRIGGER "notify_hasura_article_created_INSERT" AFTER INSERT ON public.article FOR EACH ROW EXECUTE PROCEDURE hdb_catalog."notify_hasura_article_created_INSERT"();`,
  );
  await sql(url, 'INSERT INTO hdb_catalog.hdb_metadata (id, metadata, resource_version) VALUES (1, $1, 7)', [JSON.stringify(hasuraDocument(receiver.url + '/hook', handler.url + '/shout', cronHook))]);
  // Work Hasura left pending: an occurrence of its cron trigger that was due, and an async action it had not run.
  await sql(url, "INSERT INTO hdb_catalog.hdb_cron_events (trigger_name, scheduled_time) VALUES ('nightly', now() - interval '1 minute')");
  await sql(
    url,
    `INSERT INTO hdb_catalog.hdb_action_log (action_name, input_payload, request_headers, session_variables, status)
     VALUES ('shout_later', '{"text":"later"}', '{}', '{"x-hasura-role":"user","x-hasura-user-id":"1"}', 'created')`,
  );
  await sql(url, `INSERT INTO hdb_catalog.hdb_schema_notifications (id, notification, resource_version, instance_id) VALUES (1, '{"sources":[]}', 7, gen_random_uuid())`);
  await sql(url, `SELECT set_config('hasura.user', '{"x-hasura-role":"admin"}', false), hdb_catalog.insert_event_log('public', 'article', 'article_created', 'INSERT', json_build_object('old', NULL, 'new', json_build_object('id', 3, 'title', 'g1', 'author_id', 2)))`);
  const before = await hasuraState(url);

  const engine = await startTestEngine({ databaseUrl: url, adoptHasuraCatalog: true });
  t.after(() => engine.stop());
  const user1 = { 'x-svc-role': 'user', 'x-svc-user-id': '1' };

  // Permissions written for X-Hasura-User-Id, a relationship, a computed field and a tracked function.
  const r = await engine.graphql('{ article(order_by: {id: asc}) { title author { name article_count } } search_articles(args: {q: "a"}) { title } }', {}, user1);
  assert.deepEqual(r.body, { data: { article: [{ title: 'a1', author: { name: 'ada', article_count: 2 } }, { title: 'a2', author: { name: 'ada', article_count: 2 } }], search_articles: [{ title: 'a1' }, { title: 'a2' }] } });
  // The insert preset x-hasura-User-Id now reads x-svc-user-id.
  const ins = await engine.graphql('mutation { insert_article_one(object: {title: "a3"}) { author_id } }', {}, user1);
  assert.deepEqual(ins.body, { data: { insert_article_one: { author_id: 1 } } });
  // The action, with its custom type and permission.
  const shout = await engine.graphql('mutation { shout(text: "hi") { text } }', {}, user1);
  assert.deepEqual(shout.body, { data: { shout: { text: 'HI' } } });
  // An adopted database speaks Hasura's words by default (--hasura-compat auto): the app's X-Hasura-* headers work.
  assert.equal(engine.engine.ctx.hasuraCompat, true);
  const hasuraWords = await engine.graphql('{ article(order_by: {id: asc}) { title } }', {}, { 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': '1' });
  assert.deepEqual(hasuraWords.body, { data: { article: [{ title: 'a1' }, { title: 'a2' }, { title: 'a3' }] } });
  // The collection and the allow-list.
  const exported = (await engine.query({ type: 'export_metadata', args: {} })).body;
  assert.deepEqual(exported.allowlist, [{ collection: 'allowed-queries' }]);
  assert.equal(exported.query_collections[0].definition.queries[0].name, 'titles');
  // The cron trigger, now a row of the engine's hdb_cron_triggers, with its next occurrences scheduled.
  assert.deepEqual(exported.cron_triggers.map((c: any) => [c.name, c.schedule]), [['nightly', '0 3 * * *']]);
  const [occ] = await sql(url, "SELECT count(*)::int AS n, min(scheduled_time) > now() AS future FROM hdb_catalog.hdb_cron_events WHERE trigger_name = 'nightly' AND status = 'scheduled'");
  assert.deepEqual(occ, { n: 100, future: true });

  // The event Hasura captured reaches its webhook, and the engine's own capture records the insert above once.
  const deadline = Date.now() + 15_000;
  const events = () => receiver.deliveries.filter((d) => d.path === '/hook');
  const crons = () => receiver.deliveries.filter((d) => d.path === '/cron');
  const later = () => handler.requests.filter((q) => (q.body as any).action.name === 'shout_later');
  while ((events().length < 2 || crons().length < 1 || later().length < 1) && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
  const titles = events().map((d) => d.body.event.data.new.title).sort();
  assert.deepEqual(titles, ['a3', 'g1']);
  assert.deepEqual(await sql(url, "SELECT count(*)::int AS n FROM hdb_catalog.event_log WHERE payload->'data'->'new'->>'title' = 'a3'"), [{ n: 1 }]);
  // The cron occurrence Hasura had not sent, and the async action it had not run (its session as Hasura stored it).
  assert.equal(crons().length, 1);
  assert.equal(crons()[0]!.body.name, 'nightly');
  assert.equal(later().length, 1);
  assert.deepEqual((later()[0]!.body as any).input, { text: 'later' });
  assert.equal((later()[0]!.body as any).session_variables['x-hasura-user-id'], '1');
  const statusOf = async () => (await sql(url, "SELECT status, response_payload FROM hdb_catalog.hdb_action_log WHERE action_name = 'shout_later'"))[0];
  while ((await statusOf()).status !== 'completed' && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
  assert.deepEqual(await statusOf(), { status: 'completed', response_payload: { text: 'LATER' } });
  while ((await sql(url, "SELECT status FROM hdb_catalog.hdb_cron_events WHERE scheduled_time < now()"))[0]?.status !== 'delivered' && Date.now() < deadline) await new Promise((res) => setTimeout(res, 50));
  assert.deepEqual(await sql(url, "SELECT status FROM hdb_catalog.hdb_cron_events WHERE scheduled_time < now()"), [{ status: 'delivered' }]);

  // The report: what was imported, and nothing left out (inherited roles are served too).
  const [own] = await sql(url, 'SELECT version, adopted_from, adoption_report FROM hdb_catalog.svc_catalog');
  assert.match(own.adopted_from, /^Hasura v2 catalog \(hdb_catalog\.hdb_version 48/);
  assert.deepEqual(
    [own.adoption_report.imported.tables, own.adoption_report.imported.relationships, own.adoption_report.imported.permissions, own.adoption_report.imported.computed_fields,
      own.adoption_report.imported.event_triggers, own.adoption_report.imported.functions, own.adoption_report.imported.actions, own.adoption_report.imported.query_collections,
      own.adoption_report.imported.cron_triggers, own.adoption_report.imported.function_permissions],
    [2, 2, 3, 1, 1, 1, 2, 1, 1, 1],
  );
  // Hasura's function permissions are imported as they are.
  assert.deepEqual(exported.functions, [{ function: { schema: 'public', name: 'search_articles' }, permissions: [{ role: 'user' }] }]);
  assert.deepEqual(own.adoption_report.not_imported, []);
  assert.deepEqual(exported.inherited_roles, [{ role_name: 'staff', role_set: ['user'] }]);
  const staff = await engine.graphql('{ article(order_by: {id: asc}) { title } }', {}, { 'x-svc-role': 'staff', 'x-svc-user-id': '1' });
  assert.deepEqual(staff.body, { data: { article: [{ title: 'a1' }, { title: 'a2' }, { title: 'a3' }] } });

  // A metadata change through the engine goes to its own document; Hasura's stays as it was.
  assert.equal((await engine.query({ type: 'create_select_permission', args: { table: 'author', role: 'guest', permission: { columns: ['name'], filter: {} } } })).status, 200);
  assert.deepEqual(await sql(url, "SELECT metadata::text LIKE '%guest%' AS has FROM hdb_catalog.svc_metadata"), [{ has: true }]);
  assert.equal(await hasuraState(url), before);

  // A second start (no flag needed any more) serves the engine's document.
  await engine.stop();
  const again = await startTestEngine({ databaseUrl: url });
  t.after(() => again.stop());
  const guest = await again.graphql('{ author(order_by: {name: asc}) { name } }', {}, { 'x-svc-role': 'guest' });
  assert.deepEqual(guest.body, { data: { author: [{ name: 'ada' }, { name: 'grace' }] } });
  assert.equal(await hasuraState(url), before);
});

test("adopting a Hasura v2 database whose metadata has every kind of api_limits and a cron trigger named with spaces: limits reported, not applied; the trigger installed", async (t) => {
  const db = await createTestDatabase('hv2limits');
  t.after(() => db.drop());
  const url = db.url;
  await sql(url, HASURA_V13_CATALOG);
  await sql(url, HASURA_V2_CATALOG);
  await sql(url, AUTHORS_AND_ARTICLES);
  const apiLimits = {
    disabled: false,
    rate_limit: { global: { max_reqs_per_min: 100, unique_params: 'IP' }, per_role: {} },
    depth_limit: { global: 2, per_role: {} },
    node_limit: { global: 50, per_role: {} },
    time_limit: { global: 5, per_role: {} },
    batch_limit: { global: 5, per_role: {} },
  };
  const document = {
    version: 3,
    sources: [{
      name: 'default',
      kind: 'postgres',
      configuration: { connection_info: { database_url: { from_env: 'HASURA_GRAPHQL_DATABASE_URL' }, isolation_level: 'read-committed', use_prepared_statements: false } },
      tables: [
        { table: { schema: 'public', name: 'article' }, object_relationships: [{ name: 'author', using: { foreign_key_constraint_on: 'author_id' } }], select_permissions: [{ role: 'user', permission: { columns: ['id', 'title'], filter: {} } }] },
        { table: { schema: 'public', name: 'author' }, select_permissions: [{ role: 'user', permission: { columns: ['name'], filter: {} } }] },
      ],
    }],
    cron_triggers: [{ name: 'Cleanup notification logs', webhook: 'http://127.0.0.1:9/cleanup', schedule: '0 3 * * *', include_in_metadata: true, payload: {}, retry_conf: { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 } }],
    api_limits: apiLimits,
  };
  await sql(url, 'INSERT INTO hdb_catalog.hdb_metadata (id, metadata, resource_version) VALUES (1, $1, 3)', [JSON.stringify(document)]);
  const lines: Array<Record<string, any>> = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const engine = await startTestEngine({ databaseUrl: url, adoptHasuraCatalog: true, startOptions: { logger } });
  t.after(() => engine.stop());
  const adoption = lines.find((l) => l.kind === 'hasura-adoption' && l.imported);
  assert.ok(adoption, JSON.stringify(lines.map((l) => l.msg)));
  const report = lines.find((l) => l.kind === 'api-limits');
  assert.equal(report?.applied, false, JSON.stringify(lines.map((l) => l.msg)));
  assert.deepEqual(report.api_limits, apiLimits);
  // Depth 3 under the stored depth limit of 2: served, as Hasura's open-source edition serves it.
  const deep = await engine.graphql('{ article(order_by: {id: asc}, limit: 1) { title author { name } } }', {}, { 'x-svc-role': 'user' });
  assert.deepEqual(deep.body, { data: { article: [{ title: 'a1', author: { name: 'ada' } }] } });
  assert.deepEqual((await engine.query({ type: 'export_metadata', args: {} })).body.api_limits, apiLimits);
  const [cron] = await sql(url, "SELECT name, (SELECT count(*)::int FROM hdb_catalog.hdb_cron_events e WHERE e.trigger_name = t.name) AS n FROM hdb_catalog.hdb_cron_triggers t");
  assert.deepEqual(cron, { name: 'Cleanup notification logs', n: 100 });
});
