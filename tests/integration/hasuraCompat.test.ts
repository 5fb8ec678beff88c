/**
 * --hasura-compat end to end: a team's Hasura deployment (HASURA_GRAPHQL_* variables), its identity
 * provider's tokens (an Auth0 rule's output under https://hasura.io/jwt/claims, signed with jose, HS256
 * and RS256), its backends' X-Hasura-* headers, its auth webhook's X-Hasura-* answer and its WebSocket
 * clients' connection_init headers, each through the real HTTP server and a real WebSocket client.
 * For every path: what Hasura would accept is accepted, a name given in both spellings with different
 * values is refused, and no spelling gives more rights than the other; off, nothing of it is read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';
import { startWebhookServer, type HookRequest } from '../support/webhookServer.js';
import { rawRequest } from '../support/rawRequest.js';
import { signJwt, svcClaims } from '../support/jwt.js';

const KEY = 'hasura-compat-shared-secret-0123456789abcdef';
const ADMIN = 'adm';
const HASURA_NS = 'https://hasura.io/jwt/claims';
const ISSUER = 'https://myapp.eu.auth0.com/';
const AUDIENCE = 'https://myapp.example/api';
const QUERY = '{ note(order_by: {id: asc}) { id owner } }';

/** What an Auth0 rule adds for Hasura (Hasura's Auth0 guide), around Auth0's own claims. */
function auth0Claims(userId: string, roles = ['user', 'editor']): Record<string, unknown> {
  return {
    [HASURA_NS]: { 'x-hasura-default-role': 'user', 'x-hasura-allowed-roles': roles, 'x-hasura-user-id': userId },
    nickname: 'ada', name: 'ada@example.com', email_verified: true, azp: 'Xy1client', scope: 'openid profile email',
  };
}

async function hs256(claims: Record<string, unknown>, key = KEY): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).setSubject('auth0|ada').setIssuer(ISSUER).setAudience(AUDIENCE)
    .setIssuedAt().setExpirationTime('10m').sign(new TextEncoder().encode(key));
}

