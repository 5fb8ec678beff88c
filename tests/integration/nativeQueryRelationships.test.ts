/**
 * Relationships of Hasura v2's native queries (`object_relationships` / `array_relationships` of
 * `pg_track_native_query`, `{name, using: {column_mapping, insertion_order, remote_table |
 * remote_native_query}}`) over HTTP on a real database: to tracked tables and to other native
 * queries, object and array, nested, with the target's permissions (a table's select permission, a
 * logical model's), roles and an inherited role, the target native query's `args` as bound
 * parameters (an injection attempt through the join), logical-model fields of a logical-model type
 * served by the relationship of that name, the checks when tracked, untrack dependencies, the
 * version-3 export, replace_metadata and the CLI folder round trip.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { dirContents } from '../support/cliInProcess.js';

const SCHEMA = `
CREATE TABLE author (id int PRIMARY KEY, name text NOT NULL, email text NOT NULL);
INSERT INTO author VALUES (1, 'ann', 'ann@example.com'), (2, 'bob', 'bob@example.com'), (3, 'cid', 'cid@example.com');
CREATE TABLE article (id int PRIMARY KEY, title text NOT NULL, body text NOT NULL, author_id int NOT NULL, published boolean NOT NULL);
INSERT INTO article VALUES
  (1, 'alpha', 'the first article', 1, true),
  (2, 'beta', 'a second one', 1, false),
  (3, 'gamma', 'the third of them', 2, true);
CREATE TABLE canary (n int);
INSERT INTO canary VALUES (1);
`;

const META = (e: TestEngine, type: string, args: Record<string, unknown>) => e.request('POST', '/v1/metadata', { type, args: { source: 'default', ...args } });

const ARTICLE_LM = {
  name: 'article_lm',
  fields: [
    { name: 'id', type: { scalar: 'integer', nullable: false } },
    { name: 'title', type: { scalar: 'text', nullable: false } },
    { name: 'excerpt', type: { scalar: 'text', nullable: true } },
    { name: 'author_id', type: { scalar: 'integer', nullable: false } },
    { name: 'published', type: { scalar: 'boolean', nullable: false } },
  ],
};

/** `articles`: a field of a logical-model type, served by the native query's relationship of that name. */
const AUTHOR_LM = {
  name: 'author_lm',
  fields: [
    { name: 'id', type: { scalar: 'integer', nullable: false } },
    { name: 'name', type: { scalar: 'text', nullable: false } },
    { name: 'articles', type: { array: { logical_model: 'article_lm' } } },
  ],
};

const STATS_LM = {
  name: 'stats_lm',
  fields: [
    { name: 'article_id', type: { scalar: 'integer', nullable: false } },
    { name: 'words', type: { scalar: 'integer', nullable: true } },
    { name: 'author_id', type: { scalar: 'integer', nullable: false } },
  ],
};

const GET_ARTICLES = {
  root_field_name: 'get_articles',
  code: 'SELECT id, title, substring(body, 1, {{length}}) AS excerpt, author_id, published FROM article',
  arguments: { length: { type: 'integer', nullable: false } },
  returns: 'article_lm',
  object_relationships: [{ name: 'author', using: { column_mapping: { author_id: 'id' }, insertion_order: null, remote_table: { schema: 'public', name: 'author' } } }],
};

const GET_AUTHORS = {
  root_field_name: 'get_authors',
  code: 'SELECT id, name FROM author WHERE name <> {{skip}}',
  arguments: { skip: { type: 'text', nullable: false } },
  returns: 'author_lm',
  array_relationships: [
    { name: 'articles', using: { column_mapping: { id: 'author_id' }, insertion_order: null, remote_native_query: 'get_articles' } },
    { name: 'article_rows', using: { column_mapping: { id: 'author_id' }, insertion_order: null, remote_table: { schema: 'public', name: 'article' } } },
  ],
};

