/**
 * Action outputs that are scalars or enums, as Hasura v2 allows: built-in scalars (`Int`, `[String]!`),
 * a custom scalar (`Json`), a Postgres scalar (`uuid`), an enum (`Role`, `[Role!]`), for synchronous
 * query and mutation actions and asynchronous ones, against a real handler over HTTP. The answer is
 * checked against the declared type with Hasura's errors (nothing inserted into a result the type
 * forbids), a selection set on a scalar output is refused, and the types stand in the schema.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWebhookServer, type HookReply, type WebhookServer } from '../support/webhookServer.js';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
let hook: WebhookServer;
/** What the handler answers for each action (by name); set per test. */
const answers = new Map<string, HookReply>();

const TYPES = {
  scalars: [{ name: 'Json' }],
  enums: [{ name: 'Role', values: [{ value: 'admin' }, { value: 'member' }] }],
  input_objects: [{ name: 'Pair', fields: [{ name: 'a', type: 'Int!' }] }],
  objects: [{ name: 'Unused', fields: [{ name: 'x', type: 'Int' }] }],
};

const ACTIONS: Array<[string, string, Record<string, unknown>?]> = [
  ['tags', '[String]!'],
  ['count_words', 'Int', { type: 'mutation' }],
  ['settings', 'Json'],
  ['my_role', 'Role!'],
  ['roles', '[Role!]'],
  ['new_id', 'uuid', { type: 'mutation' }],
  ['later_tags', '[String!]!', { type: 'mutation', kind: 'asynchronous' }],
];

const asUser = { 'x-svc-role': 'user', 'x-svc-user-id': '5' };

before(async () => {
  hook = await startWebhookServer((req) => answers.get((req.body as { action: { name: string } }).action.name) ?? { status: 500, body: {} });
  e = await startTestEngine({ adminSecret: 'adm', asyncActionsFetchIntervalMs: 100 });
  const r = await e.request('POST', '/v1/metadata', { type: 'bulk', args: [
    { type: 'set_custom_types', args: TYPES },
    ...ACTIONS.flatMap(([name, output_type, def]) => [
      { type: 'create_action', args: { name, definition: { type: 'query', kind: 'synchronous', arguments: [{ name: 'text', type: 'String' }], output_type, handler: hook.url, ...def } } },
      { type: 'create_action_permission', args: { action: name, role: 'user' } },
    ]),
  ] });
  assert.equal(r.status, 200, r.text);
});
after(async () => {
  await e?.stop();
  await hook?.stop();
});

test('scalar, custom scalar, Postgres scalar and enum outputs, lists and non-null of them, answered as the handler sent them', async () => {
  answers.set('tags', { status: 200, body: ['a', null, 'c'] });
  answers.set('count_words', { status: 200, body: 3 });
  answers.set('settings', { status: 200, body: { theme: 'dark', sizes: [1, 2] } });
  answers.set('my_role', { status: 200, body: 'member' });
  answers.set('roles', { status: 200, body: ['admin', 'member'] });
  answers.set('new_id', { status: 200, body: '7b0c5d52-7d5f-4f5b-9a6e-1b2f6c3d4e5f' });
  const q = await e.graphql('query { tags(text: "x") settings my_role roles t2: tags __typename }', undefined, asUser);
  assert.deepEqual(q.body, { data: {
    tags: ['a', null, 'c'], settings: { theme: 'dark', sizes: [1, 2] }, my_role: 'member', roles: ['admin', 'member'], t2: ['a', null, 'c'], __typename: 'query_root',
  } });
  const m = await e.graphql('mutation { count_words(text: "a b c") new_id }', undefined, asUser);
  assert.deepEqual(m.body, { data: { count_words: 3, new_id: '7b0c5d52-7d5f-4f5b-9a6e-1b2f6c3d4e5f' } });
  // The handler got the input and the session as for any action.
  const call = hook.requests.find((r) => (r.body as any).action.name === 'count_words')!;
  assert.deepEqual((call.body as any).input, { text: 'a b c' });
  assert.equal((call.body as any).session_variables['x-svc-user-id'], '5');
  // A nullable output may be null.
  answers.set('settings', { status: 200, body: null });
  assert.deepEqual((await e.graphql('{ settings }', undefined, asUser)).body, { data: { settings: null } });
});

test('the types in the schema: the enum with its values, the custom scalar, lists and non-null as declared', async () => {
  const r = await e.graphql(`{
    __schema { queryType { fields { name type { kind name ofType { kind name ofType { kind name } } } } } }
    role: __type(name: "Role") { kind enumValues { name } }
    json: __type(name: "Json") { kind }
  }`, undefined, asUser);
  const fields = Object.fromEntries(r.body.data.__schema.queryType.fields.map((f: any) => [f.name, f.type]));
  assert.deepEqual(fields.tags, { kind: 'NON_NULL', name: null, ofType: { kind: 'LIST', name: null, ofType: { kind: 'SCALAR', name: 'String' } } });
  assert.deepEqual(fields.my_role, { kind: 'NON_NULL', name: null, ofType: { kind: 'ENUM', name: 'Role', ofType: null } });
  assert.deepEqual(fields.settings, { kind: 'SCALAR', name: 'Json', ofType: null });
  assert.deepEqual(r.body.data.role, { kind: 'ENUM', enumValues: [{ name: 'admin' }, { name: 'member' }] });
  assert.deepEqual(r.body.data.json, { kind: 'SCALAR' });
});

