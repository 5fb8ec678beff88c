/**
 * /v1alpha1/pg_dump on the default embedded Postgres (17), which ships no client tools: with no
 * installed pg_dump that new, the built-in one (PostgreSQL 18's pg_dump in WebAssembly) dumps it.
 * Its dumps are restored into fresh databases and dumped again: the same text means the same
 * schema and rows. Errors come in Hasura's shape; a long dump does not hold up other requests.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, sqlOn, startTestEngine, type TestEngine } from './harness.js';
import { applyConformanceSchema } from '../support/conformanceSchema.js';
import { pgDumpCandidates } from '../../src/api/v1alpha1PgDump.js';

const ENABLED = { SVC_GRAPHQL_ENABLED_APIS: 'graphql,metadata,pgdump' };

/** Makes the engine (in this process) run the built-in pg_dump until the test ends. */
function useBuiltInPgDump(t: { after(fn: () => unknown): void }): void {
  process.env.SVC_GRAPHQL_PG_DUMP_PATH = 'built-in';
  t.after(() => delete process.env.SVC_GRAPHQL_PG_DUMP_PATH);
}

/** Dumps the engine's database through the API; asserts a 200. */
async function dump(e: TestEngine, opts: string[], clean = false): Promise<string> {
  const r = await e.request('POST', '/v1alpha1/pg_dump', { opts, clean_output: clean });
  assert.equal(r.status, 200, r.text.slice(0, 2000));
  return r.text;
}

/** `text` restored into a fresh database, which an engine of its own then dumps with `opts`. */
async function restoreAndDump(t: { after(fn: () => unknown): void }, text: string, opts: string[], clean = false): Promise<string> {
  const db = await createTestDatabase('restore');
  t.after(() => db.drop());
  await sqlOn(db.url, text);
  const e = await startTestEngine({ databaseUrl: db.url, env: ENABLED });
  t.after(() => e.stop());
  return dump(e, opts, clean);
}

