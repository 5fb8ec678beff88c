/**
 * Hasura v2's naming conventions. Two engines share one database: one with the default
 * `hasura-default`, one started with SVC_GRAPHQL_DEFAULT_NAMING_CONVENTION=graphql-default. The
 * same questions asked in each convention's names (aliased, so the answers can be compared whole)
 * return the same data; introspection, errors, mutations, subscriptions (both WebSocket protocols)
 * and the Relay API use the graphql-default names; custom root field and column names, relationship
 * names are kept. The source's `customization.naming_convention` (pg_update_source, v2 export /
 * replace) overrides the server's default, and bad values change nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { TestSocket } from './subscriptionsClient.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startRemoteGraphqlServer } from '../support/remoteGraphqlServer.js';

const SQL = `
CREATE TABLE week_days (day_name text PRIMARY KEY, comment text);
INSERT INTO week_days VALUES ('monday', 'start'), ('sunday', 'rest');
CREATE TABLE app_users (
  user_id serial PRIMARY KEY, user_name text NOT NULL, favourite_day text REFERENCES week_days(day_name),
  score int, profile jsonb, last_seen date
);
CREATE TABLE user_posts (post_id serial PRIMARY KEY, author_id int NOT NULL REFERENCES app_users(user_id), post_title text);
CREATE SCHEMA other;
CREATE TABLE other.side_items (item_id serial PRIMARY KEY, item_name text);
INSERT INTO app_users (user_name, favourite_day, score, profile, last_seen) VALUES
  ('ann', 'sunday', 10, '{"a": 1}', '2024-01-02'), ('bob', 'monday', 20, NULL, NULL), ('cid', 'sunday', 30, '{"b": 2}', '2024-03-04');
INSERT INTO user_posts (author_id, post_title) VALUES (1, 'p1'), (1, 'p2'), (3, 'p3');
INSERT INTO other.side_items (item_name) VALUES ('x');
`;

async function setupMetadata(e: TestEngine): Promise<void> {
  const ops: unknown[] = [
    { type: 'track_table', args: { schema: 'public', name: 'week_days' } },
    { type: 'set_table_is_enum', args: { table: 'week_days', is_enum: true } },
    { type: 'track_table', args: { schema: 'public', name: 'app_users' } },
    { type: 'track_table', args: { schema: 'public', name: 'user_posts' } },
    { type: 'track_table', args: { schema: 'other', name: 'side_items' } },
    { type: 'set_table_custom_fields', args: { table: 'app_users', custom_root_fields: { select_by_pk: 'user_by_id' }, custom_column_names: { user_name: 'display_name' } } },
    { type: 'create_array_relationship', args: { table: 'app_users', name: 'user_posts', using: { foreign_key_constraint_on: { table: 'user_posts', column: 'author_id' } } } },
    { type: 'create_object_relationship', args: { table: 'user_posts', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_select_permission', args: { table: 'app_users', role: 'user', permission: { columns: '*', filter: {}, allow_aggregations: true } } },
    { type: 'create_select_permission', args: { table: 'user_posts', role: 'user', permission: { columns: '*', filter: {}, allow_aggregations: true } } },
  ];
  const r = await e.query({ type: 'bulk', args: ops });
  assert.equal(r.status, 200, r.text);
}

interface Pair {
  engines: { hasura: TestEngine; graphql: TestEngine };
}

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<Pair['engines']> {
  const hasura = await startTestEngine();
  await hasura.runSql(SQL);
  await setupMetadata(hasura);
  const graphql = await startTestEngine({ databaseUrl: hasura.databaseUrl, env: { SVC_GRAPHQL_DEFAULT_NAMING_CONVENTION: 'graphql-default' } });
  // The second engine stops first: the first one drops the database.
  t.after(async () => {
    await graphql.stop();
    await hasura.stop();
  });
  return { hasura, graphql };
}

/** The same questions in each convention's names: [hasura-default, graphql-default, variables]. */
const QUERY_SET: Array<[string, string, Record<string, unknown>?]> = [
  [
    '{ u: app_users(order_by: {user_id: desc}, where: {favourite_day: {_eq: sunday}}) { id: user_id name: display_name day: favourite_day posts: user_posts(order_by: {post_id: asc}) { t: post_title } } }',
    '{ u: appUsers(orderBy: {userId: DESC}, where: {favouriteDay: {_eq: SUNDAY}}) { id: userId name: display_name day: favouriteDay posts: user_posts(orderBy: {postId: ASC}) { t: postTitle } } }',
  ],
  [
    'query ($d: week_days_enum!, $w: app_users_bool_exp) { u: app_users(where: {_and: [{favourite_day: {_eq: $d}}, $w]}, order_by: [{score: desc_nulls_last}]) { id: user_id } }',
    'query ($d: WeekDaysEnum!, $w: AppUsersBoolExp) { u: appUsers(where: {_and: [{favouriteDay: {_eq: $d}}, $w]}, orderBy: [{score: DESC_NULLS_LAST}]) { id: userId } }',
    { d: 'sunday', w: { user_id: { _gt: 1 } } },
  ],
  [
    '{ one: user_by_id(user_id: 3) { display_name last_seen } none: user_by_id(user_id: 99) { user_id } }',
    '{ one: user_by_id(userId: 3) { display_name last_seen: lastSeen } none: user_by_id(userId: 99) { userId } }',
  ],
  [
    '{ a: app_users_aggregate(where: {last_seen: {_is_null: false}}) { aggregate { count max { score } sp: stddev_pop { score } vs: var_samp { user_id } } nodes { user_id } } }',
    '{ a: appUsersAggregate(where: {lastSeen: {_isNull: false}}) { aggregate { count max { score } sp: stddevPop { score } vs: varSamp { user_id: userId } } nodes { user_id: userId } } }',
  ],
  [
    '{ u: app_users(where: {profile: {_has_key: "a"}}) { user_id pa: user_posts_aggregate { aggregate { count } } } p: user_posts(where: {author: {display_name: {_ilike: "c%"}}}) { post_title author { user_id } } }',
    '{ u: appUsers(where: {profile: {_hasKey: "a"}}) { user_id: userId pa: user_postsAggregate { aggregate { count } } } p: userPosts(where: {author: {display_name: {_ilike: "c%"}}}) { post_title: postTitle author { user_id: userId } } }',
  ],
  [
    '{ s: other_side_items { item_id item_name } d: app_users(distinct_on: favourite_day, order_by: [{favourite_day: asc}, {user_id: asc}]) { user_id __typename } w: week_days(order_by: {day_name: asc}) { day_name } }',
    '{ s: otherSideItems { item_id: itemId item_name: itemName } d: appUsers(distinctOn: favouriteDay, orderBy: [{favouriteDay: ASC}, {userId: ASC}]) { user_id: userId __typename } w: weekDays(orderBy: {dayName: ASC}) { day_name: dayName } }',
  ],
  [
    '{ u: app_users(order_by: {user_posts_aggregate: {count: desc}}, limit: 1, offset: 0) { user_id } }',
    '{ u: appUsers(orderBy: {user_postsAggregate: {count: DESC}}, limit: 1, offset: 0) { user_id: userId } }',
  ],
];

