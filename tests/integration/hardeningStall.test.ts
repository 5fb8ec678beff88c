/**
 * No request may stall the engine: hostile documents (fragment bombs, deep nesting,
 * thousands of aliases / directives / operations / variables, giant literals, deep variables,
 * batches of bombs, the bomb over WebSocket) sent by an ordinary role next to a stream of ordinary
 * queries. Each hostile request must get a clear error quickly, the ordinary stream must keep being
 * answered, and the engine's event loop (in this process: the engine runs in-process) must never
 * stall for long, measured with `perf_hooks.monitorEventLoopDelay`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';
import WebSocket from 'ws';
import * as attack from '../support/attackDocuments.js';
import * as bodies from '../support/hostileBodies.js';
import { rawRequest } from '../support/rawRequest.js';
import { startWebhookServer } from '../support/webhookServer.js';

const USER = { 'x-svc-role': 'user' };
/** The longest event-loop stall allowed while hostile documents are served (~100 ms goal, headroom for a loaded 2-core machine). */
const MAX_STALL_MS = Number(process.env.SVC_TEST_MAX_STALL_MS ?? 250);
/** The longest a hostile document may take to be answered. */
const MAX_ANSWER_MS = Number(process.env.SVC_TEST_MAX_ANSWER_MS ?? 1500);

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine({ adminSecret: 'stall-secret' });
  t.after(() => e.stop());
  await e.runSql('CREATE TABLE t (id serial PRIMARY KEY, name text, parent_id int REFERENCES t(id)); INSERT INTO t (name) VALUES (\'a\'), (\'b\');');
  const steps = [
    { type: 'track_table', args: { schema: 'public', name: 't' } },
    { type: 'create_object_relationship', args: { table: 't', name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } } },
    { type: 'create_array_relationship', args: { table: 't', name: 'children', using: { foreign_key_constraint_on: { table: 't', column: 'parent_id' } } } },
    { type: 'create_select_permission', args: { table: 't', role: 'user', permission: { columns: '*', filter: {} } } },
  ];
  for (const s of steps) assert.equal((await e.query(s)).status, 200, JSON.stringify(s));
  return e;
}

/** Ordinary queries, one after another, until stopped: how many were answered correctly, and the slowest. */
function ordinaryStream(e: TestEngine): { stop(): Promise<{ answered: number; slowestMs: number; healthz: number }> } {
  let running = true;
  let answered = 0;
  let healthz = 0;
  let slowestMs = 0;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      const r = await e.graphql('{ t(order_by: {id: asc}) { id } }', undefined, USER);
      assert.deepEqual(r.body, { data: { t: [{ id: 1 }, { id: 2 }] } });
      answered++;
      const h = await e.request('GET', '/healthz');
      if (h.status === 200) healthz++;
      slowestMs = Math.max(slowestMs, performance.now() - t0);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { answered, slowestMs, healthz };
    },
  };
}

interface Hostile {
  label: string;
  /** Raw request body (JSON text). */
  body: string;
  /** What the first error must say (a substring), or a check on the whole parsed body. */
  expect: (body: any) => void;
  /** HTTP status (default 200). */
  status?: number;
}

const firstError = (body: any): { message: string; extensions: { code: string; path: string } } => {
  const err = Array.isArray(body) ? body[0]?.errors?.[0] : body?.errors?.[0];
  assert.ok(err, `expected an error, got ${JSON.stringify(body).slice(0, 300)}`);
  return err;
};

const refused = (code: string, message: RegExp) => (body: any) => {
  const err = firstError(body);
  assert.equal(err.extensions.code, code, err.message);
  assert.match(err.message, message);
};

const q = (query: string, extra: Record<string, unknown> = {}) => JSON.stringify({ query, ...extra });
const tooManyValues = refused('invalid-params', /more than 100000 JSON values/);

