/**
 * A mutation that provably never reads the session variables runs without
 * `set_config('svc.user', …)` before it: its pipeline is the statement alone. Every way Postgres
 * could read the session keeps it set, and the reader sees it: a trigger (also one added later by
 * run_sql, and one reached through a cascading foreign key), a default or a CHECK constraint calling
 * a function that reads it, row security, an event trigger in the metadata, a computed field in a
 * permission filter, a relationship in the returning fields, and a request where any one root field needs it.
 * The engine talks to Postgres through a proxy that records the messages it sends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, sqlOn, startTestEngine, type TestEngine } from './harness.js';
import { startPgMessageProxy, type PgMessageProxy, type RecordedMessage } from '../support/pgMessageProxy.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: PgMessageProxy;
let e: TestEngine;

const USER = { 'x-svc-role': 'user', 'x-svc-user-id': '7' };
const TABLES = ['note', 'item', 'cf', 'outside', 'trig', 'def_fn', 'check_fn', 'rls', 'evented', 'parent', 'child', 'later'];

before(async () => {
  db = await createTestDatabase('mutsess');
  proxy = await startPgMessageProxy(db.url);
  e = await startTestEngine({ databaseUrl: proxy.url, adminSecret: 's', pgConnections: 2 });
  await e.runSql(`
    CREATE FUNCTION session_user_id() RETURNS text LANGUAGE sql STABLE AS
      $$ SELECT current_setting('svc.user', true)::json->>'x-svc-user-id' $$;
    CREATE TABLE audit (tbl text, seen text);
    CREATE FUNCTION record_session() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO audit VALUES (TG_TABLE_NAME, current_setting('svc.user', true)); RETURN NULL; END $$;
    -- plain: a serial, plain defaults, a CHECK of built-ins: nothing can read the session
    CREATE TABLE note (id serial PRIMARY KEY, body text NOT NULL, owner int, at timestamptz NOT NULL DEFAULT now(),
                       CHECK (length(body) < 100));
    CREATE TABLE item (id serial PRIMARY KEY, note_id int REFERENCES note, body text NOT NULL, owner int);
    CREATE TABLE trig (id serial PRIMARY KEY, body text NOT NULL, owner int);
    CREATE TRIGGER trig_audit AFTER INSERT OR UPDATE OR DELETE ON trig FOR EACH ROW EXECUTE FUNCTION record_session();
    CREATE TABLE def_fn (id serial PRIMARY KEY, body text NOT NULL, owner int, made_by text DEFAULT session_user_id());
    CREATE TABLE check_fn (id serial PRIMARY KEY, body text NOT NULL, owner int, CHECK (session_user_id() IS NOT NULL));
    CREATE TABLE rls (id serial PRIMARY KEY, body text NOT NULL, owner int);
    ALTER TABLE rls ENABLE ROW LEVEL SECURITY;
    CREATE POLICY own ON rls USING (owner::text = session_user_id());
    CREATE TABLE evented (id serial PRIMARY KEY, body text NOT NULL, owner int);
    CREATE TABLE parent (id serial PRIMARY KEY, body text NOT NULL, owner int);
    CREATE TABLE child (id serial PRIMARY KEY, parent_id int REFERENCES parent ON DELETE CASCADE, body text NOT NULL, owner int);
    CREATE TRIGGER child_audit AFTER DELETE ON child FOR EACH ROW EXECUTE FUNCTION record_session();
    CREATE TABLE later (id serial PRIMARY KEY, body text NOT NULL, owner int);
    CREATE TABLE outside (id serial PRIMARY KEY, body text NOT NULL, owner int);
    CREATE TABLE cf (id serial PRIMARY KEY, body text NOT NULL, owner int);
    CREATE FUNCTION cf_seen_by(r cf) RETURNS text LANGUAGE sql STABLE AS $$ SELECT session_user_id() $$;
  `);
  const bulk = [
    ...[...TABLES, 'audit'].map((t) => ({ type: 'track_table', args: { schema: 'public', name: t } })),
    { type: 'add_computed_field', args: { table: 'cf', name: 'seen_by', definition: { function: 'cf_seen_by' } } },
    { type: 'create_object_relationship', args: { table: 'item', name: 'note', using: { foreign_key_constraint_on: 'note_id' } } },
    { type: 'create_event_trigger', args: { name: 'evented_insert', table: { schema: 'public', name: 'evented' }, insert: { columns: '*' }, webhook: 'http://127.0.0.1:9/unused' } },
    ...TABLES.flatMap((t) => [
      // The owner is a preset from the session: a bound parameter, not a read of the setting.
      { type: 'create_insert_permission', args: { table: t, role: 'user', permission: { check: { owner: { _eq: 'X-Svc-User-Id' } }, set: { owner: 'X-Svc-User-Id' }, columns: ['id', 'body', 'parent_id', 'note_id'].filter((c) => (t === 'child' || c !== 'parent_id') && (t === 'item' || c !== 'note_id')) } } },
      { type: 'create_select_permission', args: { table: t, role: 'user', permission: { filter: { owner: { _eq: 'X-Svc-User-Id' } }, columns: '*', computed_fields: t === 'cf' ? ['seen_by'] : [] } } },
      // cf: the update filter is a computed field whose function reads the session.
      { type: 'create_update_permission', args: { table: t, role: 'user', permission: { filter: t === 'cf' ? { seen_by: { _eq: 'X-Svc-User-Id' } } : { owner: { _eq: 'X-Svc-User-Id' } }, columns: ['body'], check: { owner: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'create_delete_permission', args: { table: t, role: 'user', permission: { filter: { owner: { _eq: 'X-Svc-User-Id' } } } } },
    ]),
  ];
  const r = await e.query({ type: 'bulk', args: bulk });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await e?.stop();
  await proxy?.close();
  await db?.drop();
});

/**
 * The messages of the one unit (a connection's messages up to its Sync) that ran `table`'s
 * statement during `fn`: the one that parsed it, or bound it by the name it was parsed under
 * earlier. Other units (the engine's background statements) are left out.
 */
