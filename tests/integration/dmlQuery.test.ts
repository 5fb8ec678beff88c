/**
 * The v1 DML operations of /v1/query (select, count, insert, update, delete) over real HTTP: their
 * answers, the role chosen with X-Svc-Role next to the admin secret, permissions, Hasura's error
 * messages and paths, and that a failed operation writes nothing.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
const user = (id: number) => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

async function q(type: string, args: unknown, headers?: Record<string, string>) {
  return e.query({ type, args }, headers);
}
async function okq(type: string, args: unknown, headers?: Record<string, string>) {
  const r = await q(type, args, headers);
  assert.equal(r.status, 200, r.text);
  return r.body;
}
async function err(type: string, args: unknown, headers?: Record<string, string>) {
  const r = await q(type, args, headers);
  assert.equal(r.status, 400, r.text);
  return r.body as { path: string; error: string; code: string; internal?: unknown };
}

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm', stringifyNumericTypes: true });
  await e.runSql(`
    CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE NOT NULL, secret text, big bigint);
    CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author(id), published boolean NOT NULL DEFAULT false,
      price numeric DEFAULT 10, info json);
  `);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { name: 'author' } },
      { type: 'track_table', args: { name: 'article' } },
      // A DML operation in the same bulk sees the tables tracked before it.
      { type: 'insert', args: { table: 'author', objects: [{ name: 'A1', secret: 's1', big: '9007199254740993' }, { name: 'A2' }] } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'insert', args: { table: 'article', objects: [
        { title: 'T1', author_id: 1, published: true, price: 5 }, { title: 'T2', author_id: 1 }, { title: 'T3', author_id: 2, published: true },
      ] } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: {} } } },
      { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: ['id', 'title', 'author_id', 'published'], filter: { _or: [{ author_id: 'X-Svc-User-Id' }, { published: true }] } } } },
      { type: 'create_insert_permission', args: { table: 'article', role: 'user', permission: { check: { author_id: 'X-Svc-User-Id' }, set: { published: false } } } },
      { type: 'create_update_permission', args: { table: 'article', role: 'user', permission: { columns: ['title'], filter: { author_id: 'X-Svc-User-Id' } } } },
      { type: 'create_delete_permission', args: { table: 'article', role: 'user', permission: { filter: { author_id: 'X-Svc-User-Id' } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await e?.stop();
});

describe('select and count', () => {
  it('selects columns, expanded relationships, where, order_by, limit and offset', async () => {
    const rows = await okq('select', {
      table: 'author',
      columns: ['id', 'big', { name: 'articles', alias: 'posts', columns: ['title'], where: { published: true }, order_by: '-title' }],
      order_by: [{ column: 'id', type: 'asc' }],
    });
    assert.deepEqual(rows, [
      { id: 1, big: '9007199254740993', posts: [{ title: 'T1' }] },
      { id: 2, big: null, posts: [{ title: 'T3' }] },
    ]);
    const paged = await okq('select', { table: 'article', columns: ['title', { name: 'author', columns: ['name'] }], order_by: ['author.name', '-id'], limit: 1, offset: 1 });
    assert.deepEqual(paged, [{ title: 'T1', author: { name: 'A1' } }]);
    const star = await okq('select', { table: 'article', columns: ['*'], where: { id: 3 } });
    assert.deepEqual(Object.keys(star[0]).sort(), ['author_id', 'id', 'info', 'price', 'published', 'title']);
  });

  it('the select permission: row filter, columns, and relationship filters', async () => {
    const rows = await okq('select', { table: 'article', columns: ['id'], order_by: 'id' }, user(2));
    assert.deepEqual(rows, [{ id: 1 }, { id: 3 }]);
    const col = await err('select', { table: 'author', columns: ['id', 'secret'] }, user(2));
    assert.deepEqual(col, { path: '$.args.columns[1]', error: 'role "user" does not have permission to select column "secret"', code: 'permission-denied' });
    const none = await err('select', { table: 'author', columns: ['id'] }, { 'x-svc-role': 'nobody' });
    assert.deepEqual(none, { path: '$.args', error: 'select on "author" for role "nobody" is not allowed. ', code: 'permission-denied' });
    const whereCol = await err('select', { table: 'author', columns: ['id'], where: { secret: 's1' } }, user(2));
    assert.equal(whereCol.code, 'permission-denied');
    const throughRel = await okq('count', { table: 'author', where: { articles: { published: false } } }, user(2));
    assert.deepEqual(throughRel, { count: 0 });
  });

  it("Hasura's messages for misused columns", async () => {
    assert.deepEqual(await err('select', { table: 'nope', columns: ['id'] }), { path: '$.args.table', error: 'table "nope" does not exist', code: 'not-exists' });
    const objRel = await err('select', { table: 'article', columns: [{ name: 'author', columns: ['id'], limit: 1 }] });
    assert.equal(objRel.error, "when selecting an object relationship, where, order_by, limit and offset can't be used");
    assert.equal(objRel.code, 'unexpected-payload');
    const rel = await err('select', { table: 'article', columns: ['author'] });
    assert.equal(rel.error, '"author" is a relationship and should be expanded');
    const arrOrder = await err('select', { table: 'author', columns: ['id'], order_by: 'articles.id' });
    assert.equal(arrOrder.error, `"articles" is an array relationship and can't be used in order_by`);
    const chained = await err('select', { table: 'article', columns: ['id'], order_by: 'title.x' });
    assert.equal(chained.error, '"title" is a database column and cannot be chained further');
    assert.equal((await err('select', { table: 'article', columns: ['id'], order_by: [] })).error, 'order_by array should not be empty');
    assert.equal((await err('select', { table: 'article', columns: ['id'], where: { info: { _eq: '{}' } } })).error, 'JSON column can not be part of where clause');
    assert.deepEqual(await err('count', { table: 'article', distinct: ['nope'] }), { path: '$.args.distinct[0]', error: 'no such column exists: "nope"', code: 'not-exists' });
  });

  it('negative limit/offset are refused at $.args.limit / $.args.offset; an unknown returning column at $.args.returning', async () => {
    const neg = { error: 'unexpected negative value', code: 'not-supported' };
    assert.deepEqual(await err('select', { table: 'article', columns: ['id'], limit: -1 }), { path: '$.args.limit', ...neg });
    assert.deepEqual(await err('select', { table: 'article', columns: ['id'], offset: -2 }), { path: '$.args.offset', ...neg });
    assert.deepEqual(await err('select', { table: 'article', columns: ['id'], limit: -1 }, user(1)), { path: '$.args.limit', ...neg });
    const nested = await err('select', { table: 'author', columns: ['id', { name: 'articles', columns: ['id'], limit: -3 }] });
    assert.deepEqual(nested, { path: '$.args.columns[1].limit', ...neg });
    const before = (await okq('count', { table: 'author' })).count;
    assert.deepEqual(await err('insert', { table: 'author', objects: [{ name: 'R1' }], returning: ['id', 'nope'] }),
      { path: '$.args.returning', error: 'no such column exists: "nope"', code: 'not-exists' });
    assert.deepEqual(await err('delete', { table: 'author', where: { name: 'R1' }, returning: ['nope'] }),
      { path: '$.args.returning', error: 'no such column exists: "nope"', code: 'not-exists' });
    assert.equal((await err('update', { table: 'article', where: { id: 1 }, $set: { title: 'x' }, returning: ['secret'] }, user(1))).path, '$.args.returning');
    assert.equal((await okq('count', { table: 'author' })).count, before);
  });

  it('counts rows, and distinct values (NULL counts once)', async () => {
    assert.deepEqual(await okq('count', { table: 'article' }), { count: 3 });
    assert.deepEqual(await okq('count', { table: 'article', distinct: ['author_id'] }), { count: 2 });
    assert.deepEqual(await okq('count', { table: 'article', where: { author: { name: 'A1' } } }), { count: 2 });
    const denied = await err('count', { table: 'author' }, { 'x-svc-role': 'nobody' });
    assert.equal(denied.error, 'select on "author" for role "nobody" is not allowed. ; "count" is only allowed if the role has "select" permissions on the table');
  });
});

describe('insert, update, delete', () => {
  it('inserts with returning, and upserts on a constraint or columns', async () => {
    const r = await okq('insert', { table: 'author', objects: [{ name: 'A3' }], returning: ['id', 'name'] });
    assert.deepEqual(r, { affected_rows: 1, returning: [{ id: 3, name: 'A3' }] });
    const up = await okq('insert', { table: 'author', objects: [{ id: 3, name: 'A3b' }], on_conflict: { constraint_on: 'id', action: 'update' }, returning: ['name'] });
    assert.deepEqual(up, { affected_rows: 1, returning: [{ name: 'A3b' }] });
    const ign = await okq('insert', { table: 'author', objects: [{ id: 3, name: 'zzz' }], on_conflict: { constraint: 'author_pkey', action: 'ignore' } });
    assert.deepEqual(ign, { affected_rows: 0 });
    assert.equal((await err('insert', { table: 'author', objects: [{ name: 'x' }], on_conflict: { action: 'update' } })).error,
      'expecting constraint or constraint_on when the action is update');
    assert.equal((await err('insert', { table: 'author', objects: [{ name: 'x' }], on_conflict: { constraint: 'author_pkey', constraint_on: ['id'], action: 'update' } })).error,
      'constraint and constraint_on cannot be set at a time');
    assert.deepEqual(await err('insert', { table: 'author', objects: [{ name: 'x' }], on_conflict: { constraint_on: ['id'] } }),
      { path: '$.on_conflict', error: "the key 'action' was not present", code: 'parse-failed' });
  });

  it('bad input is refused and writes nothing', async () => {
    const before = (await okq('count', { table: 'author' })).count;
    assert.deepEqual(await err('insert', { table: 'author', objects: [] }), { path: '$.args.objects', error: 'objects should not be empty', code: 'unexpected-payload' });
    const unknown = await err('insert', { table: 'author', objects: [{ name: 'ok1' }, { name: 'x', age: 3 }] });
    assert.equal(unknown.code, 'not-exists');
    assert.equal(unknown.path, '$.args.objects[1]');
    const notNull = await err('insert', { table: 'author', objects: [{ name: 'ok2' }, { secret: 'no name' }] });
    assert.equal(notNull.code, 'constraint-violation');
    assert.equal(notNull.path, '$.args');
    const wrongType = await err('insert', { table: 'author', objects: [{ name: 'ok3', big: 'abc' }] });
    assert.equal(wrongType.code, 'data-exception');
    const dup = await err('insert', { table: 'author', objects: [{ name: 'A1' }] });
    assert.equal(dup.error, 'Uniqueness violation. duplicate key value violates unique constraint "author_name_key"');
    assert.equal((await okq('count', { table: 'author' })).count, before);
  });

  it('the insert permission of a role: check and presets, upsert needs the update permission', async () => {
    const mine = await okq('insert', { table: 'article', objects: [{ title: 'U1', author_id: 2 }], returning: ['published', 'author_id'] }, user(2));
    assert.deepEqual(mine, { affected_rows: 1, returning: [{ published: false, author_id: 2 }] });
    const check = await err('insert', { table: 'article', objects: [{ title: 'U2', author_id: 1 }] }, user(2));
    assert.deepEqual(check, { path: '$.args', error: 'Check constraint violation. insert/update check constraint failed', code: 'permission-error' });
    const preset = await err('insert', { table: 'article', objects: [{ title: 'U3', author_id: 2, published: true }] }, user(2));
    assert.equal(preset.error, 'column "published" is not insertable for role "user"');
    const upsertAuthor = await err('insert', { table: 'author', objects: [{ name: 'x' }], on_conflict: { action: 'ignore' } }, { 'x-svc-role': 'user' });
    assert.equal(upsertAuthor.code, 'permission-denied');
  });

  it('update: $set, $inc, $mul, $default; the update permission and its errors', async () => {
    const r = await okq('update', { table: 'article', where: { id: 1 }, $mul: { price: 1.1 }, $inc: { author_id: 1 }, returning: ['price', 'author_id'] });
    assert.deepEqual(r, { affected_rows: 1, returning: [{ price: '5.5000', author_id: 2 }] });
    const d = await okq('update', { table: 'article', where: { id: 1 }, $default: ['price'], $set: { author_id: 1 }, returning: ['price'] });
    assert.deepEqual(d, { affected_rows: 1, returning: [{ price: '10' }] });
    assert.deepEqual(await err('update', { table: 'article', where: { id: 1 } }),
      { path: '$.args', error: 'at least one of $set, $inc, $mul has to be present', code: 'unexpected-payload' });
    assert.deepEqual(await err('update', { table: 'article', $set: { title: 'x' } }), { path: '$', error: 'key "where" not found', code: 'parse-failed' });
    const mine = await okq('update', { table: 'article', where: {}, $set: { title: 'by user 2' } }, user(2));
    assert.equal(mine.affected_rows, 2);
    assert.deepEqual(await err('update', { table: 'article', where: {}, $set: { published: true } }, user(2)),
      { path: '$.args.$set', error: 'role "user" does not have permission to update column "published"', code: 'permission-denied' });
  });

  it('delete through the delete permission', async () => {
    const theirs = await okq('delete', { table: 'article', where: { id: 1 }, returning: ['id'] }, user(2));
    assert.deepEqual(theirs, { affected_rows: 0, returning: [] });
    const r = await okq('delete', { table: 'article', where: { author_id: 2 }, returning: ['title'] }, user(2));
    assert.equal(r.affected_rows, 2);
    assert.equal((await err('delete', { table: 'author', where: {} }, user(2))).error, 'delete on "author" for role "user" is not allowed. ');
  });

  it('a bulk with a failing DML operation keeps none of its earlier writes', async () => {
    const before = (await okq('count', { table: 'author' })).count;
    const r = await e.query({ type: 'bulk', args: [
      { type: 'insert', args: { table: 'author', objects: [{ name: 'bulk-1' }] } },
      { type: 'insert', args: { table: 'author', objects: [{ name: 'bulk-1' }] } },
    ] });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'constraint-violation');
    assert.equal(r.body.path, '$.args[1].args');
    assert.equal((await okq('count', { table: 'author' })).count, before);
  });
});
