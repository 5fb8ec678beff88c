/**
 * API limits (Hasura v2's metadata shape): `set_api_limits` / `remove_api_limits` on
 * /v1/query (alone and in `bulk`), bad args refused with 400 leaving metadata as it was,
 * `api_limits` in `export_metadata`, restored by `replace_metadata`, removed by `clear_metadata`;
 * depth / node / batch limits applied per role (admin only when configured for admin) to queries,
 * mutations and subscriptions over HTTP and WebSocket; the server flags as global defaults; every
 * limit kind of Hasura's stored; under --hasura-compat reported at start and applied only with
 * --apply-api-limits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine, type TestEngineOptions } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';
import { pino } from 'pino';

const SECRET = 'limits-secret';
const USER = { 'x-svc-role': 'user' };
const EDITOR = { 'x-svc-role': 'editor' };
/** Depth counts fields along the longest path, the leaf included: t, children, id. */
const DEPTH3 = '{ t { children { id } } }';
/** 4 fields: t, id, name, parent_id. */
const NODES4 = '{ t { id name parent_id } }';

async function setup(t: { after: (fn: () => Promise<void>) => void }, opts: TestEngineOptions = {}): Promise<TestEngine> {
  const e = await startTestEngine({ adminSecret: SECRET, ...opts });
  t.after(() => e.stop());
  await e.runSql("CREATE TABLE t (id serial PRIMARY KEY, name text, parent_id int REFERENCES t(id)); INSERT INTO t (name) VALUES ('a');");
  const steps: unknown[] = [{ type: 'track_table', args: { schema: 'public', name: 't' } },
    { type: 'create_array_relationship', args: { table: 't', name: 'children', using: { foreign_key_constraint_on: { table: 't', column: 'parent_id' } } } }];
  for (const role of ['user', 'editor']) {
    steps.push({ type: 'create_select_permission', args: { table: 't', role, permission: { columns: '*', filter: {} } } });
    steps.push({ type: 'create_insert_permission', args: { table: 't', role, permission: { check: {}, columns: '*' } } });
  }
  for (const s of steps) assert.equal((await e.query(s)).status, 200, JSON.stringify(s));
  return e;
}

const exported = async (e: TestEngine) => (await e.query({ type: 'export_metadata', args: {} })).body;

const gqlError = (r: { body: any; text: string }) => {
  assert.ok(r.body?.errors?.[0], r.text.slice(0, 300));
  return r.body.errors[0];
};

test('set_api_limits: stored, exported, applied per role; admin unlimited unless configured; remove_api_limits', async (t) => {
  const e = await setup(t);
  const limits = { disabled: false, depth_limit: { global: 5, per_role: { user: 2 } }, node_limit: { global: 100, per_role: { editor: 3 } } };
  const set = await e.query({ type: 'set_api_limits', args: limits });
  assert.deepEqual([set.status, set.body], [200, { message: 'success' }]);
  assert.deepEqual((await exported(e)).api_limits, limits);

  assert.deepEqual(gqlError(await e.graphql(DEPTH3, undefined, USER)), {
    extensions: { path: '$', code: 'validation-failed' }, message: 'the query depth 3 exceeds the depth limit of 2 for role "user"',
  });
  assert.deepEqual((await e.graphql('{ t { id } }', undefined, USER)).body, { data: { t: [{ id: 1 }] } });
  assert.deepEqual(gqlError(await e.graphql(NODES4, undefined, EDITOR)), {
    extensions: { path: '$', code: 'validation-failed' }, message: 'the query selects 4 fields, more than the node limit of 3 for role "editor"',
  });
  // fragments are counted expanded
  assert.equal((await e.graphql('{ t { ...F } } fragment F on t { id name }', undefined, EDITOR)).body.data.t.length, 1);
  assert.match(gqlError(await e.graphql('{ t { ...F ...F2 } } fragment F on t { id name } fragment F2 on t { parent_id }', undefined, EDITOR)).message, /node limit of 3 for role "editor"/);
  // mutations too
  assert.match(gqlError(await e.graphql('mutation { insert_t(objects: [{name: "x"}]) { returning { id name parent_id } } }', undefined, EDITOR)).message, /node limit of 3/);
  // admin: no global limit applies
  assert.equal((await e.graphql(`{ t { children { children { children { children { children { id } } } } } } }`)).body.data.t.length, 1);

  // admin limited only through its own per_role entry
  assert.equal((await e.query({ type: 'set_api_limits', args: { depth_limit: { per_role: { admin: 1 } } } })).status, 200);
  assert.deepEqual((await exported(e)).api_limits, { depth_limit: { per_role: { admin: 1 } } });
  assert.match(gqlError(await e.graphql('{ t { id } }')).message, /the query depth 2 exceeds the depth limit of 1 for role "admin"/);
  assert.equal((await e.graphql(DEPTH3, undefined, USER)).body.data.t.length, 1, 'set_api_limits replaced the previous limits');

  // disabled keeps the limits but does not apply them
  assert.equal((await e.query({ type: 'set_api_limits', args: { disabled: true, depth_limit: { per_role: { admin: 1 } } } })).status, 200);
  assert.equal((await e.graphql('{ t { id } }')).body.data.t.length, 1);

  const rm = await e.query({ type: 'remove_api_limits', args: {} });
  assert.deepEqual([rm.status, rm.body], [200, { message: 'success' }]);
  assert.equal((await exported(e)).api_limits, undefined);
});

