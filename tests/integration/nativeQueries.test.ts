/**
 * Hasura v2's logical models and native queries over HTTP on a real database: tracked through
 * `/v1/metadata` (`pg_track_logical_model`, `pg_track_native_query`, permissions, untrack), checked
 * by Postgres at track time, exported in version 3 and replaced round trip; the root field with
 * `args`, where, order_by, limit, offset, distinct_on; permissions (columns, filter with session
 * variables), inherited roles and `@cached` keys per role; SQL injection tried through every
 * argument type.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';
import { dirContents } from '../support/cliInProcess.js';

const SCHEMA = `
CREATE TABLE article (id int PRIMARY KEY, title text NOT NULL, body text NOT NULL, owner int NOT NULL, tags text[] NOT NULL DEFAULT '{}', meta jsonb NOT NULL DEFAULT '{}');
INSERT INTO article VALUES
  (1, 'alpha', 'the first article body', 1, '{red,blue}', '{"lang":"en"}'),
  (2, 'beta', 'a second one', 2, '{blue}', '{"lang":"fr"}'),
  (3, 'gamma', 'third; with '' quote', 1, '{}', '{"lang":"en"}');
CREATE TABLE canary (n int);
INSERT INTO canary VALUES (1);
`;

const META = (e: TestEngine, type: string, args: Record<string, unknown>) => e.request('POST', '/v1/metadata', { type, args: { source: 'default', ...args } });

const MODEL = {
  name: 'article_excerpt',
  description: 'an article with the start of its body',
  fields: [
    { name: 'id', type: { scalar: 'integer', nullable: false } },
    { name: 'title', type: { scalar: 'text', nullable: false } },
    { name: 'excerpt', type: { scalar: 'text', nullable: true }, description: 'the first characters' },
    { name: 'owner', type: { scalar: 'integer', nullable: false } },
  ],
};

const NATIVE_QUERY = {
  root_field_name: 'article_with_excerpt',
  code: 'SELECT id, title, (substring(body, 1, {{max_length}}) || {{suffix}}) AS excerpt, owner FROM article',
  arguments: { max_length: { type: 'integer', nullable: false }, suffix: { type: 'text', nullable: true } },
  returns: 'article_excerpt',
};

async function setup(t: { after: (fn: () => Promise<void>) => void }): Promise<TestEngine> {
  const e = await startTestEngine();
  t.after(() => e.stop());
  await e.runSql(SCHEMA);
  for (const [type, args] of [['pg_track_logical_model', MODEL], ['pg_track_native_query', NATIVE_QUERY]] as const) {
    const r = await META(e, type, args);
    assert.equal(r.status, 200, r.text);
  }
  return e;
}

test('native query: tracked, queried with args, where, order_by, limit, offset, distinct_on', async (t) => {
  const e = await setup(t);
  const q = `query ($n: Int!) { article_with_excerpt(args: {max_length: $n, suffix: "…"}, where: {owner: {_eq: 1}}, order_by: {id: desc}) { id title excerpt } }`;
  assert.deepEqual((await e.graphql(q, { n: 5 })).body, { data: { article_with_excerpt: [
    { id: 3, title: 'gamma', excerpt: 'third…' },
    { id: 1, title: 'alpha', excerpt: 'the f…' },
  ] } });
  const paged = await e.graphql('{ article_with_excerpt(args: {max_length: 1}, order_by: {id: asc}, limit: 1, offset: 1) { id excerpt } }');
  // suffix omitted: null, and text || null is null.
  assert.deepEqual(paged.body, { data: { article_with_excerpt: [{ id: 2, excerpt: null }] } });
  const distinct = await e.graphql('{ article_with_excerpt(args: {max_length: 1}, distinct_on: [owner], order_by: [{owner: asc}, {id: desc}]) { id owner } }');
  assert.deepEqual(distinct.body, { data: { article_with_excerpt: [{ id: 3, owner: 1 }, { id: 2, owner: 2 }] } });
  // A required argument missing is a validation error in Hasura's shape.
  const missing = await e.graphql('{ article_with_excerpt { id } }');
  assert.equal(missing.body.errors[0].extensions.code, 'validation-failed');
  // The logical model's type and the arguments' input type are in the schema.
  const intro = await e.graphql('{ __type(name: "article_excerpt") { description fields { name type { kind name ofType { name } } } } }');
  assert.equal(intro.body.data.__type.description, 'an article with the start of its body\n\n\ncolumns and relationships of "article_excerpt"\n');
  assert.deepEqual(intro.body.data.__type.fields.map((f: { name: string }) => f.name), ['excerpt', 'id', 'owner', 'title']);
  const args = await e.graphql('{ __type(name: "article_with_excerpt_arguments") { inputFields { name type { kind name ofType { name } } } } }');
  assert.deepEqual(args.body.data.__type.inputFields, [
    { name: 'max_length', type: { kind: 'NON_NULL', name: null, ofType: { name: 'Int' } } },
    { name: 'suffix', type: { kind: 'SCALAR', name: 'String', ofType: null } },
  ]);
});

test('native query arguments are bound parameters: injection through text, numbers, arrays and json', async (t) => {
  const e = await setup(t);
  const model = { name: 'row_id', fields: [{ name: 'id', type: { scalar: 'integer', nullable: false } }] };
  assert.equal((await META(e, 'pg_track_logical_model', model)).status, 200);
  const nq = {
    root_field_name: 'find_articles',
    code: `SELECT id FROM article
            WHERE ({{title}} IS NULL OR title = {{title}})
              AND ({{min_id}} IS NULL OR id >= {{min_id}})
              AND ({{tags}} IS NULL OR tags && {{tags}})
              AND ({{meta}} IS NULL OR meta @> {{meta}})
              AND ({{ratio}} IS NULL OR id::numeric >= {{ratio}})`,
    arguments: {
      title: { type: 'text', nullable: true },
      min_id: { type: 'integer', nullable: true },
      tags: { type: 'text[]', nullable: true },
      meta: { type: 'jsonb', nullable: true },
      ratio: { type: 'numeric', nullable: true },
    },
    returns: 'row_id',
  };
  const tracked = await META(e, 'pg_track_native_query', nq);
  assert.equal(tracked.status, 200, tracked.text);
  const run = async (args: Record<string, unknown>) =>
    (await e.graphql('query ($a: find_articles_arguments) { find_articles(args: $a, order_by: {id: asc}) { id } }', { a: args })).body;
  // Honest values first.
  assert.deepEqual(await run({ title: 'alpha' }), { data: { find_articles: [{ id: 1 }] } });
  assert.deepEqual(await run({ min_id: 2 }), { data: { find_articles: [{ id: 2 }, { id: 3 }] } });
  assert.deepEqual(await run({ tags: '{blue}' }), { data: { find_articles: [{ id: 1 }, { id: 2 }] } });
  assert.deepEqual(await run({ meta: { lang: 'fr' } }), { data: { find_articles: [{ id: 2 }] } });
  assert.deepEqual(await run({ ratio: '2.5' }), { data: { find_articles: [{ id: 3 }] } });
  // Injection attempts: each is a value, compared as a value (no rows, or a type error), never SQL.
  const attacks: Array<Record<string, unknown>> = [
    { title: "alpha' OR '1'='1" },
    { title: "x'; DROP TABLE canary; --" },
    { title: 'x); DROP TABLE canary; --' },
    { tags: "{blue}'); DROP TABLE canary; --" },
    { meta: { lang: "en'; DROP TABLE canary; --" } },
    { meta: "'; DROP TABLE canary; --" },
  ];
  for (const a of attacks) {
    const r = await run(a);
    if (r.data) assert.deepEqual(r.data, { find_articles: [] }, JSON.stringify(a));
    else assert.equal(typeof r.errors[0].message, 'string', JSON.stringify(a));
  }
  // Numbers that are not numbers are refused before any SQL.
  for (const a of [{ min_id: '1 OR 1=1' }, { min_id: '1; DROP TABLE canary' }, { ratio: '1; DROP TABLE canary' }]) {
    const r = await run(a);
    assert.ok(r.errors, JSON.stringify(a));
  }
  // Inline literals in the query text are parameters too.
  const inline = await e.graphql(`{ find_articles(args: {title: "alpha' OR 1=1; DROP TABLE canary; --"}) { id } }`);
  assert.deepEqual(inline.body, { data: { find_articles: [] } });
  const canary = await e.runSql('SELECT count(*) FROM canary');
  assert.deepEqual(canary.result, [['count'], ['1']]);
});

test('permissions: columns and a filter with session variables; no permission, no field; inherited roles; @cached per role', async (t) => {
  const e = await setup(t);
  const perm = (role: string, permission: Record<string, unknown>) => META(e, 'pg_create_logical_model_select_permission', { name: 'article_excerpt', role, permission });
  for (const r of [
    await perm('user', { columns: ['id', 'title'], filter: { owner: { _eq: 'X-Svc-User-Id' } } }),
    await perm('editor', { columns: ['id', 'excerpt'], filter: { id: { _gt: 1 } } }),
    await e.query({ type: 'add_inherited_role', args: { role_name: 'both', role_set: ['user', 'editor'] } }),
  ]) assert.equal(r.status, 200, r.text);
  const q = '{ article_with_excerpt(args: {max_length: 3}, order_by: {id: asc}) { id title } }';
  const user = (id: string) => ({ 'x-svc-role': 'user', 'x-svc-user-id': id });
  assert.deepEqual((await e.graphql(q, undefined, user('1'))).body, { data: { article_with_excerpt: [{ id: 1, title: 'alpha' }, { id: 3, title: 'gamma' }] } });
  assert.deepEqual((await e.graphql(q, undefined, user('2'))).body, { data: { article_with_excerpt: [{ id: 2, title: 'beta' }] } });
  // A column outside the permission is not in the role's type.
  const hidden = await e.graphql('{ article_with_excerpt(args: {max_length: 3}) { excerpt } }', undefined, user('1'));
  assert.equal(hidden.body.errors[0].extensions.code, 'validation-failed');
  // A role without a permission has no such field.
  const none = await e.graphql(q, undefined, { 'x-svc-role': 'stranger' });
  assert.equal(none.body.errors[0].extensions.code, 'validation-failed');
  // Inherited role: rows of either member; `title` (user only) shown where user's filter holds, `excerpt` where editor's does.
  const both = await e.graphql('{ article_with_excerpt(args: {max_length: 3}, order_by: {id: asc}) { id title excerpt } }', undefined, { 'x-svc-role': 'both', 'x-svc-user-id': '2' });
  assert.deepEqual(both.body, { data: { article_with_excerpt: [
    { id: 2, title: 'beta', excerpt: null },
    { id: 3, title: null, excerpt: null },
  ] } });
  // @cached: one entry per role and per session variable the filter reads.
  const cached = `query @cached(ttl: 30) ${q}`;
  assert.deepEqual((await e.graphql(cached, undefined, user('1'))).body.data.article_with_excerpt.map((r: { id: number }) => r.id), [1, 3]);
  assert.deepEqual((await e.graphql(cached, undefined, user('2'))).body.data.article_with_excerpt.map((r: { id: number }) => r.id), [2]);
  await e.runSql("UPDATE article SET title = 'ALPHA' WHERE id = 1");
  assert.equal((await e.graphql(cached, undefined, user('1'))).body.data.article_with_excerpt[0].title, 'alpha', 'a hit for user 1');
  const admin = await e.graphql(cached);
  assert.equal(admin.body.data.article_with_excerpt[0].title, 'ALPHA', 'admin has its own entry');
  // Dropping the permission removes the field for that role (the inherited role naming it goes first).
  assert.equal((await e.query({ type: 'drop_inherited_role', args: { role_name: 'both' } })).status, 200);
  const drop = await META(e, 'pg_drop_logical_model_select_permission', { name: 'article_excerpt', role: 'editor' });
  assert.equal(drop.status, 200, drop.text);
  const dropped = await e.graphql(q, undefined, { 'x-svc-role': 'editor' });
  assert.equal(dropped.body.errors[0].extensions.code, 'validation-failed');
});

test('track-time checks, errors in Hasura\'s shape, untrack, export and replace round trip in version 3', async (t) => {
  const e = await setup(t);
  const again = await META(e, 'pg_track_native_query', NATIVE_QUERY);
  assert.deepEqual([again.status, again.body.code], [400, 'already-tracked']);
  const badSql = await META(e, 'pg_track_native_query', { ...NATIVE_QUERY, root_field_name: 'broken', code: 'SELECT id, title, body AS excerpt, owner FROM no_such_table' });
  assert.equal(badSql.status, 400);
  assert.equal(badSql.body.code, 'validation-failed');
  assert.match(badSql.body.error, /no_such_table/);
  const missingColumn = await META(e, 'pg_track_native_query', { ...NATIVE_QUERY, root_field_name: 'short', code: 'SELECT id FROM article' });
  assert.deepEqual([missingColumn.status, missingColumn.body.code], [400, 'validation-failed']);
  const undeclared = await META(e, 'pg_track_native_query', { ...NATIVE_QUERY, root_field_name: 'undeclared', code: 'SELECT id, title, body AS excerpt, owner FROM article WHERE id = {{nope}}' });
  assert.deepEqual([undeclared.status, undeclared.body.code], [400, 'validation-failed']);
  const noModel = await META(e, 'pg_track_native_query', { ...NATIVE_QUERY, root_field_name: 'orphan', returns: 'nope' });
  assert.deepEqual([noModel.status, noModel.body.code], [400, 'not-found']);
  const badType = await META(e, 'pg_track_logical_model', { name: 'weird', fields: [{ name: 'x', type: { scalar: 'no_such_type' } }] });
  assert.deepEqual([badType.status, badType.body.code], [400, 'validation-failed']);
  const badPerm = await META(e, 'pg_create_logical_model_select_permission', { name: 'article_excerpt', role: 'user', permission: { columns: ['nope'], filter: {} } });
  assert.equal(badPerm.status, 400);
  const inUse = await META(e, 'pg_untrack_logical_model', { name: 'article_excerpt' });
  assert.deepEqual([inUse.status, inUse.body.code], [400, 'dependency-error']);
  assert.match(inUse.body.error, /native_query article_with_excerpt/);

  // Export: version 3, both lists on the default source.
  assert.equal((await META(e, 'pg_create_logical_model_select_permission', { name: 'article_excerpt', role: 'user', permission: { columns: '*', filter: { owner: { _eq: 'X-Svc-User-Id' } } } })).status, 200);
  const exported = (await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body;
  const source = exported.sources[0];
  assert.deepEqual(source.native_queries, [NATIVE_QUERY]);
  assert.deepEqual(source.logical_models, [{ ...MODEL, select_permissions: [{ role: 'user', permission: { columns: '*', filter: { owner: { _eq: 'X-Svc-User-Id' } } } }] }]);

  // Untrack both, the field is gone; replace_metadata with the export brings everything back.
  assert.equal((await META(e, 'pg_untrack_native_query', { root_field_name: 'article_with_excerpt' })).status, 200);
  assert.equal((await META(e, 'pg_untrack_logical_model', { name: 'article_excerpt' })).status, 200);
  const gone = await META(e, 'pg_untrack_native_query', { root_field_name: 'article_with_excerpt' });
  assert.deepEqual([gone.status, gone.body.code], [400, 'not-found']);
  assert.equal((await e.graphql('{ article_with_excerpt(args: {max_length: 1}) { id } }')).body.errors[0].extensions.code, 'validation-failed');
  const replaced = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: exported });
  assert.equal(replaced.status, 200, replaced.text);
  assert.deepEqual((await e.request('POST', '/v1/metadata', { type: 'export_metadata', args: {} })).body, exported);
  const back = await e.graphql('{ article_with_excerpt(args: {max_length: 2}, where: {id: {_eq: 2}}) { excerpt } }', undefined, { 'x-svc-role': 'user', 'x-svc-user-id': '2' });
  assert.deepEqual(back.body, { data: { article_with_excerpt: [{ excerpt: null }] } });
  const admin = await e.graphql('{ article_with_excerpt(args: {max_length: 2, suffix: "!"}, where: {id: {_eq: 2}}) { excerpt } }');
  assert.deepEqual(admin.body, { data: { article_with_excerpt: [{ excerpt: 'a !' }] } });

  // A document whose native query names a missing logical model is inconsistent, reported as such.
  const broken = structuredClone(exported);
  broken.sources[0].native_queries[0].returns = 'nope';
  const r = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', args: { metadata: broken, allow_inconsistent_metadata: true } });
  assert.equal(r.status, 200, r.text);
  const inc = await e.request('POST', '/v1/metadata', { type: 'get_inconsistent_metadata', args: {} });
  assert.equal(inc.body.inconsistent_objects[0].type, 'native_query');
  assert.match(inc.body.inconsistent_objects[0].reason, /logical model "nope" not found/);
});

test('the Hasura CLI (config v3): a project with logical models and native queries applies, and export → apply → export is byte for byte', async (t) => {
  const e = await startTestEngine({ adminSecret: 'nq-secret' });
  t.after(() => e.stop());
  await e.runSql(SCHEMA);
  const { mkdtemp, rm, writeFile, mkdir } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join, dirname } = await import('node:path');
  const { runCli } = await import('../../src/cli/index.js');
  const tmp = await mkdtemp(join(tmpdir(), 'svc-nq-cli-'));
  t.after(() => rm(tmp, { recursive: true, force: true }));
  const err: string[] = [];
  const io = { out: () => undefined, err: (l: string) => void err.push(l), progress: () => undefined, env: { SVC_GRAPHQL_ENDPOINT: e.url, SVC_GRAPHQL_ADMIN_SECRET: 'nq-secret' }, color: false };
  const files: Record<string, string> = {
    'version.yaml': 'version: 3\n',
    'databases/databases.yaml': [
      '- name: default', '  kind: postgres', '  configuration:', '    connection_info:', '      database_url:', '        from_env: HASURA_GRAPHQL_DATABASE_URL',
      '  tables: []',
      '  logical_models:', '  - name: mine', '    fields:', '    - name: id', '      type:', '        scalar: integer', '        nullable: false',
      '    - name: title', '      type:', '        scalar: text', '        nullable: false',
      '    - name: owner_id', '      type:', '        scalar: integer', '        nullable: false',
      '    select_permissions:', '    - role: user', '      permission:', '        columns: "*"', '        filter:', '          owner_id:', '            _eq: X-Hasura-User-Id',
      '  native_queries:', '  - root_field_name: titled', '    arguments:', '      prefix:', '        type: text', '        nullable: false',
      '    code: SELECT id, title, owner AS owner_id FROM article WHERE title LIKE {{prefix}} || \'%\'', '    returns: mine',
      '',
    ].join('\n'),
  };
  const dir = join(tmp, 'project');
  for (const [f, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, f)), { recursive: true });
    await writeFile(join(dir, f), text);
  }
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], io), 0, err.join('\n'));
  const asUser = { 'x-svc-admin-secret': 'nq-secret', 'x-svc-role': 'user', 'x-svc-user-id': '1' };
  const r = await e.graphql('{ titled(args: {prefix: "a"}) { id title } }', {}, asUser);
  assert.deepEqual(r.body, { data: { titled: [{ id: 1, title: 'alpha' }] } }, 'X-Hasura-User-Id mapped in the logical model permission');
  assert.equal(await runCli('metadata', ['export', '--dir', dir], io), 0, err.join('\n'));
  const first = await dirContents(dir);
  assert.match(first['databases/databases.yaml']!, /logical_models: "!include default\/logical_models.yaml"/);
  assert.match(first['databases/databases.yaml']!, /native_queries: "!include default\/native_queries.yaml"/);
  assert.match(first['databases/default/native_queries.yaml']!, /root_field_name: titled/);
  assert.match(first['databases/default/logical_models.yaml']!, /_eq: x-svc-user-id/);
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], io), 0, err.join('\n'));
  const dir2 = join(tmp, 'again');
  assert.equal(await runCli('metadata', ['export', '--dir', dir2, '--format', 'v3'], io), 0, err.join('\n'));
  assert.deepEqual(await dirContents(dir2), first);
});

test('a native query named like a table root field, or a logical model named like a table type, is refused and changes nothing', async (t) => {
  const e = await setup(t);
  assert.equal((await e.query({ type: 'track_table', args: { schema: 'public', name: 'article' } })).status, 200);
  const clash = await META(e, 'pg_track_native_query', { ...NATIVE_QUERY, root_field_name: 'article_aggregate' });
  assert.deepEqual([clash.status, clash.body], [400, { path: '$.args', error: 'following query root fields are duplicated: "article_aggregate"', code: 'unexpected' }]);
  const model = await META(e, 'pg_track_logical_model', { ...MODEL, name: 'article' });
  assert.deepEqual([model.status, model.body], [400, { path: '$.args', error: 'following types are duplicated: "article"', code: 'unexpected' }]);
  const r = await e.graphql('{ article(order_by: {id: asc}, limit: 1) { id } article_with_excerpt(args: {max_length: 1, suffix: ""}, limit: 1, order_by: {id: asc}) { excerpt } }');
  assert.deepEqual(r.body, { data: { article: [{ id: 1 }], article_with_excerpt: [{ excerpt: 't' }] } });
});

test('a native query as a live query (subscription_root): the first answer, then a new one after a write', async (t) => {
  const e = await setup(t);
  const { openTransportWs } = await import('./subscriptionsClient.js');
  const s = await openTransportWs(e.url, {});
  t.after(() => s.ws.close());
  s.send({ id: '1', type: 'subscribe', payload: { query: 'subscription ($n: Int!) { article_with_excerpt(args: {max_length: $n, suffix: ""}, where: {id: {_eq: 2}}) { id excerpt } }', variables: { n: 3 } } });
  assert.deepEqual(await s.next(10_000), { id: '1', type: 'next', payload: { data: { article_with_excerpt: [{ id: 2, excerpt: 'a s' }] } } });
  await e.runSql("UPDATE article SET body = 'xyz and more' WHERE id = 2");
  assert.deepEqual(await s.next(20_000), { id: '1', type: 'next', payload: { data: { article_with_excerpt: [{ id: 2, excerpt: 'xyz' }] } } });
});