async function messagesOf(table: string, fn: () => Promise<void>): Promise<RecordedMessage[]> {
  const marker = new RegExp(`(INSERT INTO|UPDATE|DELETE FROM) "public"."${table}"`);
  const from = proxy.messages.length;
  await fn();
  const names = proxy.messages.filter((m) => m.type === 'P' && marker.test(m.body)).map((m) => m.body.slice(0, m.body.indexOf('\0')));
  const units: RecordedMessage[][] = [];
  const open = new Map<number, RecordedMessage[]>();
  for (const m of proxy.messages.slice(from)) {
    const unit = open.get(m.connection) ?? [];
    unit.push(m);
    open.set(m.connection, unit);
    if (m.type === 'S' || m.type === 'Q') {
      units.push(unit);
      open.delete(m.connection);
    }
  }
  const ours = units.filter((u) => u.some((m) => (m.type === 'P' && marker.test(m.body)) || (m.type === 'B' && names.some((n) => n !== '' && m.body.includes(`\0${n}\0`)))));
  assert.equal(ours.length, 1, `one unit ran the statement on ${table}, got ${ours.map((u) => u.map((m) => m.type).join('')).join(' | ')}`);
  return ours[0]!;
}

const executes = (msgs: RecordedMessage[]) => msgs.filter((m) => m.type === 'E').length;
const syncs = (msgs: RecordedMessage[]) => msgs.filter((m) => m.type === 'S').length;

/** Runs `query` twice (the second time every statement is prepared) and returns the second run's messages and answer. */
async function run(table: string, query: string, variables?: Record<string, unknown>) {
  const first = await e.graphql(query, variables, USER);
  assert.equal(first.body.errors, undefined, first.text);
  let body: any;
  const msgs = await messagesOf(table, async () => {
    const r = await e.graphql(query, variables, USER);
    assert.equal(r.body.errors, undefined, r.text);
    body = r.body.data;
  });
  assert.equal(syncs(msgs), 1, `one round trip, got ${msgs.map((m) => m.type).join('')}`);
  return { msgs, data: body };
}