const ARTICLE_STATS = {
  root_field_name: 'article_stats',
  code: "SELECT id AS article_id, array_length(regexp_split_to_array(body, ' '), 1) AS words, author_id FROM article",
  arguments: {},
  returns: 'stats_lm',
  object_relationships: [{ name: 'writer', using: { column_mapping: { author_id: 'id' }, insertion_order: null, remote_native_query: 'get_authors' } }],
};

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine();
  t.after(() => e.stop());
  await e.runSql(SCHEMA);
  for (const table of ['author', 'article']) assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: table } })).status, 200);
  const steps: Array<[string, Record<string, unknown>]> = [
    ['pg_track_logical_model', ARTICLE_LM],
    ['pg_track_logical_model', AUTHOR_LM],
    ['pg_track_logical_model', STATS_LM],
    ['pg_track_native_query', GET_ARTICLES],
    ['pg_track_native_query', GET_AUTHORS],
    ['pg_track_native_query', ARTICLE_STATS],
  ];
  for (const [type, args] of steps) {
    const r = await META(e, type, args);
    assert.equal(r.status, 200, `${type}: ${r.text}`);
  }
  return e;
}

test('relationships of native queries: to a table and to native queries, object and array, nested, with args, where and order_by', async (t) => {
  const e = await setup(t);
  const q = `{
    get_authors(args: {skip: "cid"}, order_by: {id: asc}) {
      name
      short: articles(args: {length: 5}, order_by: {id: asc}) { id excerpt author { email } }
      published: articles(args: {length: 100}, where: {published: {_eq: true}}) { title }
      article_rows(order_by: {id: desc}, limit: 1) { title }
    }
  }`;
  assert.deepEqual((await e.graphql(q)).body, { data: { get_authors: [
    {
      name: 'ann',
      short: [{ id: 1, excerpt: 'the f', author: { email: 'ann@example.com' } }, { id: 2, excerpt: 'a sec', author: { email: 'ann@example.com' } }],
      published: [{ title: 'alpha' }],
      article_rows: [{ title: 'beta' }],
    },
    { name: 'bob', short: [{ id: 3, excerpt: 'the t', author: { email: 'bob@example.com' } }], published: [{ title: 'gamma' }], article_rows: [{ title: 'gamma' }] },
  ] } });
  // Object relationship to a native query: its `args`; no row (here: the author skipped) → null.
  const stats = await e.graphql('query ($s: String!) { article_stats(order_by: {article_id: asc}) { article_id words writer(args: {skip: $s}) { name } } }', { s: 'bob' });
  assert.deepEqual(stats.body, { data: { article_stats: [
    { article_id: 1, words: 3, writer: { name: 'ann' } },
    { article_id: 2, words: 3, writer: { name: 'ann' } },
    { article_id: 3, words: 4, writer: null },
  ] } });
  // Three levels: native query → native query → native query → table.
  const deep = await e.graphql('{ article_stats(where: {article_id: {_eq: 3}}) { writer(args: {skip: ""}) { articles(args: {length: 3}) { excerpt author { name } } } } }');
  assert.deepEqual(deep.body, { data: { article_stats: [{ writer: { articles: [{ excerpt: 'the', author: { name: 'bob' } }] } }] } });
  // One SQL statement for the root field, the relationships as lateral subqueries.
  const explained = await e.request('POST', '/v1/graphql/explain', { query: { query: q } });
  assert.equal(explained.status, 200, explained.text);
  assert.equal(explained.body.length, 1);
  assert.match(explained.body[0].sql, /LEFT JOIN LATERAL/);
  // The type of a native query with relationships is its own, named after its root field (as in Hasura).
  const intro = await e.graphql('{ __type(name: "get_authors") { fields { name args { name } type { kind name ofType { kind name ofType { name } } } } } }');
  const fields = Object.fromEntries(intro.body.data.__type.fields.map((f: { name: string }) => [f.name, f]));
  assert.deepEqual(Object.keys(fields), ['article_rows', 'articles', 'id', 'name']);
  assert.deepEqual(fields.articles.type, { kind: 'LIST', name: null, ofType: { kind: 'NON_NULL', name: null, ofType: { name: 'get_articles' } } });
  assert.deepEqual(fields.articles.args.map((a: { name: string }) => a.name), ['args', 'distinct_on', 'limit', 'offset', 'order_by', 'where']);
  assert.deepEqual(fields.article_rows.type, { kind: 'NON_NULL', name: null, ofType: { kind: 'LIST', name: null, ofType: { name: null } } });
  const writer = (await e.graphql('{ __type(name: "article_stats") { fields { name args { name } type { kind name } } } }')).body.data.__type.fields.find((f: { name: string }) => f.name === 'writer');
  assert.deepEqual(writer, { name: 'writer', args: [{ name: 'args' }], type: { kind: 'OBJECT', name: 'get_authors' } });
  // Relationships are not in the logical model's where / order_by (as in Hasura).
  const inWhere = await e.graphql('{ get_authors(args: {skip: ""}, where: {articles: {id: {_eq: 1}}}) { name } }');
  assert.equal(inWhere.body.errors[0].extensions.code, 'validation-failed');
  // A required argument of the target native query is required in the relationship field.
  const noArgs = await e.graphql('{ article_stats { writer { name } } }');
  assert.equal(noArgs.body.errors[0].extensions.code, 'validation-failed');
});