test('the embedded Postgres 17 is dumped by the built-in pg_dump; dumps restore to the same schema and rows', async (t) => {
  const e = await startTestEngine({ env: ENABLED });
  t.after(() => e.stop());
  const server = await e.runSql('SHOW server_version_num');
  const serverMajor = Math.floor(Number(server.result[1][0]) / 10000);
  const applied = await applyConformanceSchema(e.databaseUrl);
  assert.ok(applied.length >= 50, `the conformance schema applies (${applied.length} groups)`);
  await e.runSql(`
    CREATE TABLE public.author (id serial PRIMARY KEY, name text NOT NULL UNIQUE, info jsonb, born date, tags text[]);
    CREATE TABLE public.article (id bigserial PRIMARY KEY, author_id int REFERENCES public.author(id) ON DELETE CASCADE,
      title text CHECK (title <> ''), body text, published boolean DEFAULT false, rating numeric(4,2), at timestamptz DEFAULT now());
    CREATE INDEX article_author ON public.article (author_id);
    CREATE VIEW public.published AS SELECT * FROM public.article WHERE published;
    CREATE FUNCTION public.search_articles(q text) RETURNS SETOF public.article LANGUAGE sql STABLE AS $$ SELECT * FROM public.article WHERE title ILIKE '%' || q || '%' $$;
    INSERT INTO public.author (name, info, born, tags) VALUES ('Ann O''Neil', '{"a": [1, 2]}', '1970-01-02', '{x,"y z"}'), ('Bob', NULL, NULL, '{}');
    INSERT INTO public.article (author_id, title, body, published, rating) VALUES (1, 'First', E'line\\nbreak\\ttab \\\\ backslash', true, 4.5), (2, 'Second', NULL, false, NULL);
  `);

  // Schema only, as Hasura's CLI asks (`migrate create --from-server`).
  const cliOpts = ['-O', '-x', '--schema-only', '--schema', 'public'];
  const schema = await dump(e, cliOpts, true);
  if (!pgDumpCandidates().some((c) => c.major >= serverMajor)) {
    const header = await dump(e, ['--schema-only', '--table=public.author']);
    assert.match(header, /^-- Dumped by pg_dump version 18\./m, 'no installed pg_dump is new enough: the built-in one ran');
  }
  assert.match(schema, /^CREATE TABLE public\.author \(/m);
  assert.match(schema, /^CREATE VIEW public\.published AS/m);
  assert.match(schema, /^CREATE FUNCTION public\.search_articles\(q text\)/m);
  assert.doesNotMatch(schema, /^(--|SET |\\restrict|CREATE SCHEMA public;)/m, 'clean_output: no comments, preamble, psql meta-commands');
  assert.doesNotMatch(schema, /INSERT INTO|COPY |OWNER TO|GRANT /, 'schema only, without owners or privileges');
  assert.equal(await restoreAndDump(t, schema, cliOpts, true), schema, 'the schema restored dumps the same');

  // The whole database, schema and rows (table data as INSERT statements); the engine's own catalog
  // is left out, as the engine on the restored copy writes to it.
  const fullOpts = ['-O', '-x', '--exclude-schema=hdb_catalog'];
  const full = await dump(e, fullOpts);
  assert.match(full, /^INSERT INTO public\.author VALUES \(1, 'Ann O''Neil', '\{"a": \[1, 2\]\}', '1970-01-02', '\{x,"y z"\}'\);$/m);
  assert.match(full, /^INSERT INTO public\.article VALUES \(1, 1, 'First', 'line\nbreak\ttab \\ backslash', true, 4\.50, '/m);
  assert.match(full, /^SELECT pg_catalog\.setval\('public\.article_id_seq', 2, true\);$/m);
  for (const s of applied.slice(0, 5)) assert.match(full, new RegExp(`^CREATE SCHEMA ${s};$`, 'm'));
  const again = await restoreAndDump(t, full, fullOpts);
  const body = (s: string) => s.replace(/^\\(un)?restrict .*$/gm, '');
  assert.equal(body(again), body(full), 'the database restored dumps the same, rows included');
});

test('built-in pg_dump: bad options and refused requests answer in Hasura\'s shape', async (t) => {
  const e = await startTestEngine({ env: ENABLED });
  t.after(() => e.stop());
  useBuiltInPgDump(t);
  await e.runSql('CREATE TABLE kept (id int PRIMARY KEY)');
  const call = (opts: unknown) => e.request('POST', '/v1alpha1/pg_dump', { opts });

  const noTable = await call(['--table=no_such_table']);
  assert.equal(noTable.status, 500);
  assert.deepEqual(noTable.body, { path: '$', code: 'unexpected', error: 'error while executing pg_dump: pg_dump: error: no matching tables were found' });
  const unknown = await call(['--no-such-option']);
  assert.equal(unknown.status, 500);
  assert.equal(unknown.body.code, 'unexpected');
  assert.match(unknown.body.error, /^error while executing pg_dump: pg_dump: unrecognized option.*no-such-option\npg_dump: hint: Try "pg_dump --help"/);
  // The server refuses: pg_dump's SET ROLE to a role that does not exist.
  const role = await call(['--role=no_such_role', '--schema-only']);
  assert.equal(role.status, 500);
  assert.match(role.body.error, /^error while executing pg_dump: pg_dump: error: query failed: ERROR: {1,2}role "no_such_role" does not exist/);
  for (const format of [['-Fc'], ['--format=custom'], ['-F', 'd'], ['--format', 'tar']]) {
    const r = await call(format);
    assert.equal(r.status, 400, format.join(' '));
    assert.equal(r.body.code, 'invalid-params');
    assert.equal(r.body.path, '$.opts');
    assert.match(r.body.error, /needs an installed pg_dump .*the built-in one writes plain SQL only/);
  }
  assert.equal((await call(['--format=plain', '--schema-only', '--table=kept'])).status, 200);
  // After all of that the engine still serves, and dumps.
  assert.match((await e.request('POST', '/v1alpha1/pg_dump', { opts: ['--schema-only', '--table=kept'], clean_output: true })).text, /^CREATE TABLE public\.kept \(/m);
});

test('a long built-in dump does not hold up other requests', async (t) => {
  const e = await startTestEngine({ env: ENABLED });
  t.after(() => e.stop());
  useBuiltInPgDump(t);
  await e.runSql("CREATE TABLE big AS SELECT g AS id, md5(g::text) AS h, repeat('x', 100) AS pad FROM generate_series(1, 150000) g");
  await e.query({ type: 'track_table', args: { schema: 'public', name: 'big' } });
  const t0 = performance.now();
  let dumpMs = -1;
  const running = e.request('POST', '/v1alpha1/pg_dump', { opts: ['--data-only', '--table=big'] }).then((r) => {
    dumpMs = performance.now() - t0;
    return r;
  });
  const latencies: number[] = [];
  // Requests while the dump runs, each awaited: every one is answered before the dump ends.
  while (dumpMs < 0 && latencies.length < 200) {
    const s = performance.now();
    const r = await e.graphql('{ big(where: {id: {_eq: 77}}) { h } }');
    latencies.push(performance.now() - s);
    assert.equal(r.status, 200);
    assert.equal(r.body.data.big[0].h, '28dd2c7955ce926456240b2ff0100bde');
  }
  const dumped = await running;
  assert.equal(dumped.status, 200);
  assert.equal(dumped.text.match(/^INSERT INTO public\.big VALUES/gm)?.length, 150000);
  const during = latencies.filter((_, i) => i < latencies.length - 1);
  assert.ok(during.length >= 3, `requests were answered while the dump ran (${during.length} in ${Math.round(dumpMs)} ms)`);
  const slowest = Math.max(...during);
  assert.ok(slowest < dumpMs / 2, `the slowest request (${Math.round(slowest)} ms) is far shorter than the dump (${Math.round(dumpMs)} ms)`);
});
