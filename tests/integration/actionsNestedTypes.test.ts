/**
 * Action output types as Hasura v2 projects write them: object types whose fields are other object
 * types (nested objects, and lists of them), shaped to the selection in Node and, beside a
 * relationship, in the one SQL statement; `kind: ""` on a query action; `output_type` an object type
 * or a scalar or enum (lists of them too); one bad custom type leaves out only the actions that use it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
let handlerUrl = '';
let stopHandler: () => Promise<void>;

const ANSWER = {
  id: 1,
  address: { city: 'Oslo', geo: { lat: 59.9, lng: 10.7 }, extra: 'dropped' },
  tags: [{ label: 'a', weight: 1 }, { label: 'b', weight: 2 }],
  empty: null,
};

const TYPES = {
  objects: [
    { name: 'Geo', fields: [{ name: 'lat', type: 'Float!' }, { name: 'lng', type: 'Float!' }] },
    { name: 'Address', fields: [{ name: 'city', type: 'String!' }, { name: 'geo', type: 'Geo' }, { name: 'extra', type: 'String' }] },
    { name: 'Tag', fields: [{ name: 'label', type: 'String!' }, { name: 'weight', type: 'Int' }] },
    {
      name: 'Profile',
      fields: [{ name: 'id', type: 'Int!' }, { name: 'address', type: 'Address' }, { name: 'tags', type: '[Tag!]' }, { name: 'empty', type: 'Address' }],
      relationships: [{ name: 'person', type: 'object', remote_table: 'person', field_mapping: { id: 'id' } }],
    },
  ],
};

before(async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(req.url === '/list' ? [ANSWER, { ...ANSWER, id: 2, tags: [] }] : ANSWER));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  handlerUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  stopHandler = () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); });
  e = await startTestEngine();
  await e.runSql(`CREATE TABLE person (id int PRIMARY KEY, name text NOT NULL); INSERT INTO person VALUES (1, 'ann'), (2, 'bob');`);
  for (const q of [
    { type: 'track_table', args: 'person' },
    { type: 'set_custom_types', args: TYPES },
    { type: 'create_action', args: { name: 'profile', definition: { type: 'query', kind: '', arguments: [], output_type: 'Profile', handler: `${handlerUrl}/one` } } },
    { type: 'create_action', args: { name: 'profiles', definition: { type: 'query', arguments: [], output_type: '[Profile!]!', handler: `${handlerUrl}/list` } } },
  ]) {
    const r = await e.query(q);
    assert.equal(r.status, 200, `${JSON.stringify(q)}: ${r.text}`);
  }
});
after(async () => {
  await e?.stop();
  await stopHandler?.();
});

const NESTED = 'id address { city geo { lat } } tags { label } empty { city }';

test('nested objects and lists of them, shaped to the selection (no relationship: in Node)', async () => {
  const r = await e.graphql(`{ profile { ${NESTED} } }`);
  assert.deepEqual(r.body, { data: { profile: { id: 1, address: { city: 'Oslo', geo: { lat: 59.9 } }, tags: [{ label: 'a' }, { label: 'b' }], empty: null } } });
});

test('nested objects beside a relationship to a table (one SQL statement), for a list output', async () => {
  const r = await e.graphql(`{ profiles { ${NESTED} person { name } address { __typename geo { lng } } } }`);
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body.data.profiles, [
    { id: 1, address: { city: 'Oslo', geo: { lat: 59.9, lng: 10.7 }, __typename: 'Address' }, tags: [{ label: 'a' }, { label: 'b' }], empty: null, person: { name: 'ann' } },
    { id: 2, address: { city: 'Oslo', geo: { lat: 59.9, lng: 10.7 }, __typename: 'Address' }, tags: [], empty: null, person: { name: 'bob' } },
  ].map(({ id, address, tags, empty, person }) => ({ id, address, tags, empty, person })));
});

test('kind "" is read on a query action; a mutation keeps the kind check', async () => {
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.equal(md.actions.find((a: { name: string }) => a.name === 'profile').definition.kind, 'synchronous');
  const bad = await e.query({ type: 'create_action', args: { name: 'm', definition: { kind: '', arguments: [], output_type: 'Profile', handler: handlerUrl } } });
  assert.equal(bad.status, 400, bad.text);
  assert.match(bad.body.error, /expected "synchronous" or "asynchronous"/);
});

test('output_type must be an object type or a scalar or enum (scalar outputs: actionScalarOutputs.test.ts)', async () => {
  for (const output_type of ['NoSuchType', '[NoSuchType!]']) {
    const r = await e.query({ type: 'create_action', args: { name: 'scalar_out', definition: { arguments: [], output_type, handler: handlerUrl } } });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.error, /is not an object or scalar type defined in custom types/, r.text);
  }
});

test('one bad custom type leaves out only the actions that use it', async () => {
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  md.custom_types.objects.push({ name: 'Broken', fields: [{ name: 'x', type: 'NoSuchType' }] });
  md.actions.push({ name: 'broken', definition: { type: 'query', kind: 'synchronous', arguments: [], output_type: 'Broken', handler: handlerUrl } });
  const r = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', version: 2, args: { allow_inconsistent_metadata: true, metadata: { version: 3, sources: [], ...md } } });
  assert.equal(r.status, 200, r.text);
  const inc = (await e.query({ type: 'get_inconsistent_metadata', args: {} })).body;
  assert.deepEqual(inc.inconsistent_objects.map((o: { type: string }) => o.type).sort(), ['action', 'custom_types'], JSON.stringify(inc));
  assert.match(inc.inconsistent_objects.find((o: { type: string }) => o.type === 'custom_types').reason, /the type "NoSuchType" for field "x" in  object type "Broken" does not exist/);
  const ok = await e.graphql('{ profile { id address { city } } }');
  assert.deepEqual(ok.body, { data: { profile: { id: 1, address: { city: 'Oslo' } } } });
});