export const HOSTILE: Hostile[] = [
  { label: 'fragment bomb, 24 levels', body: q(attack.fragmentBomb(24)), expect: refused('validation-failed', /too large|limit/) },
  { label: 'fragment bomb, 60 levels', body: q(attack.fragmentBomb(60)), expect: refused('validation-failed', /too large|limit/) },
  { label: 'wide fragments 300×300', body: q(attack.wideFragments(300)), expect: refused('validation-failed', /too large|limit/) },
  { label: 'deep selection, 2000 levels', body: q(attack.deepSelection(2000)), expect: refused('validation-failed', /deep|too large|limit/) },
  { label: '20000 aliases', body: q(attack.manyAliases(20000)), expect: refused('validation-failed', /too large/) },
  { label: '3000 aliases', body: q(attack.manyAliases(3000)), expect: refused('validation-failed', /too large/) },
  { label: '380 aliases (accepted)', body: q(attack.manyAliases(380)), expect: (b) => assert.equal(b.data?.a379?.length, 2, JSON.stringify(b).slice(0, 300)) },
  { label: '1500 leaf aliases (accepted)', body: q(`{ t { ${Array.from({ length: 1500 }, (_, i) => `f${i}: id`).join(' ')} } }`), expect: (b) => assert.equal(b.data?.t?.[1]?.f1499, 2, JSON.stringify(b).slice(0, 300)) },
  { label: 'merge bomb: 150 same-alias chains 120 deep', body: q(attack.mergeBomb(150, 120)), expect: refused('validation-failed', /too large|deep/) },
  { label: 'merge: 12 same-alias chains 30 deep (accepted)', body: q(attack.mergeBomb(12, 30)), expect: (b) => assert.ok(Array.isArray(b.data?.t), JSON.stringify(b).slice(0, 300)) },
  { label: 'one field 100000 times', body: q(attack.repeatedField(100000)), expect: refused('validation-failed', /too large|limit/) },
  { label: '20000 directives', body: q(attack.manyDirectives(20000)), expect: refused('validation-failed', /.+/) },
  { label: '20000 operations', body: q(attack.manyOperations(20000), { operationName: 'Q19999' }), expect: refused('validation-failed', /.+/) },
  { label: '20000 variables', body: q(attack.manyVariables(20000)), expect: refused('validation-failed', /.+/) },
  { label: 'where literal nested 2000 levels', body: q(attack.deepWhereLiteral(2000)), expect: refused('validation-failed', /deep|too large|limit/) },
  { label: '1.5 MB string literal', body: q(attack.giantString(1_500_000)), expect: (b) => assert.deepEqual(b, { data: { t: [] } }) },
  {
    label: '3 MB of variables (non-admin)',
    body: JSON.stringify({ query: 'mutation ($o: [t_insert_input!]!) { insert_t(objects: $o) { affected_rows } }', variables: { o: Array.from({ length: 60000 }, (_, i) => ({ name: `row ${i} ${'x'.repeat(20)}` })) } }),
    status: 413,
    expect: refused('invalid-params', /larger than 2097152 bytes/),
  },
  { label: 'variables nested 100000 levels', body: attack.deepVariableBody(100000), expect: refused('validation-failed', /deep/) },
  // Bodies whose JSON costs far more to parse than their size suggests: refused on their shape, unparsed.
  { label: '[{},{},…] just under 2 MB', body: bodies.emptyObjects(2_000_000), status: 413, expect: tooManyValues },
  { label: '[[[…]]] 1 MB deep', body: bodies.deepArrays(1_000_000), expect: refused('validation-failed', /nested too deeply/) },
  { label: '120000 variable keys', body: bodies.manyKeys(120_000), status: 413, expect: tooManyValues },
  { label: 'batch of 40000 queries', body: bodies.bigBatch(40_000), status: 413, expect: tooManyValues },
  { label: '1.9 MB escaped string variable (accepted)', body: bodies.escapedString(1_900_000), expect: (b) => assert.deepEqual(b, { data: { t: [{ id: 1 }, { id: 2 }] } }) },
  { label: 'introspection bomb, 8 levels', body: q(attack.introspectionBomb(8)), expect: refused('validation-failed', /introspection/) },
  {
    label: 'batch of 50 fragment bombs',
    body: JSON.stringify(Array.from({ length: 50 }, () => ({ query: attack.fragmentBomb(24) }))),
    expect: (b) => {
      assert.ok(Array.isArray(b), JSON.stringify(b).slice(0, 300));
      for (const item of b) refused('validation-failed', /too large|limit/)(item);
    },
  },
];

