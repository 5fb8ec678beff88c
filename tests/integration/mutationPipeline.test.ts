/**
 * Mutations cost one round trip to Postgres: the session variables and every root
 * field's prepared statement go as one pipeline with one Sync, parsed once per connection; and
 * the semantics of a transaction hold — the session variables are visible to database triggers,
 * a failed permission check in a later root field keeps nothing of the earlier ones.
 * The engine talks to Postgres through a proxy that records the messages it sends.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, startTestEngine, type TestEngine } from './harness.js';
import { startPgMessageProxy, type PgMessageProxy } from '../support/pgMessageProxy.js';

let db: Awaited<ReturnType<typeof createTestDatabase>>;
let proxy: PgMessageProxy;
let e: TestEngine;

const USER = { 'x-svc-role': 'user', 'x-svc-user-id': '7' };

before(async () => {
  db = await createTestDatabase('mutpipe');
  proxy = await startPgMessageProxy(db.url);
  e = await startTestEngine({ databaseUrl: proxy.url, adminSecret: 's', pgConnections: 2 });
  await e.runSql(`
    CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, owner int);
    CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, author_id int REFERENCES author(id), owner int);
    CREATE TABLE audit (seen text);
    CREATE FUNCTION record_session() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO audit VALUES (current_setting('svc.user', true)); RETURN NEW; END $$;
    CREATE TRIGGER author_audit AFTER INSERT ON author FOR EACH ROW EXECUTE FUNCTION record_session();
  `);
  const bulk = [
    { type: 'track_table', args: { schema: 'public', name: 'author' } },
    { type: 'track_table', args: { schema: 'public', name: 'article' } },
    { type: 'track_table', args: { schema: 'public', name: 'audit' } },
    ...['author', 'article'].flatMap((t) => [
      { type: 'create_insert_permission', args: { table: t, role: 'user', permission: { check: { owner: { _eq: 'X-Svc-User-Id' } }, columns: '*' } } },
      { type: 'create_select_permission', args: { table: t, role: 'user', permission: { filter: {}, columns: '*' } } },
      { type: 'create_update_permission', args: { table: t, role: 'user', permission: { filter: {}, columns: '*', check: { owner: { _eq: 'X-Svc-User-Id' } } } } },
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
 * Runs `fn` and returns the messages the engine sent meanwhile on the connection that carried the
 * request: the one that sent `marker`'s statement text, or (statement already prepared) the one
 * that sent Bind/Execute messages.
 */
