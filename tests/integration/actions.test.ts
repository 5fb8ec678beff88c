/**
 * Actions and custom types end to end: a real engine on a real database, real action handlers on
 * 127.0.0.1 (servers of this test). Covers custom-type validation (a failed call changes nothing),
 * the synchronous call (body, headers, Set-Cookie, output checks, 4xx/5xx, internals only for
 * admin), permissions, relationships to tables in one SQL statement with the role's row filter,
 * metadata export/replace/clear, inconsistent handlers, and asynchronous actions (owner-only
 * results, two engines processing each row once, a stale lease picked up again).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';

interface Seen { path: string; headers: IncomingHttpHeaders; body: any }
type Answer = { status: number; body?: unknown; text?: string; headers?: Record<string, string> };

/** An action handler: records requests, answers with `answer(req)`. */
async function handler(answer: (r: Seen) => Answer | Promise<Answer>) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r: Seen = { path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') };
      seen.push(r);
      const a = await answer(r);
      res.writeHead(a.status, { 'content-type': 'application/json', ...(a.headers ?? {}) });
      res.end(a.text ?? (a.body === undefined ? '' : JSON.stringify(a.body)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, stop: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}

async function until<T>(fn: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const SETUP = `
CREATE TABLE "user" (id serial PRIMARY KEY, name text NOT NULL, email text NOT NULL, secret text);
INSERT INTO "user" (name, email, secret) VALUES ('Ann', 'ann@x.io', 's1'), ('Bob', 'bob@x.io', 's2');`;

const TYPES = {
  input_objects: [{ name: 'UserInput', fields: [{ name: 'name', type: 'String!' }, { name: 'email', type: 'String!' }] }],
  objects: [
    { name: 'UserId', fields: [{ name: 'id', type: 'Int!' }, { name: 'note', type: 'String' }], relationships: [{ name: 'user', type: 'object', remote_table: 'user', field_mapping: { id: 'id' } }] },
  ],
};

async function setup(e: TestEngine, handlerUrl: string, extra: Record<string, unknown> = {}) {
  await e.runSql(SETUP);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'user' } },
      { type: 'create_select_permission', args: { table: 'user', role: 'viewer', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'set_custom_types', args: TYPES },
      {
        type: 'create_action',
        args: {
          name: 'make_user',
          definition: {
            arguments: [{ name: 'u', type: 'UserInput!' }], output_type: 'UserId', handler: `${handlerUrl}/make`,
            headers: [{ name: 'x-static', value: 'v1' }, { name: 'x-from-env', value_from_env: 'H15_ACTION_SECRET' }], ...extra,
          },
        },
      },
      { type: 'create_action_permission', args: { action: 'make_user', role: 'viewer' } },
    ],
  });
  assert.equal(r.status, 200, r.text);
}

process.env.H15_ACTION_SECRET = 'env-secret';

test('set_custom_types is validated as a whole and a failed call changes nothing', async () => {
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    await e.runSql(SETUP);
    assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'user' } })).status, 200);
    assert.equal((await e.query({ type: 'set_custom_types', args: TYPES })).status, 200);
    const before = (await e.query({ type: 'export_metadata', args: {} })).text;
    const bad = [
      [{ objects: [{ name: 'O', fields: [{ name: 'x', type: 'Nope' }] }] }, 'the type "Nope" for field "x" in  object type "O" does not exist'],
      [{ objects: [{ name: 'O', fields: [{ name: 'x', type: 'Int' }], relationships: [{ name: 'r', type: 'object', remote_table: 'missing', field_mapping: { x: 'id' } }] }] }, 'the remote table "missing" for relationship "r" of object type "O" does not exist'],
      [{ objects: [{ name: 'O', fields: [{ name: 'x', type: 'Int' }], relationships: [{ name: 'r', type: 'object', remote_table: 'user', field_mapping: { x: 'nocol' } }] }] }, 'the column "nocol" of remote table "user" for relationship "r" of object type "O" does not exist'],
      [{ objects: [{ name: 'user', fields: [{ name: 'x', type: 'Int' }] }] }, 'the type "user" conflicts with a type generated for the table "user"'],
      [{ scalars: [{ name: 'A' }], enums: [{ name: 'A', values: [{ value: 'X' }] }] }, 'duplicate type names: "A"'],
    ] as const;
    for (const [args, reason] of bad) {
      const r = await e.query({ type: 'set_custom_types', args });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.code, 'constraint-violation');
      assert.equal(r.body.error, `validation for the given custom types failed because ${reason}`);
      assert.equal((await e.query({ type: 'export_metadata', args: {} })).text, before);
    }
    // A type still used by an action cannot be removed.
    const h = await handler(() => ({ status: 200, body: { id: 1 } }));
    assert.equal((await e.query({ type: 'create_action', args: { name: 'a1', definition: { arguments: [], output_type: 'UserId', handler: h.url } } })).status, 200);
    const r = await e.query({ type: 'set_custom_types', args: {} });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.internal[0].type, 'action');
    await h.stop();
  } finally {
    await e.stop();
  }
});