test('hostile documents get a clear error quickly while ordinary queries keep being answered, and the event loop never stalls', async (t) => {
  const e = await setup(t);
  const stream = ordinaryStream(e);
  const h = monitorEventLoopDelay({ resolution: 5 });
  const rows: Array<{ label: string; ms: number; stallMs: number }> = [];
  const failures: string[] = [];
  for (const hostile of HOSTILE) {
    h.reset();
    h.enable();
    const t0 = performance.now();
    const r = await e.request('POST', '/v1/graphql', hostile.body, { ...USER, 'content-type': 'application/json' });
    const ms = performance.now() - t0;
    h.disable();
    const stallMs = h.max / 1e6;
    rows.push({ label: hostile.label, ms, stallMs });
    try {
      assert.equal(r.status, hostile.status ?? 200, r.text.slice(0, 300));
      hostile.expect(r.body);
      assert.ok(ms < MAX_ANSWER_MS, `answered in ${ms.toFixed(0)} ms`);
      assert.ok(stallMs < MAX_STALL_MS, `event loop stalled ${stallMs.toFixed(0)} ms`);
    } catch (err) {
      failures.push(`${hostile.label}: ${(err as Error).message}`);
    }
  }
  const s = await stream.stop();
  if (process.env.SVC_TEST_PRINT_STALLS) console.log(JSON.stringify({ rows, stream: s }, null, 1));
  assert.deepEqual(failures, []);
  assert.ok(s.answered > 0, 'ordinary queries were answered meanwhile');
  assert.equal(s.healthz, s.answered, '/healthz answered meanwhile');
  assert.ok(s.slowestMs < MAX_ANSWER_MS, `the slowest ordinary query took ${s.slowestMs.toFixed(0)} ms`);
});

test('the fragment bomb over WebSocket is refused the same way', async (t) => {
  const e = await setup(t);
  const ws = await TestSocket.open(e.url, 'graphql-ws');
  t.after(() => ws.ws.close());
  ws.send({ type: 'connection_init', payload: { headers: { ...USER, 'x-svc-admin-secret': 'stall-secret' } } });
  assert.equal((await ws.next()).type, 'connection_ack');
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  const t0 = performance.now();
  const bomb = attack.fragmentBomb(24).replace(/^query/, 'subscription');
  ws.send({ id: '1', type: 'start', payload: { query: bomb } });
  const msg = await ws.next(60_000);
  const ms = performance.now() - t0;
  h.disable();
  assert.equal(msg.type, 'error', JSON.stringify(msg).slice(0, 300));
  assert.match(JSON.stringify(msg.payload), /validation-failed/);
  assert.ok(ms < MAX_ANSWER_MS, `answered in ${ms.toFixed(0)} ms`);
  assert.ok(h.max / 1e6 < MAX_STALL_MS, `event loop stalled ${(h.max / 1e6).toFixed(0)} ms`);
});

test('a non-admin WebSocket message over the size limit closes the socket (1009) instead of being parsed', async (t) => {
  const e = await setup(t);
  const s = await TestSocket.open(e.url, 'graphql-ws');
  t.after(() => s.ws.close());
  s.send({ type: 'connection_init', payload: { headers: { ...USER, 'x-svc-admin-secret': 'stall-secret' } } });
  assert.equal((await s.next()).type, 'connection_ack');
  s.send({ id: '1', type: 'start', payload: { query: '{ t { id } }', variables: { pad: 'x'.repeat(3_000_000) } } });
  // Closed on the frame's header (ws's own 1009, without a reason): the 3 MB are never buffered.
  const closed = await s.closed;
  assert.equal(closed.code, 1009);
  // An admin socket keeps the admin bound: the same message is answered.
  const a = await TestSocket.open(e.url, 'graphql-ws');
  t.after(() => a.ws.close());
  a.send({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'stall-secret' } } });
  assert.equal((await a.next()).type, 'connection_ack');
  a.send({ id: '1', type: 'start', payload: { query: 'query ($pad: String) { t(order_by: {id: asc}) { id } }', variables: { pad: 'x'.repeat(3_000_000) } } });
  assert.deepEqual((await a.next()).payload, { data: { t: [{ id: 1 }, { id: 2 }] } });
});

/**
 * Largest event-loop stall allowed while a hostile body is refused before it is parsed. The goal is
 * 50 ms (measured with the engine alone by scripts/benchStall.mjs); here the test's own client
 * shares the process and the machine is shared, hence the headroom.
 */
const MAX_BODY_STALL_MS = Number(process.env.SVC_TEST_MAX_BODY_STALL_MS ?? MAX_STALL_MS);

/** Runs `fn` with the event-loop monitor on; returns its result and the longest stall in ms. */
async function monitored<T>(fn: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  try {
    const value = await fn();
    return { value, stallMs: h.max / 1e6 };
  } finally {
    h.disable();
  }
}

/**
 * `monitored`, tried up to three times until the stall is under the bound (the refusals have no side
 * effect): on a machine shared with other work a single try can be preempted, while parsing the body
 * would stall every try for seconds.
 */
async function leastStall<T>(fn: () => Promise<T>): Promise<{ value: T; stallMs: number }> {
  let best = await monitored(fn);
  for (let i = 1; i < 3 && best.stallMs >= MAX_BODY_STALL_MS; i++) {
    const r = await monitored(fn);
    if (r.stallMs < best.stallMs) best = r;
  }
  return best;
}

