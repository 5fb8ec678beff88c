/**
 * Bad input on /v1/query, swept over EVERY operation type of the closed registry (OP_TYPES):
 * `args` missing or of the wrong JSON type, each argument missing or of a wrong type, unknown
 * extra keys, a nonexistent table, and the operation sent by a non-admin role. Every answer must
 * be 200 or a `{path, error, code}` error with a 4xx status (never a 500), a failed operation
 * must leave the exported metadata byte-identical, a non-admin never sees `internal` details, and
 * the engine keeps answering.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OP_TYPES } from '../../src/metadataApi/operations.js';
import { startTestEngine, type HttpResult, type TestEngine } from './harness.js';

const SCHEMA = `
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, age int CHECK (age > 0));
CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author(id));
CREATE FUNCTION search_authors(q text) RETURNS SETOF author AS $$ SELECT * FROM author WHERE name ILIKE '%' || q || '%' $$ LANGUAGE sql STABLE;
CREATE FUNCTION author_full(a author) RETURNS text AS $$ SELECT a.name || '!' $$ LANGUAGE sql STABLE;
INSERT INTO author (name, age) VALUES ('a', 1), ('b', 2);
`;

const T = 'author';
/** A valid `args` for every operation type (the sweep breaks them one piece at a time). */
const TEMPLATES: Record<(typeof OP_TYPES)[number], Record<string, unknown>> = {
  run_sql: { sql: 'select 1' },
  track_table: { schema: 'public', name: 'author' },
  add_existing_table_or_view: { schema: 'public', name: 'author' },
  untrack_table: { table: 'author', cascade: false },
  set_table_is_enum: { table: 'author', is_enum: true },
  set_table_custom_fields: { table: 'author', custom_root_fields: {}, custom_column_names: {} },
  create_object_relationship: { table: 'article', name: 'author2', using: { foreign_key_constraint_on: 'author_id' } },
  create_array_relationship: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } },
  drop_relationship: { table: 'article', relationship: 'author' },
  rename_relationship: { table: 'article', name: 'author', new_name: 'writer' },
  set_relationship_comment: { table: 'article', name: 'author', comment: 'x' },
  create_insert_permission: { table: T, role: 'r1', permission: { check: {}, columns: ['name'] } },
  create_select_permission: { table: T, role: 'r1', permission: { columns: ['name'], filter: {} } },
  create_update_permission: { table: T, role: 'r1', permission: { columns: ['name'], filter: {} } },
  create_delete_permission: { table: T, role: 'r1', permission: { filter: {} } },
  drop_insert_permission: { table: T, role: 'user' },
  drop_select_permission: { table: T, role: 'user' },
  drop_update_permission: { table: T, role: 'user' },
  drop_delete_permission: { table: T, role: 'user' },
  set_permission_comment: { table: T, role: 'user', type: 'select', comment: 'c' },
  track_function: { schema: 'public', name: 'search_authors' },
  untrack_function: { schema: 'public', name: 'search_authors' },
  create_function_permission: { function: 'search_authors', role: 'user' },
  drop_function_permission: { function: 'search_authors', role: 'user' },
  add_computed_field: { table: T, name: 'full', definition: { function: 'author_full' } },
  drop_computed_field: { table: T, name: 'full' },
  export_metadata: {},
  replace_metadata: { version: 2, tables: [] },
  reload_metadata: {},
  clear_metadata: {},
  get_inconsistent_metadata: {},
  drop_inconsistent_metadata: {},
  create_query_collection: { name: 'c1', definition: { queries: [] } },
  drop_query_collection: { collection: 'c1', cascade: false },
  add_query_to_collection: { collection_name: 'c1', query_name: 'q', query: '{ author { id } }' },
  drop_query_from_collection: { collection_name: 'c1', query_name: 'q' },
  add_collection_to_allowlist: { collection: 'c1' },
  drop_collection_from_allowlist: { collection: 'c1' },
  set_api_limits: { disabled: false, depth_limit: { global: 5, per_role: { user: 3 } }, node_limit: { global: 50 } },
  remove_api_limits: {},
  create_rest_endpoint: { name: 'r1', url: 'authors/:id', methods: ['GET'], definition: { query: { collection_name: 'c1', query_name: 'q' } }, comment: 'c' },
  drop_rest_endpoint: { name: 'r1' },
  set_graphql_schema_introspection_options: { disabled_for_roles: ['user'] },
  add_inherited_role: { role_name: 'both', role_set: ['user'] },
  drop_inherited_role: { role_name: 'both' },
  update_source: { name: 'default', customization: { naming_convention: 'hasura-default' } },
  add_source: { name: 'second', configuration: { connection_info: { database_url: 'postgres://127.0.0.1:1/nowhere', pool_settings: { max_connections: 2 } } } },
  drop_source: { name: 'second', cascade: false },
  rename_source: { name: 'second', new_name: 'third' },
  create_event_trigger: { name: 'et1', table: T, insert: { columns: '*' }, update: { columns: ['name'] }, webhook: 'http://127.0.0.1:9/hook' },
  delete_event_trigger: { name: 'et1' },
  redeliver_event: { event_id: '00000000-0000-0000-0000-000000000000' },
  invoke_event_trigger: { name: 'et1', payload: { a: 1 } },
  set_custom_types: { objects: [{ name: 'Out', fields: [{ name: 'id', type: 'Int!' }], relationships: [{ name: 'a', type: 'object', remote_table: 'author', field_mapping: { id: 'id' } }] }] },
  create_action: { name: 'act1', definition: { arguments: [{ name: 'x', type: 'Int!' }], output_type: 'Out', handler: 'http://127.0.0.1:9/act' } },
  update_action: { name: 'act1', definition: { arguments: [], output_type: 'Out', handler: 'http://127.0.0.1:9/act2' } },
  drop_action: { name: 'act1', clear_data: true },
  create_action_permission: { action: 'act1', role: 'r1' },
  drop_action_permission: { action: 'act1', role: 'r1' },
  add_remote_schema: { name: 'rs1', definition: { url: 'http://127.0.0.1:9/graphql', headers: [{ name: 'x', value: 'y' }], forward_client_headers: false, timeout_seconds: 2 }, comment: 'c' },
  update_remote_schema: { name: 'rs1', definition: { url: 'http://127.0.0.1:9/graphql', headers: [{ name: 'x', value: 'y' }], forward_client_headers: false, timeout_seconds: 2, customization: { root_fields_namespace: 'ns', type_names: { prefix: 'P_' }, field_names: [{ parent_type: 'Query', prefix: 'q_' }] } }, comment: 'c' },
  remove_remote_schema: { name: 'rs1' },
  reload_remote_schema: { name: 'rs1' },
  add_remote_schema_permissions: { remote_schema: 'rs1', role: 'user', definition: { schema: 'type Query { hello: String }' } },
  drop_remote_schema_permissions: { remote_schema: 'rs1', role: 'user' },
  create_remote_relationship: { name: 'rr1', table: T, hasura_fields: ['id'], remote_schema: 'rs1', remote_field: { f: { arguments: { id: '$id' } } } },
  update_remote_relationship: { name: 'rr1', table: T, hasura_fields: ['id'], remote_schema: 'rs1', remote_field: { f: { arguments: { id: '$id' } } } },
  delete_remote_relationship: { name: 'rr1', table: T },
  create_remote_schema_remote_relationship: { remote_schema: 'rs1', type_name: 'Q', name: 'rr1', definition: { to_source: { source: 'default', table: T, relationship_type: 'array', field_mapping: { id: 'id' } } } },
  update_remote_schema_remote_relationship: { remote_schema: 'rs1', type_name: 'Q', name: 'rr1', definition: { to_source: { source: 'default', table: T, relationship_type: 'array', field_mapping: { id: 'id' } } } },
  delete_remote_schema_remote_relationship: { remote_schema: 'rs1', type_name: 'Q', name: 'rr1' },
  create_cron_trigger: { name: 'ct1', webhook: 'http://127.0.0.1:9/hook', schedule: '0 0 1 1 *', include_in_metadata: true },
  delete_cron_trigger: { name: 'ct1' },
  create_scheduled_event: { webhook: 'http://127.0.0.1:9/hook', schedule_at: '2099-01-01T00:00:00Z' },
  track_logical_model: { name: 'lm1', fields: [{ name: 'id', type: { scalar: 'integer', nullable: false } }] },
  untrack_logical_model: { name: 'lm1' },
  create_logical_model_select_permission: { name: 'lm0', role: 'r1', permission: { columns: ['id'], filter: {} } },
  drop_logical_model_select_permission: { name: 'lm0', role: 'user' },
  track_native_query: { root_field_name: 'nq1', code: 'SELECT id FROM author WHERE id = {{id}}', arguments: { id: { type: 'integer', nullable: false } }, returns: 'lm0' },
  untrack_native_query: { root_field_name: 'nq0' },
  get_logical_model: {},
  get_native_query: {},
  test_webhook_transform: { webhook_url: 'http://127.0.0.1:9/hook', body: { a: 1 }, request_transform: { version: 2, body: { action: 'transform', template: '{"b": {{$body.a}}}' } } },
  select: { table: T, columns: ['id'], where: { id: { $eq: 1 } }, order_by: ['id'], limit: 1, offset: 0 },
  insert: { table: T, objects: [{ name: 'x' }], returning: ['id'] },
  update: { table: T, where: { id: { $eq: -1 } }, $set: { name: 'y' } },
  delete: { table: T, where: { id: { $eq: -1 } } },
  count: { table: T, where: {} },
};