test('a synchronous action: request to the handler, Set-Cookie back, relationship with the role filter in one statement', async () => {
  const h = await handler((r) => ({ status: 200, body: { id: r.body.input.u.name === 'Ann' ? 1 : 2 }, headers: { 'set-cookie': 'sid=abc' } }));
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    await setup(e, h.url, { forward_client_headers: true });
    // Count the statements the engine sends for one request (the real database answers them).
    const db = e.engine.ctx.db;
    let statements = 0;
    const orig = db.queryJsonText.bind(db);
    db.queryJsonText = (...a: Parameters<typeof orig>) => { statements++; return orig(...a); };
    const q = 'mutation { make_user(u: {name: "Ann", email: "a@x.io"}) { __typename id note user { id name } } }';
    const r = await e.graphql(q, undefined, { 'x-svc-role': 'viewer', 'x-svc-user-id': '1', 'x-client': 'c1' });
    assert.deepEqual(r.body, { data: { make_user: { __typename: 'UserId', id: 1, note: null, user: { id: 1, name: 'Ann' } } } });
    assert.equal(statements, 1);
    assert.equal(r.headers.get('set-cookie'), 'sid=abc');
    const req = h.seen.at(-1)!;
    assert.equal(req.path, '/make');
    assert.deepEqual(req.body, { action: { name: 'make_user' }, input: { u: { name: 'Ann', email: 'a@x.io' } }, session_variables: { 'x-svc-role': 'viewer', 'x-svc-user-id': '1' } });
    assert.equal(req.headers['x-static'], 'v1');
    assert.equal(req.headers['x-from-env'], 'env-secret');
    assert.equal(req.headers['x-client'], 'c1');
    assert.equal(req.headers['x-svc-admin-secret'], undefined);
    // The viewer's select filter hides user 2.
    const r2 = await e.graphql('mutation { make_user(u: {name: "Bob", email: "b@x.io"}) { id user { name } } }', undefined, { 'x-svc-role': 'viewer', 'x-svc-user-id': '1' });
    assert.deepEqual(r2.body, { data: { make_user: { id: 2, user: null } } });
    // Variables are read per request from a cached plan.
    const qv = 'mutation ($n: String!) { make_user(u: {name: $n, email: "v@x.io"}) { id } }';
    for (const [n, id] of [['Ann', 1], ['Zed', 2]] as const) {
      assert.deepEqual((await e.graphql(qv, { n })).body, { data: { make_user: { id } } });
      assert.equal(h.seen.at(-1)!.body.input.u.name, n);
    }
  } finally {
    await e.stop();
    await h.stop();
  }
});

test('who sees an action, input validation, and the handler answer checks', async () => {
  let answer: Answer = { status: 200, body: { id: 1 } };
  const h = await handler(() => answer);
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    await setup(e, h.url);
    const q = 'mutation { make_user(u: {name: "Ann", email: "a@x.io"}) { id } }';
    const other = await e.graphql(q, undefined, { 'x-svc-role': 'stranger' });
    assert.equal(other.body.errors?.[0]?.extensions?.code, 'validation-failed', other.text);
    assert.equal(other.body.data, undefined);
    const calls = h.seen.length;
    const badInput = await e.graphql('mutation { make_user(u: {name: 1}) { id } }');
    assert.equal(badInput.body.errors[0].extensions.code, 'validation-failed');
    assert.equal(h.seen.length, calls, 'the handler is not called for invalid input');

    const check = async (a: Answer, code: string, message: string, role?: string) => {
      answer = a;
      const r = await e.graphql(q, undefined, role ? { 'x-svc-role': role, 'x-svc-user-id': '1' } : {});
      assert.equal(r.body.errors?.[0]?.extensions?.code, code, r.text);
      assert.equal(r.body.errors[0].message, message);
      return r.body.errors[0].extensions;
    };
    const ext = await check({ status: 200, body: [{ id: 1 }] }, 'unexpected', 'expecting object for action webhook response but got array');
    assert.equal(ext.internal.request.url, `${h.url}/make`);
    assert.deepEqual(ext.internal.request.headers, [{ name: 'x-static', value: 'v1' }, { name: 'x-from-env', value: '<from env>' }]);
    await check({ status: 200, body: { id: 1, extra: 2 } }, 'unexpected', 'unexpected fields in webhook response: extra');
    await check({ status: 200, body: { id: null } }, 'unexpected', 'expecting not null value for field "id"');
    await check({ status: 200, body: { note: 'x' } }, 'unexpected', 'field "id" expected in webhook response, but not found');
    await check({ status: 200, text: '"str"' }, 'parse-failed', 'expecting object or array of objects for action webhook response');
    await check({ status: 422, body: { message: 'nope', code: 'bad-thing' } }, 'bad-thing', 'nope');
    await check({ status: 400, body: { message: 'plain' } }, 'unexpected', 'plain');
    const hidden = await check({ status: 503, body: { secret: 'internal stack' } }, 'unexpected', 'internal error', 'viewer');
    assert.equal(hidden.internal, undefined, 'a non-admin role never sees the handler exchange');
    assert.doesNotMatch(JSON.stringify(hidden), /internal stack|127\.0\.0\.1/);
    const adminView = await check({ status: 503, body: { secret: 'internal stack' } }, 'unexpected', 'internal error');
    assert.equal(adminView.internal.response.status, 503);
  } finally {
    await e.stop();
    await h.stop();
  }
});