/** A socket with exactly these handshake headers, collecting its messages and its close. */
function rawSocket(url: string, headers: Record<string, string> = {}): { ws: WebSocket; opened: Promise<void>; messages: any[]; closed: Promise<{ code: number; reason: string }> } {
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/v1/graphql', ['graphql-ws'], { headers });
  const messages: any[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  ws.on('error', () => undefined);
  return {
    ws,
    messages,
    opened: new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    }),
    closed: new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))),
  };
}

test('nothing unauthenticated is parsed beyond 64 KiB: POST-mode webhook, /v1/query and /v1/metadata without admin rights, WebSocket before connection_init', async (t) => {
  const hook = await startWebhookServer(() => ({ status: 200, body: { 'X-Svc-Role': 'user' } }));
  t.after(() => hook.stop());
  const e = await startTestEngine({ adminSecret: 'stall-secret', authHook: hook.url, authHookMode: 'POST' });
  t.after(() => e.stop());
  await e.runSql('CREATE TABLE t (id serial PRIMARY KEY); INSERT INTO t DEFAULT VALUES;');
  assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 't' } })).status, 200);
  assert.equal((await e.query({ type: 'create_select_permission', args: { table: 't', role: 'user', permission: { columns: '*', filter: {} } } })).status, 200);

  // A small body still goes to the webhook, which vouches for it.
  const small = await rawRequest(e.url, 'POST', '/v1/graphql', { query: '{ t { id } }' });
  assert.deepEqual(small.body, { data: { t: [{ id: 1 }] } });
  const hookCalls = hook.requests.length;

  const big = JSON.stringify({ query: '{ t { id } }', variables: { pad: Array.from({ length: 3_000_000 }, () => ({})) } });
  assert.ok(big.length > 8_000_000);
  const gql = await leastStall(() => rawRequest(e.url, 'POST', '/v1/graphql', big));
  assert.equal(gql.value.status, 413, gql.value.text.slice(0, 300));
  assert.equal(gql.value.body.errors[0].extensions.code, 'invalid-params');
  assert.match(gql.value.body.errors[0].message, /larger than 65536 bytes \(the limit before the auth webhook has answered\)/);
  assert.equal(hook.requests.length, hookCalls, 'the webhook never saw the big body');
  assert.ok(gql.stallMs < MAX_BODY_STALL_MS, `event loop stalled ${gql.stallMs.toFixed(0)} ms`);

  for (const path of ['/v1/query', '/v1/metadata']) {
    const r = await leastStall(() => rawRequest(e.url, 'POST', path, big));
    assert.equal(r.value.status, 413, r.value.text.slice(0, 300));
    assert.deepEqual(Object.keys(r.value.body).sort(), ['code', 'error', 'path']);
    assert.equal(r.value.body.code, 'invalid-params');
    assert.ok(r.stallMs < MAX_BODY_STALL_MS, `${path}: event loop stalled ${r.stallMs.toFixed(0)} ms`);
  }
  const userQuery = await rawRequest(e.url, 'POST', '/v1/query', { type: 'select', args: { table: 't', columns: ['id'] }, pad: 'x'.repeat(70_000) });
  assert.equal(userQuery.status, 413, userQuery.text.slice(0, 300));
  // The admin keeps the large bound.
  const adminQuery = await e.query({ type: 'run_sql', args: { sql: `SELECT 1 -- ${'x'.repeat(200_000)}` } });
  assert.equal(adminQuery.status, 200, adminQuery.text.slice(0, 300));

  // WebSocket: one 8 MB message before connection_init closes the socket (1009), unparsed.
  const ws = await leastStall(async () => {
    const s = rawSocket(e.url);
    await s.opened;
    s.ws.send(big);
    return s.closed;
  });
  // Closed on the frame's header (ws's 1009, no reason): the engine neither buffers nor unmasks it.
  assert.equal(ws.value.code, 1009);
  // The test's own client masks the 8 MB frame in this process, so the bound here is looser; parsing
  // it took 1.5-4 s (scripts/benchStall.mjs measures the engine alone).
  assert.ok(ws.stallMs < 4 * MAX_BODY_STALL_MS, `event loop stalled ${ws.stallMs.toFixed(0)} ms`);
  assert.equal((await e.request('GET', '/healthz')).status, 200);
});