/** `__typename` answers differ by design: the graphql-default one is the PascalCase name. */
const typenames = (body: unknown): unknown => JSON.parse(JSON.stringify(body).replaceAll('"AppUsers"', '"app_users"'));

test('the same questions in each convention return the same data (as admin and as a role)', async (t) => {
  const { hasura, graphql } = await setup(t);
  for (const [h, g, vars] of QUERY_SET) {
    const hv = vars;
    const gv = vars && { ...vars, d: String(vars.d).toUpperCase(), w: { userId: { _gt: 1 } } };
    const a = await hasura.graphql(h, hv);
    const b = await graphql.graphql(g, gv);
    assert.equal(a.body.errors, undefined, `${h}: ${a.text}`);
    assert.equal(b.body.errors, undefined, `${g}: ${b.text}`);
    assert.deepEqual(typenames(b.body), a.body, g);
    const ra = await hasura.graphql(h, hv, { 'x-svc-role': 'user' });
    const rb = await graphql.graphql(g, gv, { 'x-svc-role': 'user' });
    if (!h.includes('other_side_items') && !h.includes('week_days')) assert.deepEqual(typenames(rb.body), ra.body, `as user: ${g}`);
  }
  // The answers are real rows, not empty lists on both sides.
  const first = await graphql.graphql(QUERY_SET[0][1]);
  assert.deepEqual(first.body.data.u.map((u: { id: number }) => u.id), [3, 1]);
  const typename = await graphql.graphql('{ appUsers(limit: 1) { __typename userPosts: user_posts(limit: 1) { __typename } } }');
  assert.deepEqual(typename.body.data, { appUsers: [{ __typename: 'AppUsers', userPosts: [{ __typename: 'UserPosts' }] }] });
  // Under hasura-default nothing is renamed.
  assert.equal((await hasura.graphql('{ appUsers { userId } }')).body.errors[0].message, 'field "appUsers" not found in type: \'query_root\'');
});