test('actions and custom types in export / replace / clear metadata; a missing env variable makes the action inconsistent', async () => {
  const h = await handler(() => ({ status: 200, body: { id: 1 } }));
  const e = await startTestEngine({ adminSecret: 'k' });
  try {
    await setup(e, h.url);
    const md = (await e.query({ type: 'export_metadata', args: {} })).body;
    assert.equal(md.actions[0].name, 'make_user');
    assert.deepEqual(md.actions[0].permissions, [{ role: 'viewer' }]);
    assert.equal(md.actions[0].definition.kind, 'synchronous');
    assert.equal(md.custom_types.objects[0].name, 'UserId');
    assert.equal((await e.query({ type: 'clear_metadata', args: {} })).status, 200);
    const cleared = (await e.query({ type: 'export_metadata', args: {} })).body;
    assert.equal(cleared.actions, undefined);
    assert.equal(cleared.custom_types, undefined);
    assert.equal((await e.query({ type: 'replace_metadata', args: md })).status, 200);
    assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, md);
    assert.deepEqual((await e.graphql('mutation { make_user(u: {name: "A", email: "a"}) { id } }')).body, { data: { make_user: { id: 1 } } });

    const r = await e.query({ type: 'create_action', args: { name: 'envy', definition: { arguments: [], output_type: 'UserId', handler: '{{H15_NOT_SET}}/x' } } });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.code, 'constraint-violation');
    const withEnv = structuredClone(md);
    withEnv.actions.push({ name: 'envy', definition: { ...md.actions[0].definition, handler: '{{H15_NOT_SET}}/x' } });
    assert.equal((await e.query({ type: 'replace_metadata', args: withEnv })).status, 400);
    assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, md);
    const dropped = await e.query({ type: 'drop_action', args: { name: 'missing' } });
    assert.equal(dropped.status, 400);
    assert.equal(dropped.body.code, 'not-exists');
    // drop_action_permission takes {action, role} (other keys ignored, as Hasura's parser does) and words a missing one as Hasura v1.3.
    const action = md.actions[0].name as string;
    const noPerm = await e.query({ type: 'drop_action_permission', args: { action, role: 'nobody', comment: 'ignored' } });
    assert.deepEqual([noPerm.status, noPerm.body.code, noPerm.body.error], [400, 'not-exists', `permission for role: "nobody" is not defined on "${action}"`]);
    assert.equal((await e.query({ type: 'create_action_permission', args: { action, role: 'nobody' } })).status, 200);
    const again = await e.query({ type: 'create_action_permission', args: { action, role: 'nobody' } });
    assert.deepEqual([again.status, again.body.code, again.body.error], [400, 'already-exists', `permission for role: "nobody"is already defined on "${action}"`]);
    assert.equal((await e.query({ type: 'drop_action_permission', args: { action, role: 'nobody', comment: 'ignored' } })).status, 200);
    assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, md);
    assert.equal((await e.request('GET', '/healthz')).status, 200);
  } finally {
    await e.stop();
  }
  await h.stop();
});