const WRONG: unknown[] = [null, 7, 'x', [], { zz: 1 }];

/** Every variant of a broken request for one operation type. */
function variants(type: string, tpl: Record<string, unknown>): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [[`${type}: no args`, { type }]];
  for (const w of WRONG) out.push([`${type}: args=${JSON.stringify(w)}`, { type, args: w }]);
  for (const k of Object.keys(tpl)) {
    const { [k]: _dropped, ...rest } = tpl;
    out.push([`${type}: without ${k}`, { type, args: rest }]);
    for (const w of WRONG) out.push([`${type}: ${k}=${JSON.stringify(w)}`, { type, args: { ...tpl, [k]: w } }]);
    const v = tpl[k];
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const k2 of Object.keys(v)) {
        for (const w of [null, 7, []]) out.push([`${type}: ${k}.${k2}=${JSON.stringify(w)}`, { type, args: { ...tpl, [k]: { ...v, [k2]: w } } }]);
      }
    }
  }
  out.push([`${type}: unknown extra key`, { type, args: { ...tpl, bogus_key: 1 } }]);
  if ('table' in tpl) {
    out.push([`${type}: nonexistent table`, { type, args: { ...tpl, table: 'no_such_table' } }]);
    out.push([`${type}: nonexistent schema`, { type, args: { ...tpl, table: { schema: 'no_such_schema', name: 'author' } } }]);
  }
  return out;
}