const TYPE = `query ($n: String!) { __type(name: $n) { name kind fields { name args { name } } inputFields { name } enumValues { name } } }`;
const typeOf = async (e: TestEngine, name: string) => (await e.graphql(TYPE, { n: name })).body.data.__type;
const names = (xs: Array<{ name: string }> | null) => (xs ?? []).map((x) => x.name).sort();

test('introspection shows the graphql-default names', async (t) => {
  const { graphql } = await setup(t);
  const query = await typeOf(graphql, 'query_root');
  assert.deepEqual(names(query.fields), ['appUsers', 'appUsersAggregate', 'otherSideItems', 'otherSideItemsAggregate', 'otherSideItemsByPk', 'userPosts', 'userPostsAggregate', 'userPostsByPk', 'user_by_id', 'weekDays', 'weekDaysAggregate', 'weekDaysByPk']);
  const select = query.fields.find((f: { name: string }) => f.name === 'appUsers');
  assert.deepEqual(names(select.args), ['distinctOn', 'limit', 'offset', 'orderBy', 'where']);
  assert.deepEqual(names(query.fields.find((f: { name: string }) => f.name === 'user_by_id').args), ['userId']);
  const mutation = await typeOf(graphql, 'mutation_root');
  assert.ok(['insertAppUsers', 'insertAppUsersOne', 'updateAppUsers', 'updateAppUsersByPk', 'updateAppUsersMany', 'deleteAppUsers', 'deleteAppUsersByPk', 'insertOtherSideItemsOne'].every((n) => names(mutation.fields).includes(n)), names(mutation.fields).join());
  const update = mutation.fields.find((f: { name: string }) => f.name === 'updateAppUsers');
  assert.deepEqual(names(update.args), ['_append', '_deleteAtPath', '_deleteElem', '_deleteKey', '_inc', '_prepend', '_set', 'where']);
  assert.deepEqual(names(mutation.fields.find((f: { name: string }) => f.name === 'updateAppUsersByPk').args), ['_append', '_deleteAtPath', '_deleteElem', '_deleteKey', '_inc', '_prepend', '_set', 'pkColumns']);

  const users = await typeOf(graphql, 'AppUsers');
  assert.deepEqual(names(users.fields), ['display_name', 'favouriteDay', 'lastSeen', 'profile', 'score', 'userId', 'user_posts', 'user_postsAggregate']);
  const boolExp = await typeOf(graphql, 'AppUsersBoolExp');
  assert.deepEqual(names(boolExp.inputFields), ['_and', '_not', '_or', 'display_name', 'favouriteDay', 'lastSeen', 'profile', 'score', 'userId', 'user_posts']);
  assert.deepEqual(names((await typeOf(graphql, 'OrderBy')).enumValues), ['ASC', 'ASC_NULLS_FIRST', 'ASC_NULLS_LAST', 'DESC', 'DESC_NULLS_FIRST', 'DESC_NULLS_LAST']);
  assert.deepEqual(names((await typeOf(graphql, 'WeekDaysEnum')).enumValues), ['MONDAY', 'SUNDAY']);
  assert.deepEqual(names((await typeOf(graphql, 'AppUsersSelectColumn')).enumValues), ['display_name', 'favouriteDay', 'lastSeen', 'profile', 'score', 'userId']);
  assert.deepEqual(names((await typeOf(graphql, 'AppUsersConstraint')).enumValues), ['app_users_pkey']);
  assert.deepEqual(names((await typeOf(graphql, 'AppUsersOnConflict')).inputFields), ['constraint', 'updateColumns', 'where']);
  assert.deepEqual(names((await typeOf(graphql, 'AppUsersMutationResponse')).fields), ['affectedRows', 'returning']);
  const intExp = names((await typeOf(graphql, 'IntComparisonExp')).inputFields);
  assert.ok(intExp.includes('_isNull') && intExp.includes('_eq') && intExp.includes('_nin'), intExp.join());
  const jsonbExp = names((await typeOf(graphql, 'JsonbComparisonExp')).inputFields);
  assert.ok(['_containedIn', '_hasKey', '_hasKeysAll', '_hasKeysAny'].every((n) => jsonbExp.includes(n)), jsonbExp.join());
  assert.deepEqual(names((await typeOf(graphql, 'AppUsersAggregateFields')).fields).filter((n) => n.startsWith('stddev') || n.startsWith('var')), ['stddev', 'stddevPop', 'stddevSamp', 'varPop', 'varSamp', 'variance']);
  assert.equal(await typeOf(graphql, 'app_users'), null);
  assert.equal(await typeOf(graphql, 'order_by'), null);
  // Scalars keep their names.
  assert.equal((await typeOf(graphql, 'date')).kind, 'SCALAR');
  assert.equal((await typeOf(graphql, 'jsonb')).kind, 'SCALAR');
});