test('asynchronous actions: id at once, result only for its creator, each row processed once by two engines, stale leases picked up', async () => {
  const h = await handler((r) => ({ status: 200, body: { id: r.body.input.u.name === 'Ann' ? 1 : 2 } }));
  const e1 = await startTestEngine({ adminSecret: 'k', asyncActionsFetchIntervalMs: 100 });
  try {
    await setup(e1, h.url, { kind: 'asynchronous' });
    const e2 = await startTestEngine({ adminSecret: 'k', asyncActionsFetchIntervalMs: 100, databaseUrl: e1.databaseUrl });
    try {
      const viewer = (uid: string) => ({ 'x-svc-role': 'viewer', 'x-svc-user-id': uid });
      const ids: string[] = [];
      for (let i = 0; i < 20; i++) {
        const engine = i % 2 ? e1 : e2;
        const r = await engine.graphql('mutation { make_user(u: {name: "Ann", email: "a@x.io"}) }', undefined, viewer('1'));
        assert.match(r.body.data?.make_user ?? '', /^[0-9a-f-]{36}$/, r.text);
        ids.push(r.body.data.make_user);
      }
      const q = 'query ($id: uuid!) { make_user(id: $id) { __typename id errors output { id user { name } } } }';
      for (const id of ids) {
        const got = await until(async () => {
          const r = await e1.graphql(q, { id }, viewer('1'));
          return r.body.data?.make_user?.output ? r.body : undefined;
        });
        assert.deepEqual(got, { data: { make_user: { __typename: 'make_user', id, errors: null, output: { id: 1, user: { name: 'Ann' } } } } });
        assert.deepEqual((await e2.graphql(q, { id }, viewer('2'))).body, { data: { make_user: null } });
      }
      const calls = h.seen.filter((s) => s.body?.action?.name === 'make_user').length;
      assert.equal(calls, 20, 'every row delivered exactly once across two engines');
      // A row claimed by an engine that died (lease long expired) is processed again.
      await e1.runSql(`INSERT INTO hdb_catalog.hdb_action_log (id, action_name, input_payload, request_headers, session_variables, status, locked_at, locked_by)
        VALUES ('00000000-0000-0000-0000-00000000000a', 'make_user', '{"u":{"name":"Bob","email":"b"}}', '{}', '{"x-svc-role":"viewer","x-svc-user-id":"2"}', 'processing', now() - interval '1 hour', 'dead-engine')`);
      const stale = await until(async () => {
        const r = await e2.graphql(q.replace('user { name }', ''), { id: '00000000-0000-0000-0000-00000000000a' }, viewer('2'));
        return r.body.data?.make_user?.output ? r.body : undefined;
      });
      assert.equal(stale.data.make_user.output.id, 2);
    } finally {
      await e2.stop();
    }
  } finally {
    await e1.stop();
    await h.stop();
  }
});

test('the result of an asynchronous action over a subscription: null output first, then the handler\'s answer', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const h = await handler(async () => {
    await gate;
    return { status: 200, body: { id: 1 } };
  });
  const e = await startTestEngine({ adminSecret: 'k', asyncActionsFetchIntervalMs: 100, liveQueries: { batchSize: 100, refetchIntervalMs: 100, changePollIntervalMs: 50 } });
  try {
    await setup(e, h.url, { kind: 'asynchronous' });
    const headers = { 'x-svc-admin-secret': 'k', 'x-svc-role': 'viewer', 'x-svc-user-id': '1' };
    const id = (await e.graphql('mutation { make_user(u: {name: "Ann", email: "a"}) }', undefined, headers)).body.data.make_user;
    const s = await TestSocket.open(e.url, 'graphql-ws');
    s.send({ type: 'connection_init', payload: { headers } });
    assert.deepEqual(await s.next(), { type: 'connection_ack' });
    s.send({ type: 'start', id: '1', payload: { query: 'subscription ($id: uuid!) { make_user(id: $id) { id output { id user { name } } } }', variables: { id } } });
    assert.deepEqual(await s.next(5000), { type: 'data', id: '1', payload: { data: { make_user: { id, output: null } } } });
    release();
    assert.deepEqual(await s.next(10_000), { type: 'data', id: '1', payload: { data: { make_user: { id, output: { id: 1, user: { name: 'Ann' } } } } } });
    s.ws.close();
    await s.closed;
  } finally {
    release();
    await e.stop();
    await h.stop();
  }
});

test('an async action created on an engine without a worker is processed by another engine woken by NOTIFY', async () => {
  const h = await handler(() => ({ status: 200, body: { id: 1 } }));
  // The worker engine would poll only once a minute: a quick answer means the NOTIFY woke it.
  const worker = await startTestEngine({ adminSecret: 'k', asyncActionsFetchIntervalMs: 60_000 });
  try {
    await setup(worker, h.url, { kind: 'asynchronous' });
    const front = await startTestEngine({ adminSecret: 'k', asyncActionsFetchIntervalMs: 0, databaseUrl: worker.databaseUrl });
    try {
      const id = (await front.graphql('mutation { make_user(u: {name: "Ann", email: "a"}) }')).body.data.make_user;
      const out = await until(async () => {
        const r = await front.graphql('query ($id: uuid!) { make_user(id: $id) { output { id } } }', { id });
        return r.body.data?.make_user?.output ?? undefined;
      }, 20_000);
      assert.deepEqual(out, { id: 1 });
      assert.equal(h.seen.length, 1);
    } finally {
      await front.stop();
    }
  } finally {
    await worker.stop();
    await h.stop();
  }
});
