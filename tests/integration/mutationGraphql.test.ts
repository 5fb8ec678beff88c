/**
 * GraphQL mutations over real HTTP on a fresh database: every mutation form, each permission
 * kind (insert check/columns/presets, update filter/check/presets, delete filter), upserts,
 * nested inserts, what a role sees in introspection, and that a request whose last mutation
 * field fails leaves nothing behind.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
const user = (id: number | string) => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

async function ok(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const r = await e.graphql(query, variables, headers);
  assert.equal(r.status, 200);
  assert.equal(r.body.errors, undefined, JSON.stringify(r.body.errors));
  return r.body.data;
}

async function fails(query: string, headers?: Record<string, string>, variables?: Record<string, unknown>) {
  const r = await e.graphql(query, variables, headers);
  assert.equal(r.status, 200);
  assert.ok(Array.isArray(r.body.errors), `expected errors, got ${r.text}`);
  assert.equal(r.body.data, undefined);
  return r.body.errors[0] as { message: string; extensions: { code: string; path: string; internal?: unknown } };
}

async function count(table: string): Promise<number> {
  const r = await e.query({ type: 'count', args: { table } });
  assert.equal(r.status, 200, r.text);
  return r.body.count;
}

async function bulk(args: unknown[]) {
  const r = await e.query({ type: 'bulk', args });
  assert.equal(r.status, 200, r.text);
  return r.body;
}

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm' });
  await e.runSql(`
    CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE, is_registered boolean NOT NULL DEFAULT false, created_by text);
    CREATE TABLE article (
      id serial PRIMARY KEY, title text NOT NULL, content text, author_id int REFERENCES author(id),
      is_published boolean NOT NULL DEFAULT false, views int NOT NULL DEFAULT 0, meta jsonb NOT NULL DEFAULT '{}',
      published_on date, title_len int GENERATED ALWAYS AS (length(title)) STORED
    );
  `);
  await bulk([
    { type: 'track_table', args: { name: 'author' } },
    { type: 'track_table', args: { name: 'article' } },
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
    { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name', 'is_registered'], filter: {} } } },
    { type: 'create_select_permission', args: { table: 'article', role: 'user', permission: { columns: '*', filter: { author_id: 'X-Svc-User-Id' } } } },
    {
      type: 'create_insert_permission',
      args: { table: 'author', role: 'user', permission: { check: { id: 'X-Svc-User-Id' }, columns: ['id', 'name'], set: { created_by: 'X-Svc-User-Id' } } },
    },
    {
      type: 'create_insert_permission',
      args: { table: 'article', role: 'user', permission: { check: { author_id: 'X-Svc-User-Id' }, columns: ['title', 'content', 'author_id', 'meta'], set: { views: 7 } } },
    },
    {
      type: 'create_update_permission',
      args: {
        table: 'article', role: 'user',
        permission: { columns: ['title', 'content', 'meta', 'views'], filter: { author_id: 'X-Svc-User-Id' }, check: { views: { _lt: 1000 } }, set: { is_published: false } },
      },
    },
    { type: 'create_delete_permission', args: { table: 'article', role: 'user', permission: { filter: { author_id: 'X-Svc-User-Id' } } } },
  ]);
});

after(async () => {
  await e?.stop();
});

describe('insert', () => {
  it('inserts rows with defaults and returns them, relationships included', async () => {
    const data = await ok(`mutation {
      a: insert_author(objects: [{name: "Ann"}, {name: "Bob", is_registered: true}]) { affected_rows returning { id name is_registered } }
      b: insert_article_one(object: {title: "Hello", author_id: 1}) { id title_len views is_published meta author { name } }
    }`);
    assert.deepEqual(data.a, { affected_rows: 2, returning: [{ id: 1, name: 'Ann', is_registered: false }, { id: 2, name: 'Bob', is_registered: true }] });
    assert.deepEqual(data.b, { id: 1, title_len: 5, views: 0, is_published: false, meta: {}, author: { name: 'Ann' } });
  });

  it('objects from variables: each request gets a plan for its own rows', async () => {
    const q = 'mutation ($objs: [author_insert_input!]!) { insert_author(objects: $objs) { affected_rows returning { name is_registered } } }';
    const one = await ok(q, { objs: [{ name: 'V1' }] });
    assert.deepEqual(one.insert_author, { affected_rows: 1, returning: [{ name: 'V1', is_registered: false }] });
    const two = await ok(q, { objs: [{ name: 'V2', is_registered: true }, { name: 'V3' }] });
    assert.deepEqual(two.insert_author, { affected_rows: 2, returning: [{ name: 'V2', is_registered: true }, { name: 'V3', is_registered: false }] });
  });

  it('an empty objects list changes nothing', async () => {
    const data = await ok('mutation { insert_author(objects: []) { affected_rows returning { id } } }');
    assert.deepEqual(data.insert_author, { affected_rows: 0, returning: [] });
  });

  it('nested inserts: parent through an object relationship, children through an array relationship', async () => {
    const data = await ok(`mutation {
      insert_article(objects: [{title: "N1", author: {data: {name: "Nested"}}}]) { affected_rows returning { title author { name } } }
      insert_author_one(object: {name: "Parent", articles: {data: [{title: "C1"}, {title: "C2"}]}}) { name articles(order_by: {title: asc}) { title } }
    }`);
    assert.deepEqual(data.insert_article, { affected_rows: 2, returning: [{ title: 'N1', author: { name: 'Nested' } }] });
    assert.deepEqual(data.insert_author_one, { name: 'Parent', articles: [{ title: 'C1' }, { title: 'C2' }] });
    const deep = await ok(`mutation { insert_article_one(object: {title: "Top", author: {data: {name: "Deep", articles: {data: [{title: "Sib1"}, {title: "Sib2"}]}}}}) {
      title author { name articles(order_by: {title: asc}) { title } } } }`);
    assert.deepEqual(deep.insert_article_one, { title: 'Top', author: { name: 'Deep', articles: [{ title: 'Sib1' }, { title: 'Sib2' }, { title: 'Top' }] } });
    const err = await fails('mutation { insert_article(objects: [{title: "x", author_id: 1, author: {data: {name: "Z"}}}]) { affected_rows } }');
    assert.equal(err.extensions.code, 'validation-failed');
    assert.equal(err.extensions.path, '$.selectionSet.insert_article.args.objects[0].author');
    assert.equal(err.message, 'cannot insert object relation ship "author" as "author_id" column values are already determined');
  });

  it('upserts: do nothing when update_columns is empty, else update the listed columns', async () => {
    const nothing = await ok('mutation { insert_author(objects: [{id: 1, name: "Ann2"}], on_conflict: {constraint: author_pkey, update_columns: []}) { affected_rows } }');
    assert.equal(nothing.insert_author.affected_rows, 0);
    const upd = await ok(`mutation { insert_author(objects: [{id: 1, name: "Ann3"}], on_conflict: {constraint: author_pkey, update_columns: [name], where: {is_registered: {_eq: false}}}) {
      affected_rows returning { id name } } }`);
    assert.deepEqual(upd.insert_author, { affected_rows: 1, returning: [{ id: 1, name: 'Ann3' }] });
    const filtered = await ok('mutation { insert_author(objects: [{id: 2, name: "Bob2"}], on_conflict: {constraint: author_pkey, update_columns: [name], where: {is_registered: {_eq: false}}}) { affected_rows } }');
    assert.equal(filtered.insert_author.affected_rows, 0);
  });

  it('the insert check, insertable columns and presets of the role', async () => {
    const data = await ok('mutation { insert_author(objects: [{id: 50, name: "Fifty"}]) { returning { id name } } }', undefined, user(50));
    assert.deepEqual(data.insert_author.returning, [{ id: 50, name: 'Fifty' }]);
    const stored = await e.query({ type: 'select', args: { table: 'author', columns: ['created_by'], where: { id: 50 } } });
    assert.deepEqual(stored.body, [{ created_by: '50' }]);
    const denied = await fails('mutation { insert_author(objects: [{id: 51, name: "Fifty-one"}]) { affected_rows } }', user(50));
    assert.equal(denied.extensions.code, 'permission-error');
    assert.equal(denied.message, 'Check constraint violation. insert/update check constraint failed');
    assert.equal(denied.extensions.internal, undefined);
    const notAllowed = await fails('mutation { insert_author(objects: [{id: 50, name: "x", is_registered: true}]) { affected_rows } }', user(50));
    assert.equal(notAllowed.extensions.code, 'validation-failed');
    const art = await ok('mutation { insert_article_one(object: {title: "Mine", author_id: 50}) { views author_id } }', undefined, user(50));
    assert.deepEqual(art.insert_article_one, { views: 7, author_id: 50 });
  });

  it("a trigger's RAISE EXCEPTION: unexpected \"database query error\" as Hasura answers, the message only in internal for the admin, no row left", async () => {
    await e.runSql(`
      CREATE TABLE guarded (id int PRIMARY KEY, note text);
      CREATE FUNCTION guard() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'only the owner may write %', NEW.id; END $$;
      CREATE TRIGGER guarded_guard BEFORE INSERT ON guarded FOR EACH ROW EXECUTE FUNCTION guard();`);
    await bulk([
      { type: 'track_table', args: { name: 'guarded' } },
      { type: 'create_insert_permission', args: { table: 'guarded', role: 'guard', permission: { check: {}, columns: ['id', 'note'] } } },
    ]);
    const asAdmin = await fails('mutation { insert_guarded(objects: [{id: 7}]) { affected_rows } }');
    assert.equal(asAdmin.extensions.code, 'unexpected');
    assert.equal(asAdmin.message, 'database query error');
    // The admin reads Postgres's message in `internal` on /v1/query (GraphQL shows it in dev mode).
    const q = await e.query({ type: 'insert', args: { table: 'guarded', objects: [{ id: 7 }] } });
    assert.deepEqual([q.status, q.body.code, q.body.error], [500, 'unexpected', 'database query error']);
    assert.deepEqual([q.body.internal.error.message, q.body.internal.error.status_code], ['only the owner may write 7', 'P0001']);
    const asUser = await fails('mutation { insert_guarded(objects: [{id: 8}]) { affected_rows } }', { 'x-svc-role': 'guard' });
    assert.deepEqual([asUser.extensions.code, asUser.message, asUser.extensions.internal], ['unexpected', 'database query error', undefined]);
    assert.equal(await count('guarded'), 0);
  });

  it('upsert needs the update permission: on_conflict is offered only where the role may update', async () => {
    const err = await fails('mutation { insert_author(objects: [{id: 50, name: "x"}], on_conflict: {constraint: author_pkey, update_columns: []}) { affected_rows } }', user(50));
    assert.equal(err.extensions.code, 'validation-failed');
    const data = await ok(`mutation { insert_article(objects: [{title: "Up", author_id: 50}], on_conflict: {constraint: article_pkey, update_columns: [title]}) {
      affected_rows } }`, undefined, user(50));
    assert.equal(data.insert_article.affected_rows, 1);
  });

  it('bad input: a null in a non-null column and a value of the wrong type write nothing', async () => {
    const before = await count('article');
    const notNull = await fails('mutation { insert_article(objects: [{title: "ok"}, {content: "no title"}]) { affected_rows } }');
    assert.equal(notNull.extensions.code, 'constraint-violation');
    assert.equal(notNull.extensions.path, '$.selectionSet.insert_article.args.objects');
    assert.match(notNull.message, /^Not-NULL violation\. null value in column "title"/);
    // checked before any SQL: validation-failed at the value, not a data-exception from Postgres
    const wrongType = await fails('mutation { insert_article(objects: [{title: "x"}, {title: "y", published_on: "not a date"}]) { affected_rows } }');
    assert.equal(wrongType.extensions.code, 'validation-failed');
    assert.equal(wrongType.extensions.path, '$.selectionSet.insert_article.args.objects[1].published_on');
    const unknown = await fails('mutation { insert_article(objects: [{title: "x", nope: 1}]) { affected_rows } }');
    assert.equal(unknown.extensions.code, 'validation-failed');
    const fk = await fails('mutation { insert_article(objects: [{title: "x", author_id: 999}]) { affected_rows } }');
    assert.equal(fk.extensions.code, 'constraint-violation');
    assert.match(fk.message, /^Foreign key violation\./);
    assert.equal(await count('article'), before);
  });
});

describe('update and delete', () => {
  it('applies _set, _inc and the jsonb operators, with update_by_pk', async () => {
    await ok('mutation { insert_article(objects: [{id: 100, title: "U", author_id: 1, meta: {a: 1, arr: [1, 2, 3]}}, {id: 101, title: "V", meta: [1, 2, 3]}]) { affected_rows } }');
    const data = await ok(`mutation {
      u1: update_article(where: {id: {_eq: 100}}, _set: {content: "c"}, _inc: {views: 5}, _append: {meta: {b: 2}}) { affected_rows returning { content views meta } }
      u2: update_article_by_pk(pk_columns: {id: 100}, _delete_key: {meta: "a"}) { meta }
      u3: update_article_by_pk(pk_columns: {id: 100}, _delete_at_path: {meta: ["arr", "0"]}) { meta }
      u5: update_article_by_pk(pk_columns: {id: 101}, _delete_elem: {meta: 0}, _set: {content: "d"}) { meta content }
      u6: update_article_by_pk(pk_columns: {id: 100}, _prepend: {meta: {z: 0}}) { meta }
      u4: update_article_by_pk(pk_columns: {id: 99999}, _set: {content: "none"}) { id }
    }`);
    assert.deepEqual(data.u1, { affected_rows: 1, returning: [{ content: 'c', views: 5, meta: { a: 1, b: 2, arr: [1, 2, 3] } }] });
    assert.deepEqual(data.u2, { meta: { b: 2, arr: [1, 2, 3] } });
    assert.deepEqual(data.u3, { meta: { b: 2, arr: [2, 3] } });
    assert.deepEqual(data.u5, { meta: [2, 3], content: 'd' });
    assert.deepEqual(data.u6, { meta: { z: 0, b: 2, arr: [2, 3] } });
    const twice = await fails('mutation { update_article_by_pk(pk_columns: {id: 100}, _delete_key: {meta: "a"}, _delete_elem: {meta: 0}) { id } }');
    assert.equal(twice.message, 'column found in multiple operators; "meta" in _delete_key, _delete_elem operators');
    assert.equal(data.u4, null);
    const none = await fails('mutation { update_article(where: {id: {_eq: 100}}) { affected_rows } }');
    assert.equal(none.extensions.code, 'validation-failed');
  });

  it('the update filter, check and presets of the role', async () => {
    await ok('mutation { insert_article(objects: [{id: 200, title: "his", author_id: 2, is_published: true}, {id: 201, title: "mine", author_id: 50, is_published: true}]) { affected_rows } }');
    const others = await ok('mutation { update_article(where: {}, _set: {title: "hacked"}) { affected_rows returning { id } } }', undefined, user(50));
    assert.ok(others.update_article.returning.every((r: { id: number }) => r.id !== 200));
    const mine = await ok('mutation { update_article_by_pk(pk_columns: {id: 201}, _set: {title: "mine2"}) { title is_published } }', undefined, user(50));
    assert.deepEqual(mine.update_article_by_pk, { title: 'mine2', is_published: false });
    const check = await fails('mutation { update_article(where: {id: {_eq: 201}}, _set: {views: 5000}) { affected_rows } }', user(50));
    assert.equal(check.extensions.code, 'permission-error');
    const still = await e.query({ type: 'select', args: { table: 'article', columns: ['views'], where: { id: 201 } } });
    assert.deepEqual(still.body, [{ views: 0 }]);
  });

  it('deletes through the delete filter, with delete_by_pk', async () => {
    const theirs = await ok('mutation { delete_article(where: {id: {_eq: 200}}) { affected_rows } }', undefined, user(50));
    assert.equal(theirs.delete_article.affected_rows, 0);
    const mine = await ok('mutation { delete_article_by_pk(id: 201) { id title } }', undefined, user(50));
    assert.deepEqual(mine.delete_article_by_pk, { id: 201, title: 'mine2' });
    const admin = await ok('mutation { delete_article(where: {id: {_eq: 200}}) { affected_rows returning { id author { name } } } }');
    assert.deepEqual(admin.delete_article, { affected_rows: 1, returning: [{ id: 200, author: { name: 'Bob' } }] });
  });
});

describe('one transaction per request', () => {
  it('when the last mutation field fails, the earlier ones are rolled back', async () => {
    const authors = await count('author');
    const articles = await count('article');
    const err = await fails(`mutation {
      insert_author(objects: [{name: "Rolled back"}]) { affected_rows }
      update_article(where: {}, _inc: {views: 1}) { affected_rows }
      insert_article(objects: [{title: "bad", author_id: 12345}]) { affected_rows }
    }`);
    assert.equal(err.extensions.code, 'constraint-violation');
    assert.equal(await count('author'), authors);
    assert.equal(await count('article'), articles);
    const r = await e.query({ type: 'count', args: { table: 'author', where: { name: 'Rolled back' } } });
    assert.equal(r.body.count, 0);
  });

  it('fields run in order: a later field sees what an earlier one wrote', async () => {
    const data = await ok(`mutation {
      insert_author_one(object: {id: 300, name: "Ordered"}) { id }
      insert_article_one(object: {title: "after", author_id: 300}) { author { name } }
    }`);
    assert.deepEqual(data.insert_article_one, { author: { name: 'Ordered' } });
  });
});

describe('schema per role', () => {
  it('a role sees only the mutation fields, columns and arguments it may use', async () => {
    const data = await ok(`{
      m: __schema { mutationType { fields { name args { name } } } }
      ins: __type(name: "author_insert_input") { inputFields { name } }
      set: __type(name: "article_set_input") { inputFields { name } }
    }`, undefined, user(1));
    const fields = Object.fromEntries(data.m.mutationType.fields.map((f: { name: string; args: Array<{ name: string }> }) => [f.name, f.args.map((a) => a.name).sort()]));
    assert.deepEqual(Object.keys(fields).sort(), [
      'delete_article', 'delete_article_by_pk', 'insert_article', 'insert_article_one', 'insert_author', 'insert_author_one',
      'update_article', 'update_article_by_pk', 'update_article_many',
    ]);
    assert.deepEqual(fields.insert_author, ['objects']);
    assert.deepEqual(fields.insert_article, ['objects', 'on_conflict']);
    assert.ok(fields.update_article.includes('_append') && fields.update_article.includes('_inc'));
    assert.deepEqual(data.ins.inputFields.map((f: { name: string }) => f.name).sort(), ['articles', 'id', 'name']);
    assert.deepEqual(data.set.inputFields.map((f: { name: string }) => f.name).sort(), ['content', 'meta', 'title', 'views']);
    const nobody = await fails('mutation { insert_author(objects: []) { affected_rows } }', { 'x-svc-role': 'nobody' });
    assert.equal(nobody.message, 'no mutations exist');
  });
});