test('mutations in graphql-default names: insert (nested, upsert), update, update by pk, delete', async (t) => {
  const { hasura, graphql } = await setup(t);
  const ins = await graphql.graphql(`mutation ($day: WeekDaysEnum) {
    insertAppUsersOne(object: {display_name: "dee", favouriteDay: $day, score: 1, user_posts: {data: [{postTitle: "d1"}, {postTitle: "d2"}]}}) {
      userId display_name favouriteDay user_postsAggregate { aggregate { count } }
    }
  }`, { day: 'MONDAY' });
  assert.equal(ins.body.errors, undefined, ins.text);
  assert.deepEqual(ins.body.data.insertAppUsersOne, { userId: 4, display_name: 'dee', favouriteDay: 'monday', user_postsAggregate: { aggregate: { count: 2 } } });

  const upd = await graphql.graphql(`mutation {
    updateAppUsers(where: {favouriteDay: {_eq: MONDAY}}, _inc: {score: 100}) { affectedRows returning { userId score } }
    updateAppUsersByPk(pkColumns: {userId: 1}, _set: {lastSeen: "2025-05-05"}, _append: {profile: {z: 1}}) { lastSeen profile }
  }`);
  assert.equal(upd.body.errors, undefined, upd.text);
  assert.equal(upd.body.data.updateAppUsers.affectedRows, 2);
  assert.deepEqual(upd.body.data.updateAppUsersByPk, { lastSeen: '2025-05-05', profile: { a: 1, z: 1 } });

  const upsert = await graphql.graphql(`mutation {
    insertAppUsers(objects: [{userId: 2, display_name: "bobby"}], onConflict: {constraint: app_users_pkey, updateColumns: [display_name]}) { affectedRows }
  }`);
  assert.equal(upsert.body.errors, undefined, upsert.text);
  assert.equal(upsert.body.data.insertAppUsers.affectedRows, 1);

  const del = await graphql.graphql('mutation { deleteUserPosts(where: {postTitle: {_eq: "d2"}}) { affectedRows } deleteOtherSideItemsByPk(itemId: 1) { itemName } }');
  assert.equal(del.body.errors, undefined, del.text);
  assert.deepEqual(del.body.data, { deleteUserPosts: { affectedRows: 1 }, deleteOtherSideItemsByPk: { itemName: 'x' } });

  // What the other convention's engine now reads.
  const seen = await hasura.graphql('{ app_users(order_by: {user_id: asc}) { user_id display_name score last_seen user_posts { post_title } } other_side_items { item_id } }');
  assert.deepEqual(seen.body.data, {
    app_users: [
      { user_id: 1, display_name: 'ann', score: 10, last_seen: '2025-05-05', user_posts: [{ post_title: 'p1' }, { post_title: 'p2' }] },
      { user_id: 2, display_name: 'bobby', score: 120, last_seen: null, user_posts: [] },
      { user_id: 3, display_name: 'cid', score: 30, last_seen: '2024-03-04', user_posts: [{ post_title: 'p3' }] },
      { user_id: 4, display_name: 'dee', score: 101, last_seen: null, user_posts: [{ post_title: 'd1' }] },
    ],
    other_side_items: [],
  });
});

