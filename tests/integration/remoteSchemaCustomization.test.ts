/**
 * Remote schema customization (Hasura v2's `definition.customization`) against a real GraphQL server:
 * the root-field namespace, type and field prefixes / suffixes / mappings in the role's schema; what
 * the remote receives (its own names: fields aliased, fragments, type conditions, variable types);
 * the answer in the engine's names (`__typename` included); Hasura's checks of a customization (nothing
 * stored when refused); remote schema permissions written in the remote's names with `@preset`,
 * inherited roles, `@cached`, a remote relationship from a table; update_remote_schema; the
 * export / replace_metadata round trip and the CLI's remote_schemas.yaml.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/index.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { startRemoteGraphqlServer, type RemoteGraphqlServer } from '../support/remoteGraphqlServer.js';

const SDL = `
  type Query {
    hello(name: String): String
    user(id: Int!): User
    search(filter: UserFilter!): [Node]
    animals: [Animal]
  }
  type Mutation { rename(id: Int!, name: String!): User }
  interface Node { id: Int! }
  type User implements Node { id: Int! name: String role: Role }
  type Post implements Node { id: Int! title: String }
  union Animal = Dog | Cat
  type Dog { name: String barks: Boolean }
  type Cat { name: String }
  enum Role { ADMIN MEMBER }
  input UserFilter { name: String minId: Int }
`;

const ROOT = {
  hello: ({ name }: { name?: string }) => `Hello ${name ?? 'world'}`,
  user: ({ id }: { id: number }) => ({ __typename: 'User', id, name: `u${id}`, role: id === 1 ? 'ADMIN' : 'MEMBER' }),
  search: ({ filter }: { filter: { name?: string; minId?: number } }) =>
    [{ __typename: 'User', id: 1, name: 'u1', role: 'ADMIN' }, { __typename: 'Post', id: 2, title: 'p2' }, { __typename: 'User', id: 3, name: 'u3', role: 'MEMBER' }]
      .filter((n) => n.id >= (filter.minId ?? 0) && (!filter.name || !('name' in n) || n.name === filter.name)),
  animals: () => [{ __typename: 'Dog', name: 'rex', barks: true }, { __typename: 'Cat', name: 'tom' }],
  rename: ({ id, name }: { id: number; name: string }) => ({ __typename: 'User', id, name, role: 'MEMBER' }),
};

const CUSTOMIZATION = {
  root_fields_namespace: 'shop',
  type_names: { prefix: 'Shop_', mapping: { User: 'Customer' } },
  field_names: [{ parent_type: 'User', mapping: { name: 'fullName' } }, { parent_type: 'Query', suffix: '_q' }],
};

const USER_SDL = `
  type Query {
    hello(name: String @preset(value: "x-svc-user-id")): String
    user(id: Int!): User
  }
  type User { id: Int! name: String }
`;
const GUEST_SDL = `
  type Query { animals: [Animal] }
  union Animal = Dog | Cat
  type Dog { name: String }
  type Cat { name: String }
`;

let remote: RemoteGraphqlServer;
let e: TestEngine;
const ok = (r: { status: number; text: string }) => assert.equal(r.status, 200, r.text);
const as = (role: string, vars: Record<string, string> = {}) => ({ 'x-svc-admin-secret': 'sec', 'x-svc-role': role, ...vars });
const lastQuery = () => remote.queries().at(-1)!.body;
const exported = async () => (await e.query({ type: 'export_metadata', args: {} })).body;

before(async () => {
  remote = await startRemoteGraphqlServer(SDL, ROOT);
  e = await startTestEngine({ adminSecret: 'sec', enableRemoteSchemaPermissions: true });
  await e.runSql('CREATE TABLE account (id int PRIMARY KEY, uid int); INSERT INTO account VALUES (1, 1), (2, 2);');
  ok(await e.query({ type: 'bulk', args: [
    { type: 'track_table', args: { name: 'account' } },
    { type: 'add_remote_schema', args: { name: 'rs', definition: { url: remote.url, customization: CUSTOMIZATION } } },
    { type: 'create_select_permission', args: { table: 'account', role: 'user', permission: { columns: ['id', 'uid'], filter: {} } } },
    // written in the remote's own names, as Hasura
    { type: 'create_remote_relationship', args: { table: 'account', name: 'owner', hasura_fields: ['uid'], remote_schema: 'rs', remote_field: { user: { arguments: { id: '$uid' } } } } },
  ] }));
  ok(await e.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'rs', role: 'user', definition: { schema: USER_SDL } } }));
  ok(await e.request('POST', '/v1/metadata', { type: 'add_remote_schema_permissions', args: { remote_schema: 'rs', role: 'guest', definition: { schema: GUEST_SDL } } }));
  ok(await e.query({ type: 'add_inherited_role', args: { role_name: 'both', role_set: ['user', 'guest'] } }));
});

after(async () => {
  await e?.stop();
  await remote?.stop();
});

test('the schema shows the namespace field, renamed types and fields; the remote\'s own names are gone', async () => {
  const r = await e.graphql(`{
    __schema { queryType { fields { name type { kind ofType { name } } } } mutationType { fields { name type { ofType { name } } } } }
    customer: __type(name: "Customer") { fields { name } interfaces { name } }
    ns: __type(name: "shopQuery") { fields { name } }
    user: __type(name: "User") { name }
    node: __type(name: "Shop_Node") { possibleTypes { name } }
    role: __type(name: "Shop_Role") { enumValues { name } }
    filter: __type(name: "Shop_UserFilter") { inputFields { name } }
    string: __type(name: "String") { name }
  }`, undefined, as('admin'));
  ok(r);
  const d = r.body.data;
  const q = d.__schema.queryType.fields.filter((f: { name: string }) => ['shop', 'hello', 'hello_q', 'user_q'].includes(f.name));
  assert.deepEqual(q, [{ name: 'shop', type: { kind: 'NON_NULL', ofType: { name: 'shopQuery' } } }]);
  assert.deepEqual(d.__schema.mutationType.fields.filter((f: { name: string }) => f.name === 'shop'), [{ name: 'shop', type: { ofType: { name: 'shopMutation' } } }]);
  assert.deepEqual(d.customer.fields.map((f: { name: string }) => f.name), ['id', 'fullName', 'role']);
  assert.deepEqual(d.customer.interfaces, [{ name: 'Shop_Node' }]);
  assert.deepEqual(d.ns.fields.map((f: { name: string }) => f.name), ['hello_q', 'user_q', 'search_q', 'animals_q']);
  assert.equal(d.user, null);
  assert.deepEqual(d.node.possibleTypes.map((t: { name: string }) => t.name).sort(), ['Customer', 'Shop_Post']);
  assert.deepEqual(d.role.enumValues.map((v: { name: string }) => v.name), ['ADMIN', 'MEMBER']);
  assert.deepEqual(d.filter.inputFields.map((f: { name: string }) => f.name), ['name', 'minId']);
  assert.deepEqual(d.string, { name: 'String' });
});

test('a query in the engine\'s names is sent in the remote\'s (aliases, fragments, type conditions, variables) and answered in the engine\'s', async () => {
  const query = `query Q($f: Shop_UserFilter!, $id: Int!) {
    shop {
      __typename
      hello_q(name: "x")
      u: user_q(id: $id) { __typename fullName role ...C }
      search_q(filter: $f) { __typename id ... on Customer { fullName } ... on Shop_Post { title } }
      animals_q { kind: __typename ... on Shop_Dog { name barks } ... on Shop_Cat { name } }
    }
  }
  fragment C on Customer { id }`;
  const r = await e.graphql(query, { f: { minId: 1 }, id: 1 }, as('admin'));
  ok(r);
  assert.deepEqual(r.body, { data: { shop: {
    __typename: 'shopQuery',
    hello_q: 'Hello x',
    u: { __typename: 'Customer', fullName: 'u1', role: 'ADMIN', id: 1 },
    search_q: [{ __typename: 'Customer', id: 1, fullName: 'u1' }, { __typename: 'Shop_Post', id: 2, title: 'p2' }, { __typename: 'Customer', id: 3, fullName: 'u3' }],
    animals_q: [{ kind: 'Shop_Dog', name: 'rex', barks: true }, { kind: 'Shop_Cat', name: 'tom' }],
  } } });
  const sent = lastQuery();
  assert.match(sent.query, /hello_q: hello\(name: "x"\)/);
  assert.match(sent.query, /u: user\(id: \$id\)/);
  assert.match(sent.query, /fullName: name/);
  assert.match(sent.query, /\$f: UserFilter!/);
  assert.match(sent.query, /fragment C on User/);
  assert.match(sent.query, /\.\.\. on Post/);
  assert.match(sent.query, /\.\.\. on Dog/);
  assert.doesNotMatch(sent.query, /Shop_|Customer|shop/);
  assert.deepEqual(sent.variables, { f: { minId: 1 }, id: 1 });

  // fragments on the namespace type, and a mutation under the namespace
  const frag = await e.graphql('{ shop { ...S } } fragment S on shopQuery { hello_q }', undefined, as('admin'));
  assert.deepEqual(frag.body, { data: { shop: { hello_q: 'Hello world' } } });
  assert.match(lastQuery().query, /fragment S on Query/);
  const m = await e.graphql('mutation { shop { rename(id: 5, name: "z") { __typename fullName } } }', undefined, as('admin'));
  assert.deepEqual(m.body, { data: { shop: { rename: { __typename: 'Customer', fullName: 'z' } } } });
  assert.match(lastQuery().query, /^mutation/);
});

test('names of the remote are not accepted: validation errors in Hasura\'s shape', async () => {
  const bad = await e.graphql('{ shop { hello } }', undefined, as('admin'));
  assert.equal(bad.body.errors[0].extensions.code, 'validation-failed');
  const top = await e.graphql('{ hello_q }', undefined, as('admin'));
  assert.equal(top.body.errors[0].extensions.code, 'validation-failed');
  const typed = await e.graphql('query ($f: UserFilter!) { shop { search_q(filter: $f) { id } } }', { f: {} }, as('admin'));
  assert.equal(typed.body.errors[0].extensions.code, 'validation-failed');
});

test('permissions are written in the remote\'s names; the role sees its part under the engine\'s, with @preset, and inherited roles', async () => {
  const r = await e.graphql('{ shop { hello_q u: user_q(id: 2) { __typename fullName } } }', undefined, as('user', { 'x-svc-user-id': '7' }));
  assert.deepEqual(r.body, { data: { shop: { hello_q: 'Hello 7', u: { __typename: 'Customer', fullName: 'u2' } } } });
  assert.match(lastQuery().query, /hello\(name: \$__svc_preset_0\)/);
  const hidden = await e.graphql('{ shop { animals_q { __typename } } }', undefined, as('user', { 'x-svc-user-id': '7' }));
  assert.equal(hidden.body.errors[0].extensions.code, 'validation-failed');
  const role = await e.graphql('{ __type(name: "Customer") { fields { name } } }', undefined, as('user', { 'x-svc-user-id': '7' }));
  assert.deepEqual(role.body.data.__type.fields.map((f: { name: string }) => f.name), ['id', 'fullName']);
  const noArg = await e.graphql('{ shop { hello_q(name: "me") } }', undefined, as('user', { 'x-svc-user-id': '7' }));
  assert.equal(noArg.body.errors[0].extensions.code, 'validation-failed');

  const both = await e.graphql('{ shop { hello_q animals_q { __typename ... on Shop_Dog { name } } } }', undefined, as('both', { 'x-svc-user-id': '8' }));
  assert.deepEqual(both.body, { data: { shop: { hello_q: 'Hello 8', animals_q: [{ __typename: 'Shop_Dog', name: 'rex' }, { __typename: 'Shop_Cat' }] } } });
  const none = await e.graphql('{ shop { hello_q } }', undefined, as('nobody'));
  assert.equal(none.body.errors[0].extensions.code, 'validation-failed');
});

test('@cached on a customized remote: each role and session gets its own answer (remote root fields run uncached)', async () => {
  const q = 'query @cached { shop { hello_q } }';
  const before = remote.queries().length;
  const one = await e.graphql(q, undefined, as('user', { 'x-svc-user-id': '1' }));
  const two = await e.graphql(q, undefined, as('user', { 'x-svc-user-id': '2' }));
  const again = await e.graphql(q, undefined, as('user', { 'x-svc-user-id': '1' }));
  const admin = await e.graphql(q, undefined, as('admin'));
  assert.deepEqual([one.body, two.body, again.body, admin.body], [
    { data: { shop: { hello_q: 'Hello 1' } } }, { data: { shop: { hello_q: 'Hello 2' } } }, { data: { shop: { hello_q: 'Hello 1' } } }, { data: { shop: { hello_q: 'Hello world' } } },
  ]);
  // docs/rest-and-caching.md: a query with remote-schema root fields runs uncached
  assert.equal(remote.queries().length - before, 4);
  assert.equal(again.headers.get('cache-control'), null);
});

test('a remote relationship from a table to a customized remote: the path in the remote\'s names, the answer in the engine\'s', async () => {
  const r = await e.graphql('{ account(order_by: {id: asc}) { id owner { __typename fullName ...O } } } fragment O on Customer { id }', undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.deepEqual(r.body, { data: { account: [
    { id: 1, owner: { __typename: 'Customer', fullName: 'u1', id: 1 } },
    { id: 2, owner: { __typename: 'Customer', fullName: 'u2', id: 2 } },
  ] } });
  // the role's part of the remote: a field its permission leaves out is refused
  const hidden = await e.graphql('{ account { owner { role } } }', undefined, as('user', { 'x-svc-user-id': '1' }));
  assert.equal(hidden.body.errors[0].extensions.code, 'validation-failed');
  const admin = await e.graphql('{ account(order_by: {id: asc}) { owner { fullName ...O } } } fragment O on Customer { role }', undefined, as('admin'));
  assert.deepEqual(admin.body, { data: { account: [{ owner: { fullName: 'u1', role: 'ADMIN' } }, { owner: { fullName: 'u2', role: 'MEMBER' } }] } });
  assert.match(lastQuery().query, /fullName: name/);
  assert.match(lastQuery().query, /fragment O on User/);
});

test('a customization Hasura refuses is refused with its error, and nothing is stored', async () => {
  const before = JSON.stringify(await exported());
  const add = (customization: unknown) => e.query({ type: 'add_remote_schema', args: { name: 'rs2', definition: { url: remote.url, customization } } });
  const iface = await add({ root_fields_namespace: 'two', type_names: { prefix: 'T_' }, field_names: [{ parent_type: 'User', mapping: { id: 'uid' } }] });
  assert.equal(iface.status, 400, iface.text);
  assert.equal(iface.body.code, 'remote-schema-error');
  assert.match(iface.body.error, /^Remote schema customization inconsistency: field name mapping for field "id" of interface "Node" is inconsistent with mapping for type "User"/);
  const types = await add({ root_fields_namespace: 'two', type_names: { mapping: { Dog: 'Cat' } } });
  assert.equal(types.body.code, 'remote-schema-error');
  assert.match(types.body.error, /^Type name mappings are not distinct; the following types appear more than once: "Cat"/);
  const fields = await add({ root_fields_namespace: 'two', type_names: { prefix: 'T_' }, field_names: [{ parent_type: 'Dog', mapping: { barks: 'name' } }] });
  assert.match(fields.body.error, /^Field name mappings for object type "Dog" are not distinct/);
  const reserved = await add({ field_names: [{ parent_type: 'Dog', mapping: { __typename: 'kind' } }] });
  assert.deepEqual([reserved.status, reserved.body.code], [400, 'invalid-params']);
  assert.match(reserved.body.error, /attempt to customize reserved field name "__typename"/);
  const name = await add({ root_fields_namespace: 'not a name' });
  assert.deepEqual([name.status, name.body.code], [400, 'parse-failed']);
  const clash = await add({ root_fields_namespace: 'shop', type_names: { prefix: 'T_' } });
  assert.deepEqual([clash.status, clash.body.code], [400, 'unexpected']);
  assert.match(clash.body.error, /conflicting root fields with remote schema "rs": "shop"/);
  assert.equal(JSON.stringify(await exported()), before);
});

test('update_remote_schema changes the customization and keeps the permissions; export / replace_metadata and the CLI keep it', async (t) => {
  const md = await exported();
  assert.deepEqual(md.remote_schemas[0].definition.customization, CUSTOMIZATION);
  const v2 = await e.request('POST', '/v1/metadata', { type: 'export_metadata', version: 2, args: {} });
  ok(v2);
  assert.deepEqual((v2.body.metadata ?? v2.body).remote_schemas[0].definition.customization, CUSTOMIZATION);

  const store = { ...CUSTOMIZATION, root_fields_namespace: 'store' };
  ok(await e.request('POST', '/v1/metadata', { type: 'update_remote_schema', args: { name: 'rs', definition: { url: remote.url, customization: store } } }));
  const r = await e.graphql('{ store { hello_q } }', undefined, as('user', { 'x-svc-user-id': '3' }));
  assert.deepEqual(r.body, { data: { store: { hello_q: 'Hello 3' } } });
  const old = await e.graphql('{ shop { hello_q } }', undefined, as('admin'));
  assert.equal(old.body.errors[0].extensions.code, 'validation-failed');
  assert.equal((await exported()).remote_schemas[0].permissions.length, 2);
  const missing = await e.request('POST', '/v1/metadata', { type: 'update_remote_schema', args: { name: 'nope', definition: { url: remote.url } } });
  assert.deepEqual([missing.status, missing.body.code], [400, 'not-exists']);

  // the relationship's path no longer exists in a remote mapped away from it: refused, nothing changes
  ok(await e.query({ type: 'replace_metadata', args: md }));
  const back = await e.graphql('{ shop { u: user_q(id: 4) { fullName } } }', undefined, as('admin'));
  assert.deepEqual(back.body, { data: { shop: { u: { fullName: 'u4' } } } });

  const dir = await mkdtemp(join(tmpdir(), 'rscustom-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const err: string[] = [];
  const io = { out: () => undefined, err: (l: string) => void err.push(l), progress: () => undefined, env: { SVC_GRAPHQL_ENDPOINT: e.url, SVC_GRAPHQL_ADMIN_SECRET: 'sec' }, color: false };
  assert.equal(await runCli('metadata', ['export', '--dir', dir], io), 0, err.join('\n'));
  const yaml = await readFile(join(dir, 'remote_schemas.yaml'), 'utf8');
  assert.match(yaml, /root_fields_namespace: shop/);
  assert.match(yaml, /parent_type: User/);
  ok(await e.query({ type: 'clear_metadata', args: {} }));
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], io), 0, err.join('\n'));
  assert.deepEqual((await exported()).remote_schemas[0].definition.customization, CUSTOMIZATION);
  const applied = await e.graphql('{ shop { hello_q } }', undefined, as('user', { 'x-svc-user-id': '5' }));
  assert.deepEqual(applied.body, { data: { shop: { hello_q: 'Hello 5' } } });
});