test('bad args are refused with 400 and change nothing', async (t) => {
  const e = await setup(t);
  assert.equal((await e.query({ type: 'set_api_limits', args: { node_limit: { global: 7 } } })).status, 200);
  const before = await exported(e);
  const bad: Array<[unknown, string, string]> = [
    [{ depth_limit: { global: -1 } }, '$.depth_limit.global', 'parse-failed'],
    [{ depth_limit: { global: 1.5 } }, '$.depth_limit.global', 'parse-failed'],
    [{ depth_limit: { global: '3' } }, '$.depth_limit.global', 'parse-failed'],
    [{ node_limit: { per_role: { user: null } } }, '$.node_limit.per_role.user', 'parse-failed'],
    [{ node_limit: { per_role: [] } }, '$.node_limit.per_role', 'parse-failed'],
    [{ node_limit: { globl: 3 } }, '$.node_limit', 'parse-failed'],
    [{ disabled: 'no' }, '$.disabled', 'parse-failed'],
    [{ depth: 3 }, '$', 'parse-failed'],
    [[], '$', 'parse-failed'],
    [{ rate_limit: { global: { unique_params: 'IP' } } }, '$.rate_limit.global', 'parse-failed'],
    [{ rate_limit: { global: { unique_params: 'host', max_reqs_per_min: 10 } } }, '$.rate_limit.global.unique_params', 'parse-failed'],
    [{ rate_limit: { per_role: { user: { unique_params: ['x-hasura-role'], max_reqs_per_min: 10 } } } }, '$.rate_limit.per_role.user.unique_params', 'parse-failed'],
    [{ time_limit: { global: -5 } }, '$.time_limit.global', 'parse-failed'],
    [{ time_limit: { global: '5s' } }, '$.time_limit.global', 'parse-failed'],
  ];
  for (const [args, path, code] of bad) {
    const r = await e.query({ type: 'set_api_limits', args });
    assert.equal(r.status, 400, `${JSON.stringify(args)}: ${r.text}`);
    assert.deepEqual([r.body.path, r.body.code], [path, code], `${JSON.stringify(args)}: ${r.text}`);
    assert.equal(typeof r.body.error, 'string');
  }
  assert.equal((await e.query({ type: 'set_api_limits', args: { rate_limit: { global: { unique_params: ['x-hasura-user-id', 1], max_reqs_per_min: 1 } } } })).body.error,
    "Not a valid value. Should be either: 'IP' or a list of Hasura session variables");
  // a bulk whose last op fails leaves the limits as they were
  const bulk = await e.query({ type: 'bulk', args: [{ type: 'set_api_limits', args: { depth_limit: { global: 1 } } }, { type: 'track_table', args: { schema: 'public', name: 'nope' } }] });
  assert.equal(bulk.status, 400);
  assert.deepEqual(await exported(e), before);
  assert.equal((await e.graphql(DEPTH3, undefined, USER)).body.data.t.length, 1);
  // non-admin may not set limits
  assert.equal((await e.query({ type: 'set_api_limits', args: {} }, { 'x-svc-admin-secret': 'wrong' })).status, 401);
  assert.deepEqual(await exported(e), before);
  // in bulk it works
  const ok = await e.query({ type: 'bulk', args: [{ type: 'remove_api_limits', args: {} }, { type: 'set_api_limits', args: { batch_limit: { global: 1 } } }] });
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual((await exported(e)).api_limits, { batch_limit: { global: 1 } });
});