async function messagesOf(marker: RegExp, fn: () => Promise<void>) {
  const from = proxy.messages.length;
  await fn();
  const sent = proxy.messages.slice(from);
  let conn = sent.find((m) => (m.type === 'P' || m.type === 'Q') && marker.test(m.body))?.connection;
  if (conn === undefined) {
    const executes = new Map<number, number>();
    for (const m of sent) if (m.type === 'E') executes.set(m.connection, (executes.get(m.connection) ?? 0) + 1);
    conn = [...executes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  }
  return sent.filter((m) => m.connection === conn);
}

const roundTrips = (msgs: Array<{ type: string }>) => msgs.filter((m) => m.type === 'S' || m.type === 'Q').length;

const TWO_FIELDS = `mutation ($name: String!) {
  insert_author(objects: [{name: $name, owner: 7}]) { affected_rows returning { id name } }
  update_article(where: {id: {_eq: -1}}, _set: {title: "x"}) { affected_rows }
}`;

describe('mutations are one pipeline', () => {
  it('two root fields: one Sync, no simple query, no BEGIN/COMMIT; statements are parsed once per connection', async () => {
    // Both pool connections prepare the statements the first time they carry them.
    for (let i = 0; i < 4; i++) await e.graphql(TWO_FIELDS, { name: `warm${i}` }, USER);
    const msgs = await messagesOf(/INSERT INTO "public"."author"/, async () => {
      const r = await e.graphql(TWO_FIELDS, { name: 'Ada' }, USER);
      assert.deepEqual(r.body.data.update_article, { affected_rows: 0 });
      assert.equal(r.body.data.insert_author.returning[0].name, 'Ada');
    });
    assert.ok(msgs.length > 0, 'the mutation went through the proxy');
    assert.equal(roundTrips(msgs), 1, `one round trip, got ${msgs.map((m) => m.type).join('')}`);
    assert.equal(msgs.filter((m) => m.type === 'P').length, 0, 'already prepared on this connection: no Parse');
    assert.equal(msgs.filter((m) => m.type === 'E').length, 3, 'set_config + two statements');
    assert.ok(!msgs.some((m) => /\b(BEGIN|COMMIT)\b/.test(m.body)));
  });

  it('a new statement is parsed and run in the same single round trip', async () => {
    const q = `mutation { insert_author_one(object: {name: "Grace", owner: 7}) { id name owner } }`;
    const msgs = await messagesOf(/INSERT INTO "public"."author"/, async () => {
      const r = await e.graphql(q, undefined, USER);
      assert.equal(r.body.data.insert_author_one.name, 'Grace', r.text);
    });
    assert.equal(roundTrips(msgs), 1, msgs.map((m) => m.type).join(''));
    assert.ok(msgs.some((m) => m.type === 'P' && /INSERT INTO "public"."author"/.test(m.body)));
  });

  it('other variable values reuse the compiled plan and the prepared statement (no new Parse)', async () => {
    const q = `mutation ($name: String!, $id: Int!) {
      insert_author_one(object: {name: $name, owner: 7}) { id }
      update_author_by_pk(pk_columns: {id: $id}, _set: {name: $name}) { id }
    }`;
    for (let i = 0; i < 4; i++) await e.graphql(q, { name: `v${i}`, id: i + 1 }, USER);
    const msgs = await messagesOf(/INSERT INTO "public"."author"/, async () => {
      const r = await e.graphql(q, { name: 'fresh value', id: 424242 }, USER);
      assert.equal(r.body.data.update_author_by_pk, null, r.text);
    });
    assert.equal(roundTrips(msgs), 1, msgs.map((m) => m.type).join(''));
    assert.equal(msgs.filter((m) => m.type === 'P').length, 0, 'values are parameters: the statement text is the same');
  });

  it('session variables are visible to database triggers in the same transaction', async () => {
    await e.runSql('TRUNCATE audit');
    const r = await e.graphql(`mutation { insert_author(objects: [{name: "Trig", owner: 7}]) { affected_rows } }`, undefined, USER);
    assert.equal(r.body.data.insert_author.affected_rows, 1, r.text);
    const audit = await e.graphql('{ audit { seen } }');
    const seen = JSON.parse(audit.body.data.audit[0].seen);
    assert.equal(seen['x-svc-role'], 'user');
    assert.equal(seen['x-svc-user-id'], '7');
  });

  it('a failed check in the second root field keeps nothing of the first', async () => {
    const q = `mutation {
      insert_author(objects: [{name: "Rolled", owner: 7}]) { affected_rows }
      insert_article(objects: [{title: "t", owner: 8}]) { affected_rows }
    }`;
    const r = await e.graphql(q, undefined, USER);
    assert.equal(r.body.errors?.[0]?.extensions?.code, 'permission-error', r.text);
    assert.equal(r.body.errors[0].message, 'Check constraint violation. insert/update check constraint failed');
    assert.equal(r.body.errors[0].extensions.path, '$.selectionSet.insert_article.args.objects');
    const left = await e.graphql('{ author(where: {name: {_eq: "Rolled"}}) { id } }');
    assert.deepEqual(left.body.data.author, []);
  });

  it('an update check failure rolls back, with Hasura\'s message', async () => {
    const r = await e.graphql(`mutation { update_author(where: {name: {_eq: "Ada"}}, _set: {owner: 9}) { affected_rows } }`, undefined, USER);
    assert.equal(r.body.errors?.[0]?.extensions?.code, 'permission-error', r.text);
    assert.equal(r.body.errors[0].message, 'Check constraint violation. update check constraint failed');
    const still = await e.graphql('{ author(where: {name: {_eq: "Ada"}}) { owner } }');
    assert.deepEqual(still.body.data.author, [{ owner: 7 }]);
  });

  it('a database error in the first root field reports that field and keeps nothing', async () => {
    const q = `mutation {
      insert_article(objects: [{title: "dangling", author_id: 99999, owner: 7}]) { affected_rows }
      insert_author(objects: [{name: "AfterFk", owner: 7}]) { affected_rows }
    }`;
    const r = await e.graphql(q, undefined, USER);
    assert.equal(r.body.errors?.[0]?.extensions?.code, 'constraint-violation', r.text);
    const left = await e.graphql('{ author(where: {name: {_eq: "AfterFk"}}) { id } }');
    assert.deepEqual(left.body.data.author, []);
  });
});
