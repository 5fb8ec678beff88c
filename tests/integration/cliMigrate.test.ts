/**
 * `svc-graphql-engine migrate …` against a real engine: create makes the folder, apply runs
 * pending migrations and records them in hdb_catalog.schema_migrations, --down rolls back,
 * status lists both sides, and a failing migration leaves nothing and names file + line.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, writeFile, rm, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCli, splitSql, type CliIo } from '../../src/cli/index.js';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
let tmp: string;
before(async () => {
  e = await startTestEngine();
  tmp = await mkdtemp(join(tmpdir(), 'svc-migrate-'));
});
after(async () => {
  await e?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

function io() {
  const out: string[] = [];
  const err: string[] = [];
  const cio: CliIo = { out: (t) => void out.push(t), err: (l) => void err.push(l), progress: () => {}, env: { SVC_GRAPHQL_ENDPOINT: e.url }, color: false };
  return { out, err, io: cio };
}

async function tables(): Promise<string[]> {
  const r = await e.runSql("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1");
  return (r.result as string[][]).slice(1).map((x) => x[0]!);
}
async function versions(): Promise<string[]> {
  const r = await e.runSql('SELECT version::text FROM hdb_catalog.schema_migrations ORDER BY version');
  return (r.result as string[][]).slice(1).map((x) => x[0]!);
}
async function migration(dir: string, version: string, name: string, up: string, down: string) {
  await mkdir(join(dir, `${version}_${name}`), { recursive: true });
  await writeFile(join(dir, `${version}_${name}`, 'up.sql'), up);
  await writeFile(join(dir, `${version}_${name}`, 'down.sql'), down);
}

test('migrate create makes <timestamp>_<name>/ with up.sql and down.sql', async () => {
  const dir = join(tmp, 'created');
  const c = io();
  assert.equal(await runCli('migrate', ['create', 'add_users', '--dir', dir], c.io), 0, c.err.join());
  const [folder] = await readdir(dir);
  assert.match(folder!, /^\d{13}_add_users$/);
  assert.deepEqual((await readdir(join(dir, folder!))).sort(), ['down.sql', 'up.sql']);
});

test('apply, status, --down, --version: versions recorded as Hasura does', async () => {
  const dir = join(tmp, 'm');
  await migration(dir, '1000', 'one', 'CREATE TABLE m_one (id int);\n', 'DROP TABLE m_one;');
  await migration(dir, '2000', 'two', "CREATE TABLE m_two (id int);\nCREATE FUNCTION f_two() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;\n", 'DROP FUNCTION f_two(); DROP TABLE m_two;');
  await migration(dir, '3000', 'three', 'CREATE TABLE m_three (id int);', 'DROP TABLE m_three;');

  assert.equal(await runCli('migrate', ['apply', '--up', '1', '--dir', dir], io().io), 0);
  assert.deepEqual(await versions(), ['1000']);
  assert.deepEqual(await tables(), ['m_one']);

  assert.equal(await runCli('migrate', ['apply', '--dir', dir], io().io), 0);
  assert.deepEqual(await versions(), ['1000', '2000', '3000']);
  assert.deepEqual(await tables(), ['m_one', 'm_three', 'm_two']);

  const s = io();
  assert.equal(await runCli('migrate', ['status', '--dir', dir], s.io), 0);
  assert.match(s.out.join(''), /^2000\ttwo\tPresent\tApplied$/m);

  assert.equal(await runCli('migrate', ['apply', '--down', '2', '--dir', dir], io().io), 0);
  assert.deepEqual(await versions(), ['1000']);
  assert.deepEqual(await tables(), ['m_one']);
  const s2 = io();
  await runCli('migrate', ['status', '--dir', dir], s2.io);
  assert.match(s2.out.join(''), /^3000\tthree\tPresent\tNot Applied$/m);

  assert.equal(await runCli('migrate', ['apply', '--version', '3000', '--dir', dir], io().io), 0);
  assert.deepEqual(await versions(), ['1000', '3000']);
  assert.equal(await runCli('migrate', ['apply', '--version', '3000', '--type', 'down', '--dir', dir], io().io), 0);
  assert.equal(await runCli('migrate', ['apply', '--down', '1', '--dir', dir], io().io), 0);
  assert.deepEqual(await versions(), []);
  assert.deepEqual(await tables(), []);
});

test('a failing migration leaves nothing behind and names the file and line of the statement', async () => {
  const dir = join(tmp, 'bad');
  await migration(dir, '5000', 'ok', 'CREATE TABLE b_ok (id int);', 'DROP TABLE b_ok;');
  await migration(dir, '6000', 'broken', "-- a comment\nCREATE TABLE b_half (id int);\nINSERT INTO b_half VALUES (1);\n\nINSERT INTO b_missing\n  VALUES (1);\n", '');
  const c = io();
  assert.equal(await runCli('migrate', ['apply', '--dir', dir], c.io), 1);
  assert.equal(c.err.length, 1);
  assert.match(c.err[0]!, /6000_broken\/up\.sql:5: postgres error: relation "b_missing" does not exist/);
  assert.deepEqual(await tables(), ['b_ok'], 'the broken migration left no table');
  assert.deepEqual(await versions(), ['5000'], 'and no version row');
  await runCli('migrate', ['apply', '--down', '1', '--dir', dir], io().io);
});

test('a Hasura CLI config-v3 project (migrations/<database>/…): apply and status find the database folder, --database-name picks one', async () => {
  const root = join(tmp, 'v3');
  await migration(join(root, 'default'), '7000', 'init', 'CREATE TABLE v3_one (id int);', 'DROP TABLE v3_one;');
  await migration(join(root, 'default'), '7100', 'more', 'CREATE TABLE v3_two (id int);', 'DROP TABLE v3_two;');
  const c = io();
  assert.equal(await runCli('migrate', ['apply', '--dir', root], c.io), 0, c.err.join('\n'));
  assert.deepEqual(await tables(), ['v3_one', 'v3_two']);
  assert.deepEqual(await versions(), ['7000', '7100']);
  const s = io();
  assert.equal(await runCli('migrate', ['status', '--dir', root, '--database-name', 'default'], s.io), 0);
  assert.match(s.out.join(''), /^7100\tmore\tPresent\tApplied$/m);
  assert.equal(await runCli('migrate', ['apply', '--down', '2', '--dir', root, '--database-name', 'default'], io().io), 0);
  assert.deepEqual(await tables(), []);

  // Two database folders: the flag decides; without it (and no "default") one line names them.
  const two = join(tmp, 'v3two');
  await migration(join(two, 'pg_main'), '8000', 'a', 'CREATE TABLE v3_main (id int);', 'DROP TABLE v3_main;');
  await migration(join(two, 'pg_other'), '8100', 'b', 'CREATE TABLE v3_other (id int);', 'DROP TABLE v3_other;');
  const amb = io();
  assert.equal(await runCli('migrate', ['apply', '--dir', two], amb.io), 1);
  assert.match(amb.err[0]!, /several databases \(pg_main, pg_other\): choose one with --database-name/);
  assert.deepEqual(await tables(), [], 'nothing applied');
  assert.equal(await runCli('migrate', ['apply', '--dir', two, '--database-name', 'pg_other'], io().io), 0);
  assert.deepEqual(await tables(), ['v3_other']);
  const missing = io();
  assert.equal(await runCli('migrate', ['apply', '--dir', two, '--database-name', 'nope'], missing.io), 1);
  assert.match(missing.err[0]!, /no folder for database "nope" in .*found: pg_main, pg_other/);
  assert.equal(await runCli('migrate', ['apply', '--down', '1', '--dir', two, '--database-name', 'pg_other'], io().io), 0);
  assert.deepEqual(await tables(), []);
});

test('seed create and apply (seeds/<database>/*.sql, name order, one transaction, --file picks)', async () => {
  await e.runSql('CREATE TABLE seed_t (id int PRIMARY KEY, note text)');
  const root = join(tmp, 'seeds');
  const made = io();
  assert.equal(await runCli('seed', ['create', 'first', '--dir', root], made.io), 0);
  assert.match(made.out.join(''), /seeds\/default\/\d{13}_first\.sql\n$/);
  const created = made.out.join('').trim();
  await writeFile(created, "INSERT INTO seed_t VALUES (1, 'one');\n");
  await writeFile(join(root, 'default', '9999999999999_second.sql'), "INSERT INTO seed_t VALUES (2, 'two');\nUPDATE seed_t SET note = note || '!' WHERE id = 1;\n");
  const seeded = async () => ((await e.runSql('SELECT id::text, note FROM seed_t ORDER BY id')).result as string[][]).slice(1);
  assert.equal(await runCli('seed', ['apply', '--dir', root], io().io), 0);
  assert.deepEqual(await seeded(), [['1', 'one!'], ['2', 'two']], 'both files, in name order');

  await e.runSql('TRUNCATE seed_t');
  assert.equal(await runCli('seed', ['apply', '--dir', root, '--database-name', 'default', '--file', created.split('/').pop()!], io().io), 0);
  assert.deepEqual(await seeded(), [['1', 'one']], '--file: only that file');

  // A failing statement: nothing from any file stays; the file and line are named.
  await writeFile(join(root, 'default', '9999999999999_second.sql'), "INSERT INTO seed_t VALUES (3, 'three');\n\nINSERT INTO seed_nope VALUES (1);\n");
  await e.runSql('TRUNCATE seed_t');
  const bad = io();
  assert.equal(await runCli('seed', ['apply', '--dir', root], bad.io), 1);
  assert.match(bad.err[0]!, /9999999999999_second\.sql:3: postgres error: relation "seed_nope" does not exist \(no seed applied\)/);
  assert.deepEqual(await seeded(), [], 'the first file and the third row were rolled back');
  const nofile = io();
  assert.equal(await runCli('seed', ['apply', '--dir', root, '--file', 'nope.sql'], nofile.io), 1);
  assert.match(nofile.err[0]!, /no seed file nope\.sql/);
  await e.runSql('DROP TABLE seed_t');
});

test('bad flags give one line and exit 1', async () => {
  for (const argv of [['apply', '--up', 'x'], ['apply', '--up', '1', '--down', '1'], ['frob'], ['create'], ['apply', '--nope']]) {
    const c = io();
    assert.equal(await runCli('migrate', argv, c.io), 1, argv.join(' '));
    assert.equal(c.err.length, 1);
  }
});

test('splitSql keeps dollar-quoted bodies, quotes and comments whole, with start lines', () => {
  const s = splitSql("-- head\nSELECT ';';\n/* x; */ CREATE FUNCTION f() RETURNS int AS $b$ SELECT 1; $b$ LANGUAGE sql;\n\n  SELECT 'a''b;'");
  assert.deepEqual(s.map((x) => x.line), [2, 3, 5]);
  assert.match(s[1]!.text, /\$b\$ SELECT 1; \$b\$ LANGUAGE sql;$/);
});

