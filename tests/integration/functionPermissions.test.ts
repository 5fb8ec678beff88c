/**
 * Hasura v2's function permissions end to end on a real database, through `/v1/metadata` and
 * `/v1/query` as a Hasura v2 user calls them: a VOLATILE function tracked as a mutation is in a
 * non-admin role's schema only with a function permission (its select permission on the returned
 * table is not enough, whatever `--infer-function-permissions` says); `pg_create_function_permission`
 * / `pg_drop_function_permission` with Hasura's errors and nothing changed by a failed one; query
 * functions keep inference by default and need a permission (and the select permission) with
 * `--infer-function-permissions=false`; an inherited role gets a member's function permission; and
 * `functions[].permissions` survive export → replace_metadata → export (versions 2 and 3).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

const SQL = `
CREATE TABLE team (id serial PRIMARY KEY, name text NOT NULL, secret text DEFAULT 's');
INSERT INTO team (name) VALUES ('red'), ('blue');
CREATE FUNCTION join_team(tname text) RETURNS SETOF team LANGUAGE sql VOLATILE AS $$ INSERT INTO team (name) VALUES (tname) RETURNING * $$;
CREATE FUNCTION search_teams(q text) RETURNS SETOF team LANGUAGE sql STABLE AS $$ SELECT * FROM team WHERE name ILIKE '%' || q || '%' $$;
`;

const setup = [
  { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'team' } } },
  { type: 'pg_create_select_permission', args: { source: 'default', table: 'team', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
  { type: 'pg_create_select_permission', args: { source: 'default', table: 'team', role: 'guest', permission: { columns: ['id', 'name'], filter: { id: { _eq: 1 } } } } },
  // `editor` may also update team rows: it has a mutation_root, without join_team in it.
  { type: 'pg_create_select_permission', args: { source: 'default', table: 'team', role: 'editor', permission: { columns: ['id', 'name'], filter: {} } } },
  { type: 'pg_create_update_permission', args: { source: 'default', table: 'team', role: 'editor', permission: { columns: ['name'], filter: {} } } },
  { type: 'pg_track_function', args: { source: 'default', function: { schema: 'public', name: 'join_team' }, configuration: { exposed_as: 'mutation' } } },
  { type: 'pg_track_function', args: { source: 'default', function: 'search_teams' } },
];

const asRole = (role: string) => ({ 'x-svc-role': role });
const JOIN = 'mutation { join_team(args: {tname: "evil"}) { id name } }';
const metadata = (e: TestEngine, body: unknown) => e.request('POST', '/v1/metadata', body);
const teamNames = async (e: TestEngine): Promise<string[]> => ((await e.runSql('SELECT name FROM team ORDER BY id')).result as string[][]).slice(1).map((r) => r[0]);
const mutationFields = async (e: TestEngine, role: string): Promise<string[]> => {
  const r = await e.graphql('{ __schema { mutationType { fields { name } } } }', undefined, asRole(role));
  return (r.body.data.__schema.mutationType?.fields ?? []).map((f: { name: string }) => f.name);
};

let e: TestEngine;
before(async () => {
  e = await startTestEngine({ adminSecret: 'adm' });
  await e.runSql(SQL);
  const r = await metadata(e, { type: 'bulk', args: setup });
  assert.equal(r.status, 200, r.text);
});
after(() => e?.stop());

test('a mutation function is not inferred from the select permission: not in the schema, refused, nothing inserted', async () => {
  // `user` may only select from team: it has no mutation at all, as in Hasura.
  assert.deepEqual(await mutationFields(e, 'user'), []);
  const r = await e.graphql(JOIN, undefined, asRole('user'));
  assert.deepEqual(r.body, { errors: [{ extensions: { path: '$', code: 'validation-failed' }, message: 'no mutations exist' }] });
  // `editor` has mutations, not this one.
  assert.deepEqual(await mutationFields(e, 'editor'), ['update_team', 'update_team_by_pk', 'update_team_many']);
  const editor = await e.graphql(JOIN, undefined, asRole('editor'));
  assert.deepEqual(editor.body, { errors: [{ extensions: { path: '$.selectionSet.join_team', code: 'validation-failed' }, message: 'field "join_team" not found in type: \'mutation_root\'' }] });
  assert.deepEqual(await teamNames(e), ['red', 'blue']);
  // The admin reaches it (and the query function is inferred for every role that may select the table).
  assert.ok((await mutationFields(e, 'admin')).includes('join_team'));
  const q = await e.graphql('{ search_teams(args: {q: "e"}, order_by: {id: asc}) { name } }', undefined, asRole('guest'));
  assert.deepEqual(q.body, { data: { search_teams: [{ name: 'red' }] } });
});

test('pg_create_function_permission lets the role call it (its rows as its select permission shows them); pg_drop_function_permission takes it away', async () => {
  const r = await metadata(e, { type: 'pg_create_function_permission', args: { source: 'default', function: { schema: 'public', name: 'join_team' }, role: 'user' } });
  assert.deepEqual([r.status, r.body], [200, { message: 'success' }]);
  assert.ok((await mutationFields(e, 'user')).includes('join_team'));
  const ok = await e.graphql('mutation { join_team(args: {tname: "green"}) { name } }', undefined, asRole('user'));
  assert.deepEqual(ok.body, { data: { join_team: [{ name: 'green' }] } });
  const hidden = await e.graphql('mutation { join_team(args: {tname: "x"}) { secret } }', undefined, asRole('user'));
  assert.equal(hidden.body.errors?.[0]?.extensions?.code, 'validation-failed');
  // Still nobody else's.
  assert.ok(!(await mutationFields(e, 'guest')).includes('join_team'));

  const drop = await metadata(e, { type: 'pg_drop_function_permission', args: { source: 'default', function: 'join_team', role: 'user' } });
  assert.deepEqual([drop.status, drop.body], [200, { message: 'success' }]);
  const refused = await e.graphql(JOIN, undefined, asRole('user'));
  assert.equal(refused.body.errors?.[0]?.extensions?.code, 'validation-failed');
  assert.deepEqual(await teamNames(e), ['red', 'blue', 'green']);
});

test("Hasura's errors for function permissions; a failed one changes nothing", async () => {
  const before = (await e.query({ type: 'export_metadata', args: {} })).body;
  const cases: Array<[unknown, number, string, string]> = [
    [{ type: 'pg_create_function_permission', args: { function: 'join_team', role: 'nobody' } }, 400, 'not-supported',
      'function permission can only be added when the function\'s return table "team" has select permission configured for role: "nobody"'],
    [{ type: 'pg_create_function_permission', args: { function: 'no_such_fn', role: 'user' } }, 400, 'not-exists', 'function not found in cache "no_such_fn"'],
    [{ type: 'pg_drop_function_permission', args: { function: 'join_team', role: 'user' } }, 400, 'not-exists',
      'permission of role "user" does not exist for function "join_team" in source: "default"'],
    [{ type: 'pg_create_function_permission', args: { function: 'join_team' } }, 400, 'parse-failed', 'key "role" not found'],
    [{ type: 'pg_create_function_permission', args: { source: 'other', function: 'join_team', role: 'user' } }, 400, 'not-exists', 'source with name "other" does not exist'],
  ];
  for (const [body, status, code, error] of cases) {
    const r = await metadata(e, body);
    assert.deepEqual([r.status, r.body.code, r.body.error], [status, code, error], JSON.stringify(body));
  }
  const first = await metadata(e, { type: 'pg_create_function_permission', args: { function: 'join_team', role: 'guest' } });
  assert.equal(first.status, 200, first.text);
  const again = await metadata(e, { type: 'pg_create_function_permission', args: { function: 'join_team', role: 'guest' } });
  assert.deepEqual([again.status, again.body.code, again.body.error], [400, 'already-exists', 'permission of role "guest" already exists for function "join_team" in source: "default"']);
  // In a bulk, a failing step leaves the earlier ones undone.
  const bulk = await metadata(e, { type: 'bulk', args: [
    { type: 'pg_drop_function_permission', args: { function: 'join_team', role: 'guest' } },
    { type: 'pg_create_function_permission', args: { function: 'join_team', role: 'nobody' } },
  ] });
  assert.equal(bulk.status, 400, bulk.text);
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.deepEqual(md.functions.find((f: { function: { name: string } }) => f.function.name === 'join_team').permissions, [{ role: 'guest' }]);
  const drop = await metadata(e, { type: 'pg_drop_function_permission', args: { function: 'join_team', role: 'guest' } });
  assert.equal(drop.status, 200, drop.text);
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, before);
});

test('an inherited role gets a function permission any member has', async () => {
  const r = await metadata(e, { type: 'bulk', args: [
    { type: 'add_inherited_role', args: { role_name: 'member', role_set: ['guest', 'user'] } },
    { type: 'pg_create_function_permission', args: { function: 'join_team', role: 'user' } },
  ] });
  assert.equal(r.status, 200, r.text);
  const ok = await e.graphql('mutation { join_team(args: {tname: "violet"}) { name } }', undefined, asRole('member'));
  assert.deepEqual(ok.body, { data: { join_team: [{ name: 'violet' }] } });
  // A member-only grant on the inherited role itself works too (the combined select permission counts).
  const drop = await metadata(e, { type: 'bulk', args: [
    { type: 'pg_drop_function_permission', args: { function: 'join_team', role: 'user' } },
    { type: 'pg_create_function_permission', args: { function: 'join_team', role: 'member' } },
  ] });
  assert.equal(drop.status, 200, drop.text);
  assert.ok((await mutationFields(e, 'member')).includes('join_team'));
  assert.ok(!(await mutationFields(e, 'user')).includes('join_team'));
  const clean = await metadata(e, { type: 'bulk', args: [
    { type: 'pg_drop_function_permission', args: { function: 'join_team', role: 'member' } },
    { type: 'drop_inherited_role', args: { role_name: 'member' } },
  ] });
  assert.equal(clean.status, 200, clean.text);
});

test('functions[].permissions: export (v2 and v3) → replace_metadata → export, and refused entries are Hasura-shaped', async () => {
  const grant = await metadata(e, { type: 'pg_create_function_permission', args: { function: 'join_team', role: 'user' } });
  assert.equal(grant.status, 200, grant.text);
  const v3 = (await metadata(e, { type: 'export_metadata', version: 2, args: {} })).body;
  const fns = v3.metadata?.sources?.[0]?.functions ?? v3.sources[0].functions;
  assert.deepEqual(fns.find((f: { function: { name: string } }) => f.function.name === 'join_team').permissions, [{ role: 'user' }]);
  const v2 = (await e.query({ type: 'export_metadata', args: {} })).body;
  const cleared = await e.query({ type: 'clear_metadata', args: {} });
  assert.equal(cleared.status, 200, cleared.text);
  assert.equal((await e.graphql(JOIN, undefined, asRole('user'))).body.errors?.[0]?.extensions?.code, 'validation-failed');
  const replaced = await metadata(e, { type: 'replace_metadata', args: v3.metadata ?? v3 });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, v2);
  const ok = await e.graphql('mutation { join_team(args: {tname: "teal"}) { name } }', undefined, asRole('user'));
  assert.deepEqual(ok.body, { data: { join_team: [{ name: 'teal' }] } });
  // A malformed entry is refused with its path, and nothing changes.
  const bad = await e.query({ type: 'replace_metadata', args: { ...v2, functions: [{ function: 'join_team', configuration: { exposed_as: 'mutation' }, permissions: [{ rol: 'user' }] }] } });
  assert.equal(bad.status, 400, bad.text);
  assert.equal(bad.body.code, 'parse-failed');
  assert.match(bad.body.path, /functions\[0\]\.permissions\[0\]/);
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, v2);
});

test('--infer-function-permissions=false: a query function needs a function permission and the select permission', async (t) => {
  const off = await startTestEngine({ adminSecret: 'adm', inferFunctionPermissions: false });
  t.after(() => off.stop());
  await off.runSql(SQL);
  const r = await metadata(off, { type: 'bulk', args: [...setup, { type: 'add_inherited_role', args: { role_name: 'member', role_set: ['guest', 'user'] } }] });
  assert.equal(r.status, 200, r.text);
  const config = await off.request('GET', '/v1alpha1/config');
  assert.equal(config.body.is_function_permissions_inferred, false);
  const q = '{ search_teams(args: {q: "e"}, order_by: {id: asc}) { name } }';
  for (const role of ['guest', 'user', 'member']) {
    const refused = await off.graphql(q, undefined, asRole(role));
    assert.equal(refused.body.errors?.[0]?.message, 'field "search_teams" not found in type: \'query_root\'', role);
  }
  const grant = await metadata(off, { type: 'pg_create_function_permission', args: { function: 'search_teams', role: 'guest' } });
  assert.equal(grant.status, 200, grant.text);
  // guest: its own rows only; the inherited role through its member; user still nothing.
  assert.deepEqual((await off.graphql(q, undefined, asRole('guest'))).body, { data: { search_teams: [{ name: 'red' }] } });
  assert.deepEqual((await off.graphql(q, undefined, asRole('member'))).body, { data: { search_teams: [{ name: 'red' }, { name: 'blue' }] } });
  assert.equal((await off.graphql(q, undefined, asRole('user'))).body.errors?.[0]?.extensions?.code, 'validation-failed');
  assert.equal((await off.graphql('{ search_teams_aggregate(args: {q: "e"}) { aggregate { count } } }', undefined, asRole('user'))).body.errors?.[0]?.extensions?.code, 'validation-failed');
  // A mutation function is the same as with inference on: only with a permission.
  assert.equal((await off.graphql(JOIN, undefined, asRole('user'))).body.errors?.[0]?.extensions?.code, 'validation-failed');
  assert.deepEqual(await teamNames(off), ['red', 'blue']);
});