function assertErrorShape(label: string, r: HttpResult): void {
  assert.ok(r.status < 500, `${label}: got ${r.status} ${r.text}`);
  if (r.status === 200) return;
  assert.ok(r.status >= 400, `${label}: ${r.status}`);
  assert.equal(typeof r.body, 'object', `${label}: ${r.text}`);
  assert.equal(typeof r.body.path, 'string', `${label}: path in ${r.text}`);
  assert.ok(r.body.path.startsWith('$'), `${label}: ${r.text}`);
  assert.equal(typeof r.body.error, 'string', `${label}: error in ${r.text}`);
  assert.equal(typeof r.body.code, 'string', `${label}: code in ${r.text}`);
}

async function setup(): Promise<TestEngine> {
  const e = await startTestEngine({ adminSecret: 'sweep-secret' });
  await e.runSql(SCHEMA);
  for (const name of ['author', 'article']) assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name } })).status, 200);
  const setupOps = [
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
    { type: 'track_logical_model', args: { name: 'lm0', fields: [{ name: 'id', type: { scalar: 'integer', nullable: false } }], select_permissions: [{ role: 'user', permission: { columns: '*', filter: {} } }] } },
    { type: 'track_native_query', args: { root_field_name: 'nq0', code: 'SELECT id FROM author', arguments: {}, returns: 'lm0' } },
  ];
  for (const q of setupOps) assert.equal((await e.query(q)).status, 200);
  return e;
}

const exportText = async (e: TestEngine): Promise<string> => (await e.query({ type: 'export_metadata', args: {} })).text;