test('export / replace_metadata round trip keeps api_limits; clear_metadata removes them', async (t) => {
  const e = await setup(t);
  const limits = { depth_limit: { global: 4, per_role: { user: 2, admin: 10 } }, node_limit: { per_role: { editor: 50 } }, batch_limit: { global: 3 } };
  assert.equal((await e.query({ type: 'set_api_limits', args: limits })).status, 200);
  const md = await exported(e);
  assert.equal((await e.query({ type: 'clear_metadata', args: {} })).status, 200);
  assert.equal((await exported(e)).api_limits, undefined);
  assert.equal((await e.query({ type: 'replace_metadata', args: md })).status, 200);
  assert.deepEqual(await exported(e), md);
  assert.match(gqlError(await e.graphql(DEPTH3, undefined, USER)).message, /depth limit of 2 for role "user"/);
  // a bad api_limits in replace_metadata is refused and changes nothing
  const r = await e.query({ type: 'replace_metadata', args: { ...md, api_limits: { depth_limit: { global: -3 } } } });
  assert.equal(r.status, 400, r.text);
  assert.equal(r.body.path, '$.api_limits.depth_limit.global');
  assert.deepEqual(await exported(e), md);
  // the limits survive a restart of the schema cache from the catalog
  assert.equal((await e.query({ type: 'reload_metadata', args: {} })).status, 200);
  assert.deepEqual(await exported(e), md);
});

test('batch_limit applies to batched requests of the role', async (t) => {
  const e = await setup(t);
  assert.equal((await e.query({ type: 'set_api_limits', args: { batch_limit: { global: 2 } } })).status, 200);
  const batch = (n: number, headers: Record<string, string>) =>
    e.request('POST', '/v1/graphql', Array.from({ length: n }, () => ({ query: '{ t { id } }' })), headers);
  assert.equal((await batch(2, USER)).body.length, 2);
  const r = await batch(3, USER);
  assert.deepEqual(r.body, { errors: [{ extensions: { path: '$', code: 'validation-failed' }, message: 'the batch has 3 operations, more than the batch limit of 2 for role "user"' }] });
  assert.equal((await batch(3, {})).body.length, 3, 'admin is not limited');
});

test('the flags are the global defaults for non-admin roles; metadata overrides them', async (t) => {
  const e = await setup(t, { queryDepthLimit: 2, queryNodeLimit: 3 });
  assert.match(gqlError(await e.graphql(DEPTH3, undefined, USER)).message, /depth limit of 2 for role "user"/);
  assert.match(gqlError(await e.graphql(NODES4, undefined, USER)).message, /node limit of 3 for role "user"/);
  assert.equal((await e.graphql(DEPTH3)).body.data.t.length, 1, 'admin is not limited by the flags');
  assert.equal((await e.query({ type: 'set_api_limits', args: { depth_limit: { per_role: { user: 5 } }, node_limit: { global: 10 } } })).status, 200);
  assert.equal((await e.graphql(DEPTH3, undefined, USER)).body.data.t.length, 1);
  assert.equal((await e.graphql(NODES4, undefined, USER)).body.data.t.length, 1);
  assert.match(gqlError(await e.graphql(DEPTH3, undefined, EDITOR)).message, /depth limit of 2 for role "editor"/);
});

test('subscriptions over WebSocket are limited too', async (t) => {
  const e = await setup(t);
  assert.equal((await e.query({ type: 'set_api_limits', args: { depth_limit: { per_role: { user: 2 } } } })).status, 200);
  const s = await TestSocket.open(e.url, 'graphql-ws');
  t.after(() => s.ws.close());
  s.send({ type: 'connection_init', payload: { headers: { ...USER, 'x-svc-admin-secret': SECRET } } });
  assert.equal((await s.next()).type, 'connection_ack');
  s.send({ id: '1', type: 'start', payload: { query: `subscription ${DEPTH3}` } });
  const msg = await s.next();
  assert.deepEqual(msg, {
    type: 'error', id: '1',
    payload: { errors: [{ extensions: { path: '$', code: 'validation-failed' }, message: 'the query depth 3 exceeds the depth limit of 2 for role "user"' }] },
  });
  assert.deepEqual(await s.next(), { type: 'complete', id: '1' });
  s.send({ id: '2', type: 'start', payload: { query: 'subscription { t { id } }' } });
  assert.deepEqual(await s.next(), { type: 'data', id: '2', payload: { data: { t: [{ id: 1 }] } } });
});