async function seed(e: TestEngine): Promise<void> {
  // `owner` defaults to the user id Hasura's session gives SQL (hasura.user), as tables written for Hasura do.
  await e.runSql(`CREATE TABLE note (id serial PRIMARY KEY, owner text NOT NULL DEFAULT current_setting('hasura.user', true)::json->>'x-hasura-user-id', body text);
    INSERT INTO note (owner, body) VALUES ('auth0|ada', 'mine'), ('auth0|bob', 'theirs');`);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'note' } },
      { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: ['id', 'owner'], filter: { owner: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'create_insert_permission', args: { table: 'note', role: 'user', permission: { check: {}, columns: ['body'] } } },
      { type: 'create_select_permission', args: { table: 'note', role: 'editor', permission: { columns: ['id', 'owner'], filter: {} } } },
      { type: 'create_insert_permission', args: { table: 'note', role: 'backend', permission: { check: {}, columns: ['owner', 'body'], backend_only: true } } },
      { type: 'create_select_permission', args: { table: 'note', role: 'backend', permission: { columns: ['id'], filter: {} } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
}

const MINE = { data: { note: [{ id: 1, owner: 'auth0|ada' }] } };
const ALL = { data: { note: [{ id: 1, owner: 'auth0|ada' }, { id: 2, owner: 'auth0|bob' }] } };
/** POST /v1/graphql with exactly these headers (no admin secret added). */
const gql = (e: TestEngine, headers: Record<string, string>, query = QUERY) => rawRequest(e.url, 'POST', '/v1/graphql', { query }, headers);
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function assertError(r: { status: number; body: any; text: string }, code: string, message: string | RegExp): void {
  assert.equal(r.body.errors?.length, 1, r.text);
  assert.equal(r.body.errors[0].extensions.code, code, r.text);
  if (typeof message === 'string') assert.equal(r.body.errors[0].message, message);
  else assert.match(r.body.errors[0].message, message);
}

/** A graphql-ws connection whose connection_init carries `headers`: its first answer (connection_ack or connection_error). */
async function init(e: TestEngine, headers: Record<string, string>, upgrade?: Record<string, string>): Promise<{ s: TestSocket; answer: any }> {
  const s = await TestSocket.open(e.url, 'graphql-ws', undefined, upgrade);
  s.send({ type: 'connection_init', payload: { headers } });
  return { s, answer: await s.next() };
}

/** The data of one query run over an initialised socket. */
async function wsQuery(s: TestSocket, query = QUERY): Promise<unknown> {
  s.send({ type: 'start', id: '1', payload: { query } });
  const m = await s.next();
  assert.equal(m.type, 'data', JSON.stringify(m));
  assert.deepEqual(await s.next(), { type: 'complete', id: '1' });
  return m.payload;
}

test('--hasura-compat from a Hasura deployment\'s variables: HS256 tokens, X-Hasura-* headers, connection_init', async (t) => {
  // The engine is configured the way the team's compose file configures Hasura, plus the switch.
  const e = await startTestEngine({
    env: {
      SVC_GRAPHQL_HASURA_COMPAT: 'true',
      HASURA_GRAPHQL_ADMIN_SECRET: ADMIN,
      HASURA_GRAPHQL_JWT_SECRET: JSON.stringify({ type: 'HS256', key: KEY, issuer: ISSUER, audience: AUDIENCE }),
    },
  });
  t.after(() => e.stop());
  assert.equal(e.engine.ctx.config.adminSecret, ADMIN);
  assert.equal(e.engine.ctx.hasuraCompat, true);
  await seed(e);
  const token = await hs256(auth0Claims('auth0|ada'));

  await t.test('an Auth0 rule\'s token authenticates unchanged: default role, x-hasura-user-id drives the permission', async () => {
    const r = await gql(e, bearer(token));
    assert.deepEqual(r.body, MINE, r.text);
  });
  await t.test('X-Hasura-Role picks another allowed role, not one outside x-hasura-allowed-roles', async () => {
    assert.deepEqual((await gql(e, { ...bearer(token), 'X-Hasura-Role': 'editor' })).body, ALL);
    assertError(await gql(e, { ...bearer(token), 'X-Hasura-Role': 'admin' }), 'access-denied', 'Your requested role is not in allowed roles');
  });
  await t.test('headers cannot add to a token: X-Hasura-User-Id is not read in JWT mode, both role spellings must agree', async () => {
    assert.deepEqual((await gql(e, { ...bearer(token), 'X-Hasura-User-Id': 'auth0|bob' })).body, MINE);
    assertError(await gql(e, { ...bearer(token), 'X-Hasura-Role': 'editor', 'X-Svc-Role': 'user' }), 'invalid-headers', 'conflicting session headers: x-svc-role and x-hasura-role have different values');
  });
  await t.test('a token whose Hasura claims ask for more roles than its svc claims is refused', async () => {
    const both = await hs256({ ...auth0Claims('auth0|ada', ['user', 'admin']), 'https://svc.io/jwt/claims': { 'x-svc-allowed-roles': ['user'], 'x-svc-default-role': 'user' } });
    assertError(await gql(e, { ...bearer(both), 'X-Hasura-Role': 'admin' }), 'jwt-invalid-claims', 'conflicting JWT claims: x-svc-allowed-roles and x-hasura-allowed-roles have different values');
  });
  await t.test('the token\'s issuer and audience are still checked, and its signature', async () => {
    assertError(await gql(e, bearer(await new SignJWT(auth0Claims('auth0|ada')).setProtectedHeader({ alg: 'HS256' }).setIssuer('https://evil/').setAudience(AUDIENCE).setExpirationTime('10m').sign(new TextEncoder().encode(KEY)))), 'invalid-jwt', /JWTNotInIssuer|Could not verify JWT/);
    assertError(await gql(e, bearer(await hs256(auth0Claims('auth0|ada'), 'another-key-of-at-least-32-characters-long'))), 'invalid-jwt', 'Could not verify JWT: JWSError JWSInvalidSignature');
  });
  await t.test('X-Hasura-Admin-Secret: the right one is admin (X-Hasura-Role then picks the role), a wrong one is refused as the svc one', async () => {
    assert.deepEqual((await gql(e, { 'X-Hasura-Admin-Secret': ADMIN })).body, ALL);
    assert.deepEqual((await gql(e, { 'X-Hasura-Admin-Secret': ADMIN, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': 'auth0|bob' })).body, { data: { note: [{ id: 2, owner: 'auth0|bob' }] } });
    const wrong = await rawRequest(e.url, 'POST', '/v1/query', { type: 'export_metadata', args: {} }, { 'X-Hasura-Admin-Secret': 'wrong' });
    assert.equal(wrong.status, 401, wrong.text);
    assert.deepEqual(wrong.body, { path: '$', error: 'invalid x-hasura-admin-secret/x-hasura-access-key', code: 'access-denied' });
    const svcWrong = await rawRequest(e.url, 'POST', '/v1/query', { type: 'export_metadata', args: {} }, { 'X-Svc-Admin-Secret': 'wrong' });
    assert.equal(svcWrong.status, 401);
    // A wrong secret is not tried as a token either.
    assertError(await gql(e, { 'X-Hasura-Admin-Secret': 'wrong', ...bearer(token) }), 'access-denied', 'invalid x-hasura-admin-secret/x-hasura-access-key');
    // The right secret in one spelling does not carry a wrong one in the other.
    const mixed = await rawRequest(e.url, 'POST', '/v1/query', { type: 'export_metadata', args: {} }, { 'X-Svc-Admin-Secret': ADMIN, 'X-Hasura-Admin-Secret': 'wrong' });
    assert.equal(mixed.status, 400, mixed.text);
    assert.equal(mixed.body.code, 'invalid-headers');
    assert.doesNotMatch(mixed.text, /wrong|adm"/);
  });
  await t.test('X-Hasura-Use-Backend-Only-Permissions with the admin secret offers backend_only mutations', async () => {
    const insert = 'mutation { insert_note_one(object: {owner: "svc", body: "from a backend"}) { id } }';
    const base = { 'X-Hasura-Admin-Secret': ADMIN, 'X-Hasura-Role': 'backend' };
    assertError(await gql(e, base, insert), 'validation-failed', /no mutations exist|insert_note_one/);
    const r = await gql(e, { ...base, 'X-Hasura-Use-Backend-Only-Permissions': 'true' }, insert);
    assert.equal(typeof r.body.data?.insert_note_one?.id, 'number', r.text);
    // From a token, the header is no one's to use.
    assertError(await gql(e, { ...bearer(token), 'X-Hasura-Use-Backend-Only-Permissions': 'true', 'X-Hasura-Role': 'backend' }, insert), 'access-denied', 'Your requested role is not in allowed roles');
  });
  await t.test('X-Request-Id is Hasura\'s header already: echoed on the response', async () => {
    const r = await rawRequest(e.url, 'POST', '/v1/graphql', { query: QUERY }, { ...bearer(token), 'x-request-id': 'req-42' });
    assert.equal(r.headers.get('x-request-id'), 'req-42');
  });
  await t.test('WebSocket: connection_init with the token and X-Hasura-Role, the admin secret in Hasura\'s words; conflicts and wrong secrets refused', async () => {
    const a = await init(e, { Authorization: `Bearer ${token}`, 'X-Hasura-Role': 'editor' });
    assert.deepEqual(a.answer, { type: 'connection_ack' });
    assert.ok(((await wsQuery(a.s)) as any).data.note.some((n: { owner: string }) => n.owner === 'auth0|bob'));
    a.s.close();
    const adm = await init(e, { 'X-Hasura-Admin-Secret': ADMIN, 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': 'auth0|bob' });
    assert.deepEqual(adm.answer, { type: 'connection_ack' });
    assert.deepEqual(await wsQuery(adm.s), { data: { note: [{ id: 2, owner: 'auth0|bob' }] } });
    adm.s.close();
    const wrong = await init(e, { 'X-Hasura-Admin-Secret': 'wrong' });
    assert.deepEqual(wrong.answer, { type: 'connection_error', payload: 'invalid x-hasura-admin-secret/x-hasura-access-key' });
    wrong.s.close();
    const conflict = await init(e, { Authorization: `Bearer ${token}`, 'X-Hasura-Role': 'editor', 'x-svc-role': 'user' });
    assert.deepEqual(conflict.answer, { type: 'connection_error', payload: 'conflicting session headers: x-svc-role and x-hasura-role have different values' });
    conflict.s.close();
    const tooMuch = await init(e, { Authorization: `Bearer ${token}`, 'X-Hasura-Role': 'admin' });
    assert.deepEqual(tooMuch.answer, { type: 'connection_error', payload: 'Your requested role is not in allowed roles' });
    tooMuch.s.close();
  });
  await t.test('WebSocket: the upgrade request\'s role wins over connection_init\'s in either spelling (admin secret set)', async () => {
    const w = await init(e, { 'x-svc-role': 'editor' }, { authorization: `Bearer ${token}`, 'x-hasura-role': 'user' });
    assert.deepEqual(w.answer, { type: 'connection_ack' });
    assert.deepEqual(await wsQuery(w.s), MINE);
    w.s.close();
  });
  await t.test('SQL reads Hasura\'s session: a column default on hasura.user fills in the token\'s user id', async () => {
    const r = await gql(e, bearer(token), 'mutation { insert_note_one(object: {body: "new"}) { id owner } }');
    assert.equal(r.body.data?.insert_note_one?.owner, 'auth0|ada', r.text);
  });
});

test('--hasura-compat with an RS256 key (jose): the token authenticates unchanged', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const pem = await exportSPKI(publicKey);
  const e = await startTestEngine({ hasuraCompat: 'true', adminSecret: ADMIN, jwtSecret: { type: 'RS256', key: pem } });
  t.after(() => e.stop());
  await seed(e);
  const token = await new SignJWT(auth0Claims('auth0|ada')).setProtectedHeader({ alg: 'RS256', kid: 'auth0-key' }).setSubject('auth0|ada').setIssuer(ISSUER).setAudience(AUDIENCE)
    .setIssuedAt().setExpirationTime('10m').sign(privateKey);
  assert.deepEqual((await gql(e, bearer(token))).body, MINE);
  assert.deepEqual((await gql(e, { ...bearer(token), 'x-hasura-role': 'editor' })).body, ALL);
  const ws = await init(e, { Authorization: `Bearer ${token}` });
  assert.deepEqual(ws.answer, { type: 'connection_ack' });
  assert.deepEqual(await wsQuery(ws.s), MINE);
  ws.s.close();
});

test('off: Hasura\'s tokens and headers are refused or ignored exactly as before', async (t) => {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  // Two configurations, each chosen by its issuer (Hasura's rule for several JWT secrets).
  const RS_ISSUER = 'https://rs.example/';
  const e = await startTestEngine({ adminSecret: ADMIN, jwtSecrets: [{ type: 'HS256', key: KEY, issuer: ISSUER }, { type: 'RS256', key: await exportSPKI(publicKey), issuer: RS_ISSUER }] });
  t.after(() => e.stop());
  assert.equal(e.engine.ctx.hasuraCompat, false);
  await seed(e);
  const hsToken = await hs256(auth0Claims('auth0|ada'));
  const rsToken = await new SignJWT(auth0Claims('auth0|ada')).setProtectedHeader({ alg: 'RS256' }).setIssuer(RS_ISSUER).setExpirationTime('10m').sign(privateKey);
  const notFound = "claims key: 'https://svc.io/jwt/claims' not found";
  assertError(await gql(e, bearer(hsToken)), 'jwt-invalid-claims', notFound);
  assertError(await gql(e, bearer(rsToken)), 'jwt-invalid-claims', notFound);
  // The right admin secret in Hasura's header is no credential: the request is unauthenticated.
  assertError(await gql(e, { 'X-Hasura-Admin-Secret': ADMIN }), 'invalid-headers', 'Missing Authorization header in JWT authentication mode');
  // The engine's own token: X-Hasura-Role does not switch the role, X-Svc-Role does.
  const svcToken = signJwt({ ...svcClaims({ allowed: ['user', 'editor'], default: 'user', vars: { 'x-svc-user-id': 'auth0|ada' } }), iss: ISSUER }, { alg: 'HS256', key: KEY });
  assert.deepEqual((await gql(e, { ...bearer(svcToken), 'X-Hasura-Role': 'editor' })).body, MINE);
  assert.deepEqual((await gql(e, { ...bearer(svcToken), 'X-Svc-Role': 'editor' })).body, ALL);
  // Both spellings with different values are not a conflict here: Hasura's is not read.
  assert.deepEqual((await gql(e, { ...bearer(svcToken), 'X-Svc-Role': 'editor', 'X-Hasura-Role': 'user' })).body, ALL);
  const ws = await init(e, { Authorization: `Bearer ${hsToken}` });
  assert.deepEqual(ws.answer, { type: 'connection_error', payload: notFound });
  ws.s.close();
  const wsSecret = await init(e, { 'X-Hasura-Admin-Secret': ADMIN });
  assert.deepEqual(wsSecret.answer, { type: 'connection_error', payload: 'Missing Authorization header in JWT authentication mode' });
  wsSecret.s.close();
  // Without the switch, Hasura's session is not set for SQL: the default reads NULL.
  const r = await gql(e, bearer(svcToken), 'mutation { insert_note_one(object: {body: "x"}) { id } }');
  assertError(r, 'constraint-violation', /null value in column "owner"/);
});

test('the auth webhook\'s X-Hasura-* answer, over HTTP and connection_init; off, it is no session', async (t) => {
  let answer: (req: HookRequest) => Record<string, string> = () => ({ 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': 'auth0|ada' });
  const hook = await startWebhookServer((req) => ({ status: 200, body: answer(req) }));
  t.after(() => hook.stop());
  const on = await startTestEngine({ hasuraCompat: 'true', adminSecret: ADMIN, authHook: hook.url });
  t.after(() => on.stop());
  const off = await startTestEngine({ adminSecret: ADMIN, authHook: hook.url });
  t.after(() => off.stop());
  await seed(on);
  await seed(off);

  await t.test('on: the answer is the session; the client\'s own X-Hasura-Role reaches the hook but picks nothing', async () => {
    hook.requests.length = 0;
    assert.deepEqual((await gql(on, { authorization: 'Bearer opaque', 'X-Hasura-Role': 'editor' })).body, MINE);
    assert.equal(hook.requests[0]!.headers['x-hasura-role'], 'editor');
    assert.equal(hook.requests[0]!.headers.authorization, 'Bearer opaque');
  });
  await t.test('on: an answer giving one variable in both spellings with different values is refused', async () => {
    answer = () => ({ 'X-Hasura-Role': 'user', 'X-Svc-Role': 'editor' });
    assertError(await gql(on, {}), 'unexpected', 'Invalid response from authorization hook: conflicting session variables: x-svc-role and x-hasura-role have different values');
    answer = () => ({ 'X-Hasura-Role': 'user', 'X-Svc-Role': 'user', 'x-hasura-user-id': 'auth0|bob' });
    assert.deepEqual((await gql(on, {})).body, { data: { note: [{ id: 2, owner: 'auth0|bob' }] } });
  });
  await t.test('on: connection_init headers reach the hook; its answer is the socket\'s session', async () => {
    answer = (req): Record<string, string> => (req.headers['x-app-token'] === 'good' ? { 'X-Hasura-Role': 'editor' } : { 'X-Hasura-Role': 'user', 'X-Hasura-User-Id': 'nobody' });
    const ws = await init(on, { 'X-App-Token': 'good' });
    assert.deepEqual(ws.answer, { type: 'connection_ack' });
    assert.equal(((await wsQuery(ws.s)) as any).data.note.length, 2);
    ws.s.close();
    answer = () => ({ 'X-Hasura-Role': 'editor', 'X-Svc-Role': 'user' });
    const bad = await init(on, {});
    assert.equal(bad.answer.type, 'connection_error');
    assert.match(bad.answer.payload, /conflicting session variables/);
    bad.s.close();
  });
  await t.test('off: an X-Hasura-* answer has no role', async () => {
    answer = () => ({ 'X-Hasura-Role': 'editor' });
    assertError(await gql(off, {}), 'invalid-params', 'x-svc-role not found in session variables returned by the auth webhook');
    const ws = await init(off, {});
    assert.deepEqual(ws.answer, { type: 'connection_error', payload: 'x-svc-role not found in session variables returned by the auth webhook' });
    ws.s.close();
  });
});

test('--hasura-compat: permissions written with Hasura\'s session-variable names through the API mean the same variables', async (t) => {
  const e = await startTestEngine({ hasuraCompat: 'true', adminSecret: ADMIN, jwtSecret: { type: 'HS256', key: KEY } });
  t.after(() => e.stop());
  await e.runSql(`CREATE TABLE memo (id serial PRIMARY KEY, owner text NOT NULL, body text);
    INSERT INTO memo (owner, body) VALUES ('auth0|ada', 'mine'), ('auth0|bob', 'theirs');`);
  // As a Hasura v2 script or console sends them: /v1/metadata, pg_ names, X-Hasura-* in rules and presets.
  const r = await e.request('POST', '/v1/metadata', {
    type: 'bulk',
    args: [
      { type: 'pg_track_table', args: { source: 'default', table: { schema: 'public', name: 'memo' } } },
      { type: 'pg_create_select_permission', args: { source: 'default', table: 'memo', role: 'user', permission: { columns: ['id', 'owner'], filter: { owner: { _eq: 'X-Hasura-User-Id' } } } } },
      { type: 'pg_create_insert_permission', args: { source: 'default', table: 'memo', role: 'user', permission: { check: { owner: { _eq: 'X-Hasura-User-Id' } }, set: { owner: 'x-hasura-User-Id' }, columns: ['body'] } } },
    ],
  }, { 'X-Hasura-Admin-Secret': ADMIN });
  assert.equal(r.status, 200, r.text);
  const token = await hs256(auth0Claims('auth0|ada'));
  const mine = await rawRequest(e.url, 'POST', '/v1/graphql', { query: '{ memo(order_by: {id: asc}) { id owner } }' }, bearer(token));
  assert.deepEqual(mine.body, { data: { memo: [{ id: 1, owner: 'auth0|ada' }] } });
  const ins = await rawRequest(e.url, 'POST', '/v1/graphql', { query: 'mutation { insert_memo_one(object: {body: "new"}) { owner } }' }, bearer(token));
  assert.deepEqual(ins.body, { data: { insert_memo_one: { owner: 'auth0|ada' } } });
  // Stored in the engine's words.
  const md = await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} });
  assert.match(JSON.stringify(md.body), /"_eq":"x-svc-user-id"/);
  assert.doesNotMatch(JSON.stringify(md.body), /x-hasura-/i);
});