test('a WebSocket connection may not queue more than --ws-max-queued-messages unhandled messages', async (t) => {
  const e = await startTestEngine({ adminSecret: 'stall-secret', wsMaxQueuedMessages: 8 });
  t.after(() => e.stop());
  const s = rawSocket(e.url);
  await s.opened;
  // Sent in one go, they arrive together and wait behind connection_init.
  s.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'stall-secret' } } }));
  for (let i = 0; i < 40; i++) s.ws.send(JSON.stringify({ id: String(i), type: 'stop' }));
  const closed = await s.closed;
  assert.equal(closed.code, 1008);
  assert.match(closed.reason, /more than 8 messages waiting/);

  // Under the bound, the same messages are served.
  const ok = rawSocket(e.url);
  await ok.opened;
  ok.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: { 'x-svc-admin-secret': 'stall-secret' } } }));
  for (let i = 0; i < 5; i++) ok.ws.send(JSON.stringify({ id: String(i), type: 'stop' }));
  ok.ws.send(JSON.stringify({ id: 'q', type: 'start', payload: { query: '{ __typename }' } }));
  while (!ok.messages.some((m) => m.type === 'data')) await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(ok.messages.find((m) => m.type === 'data').payload, { data: { __typename: 'query_root' } });
  ok.ws.close();
});

test("connection_init's payload may not replace the upgrade request's headers unless --ws-init-overrides-headers", async (t) => {
  const run = async (wsInitOverridesHeaders: boolean | undefined): Promise<any> => {
    const e = await startTestEngine({ adminSecret: 'stall-secret', wsInitOverridesHeaders });
    t.after(() => e.stop());
    await e.runSql('CREATE TABLE secret_t (id int); INSERT INTO secret_t VALUES (7);');
    assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'secret_t' } })).status, 200);
    // A proxy authenticated the upgrade request and pinned its role; the client asks for admin.
    const s = rawSocket(e.url, { 'x-svc-admin-secret': 'stall-secret', 'x-svc-role': 'user' });
    await s.opened;
    t.after(() => s.ws.close());
    s.ws.send(JSON.stringify({ type: 'connection_init', payload: { headers: { 'x-svc-role': 'admin' } } }));
    s.ws.send(JSON.stringify({ id: '1', type: 'start', payload: { query: '{ secret_t { id } }' } }));
    while (!s.messages.some((m) => m.id === '1')) await new Promise((r) => setTimeout(r, 20));
    return s.messages.find((m) => m.id === '1');
  };
  const pinned = await run(undefined);
  assert.equal(pinned.type, 'error', JSON.stringify(pinned));
  assert.match(JSON.stringify(pinned.payload), /secret_t/);
  const hasura = await run(true);
  assert.deepEqual(hasura, { type: 'data', id: '1', payload: { data: { secret_t: [{ id: 7 }] } } });
});

test('a replace_metadata of several MB from an admin is decoded off the main thread: the event loop keeps answering', async (t) => {
  const e = await setup(t);
  const queries = Array.from({ length: 60_000 }, (_, i) => ({ name: `q${i}`, query: `query q${i} { t { id name parent { id } } }` }));
  const body = JSON.stringify({ type: 'replace_metadata', args: { ...(await e.query({ type: 'export_metadata', args: {} })).body, query_collections: [{ name: 'big', definition: { queries } }] } });
  assert.ok(body.length > 4_000_000, `${body.length} bytes`);
  const admin = { 'x-svc-admin-secret': 'stall-secret', 'content-type': 'application/json' };
  // The first request also starts the decoding thread; the stall is measured on the ones after it.
  assert.equal((await e.request('POST', '/v1/query', body, admin)).status, 200);
  const r = await leastStall(() => e.request('POST', '/v1/query', body, admin));
  assert.equal(r.value.status, 200, r.value.text.slice(0, 300));
  assert.ok(r.stallMs < MAX_BODY_STALL_MS, `event loop stalled ${r.stallMs.toFixed(0)} ms`);
  const exported = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.equal(exported.query_collections[0].definition.queries.length, 60_000);
  assert.equal(exported.query_collections[0].definition.queries[59_999].name, 'q59999');
  // A broken query text deep inside is still refused, with its path, and nothing changes.
  queries[41_000].query = 'query broken {';
  const bad = await e.request('POST', '/v1/query', JSON.stringify({ type: 'replace_metadata', args: { version: 2, tables: [], query_collections: [{ name: 'big', definition: { queries } }] } }), admin);
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, { path: '$.query_collections[0].definition.queries[41000].query', error: 'parsing the graphql query failed', code: 'parse-failed' });
  assert.deepEqual((await e.graphql('{ t(order_by: {id: asc}) { id } }', undefined, USER)).body, { data: { t: [{ id: 1 }, { id: 2 }] } });
});
