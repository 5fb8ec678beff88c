/**
 * Inherited roles: a cell the role cannot see (a column granted by only some members, outside the
 * rows those members allow) is null everywhere it could steer the answer, through real HTTP and
 * WebSocket clients: streaming subscriptions' cursors and order, live queries filtering on it,
 * relationship join columns (output, where, order_by, aggregates, both sides), remote relationship
 * keys, the row computed fields receive, update / delete `where`, `on_conflict`'s `where`, and REST
 * endpoint variables.
 *
 * `member = [self, public]`: `self` sees `email` and `team_id` only on the row
 * `id = x-svc-user-id`, `public` sees `id` and `name` of every row.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { openTransportWs } from './subscriptionsClient.js';
import { startRemoteGraphqlServer } from '../support/remoteGraphqlServer.js';
import { startWebhookServer } from '../support/webhookServer.js';

const SQL = `
CREATE TABLE team (id int PRIMARY KEY, name text NOT NULL);
CREATE TABLE person (id int PRIMARY KEY, dropped int, name text NOT NULL, email text, team_id int REFERENCES team(id));
ALTER TABLE person DROP COLUMN dropped;
CREATE TABLE note (id int PRIMARY KEY, body text NOT NULL);
CREATE TABLE badge (code int PRIMARY KEY, label text NOT NULL);
INSERT INTO badge VALUES (1, 'gold'), (2, 'silver');
INSERT INTO team VALUES (1, 'red'), (2, 'blue');
INSERT INTO person VALUES (1, 'Alice', 'alice@x', 1), (2, 'Bob', 'z-bob@x', 2), (3, 'Carol', 'carol@x', 2);
INSERT INTO note VALUES (1, 'alice@x'), (2, 'z-bob@x'), (3, 'carol@x');
CREATE FUNCTION person_email_len(p person) RETURNS int LANGUAGE sql STABLE AS $$ SELECT length(p.email) $$;
CREATE FUNCTION person_notes(p person) RETURNS SETOF note LANGUAGE sql STABLE AS $$ SELECT * FROM note WHERE body = p.email $$;
`;

const perm = (type: string, table: string, role: string, permission: unknown) => ({ type: `create_${type}_permission`, args: { table, role, permission } });
const MEMBER = { 'x-svc-role': 'member', 'x-svc-user-id': '1' };
const ok = (r: { status: number; text: string }) => assert.equal(r.status, 200, r.text);

async function setup(t: { after: (fn: () => Promise<void>) => void }, remoteUrl: string, handlerUrl: string): Promise<TestEngine> {
  const e = await startTestEngine({ liveQueries: { batchSize: 100, refetchIntervalMs: 200, changePollIntervalMs: 50 } });
  t.after(() => e.stop());
  await e.runSql(SQL);
  const selfFilter = { id: { _eq: 'X-Svc-User-Id' } };
  ok(await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { table: 'team' } },
      { type: 'track_table', args: { table: 'person' } },
      { type: 'track_table', args: { table: 'note' } },
      { type: 'track_table', args: { table: 'badge' } },
      perm('select', 'badge', 'self', { columns: ['code', 'label'], filter: { code: { _eq: 'X-Svc-User-Id' } } }),
      perm('select', 'badge', 'public', { columns: ['label'], filter: {} }),
      perm('update', 'badge', 'public', { columns: ['label'], filter: {} }),
      perm('delete', 'badge', 'public', { filter: {} }),
      { type: 'create_object_relationship', args: { table: 'person', name: 'team', using: { foreign_key_constraint_on: 'team_id' } } },
      { type: 'create_array_relationship', args: { table: 'team', name: 'members', using: { foreign_key_constraint_on: { table: 'person', column: 'team_id' } } } },
      { type: 'add_computed_field', args: { table: 'person', name: 'email_len', definition: { function: 'person_email_len' } } },
      { type: 'add_computed_field', args: { table: 'person', name: 'notes', definition: { function: 'person_notes' } } },
      { type: 'add_remote_schema', args: { name: 'directory', definition: { url: remoteUrl } } },
      { type: 'create_remote_relationship', args: { name: 'card', table: 'person', hasura_fields: ['team_id'], remote_schema: 'directory', remote_field: { card: { arguments: { team: '$team_id' } } } } },
      perm('select', 'person', 'self', { columns: ['id', 'name', 'email', 'team_id'], filter: selfFilter, computed_fields: ['email_len'] }),
      perm('select', 'person', 'public', { columns: ['id', 'name'], filter: {}, computed_fields: ['email_len'], allow_aggregations: true }),
      perm('select', 'team', 'public', { columns: ['id', 'name'], filter: {}, allow_aggregations: true }),
      perm('select', 'note', 'public', { columns: ['id', 'body'], filter: {} }),
      perm('update', 'person', 'public', { columns: ['name'], filter: {} }),
      perm('delete', 'person', 'public', { filter: {} }),
      perm('insert', 'person', 'public', { columns: ['id', 'name'], check: {} }),
      { type: 'set_custom_types', args: { objects: [{ name: 'Found', fields: [{ name: 'email', type: 'String!' }], relationships: [{ name: 'person', type: 'object', remote_table: 'person', field_mapping: { email: 'email' } }] }] } },
      { type: 'create_action', args: { name: 'find', definition: { kind: 'synchronous', type: 'query', arguments: [{ name: 'email', type: 'String!' }], output_type: 'Found', handler: handlerUrl } } },
      { type: 'create_action_permission', args: { action: 'find', role: 'public' } },
      { type: 'add_inherited_role', args: { role_name: 'member', role_set: ['self', 'public'] } },
      { type: 'create_query_collection', args: { name: 'c', definition: { queries: [{ name: 'by_email', query: 'query ($e: String!) { person(where: {email: {_eq: $e}}) { id } }' }] } } },
      { type: 'create_rest_endpoint', args: { name: 'by_email', url: 'by-email/:e', methods: ['GET'], definition: { query: { collection_name: 'c', query_name: 'by_email' } } } },
    ],
  }));
  return e;
}

const STREAM = 'subscription ($v: String!) { person_stream(batch_size: 10, cursor: {initial_value: {email: $v}}) { id email } }';

test('inherited roles: hidden cells are null wherever they steer the answer', async (t) => {
  const remote = await startRemoteGraphqlServer('type Query { card(team: Int!): Card } type Card { team: Int! }', { card: ({ team }: { team: number }) => ({ team }) });
  t.after(() => remote.stop());
  // The action handler echoes the email it is given: the output is joined to person by that email.
  const hook = await startWebhookServer((req) => ({ status: 200, body: { email: (req.body as { input: { email: string } }).input.email } }));
  t.after(() => hook.stop());
  const e = await setup(t, remote.url, hook.url);
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const r = await e.graphql(query, variables, MEMBER);
    ok(r);
    assert.equal(r.body.errors, undefined, r.text);
    return r.body.data;
  };

  await t.test('streaming subscription: the cursor and its order see hidden emails as null', async () => {
    const s = await openTransportWs(e.url, MEMBER);
    t.after(() => s.close());
    // Every probe the issue describes: the empty cursor, and values either side of Bob's email.
    for (const [i, v] of ['', 'z-bob@w', 'z-bob@y', 'a'].entries()) {
      s.send({ id: `s${i}`, type: 'subscribe', payload: { query: STREAM, variables: { v } } });
      const m = await s.next(10_000);
      assert.equal(m.type, 'next', JSON.stringify(m));
      assert.deepEqual(m.payload.data.person_stream, v < 'alice@x' ? [{ id: 1, email: 'alice@x' }] : [], `initial value ${JSON.stringify(v)}`);
      s.send({ id: `s${i}`, type: 'complete' });
    }
    // DESC walks down from the top: only Alice's visible email.
    s.send({ id: 'd', type: 'subscribe', payload: { query: 'subscription { person_stream(batch_size: 10, cursor: {initial_value: {email: "zzz"}, ordering: DESC}) { id } }' } });
    assert.deepEqual((await s.next(10_000)).payload.data.person_stream, [{ id: 1 }]);
    s.send({ id: 'd', type: 'complete' });
    // A later row: streamed by the members' rules, not by its hidden value.
    s.send({ id: 'n', type: 'subscribe', payload: { query: 'subscription { person_stream(batch_size: 10, cursor: {initial_value: {id: 0}}) { id email } }' } });
    assert.deepEqual((await s.next(10_000)).payload.data.person_stream, [{ id: 1, email: 'alice@x' }, { id: 2, email: null }, { id: 3, email: null }]);
    await e.runSql(`INSERT INTO person VALUES (4, 'Dan', 'dan@x', 1)`);
    assert.deepEqual((await s.next(10_000)).payload.data.person_stream, [{ id: 4, email: null }]);
    s.send({ id: 'n', type: 'complete' });
    await e.runSql('DELETE FROM person WHERE id = 4');
  });

  await t.test('live query filtering on a hidden column sees null, before and after a change', async () => {
    const s = await openTransportWs(e.url, MEMBER);
    t.after(() => s.close());
    // A filter `email = value` on a column every member sees would narrow reruns to the rows holding
    // that value; on a hidden column it must not (the rows read null), and the answers stay right.
    s.send({ id: 'probe', type: 'subscribe', payload: { query: 'subscription { person(where: {email: {_eq: "z-bob@x"}}) { id name } }' } });
    assert.deepEqual((await s.next(10_000)).payload.data, { person: [] });
    s.send({ id: 'nulls', type: 'subscribe', payload: { query: 'subscription { person(where: {email: {_is_null: true}}, order_by: {id: asc}) { id name } }' } });
    assert.deepEqual((await s.next(10_000)).payload.data, { person: [{ id: 2, name: 'Bob' }, { id: 3, name: 'Carol' }] });
    await e.runSql(`UPDATE person SET name = 'Bobby' WHERE id = 2`);
    const m = await s.next(10_000);
    assert.deepEqual([m.id, m.payload.data], ['nulls', { person: [{ id: 2, name: 'Bobby' }, { id: 3, name: 'Carol' }] }]);
    await s.none(300);
    await e.runSql(`UPDATE person SET name = 'Bob' WHERE id = 2`);
    assert.equal((await s.next(10_000)).id, 'nulls');
    s.send({ id: 'probe', type: 'complete' });
    s.send({ id: 'nulls', type: 'complete' });
  });

  await t.test('relationship join columns: a hidden local or remote join column joins nothing', async () => {
    const d = await gql('{ person(order_by: {id: asc}) { id team { name } } team(order_by: {id: asc}) { id members { id } members_aggregate { aggregate { count } } } }');
    assert.deepEqual(d.person, [{ id: 1, team: { name: 'red' } }, { id: 2, team: null }, { id: 3, team: null }]);
    assert.deepEqual(d.team, [{ id: 1, members: [{ id: 1 }], members_aggregate: { aggregate: { count: 1 } } }, { id: 2, members: [], members_aggregate: { aggregate: { count: 0 } } }]);
    assert.deepEqual(await gql('{ person(where: {team: {name: {_eq: "blue"}}}) { id } }'), { person: [] }, 'where through the relationship');
    assert.deepEqual(await gql('{ team(where: {members: {id: {_eq: 2}}}) { id } }'), { team: [] }, 'where through the array relationship');
    const ordered = await gql('{ person(order_by: [{team: {name: desc_nulls_last}}, {id: desc}]) { id } }');
    assert.deepEqual(ordered.person.map((p: { id: number }) => p.id), [1, 3, 2], 'ordered by the related name: hidden join columns sort as null');
    const byCount = await gql('{ team(order_by: [{members_aggregate: {count: desc}}, {id: desc}]) { id } }');
    assert.deepEqual(byCount.team.map((p: { id: number }) => p.id), [1, 2], 'ordered by the related count: only visible join columns count');
  });

  await t.test('v1 DML select: relationships join only through join columns the role sees', async () => {
    const sel = (args: Record<string, unknown>) => e.query({ type: 'select', args: { table: 'person', ...args } }, MEMBER);
    const out = await sel({ columns: ['id', { name: 'team', columns: ['name'] }], order_by: ['id'] });
    assert.deepEqual([out.status, out.body], [200, [{ id: 1, team: { name: 'red' } }, { id: 2, team: null }, { id: 3, team: null }]]);
    const where = await sel({ columns: ['id'], where: { team: { name: { $eq: 'blue' } } } });
    assert.deepEqual([where.status, where.body], [200, []]);
    const ordered = await sel({ columns: ['id'], order_by: ['-team.name', '-id'] });
    assert.deepEqual(ordered.body, [{ id: 3 }, { id: 2 }, { id: 1 }], 'hidden join columns sort as null (first when descending)');
    const members = await e.query({ type: 'select', args: { table: 'team', columns: ['id', { name: 'members', columns: ['id'] }], order_by: ['id'] } }, MEMBER);
    assert.deepEqual(members.body, [{ id: 1, members: [{ id: 1 }] }, { id: 2, members: [] }]);
  });

  await t.test('remote relationship: a hidden join column is a null field, and the remote is not asked for it', async () => {
    const before = remote.queries().length;
    const d = await gql('{ person(order_by: {id: asc}) { id card { team } } }');
    assert.deepEqual(d.person, [{ id: 1, card: { team: 1 } }, { id: 2, card: null }, { id: 3, card: null }]);
    const sent = remote.queries().slice(before).map((q) => q.body.query.replace(/\s+/g, ' '));
    assert.deepEqual(sent, ['query { card__0: card(team: 1) { team } }'], "only Alice's own team reaches the remote");
  });

  await t.test('action output joined to a table: a hidden join column joins nothing', async () => {
    const q = 'query ($e: String!) { find(email: $e) { email person { id name } } }';
    assert.deepEqual(await gql(q, { e: 'alice@x' }), { find: { email: 'alice@x', person: { id: 1, name: 'Alice' } } });
    assert.deepEqual(await gql(q, { e: 'z-bob@x' }), { find: { email: 'z-bob@x', person: null } });
  });

  await t.test('computed fields receive the row with hidden cells null (a dropped column in the table is no cell)', async () => {
    const d = await gql('{ person(order_by: {id: asc}) { id email_len notes { id } } }');
    assert.deepEqual(d.person, [{ id: 1, email_len: 7, notes: [{ id: 1 }] }, { id: 2, email_len: null, notes: [] }, { id: 3, email_len: null, notes: [] }]);
    // The member alone that grants it on every row still reads it (its own rule, not the inherited role's).
    const pub = await e.graphql('{ person(where: {id: {_eq: 2}}) { email_len } }', undefined, { 'x-svc-role': 'public' });
    assert.deepEqual(pub.body, { data: { person: [{ email_len: 7 }] } });
  });

  await t.test('update / delete where and on_conflict where see hidden cells as null', async () => {
    const upd = await gql('mutation { update_person(where: {email: {_eq: "z-bob@x"}}, _set: {name: "pwned"}) { affected_rows } }');
    assert.deepEqual(upd, { update_person: { affected_rows: 0 } });
    const like = await gql('mutation { update_person(where: {email: {_like: "z%"}}, _set: {name: "pwned"}) { affected_rows } }');
    assert.deepEqual(like, { update_person: { affected_rows: 0 } });
    const del = await gql('mutation { delete_person(where: {_or: [{email: {_gt: "z"}}, {team_id: {_eq: 2}}]}) { affected_rows } }');
    assert.deepEqual(del, { delete_person: { affected_rows: 0 } });
    const upsert = await gql(`mutation { insert_person(objects: [{id: 2, name: "pwned"}], on_conflict: {constraint: person_pkey, update_columns: [name],
      where: {email: {_eq: "z-bob@x"}}}) { affected_rows } }`);
    assert.deepEqual(upsert, { insert_person: { affected_rows: 0 } });
    const nulls = await gql(`mutation { insert_person(objects: [{id: 2, name: "Bob"}], on_conflict: {constraint: person_pkey, update_columns: [name],
      where: {email: {_is_null: true}}}) { affected_rows returning { id name email } } }`);
    assert.deepEqual(nulls, { insert_person: { affected_rows: 1, returning: [{ id: 2, name: 'Bob', email: null }] } }, 'the hidden email reads null');
    const names = await e.runSql('SELECT name FROM person ORDER BY id');
    assert.deepEqual(names.result.slice(1).flat(), ['Alice', 'Bob', 'Carol'], 'nothing was changed through a hidden cell');
  });

  await t.test('by-pk fields look the key up as the role sees it; Relay offers no ids for a key hidden in some rows', async () => {
    assert.deepEqual(await gql('{ a: badge_by_pk(code: 1) { code label } b: badge_by_pk(code: 2) { code label } }'), { a: { code: 1, label: 'gold' }, b: null });
    assert.deepEqual(await gql('mutation { update_badge_by_pk(pk_columns: {code: 2}, _set: {label: "x"}) { label } }'), { update_badge_by_pk: null });
    assert.deepEqual(await gql('mutation { delete_badge_by_pk(code: 2) { label } }'), { delete_badge_by_pk: null });
    assert.deepEqual((await e.runSql('SELECT label FROM badge ORDER BY code')).result.slice(1).flat(), ['gold', 'silver']);
    const relay = (query: string) => e.request('POST', '/v1beta1/relay', { query }, MEMBER);
    const conn = await relay('{ badge_connection { edges { node { id } } } }');
    assert.equal(conn.body.errors?.[0]?.extensions?.code, 'validation-failed', conn.text);
    const id = Buffer.from(JSON.stringify([1, 'public', 'badge', 2])).toString('base64');
    const node = await relay(`{ node(id: "${id}") { id } }`);
    assert.ok(node.body.errors?.[0]?.message.includes('not found'), node.text);
    const people = await relay('{ person_connection(first: 5) { edges { node { name } } } }');
    assert.equal(people.body.data?.person_connection.edges.length, 3, 'a key every member sees keeps its ids');
  });

  await t.test('REST endpoint variables meet hidden cells as null', async () => {
    const bob = await e.request('GET', '/api/rest/by-email/z-bob@x', undefined, MEMBER);
    assert.deepEqual([bob.status, bob.body], [200, { person: [] }]);
    const alice = await e.request('GET', '/api/rest/by-email/alice@x', undefined, MEMBER);
    assert.deepEqual([alice.status, alice.body], [200, { person: [{ id: 1 }] }]);
  });
});
