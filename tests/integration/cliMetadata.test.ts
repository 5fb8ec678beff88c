/**
 * `svc-graphql-engine metadata …` against a real engine over HTTP: export → apply round-trips
 * byte for byte, diff exits 1 on a changed permission and 0 when equal, a Hasura v2 (version 3)
 * export applies with X-Hasura-* mapped and reported, and bad flags / endpoints give one line.
 */
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli, type CliIo } from '../../src/cli/index.js';
import { startTestEngine, type TestEngine } from './harness.js';
import { dirContents } from '../support/cliInProcess.js';

let e: TestEngine;
let tmp: string;
before(async () => {
  e = await startTestEngine({ adminSecret: 'sekret' });
  tmp = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  await e.runSql(`
    CREATE TABLE author (id int PRIMARY KEY, name text);
    CREATE TABLE article (id int PRIMARY KEY, title text, author_id int REFERENCES author (id));
    INSERT INTO author VALUES (1, 'A1'), (2, 'A2');
  `);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { schema: 'public', name: 'author' } },
      { type: 'track_table', args: { schema: 'public', name: 'article' } },
      { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
      { type: 'create_select_permission', args: { table: 'author', role: 'user', permission: { columns: ['id', 'name'], filter: { id: { _eq: 'X-Svc-User-Id' } } } } },
      { type: 'create_query_collection', args: { name: 'c1', definition: { queries: [{ name: 'q1', query: '{ author { id } }' }] } } },
      { type: 'add_collection_to_allowlist', args: { collection: 'c1' } },
    ],
  });
  assert.equal(r.status, 200, r.text);
});
after(async () => {
  await e?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

interface Captured {
  io: CliIo;
  out: string[];
  /** Error and note lines (stderr without the progress lines). */
  err: string[];
  progress: string[];
}
function io(): Captured {
  const out: string[] = [];
  const err: string[] = [];
  const progress: string[] = [];
  return {
    out,
    err,
    progress,
    io: { out: (t) => void out.push(t), err: (l) => void err.push(l), progress: (l) => void progress.push(l), env: { SVC_GRAPHQL_ENDPOINT: e.url, SVC_GRAPHQL_ADMIN_SECRET: 'sekret' }, color: false },
  };
}

async function writeTree(dir: string, files: Record<string, string>): Promise<void> {
  for (const [rel, text] of Object.entries(files)) {
    await mkdir(join(dir, rel, '..'), { recursive: true });
    await writeFile(join(dir, rel), text);
  }
}

test('export writes the Hasura CLI layout, and export → apply → export is byte for byte the same', async () => {
  const dir = join(tmp, 'md1');
  const c = io();
  assert.equal(await runCli('metadata', ['export', '--dir', dir], c.io), 0, c.err.join('\n'));
  const first = await dirContents(dir);
  for (const f of ['version.yaml', 'tables.yaml', 'functions.yaml', 'query_collections.yaml', 'allow_list.yaml', 'remote_schemas.yaml', 'actions.yaml', 'actions.graphql', 'cron_triggers.yaml']) {
    assert.ok(f in first, `${f} written`);
  }
  assert.equal(first['version.yaml'], 'version: 2\n');
  assert.match(first['tables.yaml']!, /name: articles/);
  assert.match(first['allow_list.yaml']!, /collection: c1/);
  const sortedExport = async () => {
    const md = (await e.query({ type: 'export_metadata', args: {} })).body;
    md.tables.sort((x: any, y: any) => (x.table.name < y.table.name ? -1 : 1));
    return md;
  };
  const before = await sortedExport();

  await e.query({ type: 'clear_metadata', args: {} });
  assert.equal((await e.graphql('{ author { id } }')).body.errors?.length, 1, 'cleared: author is gone');
  const a = io();
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], a.io), 0, a.err.join('\n'));
  assert.deepEqual(await sortedExport(), before, 'server metadata restored exactly (tables come back in name order)');
  assert.equal((await e.graphql('{ author(order_by: {id: asc}) { id articles { id } } }')).body.data.author.length, 2);

  const dir2 = join(tmp, 'md2');
  assert.equal(await runCli('metadata', ['export', '--dir', dir2], io().io), 0);
  assert.deepEqual(await dirContents(dir2), first);
});