test('the target native query\'s arguments are bound parameters through the join: injection attempts stay values', async (t) => {
  const e = await setup(t);
  const run = async (skip: unknown) => (await e.graphql('query ($s: String!) { article_stats(order_by: {article_id: asc}) { article_id writer(args: {skip: $s}) { id } } }', { s: skip })).body;
  for (const attack of ["ann' OR '1'='1", "x'; DROP TABLE canary; --", 'x) OR true; DROP TABLE canary; --', "'); DELETE FROM author; --"]) {
    assert.deepEqual(await run(attack), { data: { article_stats: [
      { article_id: 1, writer: { id: 1 } }, { article_id: 2, writer: { id: 1 } }, { article_id: 3, writer: { id: 2 } },
    ] } }, attack);
  }
  const inline = await e.graphql(`{ get_authors(args: {skip: "nobody"}, order_by: {id: asc}) { id articles(args: {length: 1}, where: {title: {_eq: "alpha' OR 1=1 --"}}) { id } } }`);
  assert.deepEqual(inline.body, { data: { get_authors: [{ id: 1, articles: [] }, { id: 2, articles: [] }, { id: 3, articles: [] }] } });
  // A number that is not a number is refused before any SQL.
  const notInt = await e.graphql('{ get_authors(args: {skip: ""}) { articles(args: {length: "1; DROP TABLE canary"}) { id } } }');
  assert.equal(notInt.body.errors[0].extensions.code, 'validation-failed');
  assert.deepEqual((await e.runSql('SELECT (SELECT count(*) FROM canary), (SELECT count(*) FROM author)')).result, [['count', 'count'], ['1', '3']]);
});