// Every limit kind of Hasura's set_api_limits reference, as its docs write them.
const ALL_KINDS = {
  disabled: false,
  rate_limit: { global: { unique_params: 'IP', max_reqs_per_min: 100 }, per_role: { user: { unique_params: ['x-hasura-user-id', 'x-hasura-team-id'], max_reqs_per_min: 10 } } },
  depth_limit: { global: 5, per_role: { user: 2 } },
  node_limit: { global: 100, per_role: { editor: 3 } },
  time_limit: { global: 10, per_role: { user: 2.5 } },
  batch_limit: { global: 5, per_role: { user: 1 } },
};

test('every limit kind (rate, depth, node, time, batch) is accepted, stored and exported; depth, node and batch applied as before', async (t) => {
  const e = await setup(t);
  const set = await e.query({ type: 'set_api_limits', args: ALL_KINDS });
  assert.deepEqual([set.status, set.body], [200, { message: 'success' }], set.text);
  assert.deepEqual((await exported(e)).api_limits, ALL_KINDS);
  // on /v1/metadata too, and in the version-3 export
  const v2 = await e.request('POST', '/v1/metadata', { type: 'set_api_limits', args: { ...ALL_KINDS, time_limit: { global: 3 } } });
  assert.equal(v2.status, 200, v2.text);
  assert.deepEqual((await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body.api_limits, { ...ALL_KINDS, time_limit: { global: 3 } });
  // without --hasura-compat the engine's own limits work as before
  assert.match(gqlError(await e.graphql(DEPTH3, undefined, USER)).message, /depth limit of 2 for role "user"/);
  assert.match(gqlError(await e.graphql(NODES4, undefined, EDITOR)).message, /node limit of 3 for role "editor"/);
});

test('--hasura-compat: stored limits are reported at start and not applied; --apply-api-limits applies them', async (t) => {
  const first = await setup(t);
  assert.equal((await first.query({ type: 'set_api_limits', args: ALL_KINDS })).status, 200);
  const lines: Array<Record<string, any>> = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const compat = await startTestEngine({ databaseUrl: first.databaseUrl, adminSecret: SECRET, hasuraCompat: 'true', startOptions: { logger } });
  t.after(() => compat.stop());
  const report = lines.find((l) => l.kind === 'api-limits');
  assert.ok(report, 'the stored limits are reported at start');
  assert.equal(report.applied, false);
  assert.deepEqual(report.api_limits, ALL_KINDS);
  assert.match(report.msg, /depth_limit: global 5, user 2/);
  assert.match(report.msg, /time_limit \(s\): global 10, user 2\.5/);
  assert.match(report.msg, /rate_limit: global 100\/min per IP, user 10\/min per x-hasura-user-id\+x-hasura-team-id/);
  assert.match(report.msg, /not applied .*--apply-api-limits/);
  // Hasura's open-source edition does not apply them: the app's deeper operations and batches work
  assert.equal((await compat.graphql(DEPTH3, undefined, USER)).body.data.t.length, 1);
  assert.equal((await compat.graphql(NODES4, undefined, EDITOR)).body.data.t.length, 1);
  const batch = await compat.request('POST', '/v1/graphql', [{ query: '{ t { id } }' }, { query: '{ t { id } }' }], USER);
  assert.equal(batch.body.length, 2, batch.text);
  // the server's own flags still apply under compat
  const flagged = await startTestEngine({ databaseUrl: first.databaseUrl, adminSecret: SECRET, hasuraCompat: 'true', queryDepthLimit: 2 });
  t.after(() => flagged.stop());
  assert.match(gqlError(await flagged.graphql(DEPTH3, undefined, EDITOR)).message, /depth limit of 2 for role "editor"/);

  const applied = await startTestEngine({ databaseUrl: first.databaseUrl, adminSecret: SECRET, hasuraCompat: 'true', applyApiLimits: true, startOptions: { logger } });
  t.after(() => applied.stop());
  assert.equal(lines.filter((l) => l.kind === 'api-limits').at(-1)?.applied, true);
  assert.match(gqlError(await applied.graphql(DEPTH3, undefined, USER)).message, /depth limit of 2 for role "user"/);
});