test('diff exits 0 when equal and 1 with the changed line when a permission differs', async () => {
  const dir = join(tmp, 'md3');
  assert.equal(await runCli('metadata', ['export', '--dir', dir], io().io), 0);
  const same = io();
  assert.equal(await runCli('metadata', ['diff', '--dir', dir], same.io), 0);
  assert.deepEqual(same.out, []);

  const tables = await readFile(join(dir, 'tables.yaml'), 'utf8');
  assert.match(tables, /x-svc-user-id/i);
  await writeFile(join(dir, 'tables.yaml'), tables.replace(/_eq: X-Svc-User-Id/i, '_eq: 7'));
  const d = io();
  assert.equal(await runCli('metadata', ['diff', '--dir', dir], d.io), 1);
  const text = d.out.join('');
  assert.match(text, /--- server\/tables\.yaml/);
  assert.match(text, /^-\s+_eq: X-Svc-User-Id$/im);
  assert.match(text, /^\+\s+_eq: 7$/m);
  assert.doesNotMatch(text, /functions\.yaml/, 'only the changed file is shown');
});

test('a Hasura v2 export (version 3, sources) applies with X-Hasura-* mapped and the mapping reported', async () => {
  const v3 = {
    version: 3,
    sources: [
      {
        name: 'default',
        kind: 'postgres',
        tables: [
          {
            table: { schema: 'public', name: 'author' },
            select_permissions: [{ role: 'user', permission: { columns: ['id'], filter: { id: { _eq: 'X-Hasura-User-Id' } } } }],
          },
        ],
        configuration: { connection_info: { database_url: { from_env: 'HASURA_GRAPHQL_DATABASE_URL' } } },
      },
    ],
    inherited_roles: [{ role_name: 'both', role_set: ['user'] }],
  };
  const file = join(tmp, 'v3.json');
  await writeFile(file, JSON.stringify(v3));
  const c = io();
  assert.equal(await runCli('metadata', ['apply', '--file', file], c.io), 0, c.err.join('\n'));
  const notes = c.err.join('\n');
  assert.match(notes, /X-Hasura-User-Id → x-svc-user-id/);
  assert.doesNotMatch(notes, /inherited_roles/, 'inherited roles are applied, not reported');
  const r = await e.graphql('{ author { id } }', {}, { 'x-svc-admin-secret': 'sekret', 'x-svc-role': 'user', 'x-svc-user-id': '2' });
  assert.deepEqual(r.body, { data: { author: [{ id: 2 }] } });
  const inherited = await e.graphql('{ author { id } }', {}, { 'x-svc-admin-secret': 'sekret', 'x-svc-role': 'both', 'x-svc-user-id': '2' });
  assert.deepEqual(inherited.body, { data: { author: [{ id: 2 }] } }, 'the inherited role has its role set\'s permissions');
});

test('inconsistency list and reload against the engine', async () => {
  const c = io();
  assert.equal(await runCli('metadata', ['inconsistency', 'list'], c.io), 0);
  assert.match(c.progress.join(''), /consistent/);
  assert.equal(await runCli('metadata', ['reload'], io().io), 0);
  assert.equal(await runCli('metadata', ['inconsistency', 'drop'], io().io), 0);
});