test('roles: the target\'s permission applies (a table\'s select filter, a logical model\'s), no permission no field, an inherited role combines them', async (t) => {
  const e = await setup(t);
  for (const r of [
    await META(e, 'pg_create_logical_model_select_permission', { name: 'article_lm', role: 'user', permission: { columns: '*', filter: { published: { _eq: true } } } }),
    await META(e, 'pg_create_logical_model_select_permission', { name: 'author_lm', role: 'user', permission: { columns: ['id', 'name'], filter: {} } }),
    await META(e, 'pg_create_select_permission', { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } }),
    await META(e, 'pg_create_logical_model_select_permission', { name: 'article_lm', role: 'editor', permission: { columns: ['id', 'title', 'author_id'], filter: { author_id: { _eq: 'X-Svc-User-Id' } } } }),
    await e.query({ type: 'add_inherited_role', args: { role_name: 'both', role_set: ['user', 'editor'] } }),
  ]) assert.equal(r.status, 200, r.text);
  const as = (role: string, id: string) => ({ 'x-svc-role': role, 'x-svc-user-id': id });
  // user 1: published articles only (the logical model's filter), the author only where it is user 1 (the table's filter).
  const user = await e.graphql('{ get_authors(args: {skip: ""}, order_by: {id: asc}) { id articles(args: {length: 3}, order_by: {id: asc}) { id author { name } } } }', undefined, as('user', '1'));
  assert.deepEqual(user.body, { data: { get_authors: [
    { id: 1, articles: [{ id: 1, author: { name: 'ann' } }] },
    { id: 2, articles: [{ id: 3, author: null }] },
    { id: 3, articles: [] },
  ] } });
  // The table's hidden column is not in the role's type.
  const email = await e.graphql('{ get_articles(args: {length: 1}) { author { email } } }', undefined, as('user', '1'));
  assert.equal(email.body.errors[0].extensions.code, 'validation-failed');
  // editor: no permission on the table author nor on author_lm: no `author` field, no get_authors root field.
  const editorAuthor = await e.graphql('{ get_articles(args: {length: 1}) { id author { name } } }', undefined, as('editor', '1'));
  assert.equal(editorAuthor.body.errors[0].extensions.code, 'validation-failed');
  assert.match(editorAuthor.body.errors[0].message, /author/);
  const editor = await e.graphql('{ get_articles(args: {length: 1}, order_by: {id: asc}) { id title } }', undefined, as('editor', '1'));
  assert.deepEqual(editor.body, { data: { get_articles: [{ id: 1, title: 'alpha' }, { id: 2, title: 'beta' }] } });
  assert.equal((await e.graphql('{ get_authors(args: {skip: ""}) { id } }', undefined, as('editor', '1'))).body.errors[0].extensions.code, 'validation-failed');
  // both = user + editor: rows of either (published, or by user 1); `excerpt` (user only) where user's filter holds.
  const both = await e.graphql('{ get_authors(args: {skip: ""}, order_by: {id: asc}) { id articles(args: {length: 3}, order_by: {id: asc}) { id excerpt author { name } } } }', undefined, as('both', '1'));
  assert.deepEqual(both.body, { data: { get_authors: [
    { id: 1, articles: [{ id: 1, excerpt: 'the', author: { name: 'ann' } }, { id: 2, excerpt: null, author: { name: 'ann' } }] },
    { id: 2, articles: [{ id: 3, excerpt: 'the', author: null }] },
    { id: 3, articles: [] },
  ] } });
  // @cached: keyed per role and session variable.
  const cached = 'query @cached(ttl: 30) { get_articles(args: {length: 2}, order_by: {id: asc}) { id author { name } } }';
  assert.deepEqual((await e.graphql(cached, undefined, as('user', '1'))).body.data.get_articles, [{ id: 1, author: { name: 'ann' } }, { id: 3, author: null }]);
  assert.deepEqual((await e.graphql(cached, undefined, as('user', '2'))).body.data.get_articles, [{ id: 1, author: null }, { id: 3, author: { name: 'bob' } }]);
});