test('a selection set on a scalar or enum output is refused before the handler is called', async () => {
  const before = hook.requests.length;
  for (const q of ['{ tags { length } }', '{ my_role { name } }', '{ settings { theme } }']) {
    const r = await e.graphql(q, undefined, asUser);
    assert.equal(r.body.errors?.[0]?.extensions?.code, 'validation-failed', `${q}: ${r.text}`);
  }
  assert.equal(hook.requests.length, before);
});

test("an answer of the wrong shape gets Hasura's error", async () => {
  const cases: Array<[string, string, unknown, string]> = [
    ['tags', '{ tags }', null, 'got null for the action webhook response'],
    ['tags', '{ tags }', 'a', 'expecting array for the action webhook response'],
    ['tags', '{ tags }', ['a', 1], 'got scalar Number for the action webhook response, expecting String'],
    ['tags', '{ tags }', [['a']], 'got array for the action webhook response, expecting String'],
    ['count_words', 'mutation { count_words }', 'three', 'got scalar String for the action webhook response, expecting Int'],
    ['count_words', 'mutation { count_words }', { n: 3 }, 'got object for the action webhook response, expecting Int'],
    ['count_words', 'mutation { count_words }', true, 'got scalar Boolean for the action webhook response, expecting Int'],
    ['my_role', '{ my_role }', null, 'got null for the action webhook response'],
    ['my_role', '{ my_role }', 'owner', 'got "owner" for the action webhook response, expecting a value of enum Role'],
    ['roles', '{ roles }', ['admin', null], 'got null for the action webhook response'],
  ];
  for (const [name, query, body, message] of cases) {
    answers.set(name, { status: 200, body });
    const r = await e.graphql(query, undefined, asUser);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data, undefined, r.text);
    assert.deepEqual([r.body.errors?.[0]?.message, r.body.errors?.[0]?.extensions?.code], [message, 'unexpected'], `${name} ${JSON.stringify(body)}: ${r.text}`);
  }
  // A custom scalar takes any JSON value, as Hasura.
  answers.set('settings', { status: 200, body: [1, 'two', { three: 3 }] });
  assert.deepEqual((await e.graphql('{ settings }', undefined, asUser)).body, { data: { settings: [1, 'two', { three: 3 }] } });
});

test('an asynchronous action with a scalar list output: the log keeps the answer, the result query gives it back; a wrong one is an error', async () => {
  answers.set('later_tags', { status: 200, body: ['x', 'y'] });
  const m = await e.graphql('mutation { later_tags(text: "go") }', undefined, asUser);
  const id = m.body.data?.later_tags;
  assert.equal(typeof id, 'string', m.text);
  const result = async () => (await e.graphql('query ($id: uuid!) { later_tags(id: $id) { id output errors } }', { id }, asUser)).body.data.later_tags;
  let r = await result();
  for (const end = Date.now() + 15_000; r.output === null && r.errors === null && Date.now() < end;) {
    await new Promise((res) => setTimeout(res, 50));
    r = await result();
  }
  assert.deepEqual(r, { id, output: ['x', 'y'], errors: null });
  const sel = await e.graphql('query ($id: uuid!) { later_tags(id: $id) { output { x } } }', { id }, asUser);
  assert.equal(sel.body.errors?.[0]?.extensions?.code, 'validation-failed', sel.text);

  answers.set('later_tags', { status: 200, body: [1] });
  const bad = await e.graphql('mutation { later_tags(text: "bad") }', undefined, asUser);
  const badId = bad.body.data.later_tags;
  const badResult = async () => (await e.graphql('query ($id: uuid!) { later_tags(id: $id) { output errors } }', { id: badId }, asUser)).body.data.later_tags;
  let b = await badResult();
  for (const end = Date.now() + 15_000; b.errors === null && Date.now() < end;) {
    await new Promise((res) => setTimeout(res, 50));
    b = await badResult();
  }
  assert.equal(b.output, null);
  assert.equal(b.errors?.message ?? b.errors?.error ?? JSON.stringify(b.errors), 'got scalar Number for the action webhook response, expecting String', JSON.stringify(b.errors));
});

test('an output naming an input object or an unknown type is refused; the metadata round trip keeps scalar outputs', async () => {
  for (const output_type of ['Pair', '[Nope]']) {
    const r = await e.query({ type: 'create_action', args: { name: 'bad_out', definition: { arguments: [], output_type, handler: hook.url } } });
    assert.equal(r.status, 400, r.text);
    const name = output_type.replace(/[[\]]/g, '');
    assert.equal(r.body.error, `the type: "${name}" is not an object or scalar type defined in custom types`);
  }
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  const replaced = await e.query({ type: 'replace_metadata', args: md });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, md);
  assert.deepEqual((await e.query({ type: 'get_inconsistent_metadata', args: {} })).body.inconsistent_objects, []);
});