test('wrong flags, a wrong secret, an unreachable endpoint and a bad file: one line, exit 1', async () => {
  const cases: [string[], RegExp, Record<string, string>?][] = [
    [['export', '--bogus'], /Unknown option '--bogus'/],
    [['frobnicate'], /unknown metadata command/],
    [['export', '--dir', join(tmp, 'x')], /cannot reach http:\/\/127\.0\.0\.1:1/, { SVC_GRAPHQL_ENDPOINT: 'http://127.0.0.1:1' }],
    [['export', '--dir', join(tmp, 'x')], /access-denied|invalid x-svc-admin-secret/i, { SVC_GRAPHQL_ADMIN_SECRET: 'wrong' }],
    [['apply', '--dir', join(tmp, 'nope')], /cannot read metadata directory/],
  ];
  for (const [argv, re, env] of cases) {
    const c = io();
    Object.assign(c.io.env, env ?? {});
    assert.equal(await runCli('metadata', argv, c.io), 1, argv.join(' '));
    assert.equal(c.err.length, 1, `one line for ${argv.join(' ')}: ${c.err.join(' | ')}`);
    assert.match(c.err[0]!, re);
  }
  const bad = join(tmp, 'bad');
  await runCli('metadata', ['export', '--dir', bad], io().io);
  await writeFile(join(bad, 'tables.yaml'), '- table: {name: author\n  bad: [');
  const c = io();
  assert.equal(await runCli('metadata', ['apply', '--dir', bad], c.io), 1);
  assert.match(c.err[0]!, /tables\.yaml:\d+:\d+/);
});

test('a Hasura CLI config-v3 directory (databases/, !include) applies, and export keeps that layout byte for byte', async () => {
  const dir = join(tmp, 'v3dir');
  await writeTree(dir, {
    'version.yaml': 'version: 3\n',
    'databases/databases.yaml': [
      '- name: default',
      '  kind: postgres',
      '  configuration:',
      '    connection_info:',
      '      database_url:',
      '        from_env: HASURA_GRAPHQL_DATABASE_URL',
      '  tables: "!include default/tables/tables.yaml"',
      '  functions: "!include default/functions/functions.yaml"',
      '',
    ].join('\n'),
    // Both spellings Hasura's CLI accepts: the quoted string and the bare tag.
    'databases/default/tables/tables.yaml': '- "!include public_author.yaml"\n- !include public_article.yaml\n',
    'databases/default/tables/public_author.yaml': [
      'table:', '  name: author', '  schema: public',
      'array_relationships:', '- name: articles', '  using:', '    foreign_key_constraint_on:', '      column: author_id', '      table:', '        name: article', '        schema: public',
      'select_permissions:', '- role: user', '  permission:', '    columns:', '    - id', '    - name', '    filter:', '      id:', '        _eq: X-Hasura-User-Id',
      '',
    ].join('\n'),
    'databases/default/tables/public_article.yaml': 'table:\n  name: article\n  schema: public\n',
    'databases/default/functions/functions.yaml': '[]\n',
    'actions.graphql': 'type Mutation {\n  greet(name: String!): Greeting\n}\n\ntype Greeting {\n  text: String\n}\n',
    'actions.yaml': 'actions:\n- name: greet\n  definition:\n    kind: synchronous\n    handler: http://127.0.0.1:9/greet\ncustom_types:\n  enums: []\n  input_objects: []\n  objects:\n  - name: Greeting\n  scalars: []\n',
    'cron_triggers.yaml': '- name: nightly\n  webhook: http://127.0.0.1:9/nightly\n  schedule: 0 3 * * *\n  include_in_metadata: true\n  payload: {}\n',
    'inherited_roles.yaml': '- role_name: both\n  role_set:\n  - user\n',
  });
  const c = io();
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], c.io), 0, c.err.join('\n'));
  const notes = c.err.join('\n');
  assert.match(notes, /X-Hasura-User-Id → x-svc-user-id/);
  assert.doesNotMatch(notes, /inherited_roles/, 'inherited_roles.yaml is applied, not reported');
  const r = await e.graphql('{ author { id name } }', {}, { 'x-svc-admin-secret': 'sekret', 'x-svc-role': 'user', 'x-svc-user-id': '1' });
  assert.deepEqual(r.body, { data: { author: [{ id: 1, name: 'A1' }] } }, 'the permission from the included table file, X-Hasura-User-Id mapped');
  const rel = await e.graphql('{ author(order_by: {id: asc}) { id articles { id } } }');
  assert.deepEqual(rel.body, { data: { author: [{ id: 1, articles: [] }, { id: 2, articles: [] }] } }, 'the relationship from the included file');
  const md = (await e.query({ type: 'export_metadata', args: {} })).body;
  assert.deepEqual(md.actions.map((a: any) => a.name), ['greet']);
  assert.deepEqual(md.cron_triggers.map((t: any) => t.name), ['nightly']);

  // export into the same directory keeps the v3 layout; apply → export again is byte for byte.
  assert.equal(await runCli('metadata', ['export', '--dir', dir], io().io), 0);
  const first = await dirContents(dir);
  assert.equal(first['version.yaml'], 'version: 3\n');
  assert.equal(first['databases/default/tables/tables.yaml'], '- "!include public_article.yaml"\n- "!include public_author.yaml"\n');
  assert.match(first['databases/databases.yaml']!, /tables: "!include default\/tables\/tables.yaml"/);
  assert.match(first['databases/default/tables/public_author.yaml']!, /_eq: x-svc-user-id/);
  assert.ok(!('tables.yaml' in first), 'no v2 tables.yaml');
  assert.equal(first['inherited_roles.yaml'], '- role_name: both\n  role_set:\n    - user\n', 'inherited_roles.yaml as the Hasura CLI writes it');
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], io().io), 0);
  const dir2 = join(tmp, 'v3dir2');
  assert.equal(await runCli('metadata', ['export', '--dir', dir2, '--format', 'v3'], io().io), 0);
  assert.deepEqual(await dirContents(dir2), first);
  const same = io();
  assert.equal(await runCli('metadata', ['diff', '--dir', dir], same.io), 0, same.out.join(''));

  // A missing include: one line naming the file and the include, exit 1, nothing applied.
  await writeFile(join(dir, 'databases/default/tables/tables.yaml'), '- "!include public_nope.yaml"\n');
  const bad = io();
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], bad.io), 1);
  assert.equal(bad.err.length, 1);
  assert.match(bad.err[0]!, /databases\/default\/tables\/tables\.yaml: !include public_nope\.yaml: cannot read .*ENOENT/);
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body.cron_triggers.map((t: any) => t.name), ['nightly']);
});