test('checks when tracked, untrack dependencies, export in Hasura\'s shape and replace_metadata round trip', async (t) => {
  const e = await setup(t);
  const tryTrack = (nq: Record<string, unknown>) => META(e, 'pg_track_native_query', { ...GET_ARTICLES, root_field_name: 'other', object_relationships: undefined, ...nq });
  const rel = (using: Record<string, unknown>, name = 'r') => ({ object_relationships: [{ name, using }] });
  const cases: Array<[Record<string, unknown>, string, RegExp]> = [
    [rel({ column_mapping: { author_id: 'id' }, remote_table: 'canary' }), 'constraint-violation', /table "canary" is not tracked/],
    [rel({ column_mapping: { author_id: 'id' }, remote_native_query: 'nope' }), 'constraint-violation', /native query "nope" not found/],
    [rel({ column_mapping: { nope: 'id' }, remote_table: 'author' }), 'constraint-violation', /field "nope" of logical model "article_lm" not found/],
    [rel({ column_mapping: { author_id: 'nope' }, remote_table: 'author' }), 'constraint-violation', /column "nope" of table "author" not found/],
    [rel({ column_mapping: { author_id: 'id' }, remote_table: 'author' }, 'title'), 'constraint-violation', /has a field of that name/],
    [rel({ column_mapping: { author_id: 'id' }, remote_table: 'author', remote_native_query: 'get_authors' }), 'parse-failed', /exactly one of/],
    [rel({ column_mapping: { author_id: 'id' } }), 'parse-failed', /exactly one of/],
    [{ object_relationships: [{ name: 'a', using: { column_mapping: { author_id: 'id' }, remote_table: 'author' } }], array_relationships: [{ name: 'a', using: { column_mapping: { author_id: 'id' }, remote_table: 'author' } }] }, 'parse-failed', /duplicate relationships: a/],
  ];
  for (const [nq, code, message] of cases) {
    const r = await tryTrack(nq);
    assert.deepEqual([r.status, r.body.code], [400, code], JSON.stringify(nq) + r.text);
    assert.match(r.body.error, message);
  }
  // A model field of a logical-model type needs a relationship of that name and kind.
  const noSlot = await META(e, 'pg_track_native_query', { ...GET_AUTHORS, root_field_name: 'authors2', array_relationships: [] });
  assert.deepEqual([noSlot.status, noSlot.body.code], [400, 'constraint-violation']);
  assert.match(noSlot.body.error, /field "articles" of logical model "author_lm" is of a logical model type/);
  const unknownModel = await META(e, 'pg_track_logical_model', { name: 'x', fields: [{ name: 'id', type: { scalar: 'integer' } }, { name: 'y', type: { logical_model: 'nope' } }] });
  assert.deepEqual([unknownModel.status, unknownModel.body.code], [400, 'constraint-violation']);
  // A relationship from a table to a native query is refused with a reason.
  const fromTable = await META(e, 'pg_create_array_relationship', { table: 'author', name: 'nq_articles', using: { manual_configuration: { remote_native_query: 'get_articles', column_mapping: { id: 'author_id' } } } });
  assert.deepEqual([fromTable.status, fromTable.body.code], [400, 'not-supported']);
  // Nothing above changed the metadata.
  const before = (await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body;
  assert.deepEqual(before.sources[0].native_queries.map((n: { root_field_name: string }) => n.root_field_name), ['get_articles', 'get_authors', 'article_stats']);

  // Untracking a target refuses while something depends on it.
  const nqInUse = await META(e, 'pg_untrack_native_query', { root_field_name: 'get_authors' });
  assert.deepEqual([nqInUse.status, nqInUse.body.code], [400, 'dependency-error']);
  assert.match(nqInUse.body.error, /native_query article_stats/);
  const tableInUse = await e.query({ type: 'untrack_table', args: { table: 'author' } });
  assert.deepEqual([tableInUse.status, tableInUse.body.code], [400, 'dependency-error']);
  assert.match(tableInUse.body.error, /native_query get_articles/);
  const modelInUse = await META(e, 'pg_untrack_logical_model', { name: 'article_lm' });
  assert.deepEqual([modelInUse.status, modelInUse.body.code], [400, 'dependency-error']);

  // Export: Hasura's shape, the relationships on the native queries, the reference field on the model.
  const source = before.sources[0];
  assert.deepEqual(source.native_queries, [GET_ARTICLES, GET_AUTHORS, ARTICLE_STATS]);
  // pg_get_native_query / pg_get_logical_model: the same lists; another source is not found.
  assert.deepEqual((await META(e, 'pg_get_native_query', {})).body, source.native_queries);
  assert.deepEqual((await META(e, 'pg_get_logical_model', {})).body, source.logical_models);
  const otherSource = await e.request('POST', '/v1/metadata', { type: 'pg_get_native_query', args: { source: 'nope' } });
  assert.deepEqual([otherSource.status, otherSource.body.code], [400, 'not-exists']);
  // (the export writes every `nullable`, Hasura's default `true` included)
  assert.deepEqual(source.logical_models.find((m: { name: string }) => m.name === 'author_lm').fields[2], { name: 'articles', type: { array: { logical_model: 'article_lm', nullable: true }, nullable: true } });
  // replace_metadata with the export (mutual references resolve together), then the same export.
  const mutual = structuredClone(before);
  mutual.sources[0].native_queries[0].object_relationships.push({ name: 'stats', using: { column_mapping: { id: 'article_id' }, remote_native_query: 'article_stats' } });
  const replaced = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: mutual });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual((await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body, mutual);
  const r = await e.graphql('{ get_articles(args: {length: 1}, where: {id: {_eq: 3}}) { stats { words writer(args: {skip: ""}) { name } } } }');
  assert.deepEqual(r.body, { data: { get_articles: [{ stats: { words: 4, writer: { name: 'bob' } } }] } });
  // A document whose relationship names a missing table is inconsistent; the native query is left out, and what needs it too.
  const broken = structuredClone(before);
  broken.sources[0].native_queries[1].array_relationships[1].using.remote_table = { schema: 'public', name: 'nope' };
  const b = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: { metadata: broken, allow_inconsistent_metadata: true } });
  assert.equal(b.status, 200, b.text);
  const inc = (await e.request('POST', '/v1/metadata', { type: 'get_inconsistent_metadata', args: {} })).body.inconsistent_objects;
  assert.deepEqual(inc.map((i: { type: string; definition: { root_field_name: string } }) => [i.type, i.definition.root_field_name]), [['native_query', 'get_authors'], ['native_query', 'article_stats']]);
  assert.match(inc[0].reason, /table "nope" is not tracked/);
  assert.match(inc[1].reason, /native query "get_authors" not found/);
  assert.deepEqual((await e.graphql('{ get_articles(args: {length: 1}, where: {id: {_eq: 1}}) { author { name } } }')).body, { data: { get_articles: [{ author: { name: 'ann' } }] } });
});

