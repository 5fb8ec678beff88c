/**
 * Hasura-compatible session variables (--hasura-session-variables): SQL written for Hasura — a
 * trigger authorising writes from current_setting('hasura.user'), a column default and a check
 * constraint reading x-hasura-role, a function with a session argument — and webhook receivers
 * written for Hasura (event payloads, action bodies) see what Hasura would give them. The same
 * database served without the mode first shows what goes wrong there, and that the operator is told.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pino } from 'pino';
import { createTestDatabase, startTestEngine, type TestEngine } from './harness.js';
import { startEventReceiver } from '../support/eventReceiver.js';
import { startWebhookServer } from '../support/webhookServer.js';

/** Migrations as a Hasura project has them: every session read goes through hasura.user / x-hasura-*. */
const HASURA_SQL = `
CREATE TABLE public.note (
  id serial PRIMARY KEY,
  owner_id int NOT NULL,
  body text NOT NULL,
  written_by_role text DEFAULT (current_setting('hasura.user', true)::json->>'x-hasura-role'),
  CONSTRAINT no_guest_writes CHECK (coalesce(current_setting('hasura.user', true)::json->>'x-hasura-role', '') <> 'guest')
);
CREATE FUNCTION public.note_owner_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE s json := current_setting('hasura.user', true)::json;
BEGIN
  IF s->>'x-hasura-role' <> 'admin' AND NEW.owner_id::text IS DISTINCT FROM s->>'x-hasura-user-id' THEN
    RAISE EXCEPTION 'note % is not yours', NEW.id;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER note_owner BEFORE INSERT OR UPDATE ON public.note FOR EACH ROW EXECUTE FUNCTION public.note_owner_check();
CREATE FUNCTION public.my_notes(hasura_session json) RETURNS SETOF public.note LANGUAGE sql STABLE AS $$
  SELECT * FROM public.note WHERE owner_id = (hasura_session->>'x-hasura-user-id')::int AND hasura_session->>'x-hasura-role' = 'user'
$$;`;

const USER_1 = { 'x-svc-role': 'user', 'x-svc-user-id': '1' };

async function metadata(e: TestEngine, events: string, actions: string): Promise<void> {
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'note' } },
      { type: 'create_select_permission', args: { table: 'note', role: 'user', permission: { columns: '*', filter: {} } } },
      { type: 'create_select_permission', args: { table: 'note', role: 'guest', permission: { columns: '*', filter: {} } } },
      { type: 'create_insert_permission', args: { table: 'note', role: 'user', permission: { columns: ['owner_id', 'body'], check: {} } } },
      { type: 'create_insert_permission', args: { table: 'note', role: 'guest', permission: { columns: ['owner_id', 'body'], check: {} } } },
      { type: 'track_function', args: { function: { schema: 'public', name: 'my_notes' }, configuration: { session_argument: 'hasura_session' } } },
      { type: 'create_event_trigger', args: { name: 'note_written', table: { schema: 'public', name: 'note' }, webhook: events, insert: { columns: '*' } } },
      { type: 'set_custom_types', args: { objects: [{ name: 'Greeting', fields: [{ name: 'text', type: 'String!' }] }] } },
      { type: 'create_action', args: { name: 'greet', definition: { kind: 'synchronous', arguments: [], output_type: 'Greeting', handler: actions } } },
      { type: 'create_action_permission', args: { action: 'greet', role: 'user' } },
    ],
  });
  assert.equal(r.status, 200, r.text);
}