async function audit(tbl: string): Promise<Array<Record<string, string>>> {
  const r = await e.runSql(`SELECT seen FROM audit WHERE tbl = '${tbl}' ORDER BY seen`);
  return (r.result as string[][]).slice(1).map(([seen]) => JSON.parse(seen!));
}

describe('mutations skip set_config only when nothing can read the session', () => {
  it('a plain table: insert, update and delete run as the statement alone, presets from the session still applied', async () => {
    const ins = await run('note', `mutation ($b: String!) { insert_note_one(object: {body: $b}) { id body owner } }`, { b: 'one' });
    assert.equal(executes(ins.msgs), 1, 'the INSERT alone, no set_config');
    assert.equal(ins.data.insert_note_one.owner, 7);
    const id = ins.data.insert_note_one.id as number;
    const upd = await run('note', `mutation ($id: Int!) { update_note_by_pk(pk_columns: {id: $id}, _set: {body: "two"}) { id body } }`, { id });
    assert.equal(executes(upd.msgs), 1);
    assert.deepEqual(upd.data.update_note_by_pk, { id, body: 'two' });
    const many = await run('note', `mutation { update_note_many(updates: [{where: {body: {_eq: "none"}}, _set: {body: "x"}}]) { affected_rows } }`);
    assert.equal(executes(many.msgs), 1);
    const del = await run('note', `mutation { delete_note(where: {body: {_eq: "two"}}) { affected_rows returning { id } } }`);
    assert.equal(executes(del.msgs), 1);
    const left = await e.graphql('{ note(where: {body: {_eq: "two"}}) { id } }', undefined, USER);
    assert.deepEqual(left.body.data.note, [], 'the first run deleted the row');
  });

  it('a trigger reading current_setting: set, and the trigger sees the session on insert, update and delete', async () => {
    const ins = await run('trig', `mutation { insert_trig_one(object: {body: "t"}) { id } }`);
    assert.equal(executes(ins.msgs), 2, 'set_config + INSERT');
    await run('trig', `mutation { update_trig(where: {}, _set: {body: "u"}) { affected_rows } }`);
    await run('trig', `mutation { delete_trig(where: {}) { affected_rows } }`);
    const seen = await audit('trig');
    assert.ok(seen.length >= 6, `every row change recorded (${seen.length})`);
    for (const s of seen) assert.deepEqual(s, { 'x-svc-role': 'user', 'x-svc-user-id': '7' });
  });

  it('a default calling a function that reads the session: set, and the default sees it', async () => {
    const r = await run('def_fn', `mutation { insert_def_fn_one(object: {body: "d"}) { made_by } }`);
    assert.equal(executes(r.msgs), 2);
    assert.equal(r.data.insert_def_fn_one.made_by, '7');
  });

  it('a CHECK constraint calling a function that reads the session: set, so the check passes', async () => {
    const r = await run('check_fn', `mutation { insert_check_fn_one(object: {body: "c"}) { id } }`);
    assert.equal(executes(r.msgs), 2);
  });

  it('row security on the table: set', async () => {
    const r = await run('rls', `mutation { insert_rls_one(object: {body: "r"}) { id } }`);
    assert.equal(executes(r.msgs), 2);
  });

  it('an event trigger in the metadata: set, and the event records the session', async () => {
    const r = await run('evented', `mutation { insert_evented_one(object: {body: "e"}) { id } }`);
    assert.equal(executes(r.msgs), 2);
    const ev = await e.runSql(`SELECT payload->'session_variables'->>'x-svc-user-id' FROM hdb_catalog.event_log WHERE trigger_name = 'evented_insert' ORDER BY created_at DESC LIMIT 1`);
    assert.equal(ev.result[1][0], '7');
  });

  it('a delete cascading into a table with a trigger: set, and the trigger sees the session', async () => {
    const p = await e.graphql(`mutation { insert_parent_one(object: {body: "p"}) { id } }`, undefined, USER);
    const pid = p.body.data.insert_parent_one.id as number;
    const c = await e.graphql(`mutation ($p: Int!) { insert_child_one(object: {body: "c", parent_id: $p}) { id } }`, { p: pid }, USER);
    assert.equal(c.body.errors, undefined, c.text);
    const msgs = await messagesOf('parent', async () => {
      const r = await e.graphql(`mutation ($id: Int!) { delete_parent_by_pk(id: $id) { id } }`, { id: pid }, USER);
      assert.equal(r.body.data.delete_parent_by_pk.id, pid, r.text);
    });
    assert.equal(executes(msgs), 2);
    assert.deepEqual(await audit('child'), [{ 'x-svc-role': 'user', 'x-svc-user-id': '7' }]);
  });

  it('a computed field in the permission filter, a relationship in the returning fields: set, and the function sees the session', async () => {
    const ins = await e.graphql(`mutation { insert_cf_one(object: {body: "cf"}) { id } }`, undefined, USER);
    assert.equal(ins.body.errors, undefined, ins.text);
    const cf = await run('cf', `mutation { update_cf(where: {body: {_eq: "cf"}}, _set: {body: "cf"}) { affected_rows } }`);
    assert.equal(executes(cf.msgs), 2);
    assert.equal(cf.data.update_cf.affected_rows, 1, 'the function read the session');
    const n = await e.graphql(`mutation { insert_note_one(object: {body: "rel"}) { id } }`, undefined, USER);
    const plainItem = await run('item', `mutation ($n: Int!) { insert_item_one(object: {body: "i", note_id: $n}) { id note_id } }`,
      { n: n.body.data.insert_note_one.id });
    assert.equal(executes(plainItem.msgs), 1, 'the same table with columns only: not set');
    const rel = await run('item', `mutation ($n: Int!) { insert_item_one(object: {body: "i", note_id: $n}) { note { body } } }`,
      { n: n.body.data.insert_note_one.id });
    assert.equal(executes(rel.msgs), 2);
    assert.equal(rel.data.insert_item_one.note.body, 'rel');
  });

  it('one root field that needs the session sets it for the whole request', async () => {
    const r = await run('note', `mutation { a: insert_note_one(object: {body: "a"}) { id } b: insert_trig_one(object: {body: "b"}) { id } }`);
    assert.equal(executes(r.msgs), 3, 'set_config + two statements');
  });

  it('a trigger added later through run_sql: set from then on, and the trigger sees the session', async () => {
    const before = await run('later', `mutation { insert_later_one(object: {body: "before"}) { id } }`);
    assert.equal(executes(before.msgs), 1, 'no trigger yet');
    await e.runSql(`CREATE TRIGGER later_audit AFTER INSERT ON later FOR EACH ROW EXECUTE FUNCTION record_session()`);
    const after = await run('later', `mutation { insert_later_one(object: {body: "after"}) { id } }`);
    assert.equal(executes(after.msgs), 2, 'set_config + INSERT');
    const seen = await audit('later');
    assert.equal(seen.length, 2);
    for (const s of seen) assert.equal(s['x-svc-user-id'], '7');
  });

  it('a trigger created outside the engine: set once the metadata is reloaded, and the trigger sees the session', async () => {
    await sqlOn(db.url, `CREATE TRIGGER outside_audit AFTER INSERT ON outside FOR EACH ROW EXECUTE FUNCTION record_session()`);
    const reload = await e.query({ type: 'reload_metadata', args: {} });
    assert.equal(reload.status, 200, reload.text);
    const r = await run('outside', `mutation { insert_outside_one(object: {body: "o"}) { id } }`);
    assert.equal(executes(r.msgs), 2, 'set_config + INSERT');
    const seen = await audit('outside');
    assert.equal(seen.length, 2);
    for (const s of seen) assert.equal(s['x-svc-user-id'], '7');
  });

  it('--skip-unread-session=false: set before every mutation, a plain table\'s too', async () => {
    const always = await startTestEngine({ databaseUrl: proxy.url, adminSecret: 's', pgConnections: 1, skipUnreadSession: false });
    const engine = e;
    try {
      e = always;
      const r = await run('note', `mutation { insert_note_one(object: {body: "always"}) { owner } }`);
      assert.equal(executes(r.msgs), 2, 'set_config + INSERT');
      assert.equal(r.data.insert_note_one.owner, 7);
    } finally {
      e = engine;
      await always.stop();
    }
  });
});