test('the Hasura CLI (config v3): native query relationships apply from the folder and export → apply → export is byte for byte', async (t) => {
  const e = await setup(t);
  const { mkdtemp, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { runCli } = await import('../../src/cli/index.js');
  const tmp = await mkdtemp(join(tmpdir(), 'svc-nqrel-cli-'));
  t.after(() => rm(tmp, { recursive: true, force: true }));
  const err: string[] = [];
  const io = { out: () => undefined, err: (l: string) => void err.push(l), progress: () => undefined, env: { SVC_GRAPHQL_ENDPOINT: e.url }, color: false };
  const dir = join(tmp, 'project');
  assert.equal(await runCli('metadata', ['export', '--dir', dir, '--format', 'v3'], io), 0, err.join('\n'));
  const first = await dirContents(dir);
  assert.match(first['databases/default/native_queries.yaml']!, /remote_native_query: get_articles/);
  assert.match(first['databases/default/native_queries.yaml']!, /remote_table:\n\s+name: author\n\s+schema: public/);
  assert.match(first['databases/default/logical_models.yaml']!, /logical_model: article_lm/);
  // Untrack everything native, then apply the folder: the relationships are back.
  for (const n of ['article_stats', 'get_authors', 'get_articles']) assert.equal((await META(e, 'pg_untrack_native_query', { root_field_name: n })).status, 200);
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], io), 0, err.join('\n'));
  const r = await e.graphql('{ article_stats(where: {article_id: {_eq: 1}}) { writer(args: {skip: ""}) { article_rows(order_by: {id: asc}) { id } } } }');
  assert.deepEqual(r.body, { data: { article_stats: [{ writer: { article_rows: [{ id: 1 }, { id: 2 }] } }] } });
  const dir2 = join(tmp, 'again');
  assert.equal(await runCli('metadata', ['export', '--dir', dir2, '--format', 'v3'], io), 0, err.join('\n'));
  assert.deepEqual(await dirContents(dir2), first);
});