async function until<T>(fn: () => T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

test('without the mode, SQL reading hasura.user reads NULL and the operator is told; with it, Hasura SQL and Hasura webhooks see x-hasura-*', async (t) => {
  const db = await createTestDatabase('hsv');
  t.after(() => db.drop());
  const events = await startEventReceiver();
  t.after(() => events.stop());
  const actions = await startWebhookServer((req) => {
    const vars = (req.body as any).session_variables;
    return { status: 200, body: { text: `hello ${vars['x-hasura-user-id'] ?? 'nobody'}` } };
  });
  t.after(() => actions.stop());

  // 1. Mode off (the default on a database of the engine's own): told at apply time, and the trigger's check is silently skipped.
  const lines: any[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const off = await startTestEngine({ databaseUrl: db.url, adminSecret: 'k', startOptions: { logger } });
  await off.runSql(HASURA_SQL);
  await metadata(off, events.url + '/events', actions.url + '/greet');
  const told = lines.filter((l) => l.type === 'hasura-session');
  assert.deepEqual(told.map((l) => l.msg.split(' ')[0]), ['run_sql', 'track_function']);
  assert.deepEqual(told[1].functions, ['public.my_notes']);
  assert.match(told[1].msg, /--hasura-session-variables=true/);
  const probe = await off.runSql("SELECT current_setting('hasura.user', true) AS u");
  assert.deepEqual(probe.result, [['u'], ['NULL']]);
  // User 1 writes a note for user 2: the trigger read NULL and let it through.
  const sneaked = await off.graphql('mutation { insert_note_one(object: {owner_id: 2, body: "sneaked"}) { owner_id written_by_role } }', {}, USER_1);
  assert.deepEqual(sneaked.body, { data: { insert_note_one: { owner_id: 2, written_by_role: null } } });
  // Its event goes out with x-svc-* keys only: a receiver written for Hasura finds no user.
  const early = await until(() => events.deliveries.find((d) => d.body?.event?.data?.new?.body === 'sneaked'));
  assert.deepEqual(early.body.event.session_variables, USER_1);
  await off.stop();

  // 2. Mode on: the same SQL and the same metadata behave as on Hasura.
  lines.length = 0;
  const on = await startTestEngine({ databaseUrl: db.url, adminSecret: 'k', hasuraSessionVariables: 'true', startOptions: { logger } });
  t.after(() => on.stop());
  assert.equal(lines.filter((l) => l.kind === 'hasura-session' && l.level === 40).length, 0);
  assert.equal(lines.filter((l) => l.kind === 'hasura-session' && /on: hasura\.user/.test(l.msg)).length, 1);
  // run_sql runs as admin, as Hasura's does.
  const admin = await on.runSql("SELECT current_setting('hasura.user', true)::json AS u, current_setting('svc.user', true)::json AS s");
  assert.deepEqual(admin.result.slice(1).map((row: string[]) => row.map((v) => JSON.parse(v))), [[{ 'x-hasura-role': 'admin' }, { 'x-svc-role': 'admin' }]]);
  assert.equal(lines.filter((l) => l.type === 'hasura-session').length, 0);

  // The trigger's authorisation check now holds: a GraphQL mutation, and the same through v1 DML.
  const refused = await on.graphql('mutation { insert_note_one(object: {owner_id: 2, body: "sneaked"}) { id } }', {}, USER_1);
  assert.equal(refused.body.errors?.[0]?.extensions?.code, 'unexpected');
  const refusedDml = await on.query({ type: 'insert', args: { table: 'note', objects: [{ owner_id: 2, body: 'dml' }] } }, USER_1);
  assert.equal(refusedDml.status >= 400, true, refusedDml.text);
  assert.equal(refusedDml.body.code, 'unexpected');
  const own = await on.graphql('mutation { a: insert_note_one(object: {owner_id: 1, body: "mine"}) { owner_id written_by_role } }', {}, USER_1);
  assert.deepEqual(own.body, { data: { a: { owner_id: 1, written_by_role: 'user' } } });
  const viaDml = await on.query({ type: 'insert', args: { table: 'note', objects: [{ owner_id: 1, body: 'dml' }], returning: ['written_by_role'] } }, USER_1);
  assert.deepEqual(viaDml.body, { affected_rows: 1, returning: [{ written_by_role: 'user' }] });
  // The check constraint reads x-hasura-role.
  const guest = await on.graphql('mutation { insert_note_one(object: {owner_id: 7, body: "g"}) { id } }', {}, { 'x-svc-role': 'guest', 'x-svc-user-id': '7' });
  assert.match(JSON.stringify(guest.body.errors), /no_guest_writes/);
  assert.deepEqual((await on.runSql("SELECT count(*) AS n FROM note WHERE owner_id = 7")).result[1], ['0']);

  // A function with a session argument written for Hasura reads x-hasura-user-id and x-hasura-role.
  const mine = await on.graphql('{ my_notes(order_by: {id: asc}) { body } }', {}, USER_1);
  assert.deepEqual(mine.body, { data: { my_notes: [{ body: 'mine' }, { body: 'dml' }] } });
  const asGuest = await on.graphql('{ my_notes { body } }', {}, { 'x-svc-role': 'user', 'x-svc-user-id': '2' });
  assert.deepEqual(asGuest.body, { data: { my_notes: [{ body: 'sneaked' }] } });

  // The event payload's session_variables as Hasura sends them (x-hasura-*), x-svc-* beside them.
  const delivered = await until(() => events.deliveries.find((d) => d.body?.event?.data?.new?.body === 'mine'));
  assert.deepEqual(delivered.body.event.session_variables, { 'x-svc-role': 'user', 'x-svc-user-id': '1', 'x-hasura-role': 'user', 'x-hasura-user-id': '1' });

  // An action handler written for Hasura reads session_variables['x-hasura-user-id'].
  const greeting = await on.graphql('mutation { greet { text } }', {}, USER_1);
  assert.deepEqual(greeting.body, { data: { greet: { text: 'hello 1' } } });
  assert.deepEqual(actions.requests.at(-1)!.body, { action: { name: 'greet' }, input: {}, session_variables: { 'x-svc-role': 'user', 'x-svc-user-id': '1', 'x-hasura-role': 'user', 'x-hasura-user-id': '1' } });
});