test('every /v1/query operation answers broken args with a 4xx {path,error,code}, and failures change no metadata', async (t) => {
  const e = await setup();
  t.after(() => e.stop());
  const initial = await exportText(e);
  const types = Object.keys(TEMPLATES);
  assert.deepEqual([...types].sort(), [...OP_TYPES].sort(), 'the sweep covers the whole registry');
  let current = initial;
  let sent = 0;
  for (const type of types) {
    for (const [label, body] of variants(type, TEMPLATES[type as keyof typeof TEMPLATES])) {
      const r = await e.query(body);
      sent++;
      assertErrorShape(label, r);
      const after = await exportText(e);
      if (r.status !== 200) {
        assert.equal(after, current, `${label}: a failed operation changed the metadata (${r.text})`);
      } else if (after !== initial) {
        // A variant that happens to be valid: put the metadata back for the next one.
        assert.equal((await e.query({ type: 'replace_metadata', args: JSON.parse(initial) })).status, 200);
        current = await exportText(e);
      }
    }
  }
  assert.ok(sent > 700, `sent ${sent} requests`);
  assert.equal((await e.request('GET', '/healthz')).text, 'OK');
});

test('args of the wrong JSON type get aeson-style messages at the right path', async (t) => {
  const e = await setup();
  t.after(() => e.stop());
  const cases: Array<[unknown, number, Record<string, string>]> = [
    [{ type: 'count' }, 400, { path: '$', error: 'key "args" not found', code: 'parse-failed' }],
    [{ args: {} }, 400, { path: '$', error: 'key "type" not found', code: 'parse-failed' }],
    [{ type: 7, args: {} }, 400, { path: '$.type', error: 'expected String, encountered Number', code: 'parse-failed' }],
    [{ type: 'no_such_op', args: {} }, 400, { path: '$', error: 'unknown query type: "no_such_op"', code: 'parse-failed' }],
    [{ type: 'count', args: { table: T }, version: 3 }, 400, { path: '$.version', error: 'unsupported version: 3', code: 'parse-failed' }],
    [{ type: 'select', args: { table: T, columns: ['id'], where: 1 } }, 400, { path: '$.where', error: 'expected Object, encountered Number', code: 'parse-failed' }],
    [{ type: 'select', args: { table: T, columns: ['id'], limit: 1.5 } }, 400, { path: '$.limit', error: 'expected Int, encountered Number', code: 'parse-failed' }],
    [{ type: 'count', args: { table: 1 } }, 400, { path: '$.table', error: 'expecting a string or an object with name and schema', code: 'parse-failed' }],
    [{ type: 'bulk', args: null }, 400, { path: '$', error: 'expected Array, encountered Null', code: 'parse-failed' }],
    [{ type: 'bulk', args: [{ type: 'count', args: { table: T } }, 5] }, 400, { path: '$[1]', error: 'expected Object, encountered Number', code: 'parse-failed' }],
    [{ type: 'run_sql', args: { sql: 'select 1' } }, 400, { path: '$.args', error: 'restricted access: admin only', code: 'access-denied' }],
  ];
  for (const [body, status, expected] of cases) {
    const headers = (body as { type: string }).type === 'run_sql' ? { 'x-svc-role': 'user' } : undefined;
    const r = await e.query(body, headers);
    assert.equal(r.status, status, JSON.stringify(body));
    assert.deepEqual(r.body, expected, JSON.stringify(body));
  }
});

test('a non-admin role never sees SQL or Postgres internals in /v1/query errors', async (t) => {
  const e = await setup();
  t.after(() => e.stop());
  const user = { 'x-svc-role': 'user' };
  for (const type of Object.keys(TEMPLATES)) {
    const r = await e.query({ type, args: TEMPLATES[type as keyof typeof TEMPLATES] }, user);
    assertErrorShape(`${type} as user`, r);
    assert.equal(r.body.internal, undefined, `${type}: ${r.text}`);
  }
  // a Postgres-side failure: the message only, no statement
  const bad = await e.query({ type: 'select', args: { table: T, columns: ['id'], where: { id: 'x' } } }, user);
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, { path: '$.args', error: 'invalid input syntax for type integer: "x"', code: 'data-exception' });
  assert.doesNotMatch(bad.text, /SELECT|statement|_t0/);
  // the admin does get the details (Hasura's admin internal errors)
  const adminBad = await e.query({ type: 'select', args: { table: T, columns: ['id'], where: { id: 'x' } } });
  assert.equal(adminBad.status, 400);
  assert.equal(typeof adminBad.body.internal, 'object');
});
