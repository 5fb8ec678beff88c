/**
 * One API over three Postgres servers (tests/support/threeSources.ts): `default` (the test's own
 * database), `shop` (a PG 15 cluster behind PgBouncer in transaction mode, prepared statements off)
 * and `archive` (a PG 15 cluster with a streaming standby registered as its read replica):
 * - a mutation and a query on each source; `archive`'s reads served by its standby, read your
 *   writes through `X-Svc-Commit-Lsn` (`archive=<position>`), a standby that falls behind or goes
 *   down leaves the reads to the primary, and it gets them again when it is back;
 * - a query joining all three (author → books → reviews: remote-source relationships, one statement
 *   per source per level) and an event trigger on each source delivered to a real webhook receiver;
 * - a subscription over two sources, updated when either changes;
 * - `shop` stopped with pg_ctl while clients query every source: the others answer throughout, its
 *   fields error in Hasura's shape, it is reported inconsistent, and after pg_ctl start it answers
 *   again and the inconsistency clears, without a restart of the engine.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { eventually, startEventReceiver } from '../support/eventReceiver.js';
import { sqlOn } from '../support/standbyPostgres.js';
import { startThreeSources, type ThreeSources } from '../support/threeSources.js';
import { TestSocket } from './subscriptionsClient.js';

let three: ThreeSources;
before(async () => {
  three = await startThreeSources();
});
after(() => three?.stop());

const gql = (query: string, headers?: Record<string, string>) => three.engine.graphql(query, undefined, headers);
const replicas = () => three.engine.engine.ctx.sources!.replicas('archive')!;

test('a mutation and a query on each of the three sources', { timeout: 30_000 }, async () => {
  const m = await gql(`mutation {
    insert_author_one(object: {id: 3, name: "Cy"}) { id }
    shop_insert_book_one(object: {id: 13, author_id: 3, title: "Teal"}) { id }
    archive_insert_review_one(object: {book_id: 13, stars: 2}) { stars }
  }`);
  assert.deepEqual(m.body, { data: { insert_author_one: { id: 3 }, shop_insert_book_one: { id: 13 }, archive_insert_review_one: { stars: 2 } } });
  // The commit positions of the written sources that have replicas: archive's.
  assert.match(m.headers.get('x-svc-commit-lsn') ?? '', /^archive=[0-9A-F]+\/[0-9A-F]+$/);
  const q = await gql('{ author(where: {id: {_eq: 3}}) { name } shop_book(where: {author_id: {_eq: 3}}) { title } }', { 'x-svc-commit-lsn': m.headers.get('x-svc-commit-lsn')! });
  assert.deepEqual(q.body, { data: { author: [{ name: 'Cy' }], shop_book: [{ title: 'Teal' }] } });
  const r = await gql('{ archive_review(where: {book_id: {_eq: 13}}) { stars } }', { 'x-svc-commit-lsn': m.headers.get('x-svc-commit-lsn')! });
  assert.deepEqual(r.body, { data: { archive_review: [{ stars: 2 }] } });
  // Through PgBouncer: the update is committed on shop's server.
  const one = await gql('mutation { shop_update_book(where: {id: {_eq: 13}}, _set: {title: "Navy"}) { affected_rows } }');
  assert.deepEqual(one.body, { data: { shop_update_book: { affected_rows: 1 } } });
  assert.deepEqual(await sqlOn(three.shop.directUrl, 'SELECT title FROM book WHERE id = 13'), [{ title: 'Navy' }]);
  // run_sql on shop through PgBouncer: in one transaction held for the request, read again by the build.
  const sql = await three.engine.request('POST', '/v2/query', { type: 'bulk', args: [
    { type: 'run_sql', args: { source: 'shop', sql: 'ALTER TABLE book ADD COLUMN pages int NOT NULL DEFAULT 100' } },
    { type: 'run_sql', args: { source: 'shop', sql: 'SELECT sum(pages)::int AS pages FROM book WHERE id = 13' } },
  ] });
  assert.equal(sql.status, 200, sql.text);
  assert.deepEqual(sql.body[1].result, [['pages'], ['100']]);
  assert.deepEqual((await gql('{ shop_book_by_pk(id: 13) { pages } }')).body, { data: { shop_book_by_pk: { pages: 100 } } });
});

test('a query joining all three sources, and an event trigger on each delivered to a webhook', { timeout: 40_000 }, async () => {
  const ok = async (body: unknown) => {
    const r = await three.metadata(body);
    assert.equal(r.status, 200, r.text);
  };
  // author (default) → books (shop, behind PgBouncer) → reviews (archive, read from its standby).
  await ok({ type: 'pg_create_remote_relationship', args: { source: 'default', table: 'author', name: 'books',
    definition: { to_source: { source: 'shop', table: 'book', relationship_type: 'array', field_mapping: { id: 'author_id' } } } } });
  await ok({ type: 'pg_create_remote_relationship', args: { source: 'shop', table: 'book', name: 'reviews',
    definition: { to_source: { source: 'archive', table: 'review', relationship_type: 'array', field_mapping: { id: 'book_id' } } } } });
  await ok({ type: 'pg_create_remote_relationship', args: { source: 'archive', table: 'review', name: 'book',
    definition: { to_source: { source: 'shop', table: 'book', relationship_type: 'object', field_mapping: { book_id: 'id' } } } } });
  const joined = await gql(`{
    author(where: {id: {_in: [1, 2]}}, order_by: {id: asc}) {
      name
      books(order_by: {id: asc}) { title reviews(order_by: {stars: desc}) { stars } }
    }
    archive_review(where: {book_id: {_eq: 12}}) { stars book { title } }
  }`);
  assert.deepEqual(joined.body, { data: {
    author: [
      { name: 'Ann', books: [{ title: 'Blue', reviews: [{ stars: 5 }, { stars: 4 }] }, { title: 'Red', reviews: [] }] },
      { name: 'Bo', books: [{ title: 'Green', reviews: [{ stars: 3 }] }] },
    ],
    archive_review: [{ stars: 3, book: { title: 'Green' } }],
  } });

  // One event trigger per source, each capturing in its own database, all delivered to one receiver.
  const rx = await startEventReceiver();
  try {
    for (const [source, table] of [['default', 'author'], ['shop', 'book'], ['archive', 'review']] as const) {
      await ok({ type: 'pg_create_event_trigger', args: { source, name: `${source}_insert`, table: { schema: 'public', name: table }, webhook: `${rx.url}/${source}`, insert: { columns: '*' } } });
    }
    const m = await gql(`mutation {
      insert_author_one(object: {id: 7, name: "Eve"}) { id }
      shop_insert_book_one(object: {id: 17, author_id: 7, title: "Gold"}) { id }
      archive_insert_review_one(object: {book_id: 17, stars: 1}) { stars }
    }`);
    assert.equal(m.body.errors, undefined, JSON.stringify(m.body));
    await eventually(() => rx.deliveries.length, (n) => n >= 3, 20_000, 'three deliveries');
    const got = rx.deliveries.map((d) => [d.path, d.body.trigger.name, d.body.table.name, d.body.event.op, d.body.event.data.new]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(got, [
      ['/archive', 'archive_insert', 'review', 'INSERT', { id: got[0]![4].id, book_id: 17, stars: 1 }],
      ['/default', 'default_insert', 'author', 'INSERT', { id: 7, name: 'Eve' }],
      ['/shop', 'shop_insert', 'book', 'INSERT', { id: 17, author_id: 7, title: 'Gold', pages: 100 }], // pages: the column the first test added
    ]);
    // Each source's event log is in its own database.
    const delivered = (url: string) => sqlOn(url, 'SELECT trigger_name FROM hdb_catalog.event_log WHERE delivered') as Promise<Array<{ trigger_name: string }>>;
    await eventually(() => delivered(three.shop.directUrl), (rows) => rows.length === 1 && rows[0]!.trigger_name === 'shop_insert', 10_000, "shop's event log");
    await eventually(() => delivered(three.archive.url), (rows) => rows.length === 1 && rows[0]!.trigger_name === 'archive_insert', 10_000, "archive's event log");
  } finally {
    for (const source of ['default', 'shop', 'archive']) await three.metadata({ type: 'pg_delete_event_trigger', args: { source, name: `${source}_insert` } });
    for (const [source, table, name] of [['default', 'author', 'books'], ['shop', 'book', 'reviews'], ['archive', 'review', 'book']]) {
      await three.metadata({ type: 'pg_delete_remote_relationship', args: { source, table, name } });
    }
    await rx.stop();
  }
});

test('archive reads go to its standby; read your writes; a standby that falls behind or goes down leaves the reads to the primary', { timeout: 40_000 }, async () => {
  const standby = three.archive.servers.standby;
  await eventually(() => replicas().statuses()[0]!, (s) => s.usable, 10_000, 'the standby usable');
  const reads = replicas().statuses()[0]!.reads;
  const q = await gql('{ archive_review_aggregate { aggregate { count } } }');
  assert.equal(q.body.data?.archive_review_aggregate?.aggregate?.count >= 3, true, q.text);
  assert.equal(replicas().statuses()[0]!.reads, reads + 1, 'the read was served by the standby');
  // Mutations go to the primary; the answer's position lets the next read see the write.
  await sqlOn(three.archive.standbyUrl, 'SELECT pg_wal_replay_pause()');
  try {
    const m = await gql('mutation { archive_insert_review_one(object: {book_id: 11, stars: 1}) { id } }');
    const id = m.body.data?.archive_insert_review_one?.id;
    assert.equal(typeof id, 'number', m.text);
    const lsn = m.headers.get('x-svc-commit-lsn')!;
    assert.match(lsn, /^archive=/);
    const mine = await gql(`{ archive_review_by_pk(id: ${id}) { stars } }`, { 'x-svc-commit-lsn': lsn });
    assert.deepEqual(mine.body, { data: { archive_review_by_pk: { stars: 1 } } }, 'read your writes while the standby is paused');
    // A position of another source does not hold archive's reads back (positions are per server).
    const other = await gql('{ archive_review_aggregate { aggregate { count } } }', { 'x-svc-commit-lsn': '0/1, shop=FFFFFFFF/0' });
    assert.ok(other.body.data, other.text);
    // Paused, the standby falls behind: once its lag is over the maximum, reads go to the primary.
    await eventually(() => replicas().statuses()[0]!, (s) => !s.usable, 10_000, 'the standby too far behind');
    const seen = await gql(`{ archive_review_by_pk(id: ${id}) { stars } }`);
    assert.deepEqual(seen.body, { data: { archive_review_by_pk: { stars: 1 } } });
  } finally {
    await sqlOn(three.archive.standbyUrl, 'SELECT pg_wal_replay_resume()');
  }
  await eventually(() => replicas().statuses()[0]!, (s) => s.usable, 10_000, 'the standby caught up');

  // The standby goes down: every read still answers (retried on the primary), then it is back.
  standby.stop();
  try {
    for (let i = 0; i < 5; i++) {
      const r = await gql('{ archive_review(where: {book_id: {_eq: 10}}, order_by: {stars: desc}) { stars } }');
      assert.deepEqual(r.body, { data: { archive_review: [{ stars: 5 }, { stars: 4 }] } });
    }
    await eventually(() => replicas().statuses()[0]!, (s) => !s.usable, 10_000, 'the standby marked down');
  } finally {
    standby.start();
  }
  await eventually(() => replicas().statuses()[0]!, (s) => s.usable, 15_000, 'the standby usable again');
  const before = replicas().statuses()[0]!.reads;
  await gql('{ archive_review(limit: 1) { id } }');
  assert.equal(replicas().statuses()[0]!.reads, before + 1);
});

test('read replicas of a source that are not standbys of its database, or cannot be reached, are refused whole', { timeout: 30_000 }, async () => {
  const before = await three.exportMetadata();
  const archive = before.sources.find((s: any) => s.name === 'archive');
  const update = (read_replicas: unknown[]) => three.metadata({ type: 'pg_update_source', args: { name: 'archive', configuration: { ...archive.configuration, read_replicas } } });
  const other = await update([{ database_url: three.shop.directUrl }]);
  assert.equal(other.status, 400, other.text);
  assert.equal(other.body.code, 'invalid-configuration');
  assert.match(other.body.error, /^Inconsistent object: source "archive": read replica 127\.0\.0\.1:\d+\/postgres is another database cluster/);
  const away = await update([{ database_url: 'postgres://postgres@127.0.0.1:1/postgres' }]);
  assert.equal(away.status, 400, away.text);
  assert.match(away.body.error, /^Inconsistent object: source "archive": read replica 127\.0\.0\.1:1\/postgres: /);
  const unset = await update([{ database_url: { from_env: 'SVC_TEST_NO_SUCH_REPLICA' } }]);
  assert.equal(unset.status, 400, unset.text);
  assert.match(unset.body.error, /SVC_TEST_NO_SUCH_REPLICA is not set/);
  assert.deepEqual(await three.exportMetadata(), before);
  assert.equal(replicas().size, 1);
});

test('adding a source that cannot be reached is refused whole, from a URL, an env var or connection parameters', { timeout: 30_000 }, async () => {
  const before = await three.exportMetadata();
  process.env.SVC_TEST_NOWHERE_URL = 'postgres://postgres@127.0.0.1:1/postgres';
  try {
    for (const database_url of ['postgres://postgres@127.0.0.1:1/postgres', { from_env: 'SVC_TEST_NOWHERE_URL' }, { connection_parameters: { host: '127.0.0.1', port: 1, username: 'postgres', database: 'postgres' } }]) {
      const r = await three.metadata({ type: 'pg_add_source', args: { name: 'nowhere', configuration: { connection_info: { database_url } } } });
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.path, '$.args', r.text);
      assert.match(r.body.error, /127\.0\.0\.1:1/, r.text);
    }
  } finally {
    delete process.env.SVC_TEST_NOWHERE_URL;
  }
  assert.deepEqual(await three.exportMetadata(), before);
});

test('live queries on two sources over one connection: each is updated when its source changes', { timeout: 30_000 }, async () => {
  const ws = await TestSocket.open(three.engine.url, 'graphql-transport-ws');
  try {
    ws.send({ type: 'connection_init', payload: {} });
    assert.equal((await ws.next()).type, 'connection_ack');
    ws.send({ id: 'a', type: 'subscribe', payload: { query: 'subscription { author(where: {id: {_lte: 2}}, order_by: {id: asc}) { name } }' } });
    ws.send({ id: 'b', type: 'subscribe', payload: { query: 'subscription { shop_book(where: {author_id: {_eq: 2}}, order_by: {id: asc}) { title } }' } });
    const firsts = new Map<string, unknown>();
    for (let i = 0; i < 2; i++) {
      const m = await ws.next(10_000);
      firsts.set(m.id, m.payload);
    }
    assert.deepEqual(Object.fromEntries(firsts), { a: { data: { author: [{ name: 'Ann' }, { name: 'Bo' }] } }, b: { data: { shop_book: [{ title: 'Green' }] } } });
    await gql('mutation { update_author_by_pk(pk_columns: {id: 2}, _set: {name: "Bea"}) { id } }');
    assert.deepEqual(await ws.next(10_000), { id: 'a', type: 'next', payload: { data: { author: [{ name: 'Ann' }, { name: 'Bea' }] } } });
    // Written on shop's server straight (not through the engine or PgBouncer): seen too.
    await sqlOn(three.shop.directUrl, "INSERT INTO book VALUES (14, 2, 'Grey')");
    assert.deepEqual(await ws.next(10_000), { id: 'b', type: 'next', payload: { data: { shop_book: [{ title: 'Green' }, { title: 'Grey' }] } } });
    await gql('mutation { shop_update_book_by_pk(pk_columns: {id: 14}, _set: {title: "Gold"}) { id } }');
    assert.deepEqual(await ws.next(10_000), { id: 'b', type: 'next', payload: { data: { shop_book: [{ title: 'Green' }, { title: 'Gold' }] } } });
  } finally {
    ws.ws.close();
  }
});

/** Clients querying one source back to back until `stop()`: every answer that is not data is kept. */
function load(query: string, clients = 2) {
  let running = true;
  const failures: string[] = [];
  let answered = 0;
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      const r = await gql(query).catch((e: Error) => ({ body: undefined, text: `request failed: ${e.message}` }));
      if (r.body?.data !== undefined && r.body.errors === undefined) answered++;
      else failures.push(r.text);
    }
  });
  return {
    get answered() {
      return answered;
    },
    failures,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

test('shop stopped with pg_ctl under load: the other sources answer throughout, shop errors and is reported, then comes back without a restart', { timeout: 60_000 }, async (t) => {
  const server = three.shop.server;
  const others = [load('{ author(limit: 2) { name } }'), load('{ archive_review(limit: 2) { stars } }')];
  const shopLoad = load('{ shop_book(limit: 2) { title } }', 1);
  const inconsistent = async () => (await three.metadata({ type: 'get_inconsistent_metadata', args: {} })).body;
  try {
    await eventually(() => [...others, shopLoad].map((l) => l.answered), (n) => n.every((x) => x >= 5), 10_000, 'every source answering');
    assert.deepEqual(await inconsistent(), { is_consistent: true, inconsistent_objects: [] });

    server.halt();
    const atHalt = others.map((l) => l.answered);
    // Reported by get_inconsistent_metadata without a reload.
    const away = await eventually(inconsistent, (b) => b?.is_consistent === false, 20_000, 'shop reported');
    assert.deepEqual(away.inconsistent_objects.map((o: any) => [o.type, o.definition.name]), [['source', 'shop']]);
    assert.match(away.inconsistent_objects[0].reason, /^Inconsistent object: cannot connect to Postgres at 127\.0\.0\.1:\d+/);
    // Its requests fail at once (not held by PgBouncer), in Hasura's shape: one error with a message, a code and a path.
    const down = await gql('{ shop_book(limit: 1) { title } }');
    assert.equal(down.status, 200);
    assert.deepEqual(Object.keys(down.body), ['errors'], down.text);
    assert.equal(down.body.errors.length, 1, down.text);
    assert.equal(down.body.errors[0].message, 'database connection error');
    assert.deepEqual(Object.keys(down.body.errors[0].extensions).sort(), ['code', 'path'], down.text);
    const write = await gql('mutation { shop_insert_book_one(object: {id: 99, author_id: 1, title: "x"}) { id } }');
    assert.equal(write.body.errors?.[0]?.message, 'database connection error', write.text);
    // A reload while it is away builds the schema without it: its field is gone, the others stay.
    const reload = await three.metadata({ type: 'reload_metadata', args: {} });
    assert.equal(reload.status, 200, reload.text);
    const gone = await gql('{ shop_book(limit: 1) { title } }');
    assert.equal(gone.body.errors?.[0]?.extensions?.code, 'validation-failed', gone.text);
    assert.deepEqual((await inconsistent()).inconsistent_objects.map((o: any) => o.type), ['source']);
    // Meanwhile the other sources kept answering.
    await eventually(() => others.map((l, i) => l.answered - atHalt[i]!), (n) => n.every((x) => x >= 10), 10_000, 'the others answering during the outage');
  } finally {
    server.start();
  }
  // Back: built in again by itself (no reload, no restart), and the report clears.
  const answered = shopLoad.answered;
  await eventually(() => shopLoad.answered, (n) => n > answered + 3, 20_000, 'shop answering again');
  t.diagnostic(`shop's requests while it was away: ${shopLoad.failures.length} failed; ${JSON.stringify([...new Set(shopLoad.failures)])}`);
  assert.deepEqual(await eventually(inconsistent, (b) => b?.is_consistent === true, 10_000, 'the report cleared'), { is_consistent: true, inconsistent_objects: [] });
  const back = await gql('{ shop_book(where: {id: {_eq: 10}}) { title } }');
  assert.deepEqual(back.body, { data: { shop_book: [{ title: 'Blue' }] } });
  await Promise.all([...others, shopLoad].map((l) => l.stop()));
  // The other sources never failed a request, and kept answering through the outage.
  assert.deepEqual(others.map((l) => l.failures), [[], []]);
  t.diagnostic(`answered during the test: default ${others[0]!.answered}, archive ${others[1]!.answered}, shop ${shopLoad.answered} (${shopLoad.failures.length} failed while it was away)`);
});