test('a live query over a native query\'s relationship to a table: a new answer after a write to the table', async (t) => {
  const e = await setup(t);
  const { openTransportWs } = await import('./subscriptionsClient.js');
  const s = await openTransportWs(e.url, {});
  t.after(() => s.ws.close());
  s.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { get_articles(args: {length: 1}, where: {id: {_eq: 3}}) { id author { name } } }' } });
  assert.deepEqual(await s.next(10_000), { id: '1', type: 'next', payload: { data: { get_articles: [{ id: 3, author: { name: 'bob' } }] } } });
  await e.runSql("UPDATE author SET name = 'bobby' WHERE id = 2");
  assert.deepEqual(await s.next(20_000), { id: '1', type: 'next', payload: { data: { get_articles: [{ id: 3, author: { name: 'bobby' } }] } } });
});

test('run_sql renames of a target table and column follow into the relationships; dropping the target is a dependency error', async (t) => {
  const e = await setup(t);
  const renamed = await e.query({ type: 'run_sql', args: { sql: 'ALTER TABLE author RENAME TO writer; ALTER TABLE writer RENAME COLUMN id TO writer_id;' } });
  assert.equal(renamed.status, 200, renamed.text);
  const nq = (await META(e, 'pg_get_native_query', {})).body.find((n: { root_field_name: string }) => n.root_field_name === 'get_articles');
  assert.deepEqual(nq.object_relationships[0].using, { column_mapping: { author_id: 'writer_id' }, insertion_order: null, remote_table: { schema: 'public', name: 'writer' } });
  const r = await e.graphql('{ get_articles(args: {length: 1}, where: {id: {_eq: 3}}) { author { name } } }');
  assert.deepEqual(r.body, { data: { get_articles: [{ author: { name: 'bob' } }] } });
  const drop = await e.query({ type: 'run_sql', args: { sql: 'DROP TABLE writer' } });
  assert.deepEqual([drop.status, drop.body.code], [400, 'dependency-error']);
  assert.match(drop.body.error, /native_query get_articles/);
});

test('a native query with relationships named like its logical model (Hasura\'s own examples do this); a second use of the model\'s type is refused', async (t) => {
  const e = await setup(t);
  const model = { name: 'writer', fields: [{ name: 'id', type: { scalar: 'integer', nullable: false } }, { name: 'name', type: { scalar: 'text', nullable: false } }] };
  assert.equal((await META(e, 'pg_track_logical_model', model)).status, 200);
  const nq = { root_field_name: 'writer', code: 'SELECT id, name FROM author', returns: 'writer', array_relationships: [{ name: 'pieces', using: { column_mapping: { id: 'author_id' }, remote_table: 'article' } }] };
  const tracked = await META(e, 'pg_track_native_query', nq);
  assert.equal(tracked.status, 200, tracked.text);
  const r = await e.graphql('{ writer(where: {id: {_eq: 2}}) { name pieces { title } } __type(name: "writer") { fields { name } } }');
  assert.deepEqual(r.body, { data: { writer: [{ name: 'bob', pieces: [{ title: 'gamma' }] }], __type: { fields: [{ name: 'id' }, { name: 'name' }, { name: 'pieces' }] } } });
  const plain = await META(e, 'pg_track_native_query', { root_field_name: 'plain_writers', code: 'SELECT id, name FROM author', returns: 'writer' });
  assert.deepEqual([plain.status, plain.body], [400, { path: '$.args', error: 'following types are duplicated: "writer"', code: 'unexpected' }]);
  assert.equal((await e.graphql('{ writer(where: {id: {_eq: 1}}) { pieces(order_by: {id: asc}) { id } } }')).body.data.writer[0].pieces.length, 2);
});