test('errors name the graphql-default names; the hasura-default names are unknown', async (t) => {
  const { graphql } = await setup(t);
  const old = await graphql.graphql('{ app_users { user_id } }');
  assert.deepEqual(old.body.errors, [{ extensions: { path: '$.selectionSet.app_users', code: 'validation-failed' }, message: 'field "app_users" not found in type: \'query_root\'' }]);
  const arg = await graphql.graphql('{ appUsers(order_by: {userId: ASC}) { userId } }');
  assert.deepEqual(arg.body.errors, [{ extensions: { path: '$.selectionSet.appUsers.args.order_by', code: 'validation-failed' }, message: 'no such argument "order_by" is expected' }]);
  const field = await graphql.graphql('{ appUsers(where: {user_id: {_eq: 1}}) { userId } }');
  assert.deepEqual(field.body.errors, [{ extensions: { path: '$.selectionSet.appUsers.args.where.user_id', code: 'validation-failed' }, message: 'field "user_id" not found in type: \'AppUsersBoolExp\'' }]);
  const value = await graphql.graphql('{ appUsers(orderBy: {userId: asc}) { userId } }');
  assert.deepEqual(value.body.errors, [{ extensions: { path: '$.selectionSet.appUsers.args.orderBy[0].userId', code: 'validation-failed' }, message: 'unexpected value "asc" for enum: \'OrderBy\'' }]);
  const variable = await graphql.graphql('query ($o: [AppUsersOrderBy!]) { appUsers(orderBy: $o) { userId } }', { o: [{ user_id: 'ASC' }] });
  assert.equal(variable.body.errors[0].extensions.code, 'validation-failed');
  assert.match(variable.body.errors[0].message, /field "user_id" not found in type: 'AppUsersOrderBy'/);
});

test('subscriptions over both WebSocket protocols use the graphql-default names', async (t) => {
  const { graphql } = await setup(t);
  const query = 'subscription { appUsers(orderBy: {userId: ASC}, where: {favouriteDay: {_eq: SUNDAY}}) { userId display_name } }';
  for (const [protocol, start, data] of [['graphql-ws', 'start', 'data'], ['graphql-transport-ws', 'subscribe', 'next']] as const) {
    const ws = await TestSocket.open(graphql.url, protocol);
    t.after(() => ws.ws.close());
    ws.send({ type: 'connection_init', payload: {} });
    assert.equal((await ws.next()).type, 'connection_ack');
    ws.send({ id: '1', type: start, payload: { query } });
    const first = await ws.next();
    assert.equal(first.type, data, JSON.stringify(first));
    assert.deepEqual(first.payload.data, { appUsers: [{ userId: 1, display_name: 'ann' }, { userId: 3, display_name: 'cid' }] });
  }
  const ws = await TestSocket.open(graphql.url, 'graphql-transport-ws');
  t.after(() => ws.ws.close());
  ws.send({ type: 'connection_init', payload: {} });
  await ws.next();
  ws.send({ id: 'x', type: 'subscribe', payload: { query: 'subscription { app_users { user_id } }' } });
  const err = await ws.next();
  assert.equal(err.type, 'error');
  assert.equal(err.payload[0].message, 'field "app_users" not found in type: \'subscription_root\'');
  // A change shows up under the new names.
  const live = await TestSocket.open(graphql.url, 'graphql-ws');
  t.after(() => live.ws.close());
  live.send({ type: 'connection_init', payload: {} });
  await live.next();
  live.send({ id: '2', type: 'start', payload: { query: 'subscription { a: appUsersAggregate { aggregate { count } } }' } });
  assert.deepEqual((await live.next()).payload.data, { a: { aggregate: { count: 3 } } });
  assert.equal((await graphql.graphql('mutation { insertAppUsersOne(object: {display_name: "eve"}) { userId } }')).status, 200);
  assert.deepEqual((await live.next(5000)).payload.data, { a: { aggregate: { count: 4 } } });
});

