/**
 * Bad input on the WebSocket endpoint, for both protocols: garbage and binary frames, frames over
 * the size limit, unknown message types, start/subscribe before connection_init, bad payloads and
 * queries, deep nesting. `graphql-ws` answers `connection_error` / `error`+`complete` and keeps the
 * connection; `graphql-transport-ws` closes with its 44xx codes; nothing ever crashes the engine.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket, type Closed } from './subscriptionsClient.js';

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine();
  t.after(() => e.stop());
  await e.runSql("CREATE TABLE author (id serial PRIMARY KEY, name text); INSERT INTO author (name) VALUES ('a')");
  assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'author' } })).status, 200);
  return e;
}

/** Resolves with the close, or undefined when the socket is still open after `ms`. */
const closedWithin = (s: TestSocket, ms: number): Promise<Closed | undefined> =>
  Promise.race([s.closed, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);

async function initialised(e: TestEngine, protocol: string): Promise<TestSocket> {
  const s = await TestSocket.open(e.url, protocol);
  s.send({ type: 'connection_init', payload: {} });
  assert.equal((await s.next()).type, 'connection_ack');
  return s;
}

const sub = { id: '1', type: 'start', payload: { query: '{ author { id } }' } };

test('graphql-ws: bad frames get connection_error and the connection stays usable', async (t) => {
  const e = await setup(t);
  const frames: Array<[string, string | Buffer, RegExp]> = [
    ['garbage', 'hello{', /^parsing ClientMessage failed: Error in \$: invalid JSON/],
    ['binary garbage', Buffer.from([0, 1, 2, 255]), /invalid JSON/],
    ['array', '[]', /expected Object/],
    ['no type', '{}', /key "type" not found/],
    ['unknown type', '{"type":"nope"}', /unknown message type: nope/],
    ['start without id', JSON.stringify({ type: 'start', payload: { query: '{ author { id } }' } }), /key "id" not found/],
    // Up to --max-unauthenticated-body-size before connection_init (larger: close 1009, hardeningStall.test.ts).
    ['60 KB of garbage', 'x'.repeat(60_000), /invalid JSON/],
  ];
  const s = await TestSocket.open(e.url, 'graphql-ws');
  for (const [label, frame, message] of frames) {
    s.ws.send(frame);
    const m = await s.next(5000);
    assert.equal(m.type, 'connection_error', label);
    assert.match(m.payload, message, label);
  }
  // start before connection_init: an error for that operation, then complete
  s.send(sub);
  assert.deepEqual(await s.next(), { type: 'error', id: '1', payload: { extensions: { path: '$', code: 'start-failed' }, message: 'start received before the connection is initialised' } });
  assert.deepEqual(await s.next(), { type: 'complete', id: '1' });
  // still the same connection: init and query work
  s.send({ type: 'connection_init', payload: {} });
  assert.equal((await s.next()).type, 'connection_ack');
  s.send({ ...sub, id: '2' });
  assert.deepEqual(await s.next(), { type: 'data', id: '2', payload: { data: { author: [{ id: 1 }] } } });
  s.close();
});

test('graphql-ws: bad payloads and queries answer error + complete for that id', async (t) => {
  const e = await setup(t);
  const s = await initialised(e, 'graphql-ws');
  const cases: Array<[string, unknown, string, string]> = [
    ['payload null', null, 'parse-failed', 'expected Object for payload'],
    ['query not a string', { query: 1 }, 'parse-failed', 'expected Text for query'],
    ['variables an array', { query: '{ author { id } }', variables: [] }, 'parse-failed', 'expected Object for variables'],
    ['syntax error', { query: '{ author { id ' }, 'validation-failed', 'not a valid graphql query'],
    ['unknown field', { query: 'subscription { nope { id } }' }, 'validation-failed', 'field "nope" not found in type: \'subscription_root\''],
    ['missing variable', { query: 'subscription ($i: Int!) { author(where: {id: {_eq: $i}}) { id } }' }, 'validation-failed', 'expecting a value for non-nullable variable: "i" of type: Int! in variableValues'],
    ['deep nesting', { query: 'subscription { ' + 'author { '.repeat(3000) + 'id' + ' }'.repeat(3000) + ' }' }, 'validation-failed', 'the request is nested too deeply'],
  ];
  let n = 10;
  for (const [label, payload, code, message] of cases) {
    const id = String(n++);
    s.send({ id, type: 'start', payload });
    const err = await s.next();
    assert.equal(err.type, 'error', label);
    assert.equal(err.id, id, label);
    assert.equal(err.payload.errors[0].extensions.code, code, label);
    assert.equal(err.payload.errors[0].message, message, label);
    assert.deepEqual(await s.next(), { type: 'complete', id }, label);
  }
  s.send({ id: 'x', type: 'stop' }); // stopping an unknown id is ignored
  s.send({ ...sub, id: 'ok' });
  assert.deepEqual(await s.next(), { type: 'data', id: 'ok', payload: { data: { author: [{ id: 1 }] } } });
  s.close();
});

test('graphql-transport-ws: protocol violations close with 4400/4401/4409/4429', async (t) => {
  const e = await setup(t);
  const subscribe = { id: '1', type: 'subscribe', payload: { query: '{ author { id } }' } };
  const cases: Array<[string, boolean, Array<string | Buffer | object>, number, RegExp]> = [
    ['garbage', false, ['hello{'], 4400, /invalid JSON/],
    ['binary garbage', false, [Buffer.from([0, 1, 2, 255])], 4400, /invalid JSON/],
    ['array', false, ['[]'], 4400, /expected Object/],
    ['unknown type', false, [{ type: 'nope' }], 4400, /Unexpected message of type nope received/],
    ['subscribe before init', false, [subscribe], 4401, /Unauthorized/],
    ['payload null', true, [{ id: '1', type: 'subscribe', payload: null }], 4400, /expected Object for payload/],
    ['id a number', true, [{ id: 5, type: 'subscribe', payload: { query: '{ author { id } }' } }], 4400, /key "id" not found/],
    ['duplicate id', true, [{ ...subscribe, payload: { query: 'subscription { author { id } }' } }, { ...subscribe, payload: { query: 'subscription { author { id } }' } }], 4409, /Subscriber for 1 already exists/],
    ['second connection_init', true, [{ type: 'connection_init', payload: {} }], 4429, /Too many initialisation requests/],
  ];
  for (const [label, init, frames, code, reason] of cases) {
    const s = init ? await initialised(e, 'graphql-transport-ws') : await TestSocket.open(e.url, 'graphql-transport-ws');
    for (const f of frames) (Buffer.isBuffer(f) ? s.ws.send(f) : s.send(f));
    const closed = await closedWithin(s, 3000);
    assert.ok(closed, `${label}: still open`);
    assert.equal(closed.code, code, `${label}: ${closed.reason}`);
    assert.match(closed.reason, reason, label);
  }
});

test('graphql-transport-ws: bad queries are an error message for that id, the connection stays', async (t) => {
  const e = await setup(t);
  const s = await initialised(e, 'graphql-transport-ws');
  for (const [id, query, message] of [
    ['a', '{ author { id ', 'not a valid graphql query'],
    ['b', '{ ' + 'author { '.repeat(3000) + 'id' + ' }'.repeat(3000) + ' }', 'the request is nested too deeply'],
  ]) {
    s.send({ id, type: 'subscribe', payload: { query } });
    const m = await s.next();
    assert.equal(m.type, 'error');
    assert.equal(m.id, id);
    assert.equal(m.payload[0].message, message);
    assert.equal(m.payload[0].extensions.code, 'validation-failed');
  }
  s.send({ id: 'c', type: 'subscribe', payload: { query: '{ author { id } }' } });
  assert.deepEqual(await s.next(), { id: 'c', type: 'next', payload: { data: { author: [{ id: 1 }] } } });
  assert.deepEqual(await s.next(), { id: 'c', type: 'complete' });
  s.close();
});

test('frames over the size limit close the socket (1009); unknown subprotocols are refused; the engine keeps serving', async (t) => {
  const e = await setup(t);
  for (const protocol of ['graphql-ws', 'graphql-transport-ws']) {
    const s = await TestSocket.open(e.url, protocol);
    s.ws.send('x'.repeat(51 * 1024 * 1024));
    const closed = await closedWithin(s, 10_000);
    assert.equal(closed?.code, 1009, protocol);
  }
  await assert.rejects(TestSocket.open(e.url, 'no-such-protocol'));
  const again = await initialised(e, 'graphql-ws');
  again.send(sub);
  assert.deepEqual(await again.next(), { type: 'data', id: '1', payload: { data: { author: [{ id: 1 }] } } });
  again.close();
  assert.deepEqual((await e.graphql('{ author { id } }')).body, { data: { author: [{ id: 1 }] } });
});

test('a Postgres error in a non-admin subscription: the Hasura message and code, no SQL or internals', async (t) => {
  const e = await setup(t);
  await e.runSql("INSERT INTO author (name) VALUES ('b'); CREATE VIEW ratio AS SELECT id, 10 / (id - 1) AS q FROM author");
  assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'ratio' } })).status, 200);
  assert.equal((await e.query({ type: 'create_select_permission', args: { table: 'ratio', role: 'user', permission: { columns: '*', filter: {} } } })).status, 200);
  for (const protocol of ['graphql-ws', 'graphql-transport-ws']) {
    const s = await TestSocket.open(e.url, protocol);
    s.send({ type: 'connection_init', payload: { headers: { 'x-svc-role': 'user' } } });
    assert.equal((await s.next()).type, 'connection_ack');
    s.send({ id: '1', type: protocol === 'graphql-ws' ? 'start' : 'subscribe', payload: { query: 'subscription { ratio { q } }' } });
    const m = await s.next(5000);
    assert.equal(m.type, 'error', protocol);
    const errs = protocol === 'graphql-ws' ? m.payload.errors : m.payload;
    assert.deepEqual(errs, [{ extensions: { path: '$', code: 'data-exception' }, message: 'division by zero' }], protocol);
    s.close();
  }
});