test('a migration reading hasura.user is named after apply while the engine does not set it, and not when it does', async (t) => {
  const dir = join(tmp, 'hasura-session');
  await migration(dir, '1000', 'owner_fn', "CREATE FUNCTION hs_owner() RETURNS text LANGUAGE sql STABLE AS $$ SELECT current_setting('hasura.user', true)::json->>'x-hasura-user-id' $$;\n", 'DROP FUNCTION hs_owner();');
  await migration(dir, '2000', 'plain', 'CREATE TABLE hs_plain (id int);', 'DROP TABLE hs_plain;');
  const c = io();
  assert.equal(await runCli('migrate', ['apply', '--dir', dir], c.io), 0, c.err.join());
  assert.equal(c.err.length, 1);
  assert.match(c.err[0]!, /1000_owner_fn\/up\.sql reads Hasura's session/);
  assert.match(c.err[0]!, /--hasura-session-variables=true/);
  assert.equal(c.err[0]!.includes('2000_plain'), false);

  const on = await startTestEngine({ hasuraSessionVariables: 'true' });
  t.after(() => on.stop());
  const quiet = io();
  quiet.io.env = { SVC_GRAPHQL_ENDPOINT: on.url };
  assert.equal(await runCli('migrate', ['apply', '--dir', dir], quiet.io), 0, quiet.err.join());
  assert.deepEqual(quiet.err, []);
  assert.deepEqual((await on.runSql("SELECT to_regprocedure('hs_owner()') IS NOT NULL AS applied")).result[1], ['t']);
});