test('the Relay API uses the graphql-default names', async (t) => {
  const { graphql } = await setup(t);
  const r = await graphql.request('POST', '/v1beta1/relay', { query: '{ appUsersConnection(first: 2, orderBy: {userId: ASC}) { edges { node { userId display_name userPostsCount: user_postsConnection { edges { node { postTitle } } } } } pageInfo { hasNextPage } } }' });
  assert.equal(r.body.errors, undefined, r.text);
  assert.deepEqual(r.body.data.appUsersConnection, {
    edges: [
      { node: { userId: 1, display_name: 'ann', userPostsCount: { edges: [{ node: { postTitle: 'p1' } }, { node: { postTitle: 'p2' } }] } } },
      { node: { userId: 2, display_name: 'bob', userPostsCount: { edges: [] } } },
    ],
    pageInfo: { hasNextPage: true },
  });
});

test('the source customization: pg_update_source, v2 export / replace, the server default overridden, bad values change nothing', async (t) => {
  const { hasura, graphql } = await setup(t);
  const meta = (e: TestEngine, body: unknown) => e.request('POST', '/v1/metadata', body);
  // The server default is not stored: nothing in the export.
  assert.equal((await meta(graphql, { type: 'export_metadata', args: {} })).body.sources[0].customization, undefined);

  const set = await meta(hasura, { type: 'pg_update_source', args: { name: 'default', customization: { naming_convention: 'graphql-default' } } });
  assert.equal(set.status, 200, set.text);
  assert.equal((await hasura.graphql('{ appUsers(limit: 1) { userId } }')).body.data.appUsers.length, 1);
  const exported = (await meta(hasura, { type: 'export_metadata', args: {} })).body;
  assert.deepEqual(exported.sources[0].customization, { naming_convention: 'graphql-default' });
  assert.deepEqual((await hasura.query({ type: 'export_metadata', args: {} })).body.source_customization, { naming_convention: 'graphql-default' });

  // The stored hasura-default wins over the server's graphql-default.
  const back = { ...exported, sources: [{ ...exported.sources[0], customization: { naming_convention: 'hasura-default' } }] };
  assert.equal((await meta(graphql, { type: 'replace_metadata', args: back })).status, 200);
  assert.equal((await graphql.graphql('{ app_users(limit: 1) { user_id } }')).body.data.app_users.length, 1);
  await hasura.query({ type: 'reload_metadata', args: {} });
  assert.equal((await hasura.graphql('{ app_users(limit: 1) { user_id } }')).body.data.app_users.length, 1);

  // Bad input: Hasura's errors, nothing changed.
  const before = (await hasura.query({ type: 'export_metadata', args: {} })).body;
  const bad = await meta(hasura, { type: 'pg_update_source', args: { name: 'default', customization: { naming_convention: 'camelCase' } } });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, { code: 'parse-failed', error: 'naming_convention can either be "hasura-default" or "graphql-default"', path: '$.customization.naming_convention' });
  const prefix = await meta(hasura, { type: 'pg_update_source', args: { name: 'default', customization: { root_fields: { prefix: 'x_' } } } });
  assert.equal(prefix.status, 400);
  assert.equal(prefix.body.code, 'not-supported');
  const other = await meta(hasura, { type: 'pg_update_source', args: { name: 'other', customization: {} } });
  assert.equal(other.body.code, 'not-exists');
  const conf = await meta(hasura, { type: 'pg_update_source', args: { name: 'default', configuration: { connection_info: { database_url: 'postgres://x' } } } });
  assert.equal(conf.body.code, 'not-supported');
  const badDoc = await meta(hasura, { type: 'replace_metadata', args: { ...back, sources: [{ ...back.sources[0], customization: { naming_convention: 'snake' } }] } });
  assert.equal(badDoc.status, 400);
  assert.deepEqual((await hasura.query({ type: 'export_metadata', args: {} })).body, before);
  assert.equal((await hasura.graphql('{ app_users(limit: 1) { user_id } }')).body.data.app_users.length, 1);

  // `{}` goes back to the server's default.
  assert.equal((await meta(graphql, { type: 'pg_update_source', args: { name: 'default', customization: {} } })).status, 200);
  assert.equal((await graphql.graphql('{ appUsers(limit: 1) { userId } }')).body.data.appUsers.length, 1);
  assert.equal((await meta(graphql, { type: 'export_metadata', args: {} })).body.sources[0].customization, undefined);
});