test('an inconsistent project: apply lists the failing objects and changes nothing; --allow-inconsistent-metadata applies and lists them; diff after apply is clean', async () => {
  const before = (await e.query({ type: 'export_metadata', args: {} })).body;
  const dir = join(tmp, 'v3incons');
  const authorFile = [
    'table:', '  name: author', '  schema: public',
    // As Hasura's CLI writes them: explicit nulls for the defaults.
    'object_relationships:', '- name: first_article', '  using:', '    manual_configuration:', '      column_mapping:', '        id: author_id', '      insertion_order: null', '      remote_table:', '        name: article', '        schema: public',
    'update_permissions:', '- role: user', '  permission:', '    columns:', '    - name', '    filter:', '      id:', '        _eq: X-Hasura-User-Id', '    check: null',
    '',
  ].join('\n');
  await writeTree(dir, {
    'version.yaml': 'version: 3\n',
    'databases/databases.yaml': '- name: default\n  kind: postgres\n  configuration:\n    connection_info:\n      database_url:\n        from_env: HASURA_GRAPHQL_DATABASE_URL\n  tables: "!include default/tables/tables.yaml"\n',
    'databases/default/tables/tables.yaml': '- "!include public_author.yaml"\n- "!include public_article.yaml"\n- "!include public_ghost.yaml"\n',
    'databases/default/tables/public_author.yaml': authorFile,
    'databases/default/tables/public_article.yaml': 'table:\n  name: article\n  schema: public\nobject_relationships:\n- name: writer\n  using:\n    foreign_key_constraint_on: writer_id\n',
    'databases/default/tables/public_ghost.yaml': 'table:\n  name: ghost\n  schema: public\n',
  });
  const strict = io();
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], strict.io), 1);
  const listed = strict.out.join('');
  assert.match(listed, /^table\t\{"schema":"public","name":"ghost"\}\tno such table\/view exists in postgres: "ghost"$/m, 'the missing table is listed');
  assert.match(listed, /^object_relation\t.*"writer".*$/m, 'the relationship on a missing column is listed');
  assert.match(strict.err.join('\n'), /cannot continue due to inconsistent metadata.*2 inconsistent objects .*nothing was applied/);
  assert.deepEqual((await e.query({ type: 'export_metadata', args: {} })).body, before, 'nothing changed');

  const allowed = io();
  assert.equal(await runCli('metadata', ['apply', '--dir', dir, '--allow-inconsistent-metadata'], allowed.io), 0, allowed.err.join('\n'));
  assert.equal(allowed.out.join('').trim().split('\n').length, 2);
  assert.match(allowed.err.join('\n'), /metadata applied with 2 inconsistent objects/);
  const inc = (await e.query({ type: 'get_inconsistent_metadata', args: {} })).body;
  assert.equal(inc.is_consistent, false);
  assert.deepEqual(inc.inconsistent_objects.map((o: any) => o.type).sort(), ['object_relation', 'table']);
  const rel = await e.graphql('{ author(where: {id: {_eq: 1}}) { first_article { id } } }');
  assert.deepEqual(rel.body, { data: { author: [{ first_article: null }] } }, 'the consistent part is served');

  // Hasura v2's /v1/metadata form answers with the inconsistencies.
  const md = { version: 3, sources: [{ name: 'default', kind: 'postgres', tables: [{ table: { schema: 'public', name: 'author' } }, { table: { schema: 'public', name: 'nowhere' } }], configuration: {} }] };
  const v2 = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', version: 2, args: { allow_inconsistent_metadata: true, metadata: md } }, { 'x-svc-admin-secret': 'sekret' });
  assert.equal(v2.status, 200, v2.text);
  assert.equal(v2.body.is_consistent, false);
  assert.deepEqual(v2.body.inconsistent_objects.map((o: any) => [o.type, o.definition.name]), [['table', 'nowhere']]);
  const v2strict = await e.request('POST', '/v1/metadata', { type: 'replace_metadata', version: 2, args: { metadata: md } }, { 'x-svc-admin-secret': 'sekret' });
  assert.equal(v2strict.status, 400);
  assert.equal(v2strict.body.error, 'cannot continue due to inconsistent metadata');

  // The consistent project: apply, then diff reports nothing (explicit nulls are the defaults).
  await rm(join(dir, 'databases/default/tables/public_ghost.yaml'));
  await writeFile(join(dir, 'databases/default/tables/tables.yaml'), '- "!include public_author.yaml"\n- "!include public_article.yaml"\n');
  await writeFile(join(dir, 'databases/default/tables/public_article.yaml'), 'table:\n  name: article\n  schema: public\nobject_relationships:\n- name: writer\n  using:\n    foreign_key_constraint_on: author_id\n');
  const ok = io();
  assert.equal(await runCli('metadata', ['apply', '--dir', dir], ok.io), 0, ok.err.join('\n'));
  assert.equal(ok.out.join(''), '');
  const d = io();
  assert.equal(await runCli('metadata', ['diff', '--dir', dir], d.io), 0, d.out.join(''));
  assert.equal(d.out.join(''), '');
  // …and still sees a real change.
  await writeFile(join(dir, 'databases/default/tables/public_author.yaml'), authorFile.replace('    - name', '    - id\n    - name'));
  const d2 = io();
  assert.equal(await runCli('metadata', ['diff', '--dir', dir], d2.io), 1);
  assert.match(d2.out.join(''), /^\+ +- id$/m);
  assert.equal((await e.query({ type: 'replace_metadata', args: before })).status, 200);
});