test('actions and remote schemas keep their names; their relationships to tables reach the renamed types', async (t) => {
  const remote = await startRemoteGraphqlServer(
    'type Query { message_of(user_id: Int!): Message_info } type Message_info { msg_text: String }',
    { message_of: ({ user_id }: { user_id: number }) => ({ msg_text: `m${user_id}` }) },
  );
  t.after(() => remote.stop());
  const handler = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ user_id: body.input.the_id }));
    });
  });
  await new Promise<void>((r) => handler.listen(0, '127.0.0.1', () => r()));
  t.after(() => new Promise<void>((r) => { handler.closeAllConnections(); handler.close(() => r()); }));
  const { hasura, graphql } = await setup(t);
  const r = await hasura.query({
    type: 'bulk',
    args: [
      { type: 'add_remote_schema', args: { name: 'messages', definition: { url: remote.url, forward_client_headers: false } } },
      { type: 'create_remote_relationship', args: { name: 'user_message', table: 'app_users', hasura_fields: ['user_id'], remote_schema: 'messages', remote_field: { message_of: { arguments: { user_id: '$user_id' } } } } },
      { type: 'set_custom_types', args: { objects: [{ name: 'Picked_user', fields: [{ name: 'user_id', type: 'Int!' }], relationships: [{ name: 'picked', type: 'object', remote_table: 'app_users', field_mapping: { user_id: 'user_id' } }] }] } },
      { type: 'create_action', args: { name: 'pick_user', definition: { type: 'query', kind: 'synchronous', arguments: [{ name: 'the_id', type: 'Int!' }], output_type: 'Picked_user', handler: `http://127.0.0.1:${(handler.address() as AddressInfo).port}` } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
  await graphql.query({ type: 'reload_metadata', args: {} });
  const action = await graphql.graphql('{ pick_user(the_id: 3) { user_id picked { userId display_name __typename } } }');
  assert.equal(action.body.errors, undefined, action.text);
  assert.deepEqual(action.body.data, { pick_user: { user_id: 3, picked: { userId: 3, display_name: 'cid', __typename: 'AppUsers' } } });
  const remoteField = await graphql.graphql('{ message_of(user_id: 2) { msg_text } }');
  assert.deepEqual(remoteField.body, { data: { message_of: { msg_text: 'm2' } } });
  const join = await graphql.graphql('{ appUsers(where: {userId: {_eq: 1}}) { userId user_message { msg_text } } }');
  assert.deepEqual(join.body, { data: { appUsers: [{ userId: 1, user_message: { msg_text: 'm1' } }] } });
  assert.deepEqual(names((await typeOf(graphql, 'Picked_user')).fields), ['picked', 'user_id']);
  assert.deepEqual(names((await typeOf(graphql, 'Message_info')).fields), ['msg_text']);
  const root = await typeOf(graphql, 'query_root');
  assert.deepEqual(names(root.fields.find((f: { name: string }) => f.name === 'message_of').args), ['user_id']);
  assert.deepEqual(names(root.fields.find((f: { name: string }) => f.name === 'pick_user').args), ['the_id']);
});

test('graphql-default names that collide are refused, whole: columns, root fields, types, remote schemas compared by the converted names', async (t) => {
  const remote = await startRemoteGraphqlServer('type Query { clashA: Int }', { clashA: () => 1 });
  t.after(() => remote.stop());
  const e = await startTestEngine();
  t.after(() => e.stop());
  await e.runSql(`CREATE TABLE clash_a (id serial PRIMARY KEY, user_id int, "userId" int);
    CREATE TABLE user_account (id int PRIMARY KEY); CREATE TABLE "userAccount" (id int PRIMARY KEY); CREATE TABLE "User_account" (code int);`);
  const meta = (body: unknown) => e.request('POST', '/v1/metadata', body);
  const camel = { type: 'pg_update_source', args: { name: 'default', customization: { naming_convention: 'graphql-default' } } };
  const exported = async () => JSON.stringify((await e.query({ type: 'export_metadata', args: {} })).body);
  const refused = async (body: unknown, code: string, error: string | RegExp) => {
    const before = await exported();
    const r = await meta(body);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.code, code, r.text);
    if (typeof error === 'string') assert.equal(r.body.error, error);
    else assert.match(r.body.error, error);
    assert.equal(await exported(), before, 'metadata unchanged');
  };
  for (const table of ['clash_a', 'user_account']) assert.equal((await e.query({ type: 'track_table', args: { table } })).status, 200);
  // Under hasura-default a remote root field `clashA` is no clash with `clash_a`; the switch to graphql-default is.
  assert.equal((await e.query({ type: 'add_remote_schema', args: { name: 'r', definition: { url: remote.url } } })).status, 200);
  await refused(camel, 'remote-schema-conflicts', 'conflicting root fields with remote schemas: "clashA"');
  assert.equal((await e.query({ type: 'remove_remote_schema', args: { name: 'r' } })).status, 200);
  // Columns user_id and "userId" would both be the field userId.
  await refused(camel, 'unexpected', 'following fields of table "clash_a" are duplicated: "userId"');
  assert.equal((await e.graphql('{ clash_a { user_id userId } }')).body.data.clash_a.length, 0, 'still hasura-default');
  assert.equal((await e.query({ type: 'set_table_custom_fields', args: { table: 'clash_a', custom_column_names: { userId: 'userIdRaw' } } })).status, 200);
  assert.equal((await meta(camel)).status, 200);
  assert.deepEqual((await e.graphql('{ clashA { userId userIdRaw } }')).body, { data: { clashA: [] } });
  // Now a remote schema's root field is compared with the converted names.
  await refused({ type: 'add_remote_schema', args: { name: 'r', definition: { url: remote.url } } }, 'constraint-violation',
    'types/root fields of the remote schema conflict with the database: "clashA"');
  // Tables whose root fields (userAccount, userAccountByPk...) or type (UserAccount) merge with another's.
  await refused({ type: 'track_table', args: { table: 'userAccount' } }, 'unexpected', /^following query root fields are duplicated: .*"userAccount"/);
  await refused({ type: 'track_table', args: { table: { schema: 'public', name: 'User_account' }, configuration: { custom_root_fields: { select: 'codes', select_aggregate: 'codesAggregate', insert: 'insCodes', insert_one: 'insCode', update: 'updCodes', update_many: 'updCodesMany', delete: 'delCodes' } } }, version: 2 },
    'unexpected', 'following types are duplicated: "UserAccount"');
  // A column added later that merges with another is refused by the run_sql that adds it.
  const r = await e.query({ type: 'run_sql', args: { sql: 'ALTER TABLE user_account ADD COLUMN "Id" int' } });
  assert.deepEqual([r.status, r.body.error], [400, 'following fields of table "user_account" are duplicated: "id"'], r.text);
  assert.deepEqual((await e.graphql('{ userAccount { id } }')).body, { data: { userAccount: [] } });
});
