/**
 * The console on several databases end to end: a real engine (console on, admin secret set) and a
 * SECOND real Postgres database, driven by headless Chromium. The second database is connected from
 * Data → Manage databases (an unreachable one first: refused in the engine's words, nothing added),
 * then, on it: a table tracked from the tree's page, a row browsed and edited, a select permission,
 * a relationship to a table of `default` (and back), a table created and a column added, SQL run there, an event trigger whose delivery
 * and invocation log come from that database; the database renamed and removed. Then in migrations
 * mode (`svc-graphql-engine console --project`): SQL run on the second database as a migration lands
 * in `migrations/<database>/` and is recorded in that database, and the metadata folder keeps the source.
 * Every change is checked against the engine (export_metadata, GraphQL, the databases), not only the page.
 * Any console error or uncaught exception in the page fails the run.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { SHOTS, logIn, openConsoleBrowser } from './consoleBrowser.js';
import { runCli, startProjectConsole, type CliIo, type ConsoleProxy } from '../../src/cli/index.js';
import { createTestDatabase, sqlOn, startTestEngine, type TestEngine } from '../integration/harness.js';
import { eventually, startEventReceiver, type EventReceiver } from '../support/eventReceiver.js';

const SECRET = 'e2e-sources-secret';

let e: TestEngine;
let second: { url: string; drop(): Promise<void> };
let rx: EventReceiver;
let browser: Browser;
let page: Page;
let proxy: ConsoleProxy | undefined;
let tmp: string | undefined;
const pageErrors: string[] = [];
const dialogs: string[] = [];

before(async () => {
  e = await startTestEngine({ adminSecret: SECRET, enableConsole: true, eventsFetchIntervalMs: 200 });
  second = await createTestDatabase('console_src');
  rx = await startEventReceiver(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok": true}' }));
  await sqlOn(second.url, "CREATE TABLE album (id int PRIMARY KEY, title text NOT NULL, artist_id int); INSERT INTO album VALUES (1, 'Blue', 1), (2, 'Red', 2);");
  const setup = await e.query({ type: 'bulk', args: [
    { type: 'run_sql', args: { sql: "CREATE TABLE artist (id int PRIMARY KEY, name text NOT NULL); INSERT INTO artist VALUES (1, 'Ann'), (2, 'Ben');" } },
    { type: 'track_table', args: { table: 'artist' } },
  ] });
  assert.equal(setup.status, 200, setup.text);
  ({ browser, page } = await openConsoleBrowser(pageErrors, { viewport: { width: 1366, height: 900 } }));
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.accept();
  });
  await logIn(page, e.url, SECRET);
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  await e?.stop();
  await rx?.stop();
  await second?.drop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const go = async (base: string, hash: string) => {
  await page.goto(`${base}/console#/${hash}`);
  await page.getByRole('navigation', { name: 'console' }).waitFor();
};
const exported = async () => (await e.query({ type: 'export_metadata', args: {} })).body;
const sourceOf = async (name: string) => (await exported()).sources?.find((s: any) => s.name === name);
async function onSecond<T = any>(sql: string): Promise<T[]> {
  const c = new pg.Client({ connectionString: second.url });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}
const shot = async (name: string) => {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}${name}.png`, fullPage: true });
};

test('Manage databases: an unreachable database is refused in the engine\'s words; a second one is connected and listed healthy', async () => {
  await go(e.url, 'data/manage');
  const form = page.getByRole('form', { name: 'Connect a database' });
  await form.getByLabel('Database name').fill('nowhere');
  await form.getByLabel('Database URL', { exact: true }).fill('postgres://postgres@127.0.0.1:1/postgres');
  await form.getByRole('button', { name: 'Connect database' }).click();
  await form.getByText(/cannot connect to Postgres at 127\.0\.0\.1:1/).waitFor();
  assert.equal(await sourceOf('nowhere'), undefined, 'a refused database is not added');

  await form.getByLabel('Database name').fill('archive');
  await form.getByLabel('Database URL', { exact: true }).fill(second.url);
  await form.getByLabel('Max connections').fill('5');
  await form.getByLabel('Isolation level').selectOption('repeatable-read');
  await form.getByLabel('Root field prefix').fill('archive_');
  const sent = JSON.parse(await form.getByLabel('Metadata to send', { exact: true }).innerText());
  assert.deepEqual(sent, {
    type: 'add_source',
    args: {
      name: 'archive',
      configuration: { connection_info: { database_url: second.url, pool_settings: { max_connections: 5 }, isolation_level: 'repeatable-read', use_prepared_statements: false } },
      customization: { root_fields: { prefix: 'archive_' } },
    },
  });
  await form.getByRole('button', { name: 'Connect database' }).click();
  await page.getByLabel('health of archive').waitFor();
  assert.equal(await page.getByLabel('health of archive').innerText(), 'ok');
  const s = await sourceOf('archive');
  assert.equal(s.configuration.connection_info.isolation_level, 'repeatable-read');
  assert.deepEqual(s.customization, { root_fields: { prefix: 'archive_' } });
  await shot('manage-databases');
});

test('the tree lists both databases; on the second one a table is tracked, its rows browsed and one edited', async () => {
  await go(e.url, 'data');
  const tree = page.getByRole('tree', { name: 'Databases, schemas and tables' });
  await tree.getByRole('treeitem', { name: 'database default', exact: true }).waitFor();
  await tree.getByRole('treeitem', { name: 'table default.public.artist' }).waitFor();
  await tree.getByRole('treeitem', { name: 'database archive', exact: true }).click();
  await page.waitForURL(/#\/data\/archive$/);
  await tree.getByRole('treeitem', { name: 'table archive.public.album (not tracked)' }).waitFor();
  await page.getByRole('button', { name: 'Track public.album' }).click();
  await page.getByRole('link', { name: 'album', exact: true }).click();
  await page.waitForURL(/#\/data\/archive\/schema\/public\/tables\/album$/);
  assert.equal((await sourceOf('archive')).tables.length, 1, 'tracked on archive');
  assert.equal((await exported()).tables.length, 1, 'default keeps its one table');

  await page.getByText('rows 1–2 of 2').waitFor();
  await page.getByRole('cell', { name: 'Blue', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Edit row 1' }).click();
  const edit = page.getByRole('form', { name: 'Save row' });
  await edit.getByLabel('title (text)').fill('Blue (remastered)');
  await edit.getByRole('button', { name: 'Save row' }).click();
  await page.getByRole('cell', { name: 'Blue (remastered)', exact: true }).waitFor();
  assert.deepEqual(await onSecond("SELECT title FROM album WHERE id = 1"), [{ title: 'Blue (remastered)' }]);
  const q = await e.graphql('{ archive_album(order_by: {id: asc}) { id title } }', undefined, { 'x-svc-admin-secret': SECRET });
  assert.deepEqual(q.body, { data: { archive_album: [{ id: 1, title: 'Blue (remastered)' }, { id: 2, title: 'Red' }] } });
  await shot('data-second-database');
});

test('a select permission on the second database\'s table', async () => {
  await go(e.url, 'permissions/archive/public/album');
  await page.getByLabel('Database', { exact: true }).waitFor();
  assert.equal(await page.getByLabel('Database', { exact: true }).inputValue(), 'archive');
  await page.getByLabel('New role').fill('user');
  await page.getByRole('button', { name: 'Add role' }).click();
  await page.getByRole('button', { name: 'select permission of user: none' }).click();
  const form = page.getByRole('form', { name: 'select permission for user' });
  await form.getByLabel('all columns').check();
  const sent = JSON.parse(await form.getByLabel('Metadata JSON to send', { exact: true }).innerText());
  assert.deepEqual(sent.args.map((o: any) => [o.type, o.source]), [['create_select_permission', 'archive']]);
  await form.getByRole('button', { name: 'Save permission' }).click();
  await page.getByRole('button', { name: 'select permission of user: full' }).waitFor();
  const perm = (await sourceOf('archive')).tables[0].select_permissions[0];
  assert.equal(perm.role, 'user');
  const asUser = await e.graphql('{ archive_album(order_by: {id: asc}) { title } }', undefined, { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'user' });
  assert.deepEqual(asUser.body, { data: { archive_album: [{ title: 'Blue (remastered)' }, { title: 'Red' }] } });
});

test('a relationship from the second database\'s table to a table of default (to_source), and back', async () => {
  await go(e.url, 'data/archive/schema/public/tables/album/relationships');
  const form = page.getByRole('form', { name: 'Add a relationship to another database' });
  await form.getByLabel('Database relationship name').fill('artist');
  await form.getByLabel('Target database and table').selectOption({ label: 'default: public.artist' });
  await form.getByLabel('Field mapping 1 from').selectOption('artist_id');
  await form.getByLabel('Field mapping 1 to').selectOption('id');
  const sent = JSON.parse(await form.getByLabel('Metadata to send').innerText());
  assert.deepEqual(sent, {
    type: 'create_remote_relationship',
    args: { table: { schema: 'public', name: 'album' }, name: 'artist', definition: { to_source: { source: 'default', table: { schema: 'public', name: 'artist' }, relationship_type: 'object', field_mapping: { artist_id: 'id' } } } },
    source: 'archive',
  });
  await form.getByRole('button', { name: 'Add database relationship' }).click();
  await page.getByRole('cell', { name: 'artist', exact: true }).waitFor();

  await go(e.url, 'data/default/schema/public/tables/artist/relationships');
  const back = page.getByRole('form', { name: 'Add a relationship to another database' });
  await back.getByLabel('Database relationship name').fill('albums');
  await back.getByLabel('Database relationship kind').selectOption('array');
  await back.getByLabel('Target database and table').selectOption({ label: 'archive: public.album' });
  await back.getByLabel('Field mapping 1 from').selectOption('id');
  await back.getByLabel('Field mapping 1 to').selectOption('artist_id');
  await back.getByRole('button', { name: 'Add database relationship' }).click();
  await page.getByRole('cell', { name: 'albums', exact: true }).waitFor();

  const q = await e.graphql('{ archive_album(order_by: {id: asc}) { title artist { name } } artist(order_by: {id: asc}) { name albums { title } } }', undefined, { 'x-svc-admin-secret': SECRET });
  assert.deepEqual(q.body, { data: {
    archive_album: [{ title: 'Blue (remastered)', artist: { name: 'Ann' } }, { title: 'Red', artist: { name: 'Ben' } }],
    artist: [{ name: 'Ann', albums: [{ title: 'Blue (remastered)' }] }, { name: 'Ben', albums: [{ title: 'Red' }] }],
  } });
});

test('a table created and given a column through the forms lands in the second database, tracked there', async () => {
  await go(e.url, 'data/archive');
  await page.getByRole('link', { name: 'Create a table' }).click();
  await page.waitForURL(/#\/data\/archive\/create-table$/);
  const form = page.getByRole('form', { name: 'Create a table' });
  await form.getByLabel('Table name').fill('label');
  const sent = JSON.parse(await form.getByLabel('Metadata to send').innerText());
  assert.deepEqual(sent, { type: 'track_table', args: { table: { schema: 'public', name: 'label' } }, source: 'archive' });
  await form.getByRole('button', { name: 'Create table' }).click();
  await page.waitForURL(/#\/data\/archive\/schema\/public\/tables\/label\/modify$/);
  await page.getByRole('button', { name: 'Add a column' }).click();
  const add = page.getByRole('form', { name: 'Add a column' });
  await add.getByLabel('New column name').fill('name');
  await add.getByRole('button', { name: 'Add column' }).click();
  await page.getByRole('button', { name: 'Edit column name' }).waitFor();
  assert.deepEqual(await onSecond("SELECT column_name FROM information_schema.columns WHERE table_name = 'label' ORDER BY ordinal_position"), [{ column_name: 'id' }, { column_name: 'name' }]);
  assert.deepEqual((await sourceOf('archive')).tables.map((t: any) => t.table.name).sort(), ['album', 'label']);
  const q = await e.graphql('{ archive_label { id name } }', undefined, { 'x-svc-admin-secret': SECRET });
  assert.deepEqual(q.body, { data: { archive_label: [] } });
});

test('SQL runs on the database chosen', async () => {
  await go(e.url, 'sql');
  await page.getByLabel('Database', { exact: true }).selectOption('archive');
  // `album` exists only in the second database.
  await page.getByLabel('SQL', { exact: true }).fill('SELECT title FROM album ORDER BY id');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByText('Result (2 rows)').waitFor();
  await page.getByRole('cell', { name: 'Red', exact: true }).waitFor();
  await page.getByLabel('Database', { exact: true }).selectOption('default');
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByText(/relation "album" does not exist/).waitFor();
});

test('an event trigger on the second database\'s table: delivered, its events and invocation log read from that database', async () => {
  await go(e.url, 'events');
  const form = page.getByRole('form', { name: 'Create an event trigger' });
  await form.getByLabel('Name').fill('album_changes');
  await form.getByLabel('Database').selectOption('archive');
  await form.getByLabel('Table').selectOption('public.album');
  await form.getByLabel('Webhook URL').fill(`${rx.url}/album`);
  const sent = JSON.parse(await form.getByLabel('Metadata to send', { exact: true }).innerText());
  assert.deepEqual([sent.type, sent.source], ['create_event_trigger', 'archive']);
  await form.getByRole('button', { name: 'Create trigger' }).click();
  await page.getByRole('cell', { name: 'album_changes', exact: true }).waitFor();
  assert.equal((await sourceOf('archive')).tables.find((t: any) => t.table.name === 'album').event_triggers[0].name, 'album_changes');

  await sqlOn(second.url, "INSERT INTO album VALUES (3, 'Green', 1)");
  const d = await eventually(() => rx.deliveries.find((x) => x.path === '/album'), Boolean, 15_000, 'the insert on the second database delivered');
  assert.equal(d!.body.event.data.new.title, 'Green');
  const [{ id }] = await eventually(() => onSecond<{ id: string }>("SELECT id FROM hdb_catalog.event_log WHERE trigger_name = 'album_changes' AND delivered"), (r) => r.length === 1, 15_000, 'the event marked delivered in the second database');

  await page.getByRole('button', { name: 'Events of album_changes' }).click();
  await page.getByText('Events of album_changes (archive)').waitFor();
  await page.getByRole('button', { name: 'Refresh', exact: true }).click();
  await page.getByRole('cell', { name: 'delivered', exact: true }).waitFor();
  await page.getByRole('button', { name: `Invocations of ${id}` }).click();
  const request = page.getByLabel(/^request of invocation/).first();
  await request.waitFor();
  assert.match(await request.innerText(), /"title": "Green"/);
});

test('Manage databases: rename the second database, then remove it with cascade confirmed', async () => {
  // default's relationship to it is dropped first (from its Relationships tab, on default).
  await go(e.url, 'data/default/schema/public/tables/artist/relationships');
  await page.getByRole('button', { name: 'Drop relationship albums' }).first().click();
  const drop = page.getByRole('form', { name: 'Drop relationship albums' });
  assert.deepEqual(JSON.parse(await drop.getByLabel('Metadata to send').innerText()), { type: 'delete_remote_relationship', args: { table: { schema: 'public', name: 'artist' }, name: 'albums' }, source: 'default' });
  await drop.getByRole('button', { name: 'Drop relationship albums' }).click();
  await page.getByRole('cell', { name: 'albums', exact: true }).waitFor({ state: 'detached' });

  await go(e.url, 'data/manage');
  await page.getByRole('button', { name: 'Rename archive' }).click();
  const rename = page.getByRole('form', { name: 'Rename database archive' });
  await rename.getByLabel('New database name').fill('music');
  await rename.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('health of music').waitFor();
  assert.equal(await sourceOf('archive'), undefined);
  assert.deepEqual((await sourceOf('music')).tables.map((t: any) => t.table.name).sort(), ['album', 'label']);

  await page.getByRole('button', { name: 'Remove music' }).click();
  const remove = page.getByRole('form', { name: 'Remove database music' });
  await remove.getByLabel('Also remove what depends on it (cascade)').check();
  assert.deepEqual(JSON.parse(await remove.getByLabel('Metadata to send for the removal').innerText()), { type: 'drop_source', args: { name: 'music', cascade: true } });
  await remove.getByRole('button', { name: 'Remove database music' }).click();
  await page.getByLabel('health of music').waitFor({ state: 'detached' });
  assert.equal((await exported()).sources, undefined, 'only default is left');
});

test('migrations mode: SQL on the second database is a migration in migrations/<database>/, recorded there; the metadata folder keeps the source', async () => {
  const io = (): CliIo => ({ out: () => {}, err: () => {}, progress: () => {}, env: {}, color: false });
  const add = await e.query({ type: 'add_source', args: { name: 'archive', configuration: { connection_info: { database_url: second.url } } } });
  assert.equal(add.status, 200, add.text);
  tmp = await mkdtemp(join(tmpdir(), 'svc-e2e-sources-'));
  const dir = join(tmp, 'project');
  await runCli('migrate', ['create', 'init', '--dir', join(dir, 'migrations')], io());
  await rm(join(dir, 'migrations'), { recursive: true });
  await writeFile(join(dir, 'config.yaml'), `version: 3\nendpoint: ${e.url}\nadmin_secret: ${SECRET}\n`);
  assert.equal(await runCli('metadata', ['export', '--project', dir], io()), 0);
  proxy = await startProjectConsole(['--project', dir, '--port', '0'], io());

  await go(proxy.url, 'sql');
  await page.getByLabel('Database', { exact: true }).selectOption('archive');
  await page.getByLabel('SQL', { exact: true }).fill('CREATE TABLE track (id int PRIMARY KEY, album_id int NOT NULL, name text NOT NULL);');
  assert.equal(await page.getByLabel('This is a migration').isChecked(), true);
  await page.getByLabel('Migration name').fill('create_table_track');
  await page.getByLabel('Down SQL (optional)').fill('DROP TABLE track;');
  assert.match(await page.getByText(/written to migrations\/archive\//).innerText(), /migrations\/archive\/<version>_create_table_track\/down\.sql/);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByText('command completed').waitFor();

  const folders = await readdir(join(dir, 'migrations', 'archive'));
  assert.equal(folders.length, 1);
  assert.match(folders[0], /^\d+_create_table_track$/);
  assert.match(await readFile(join(dir, 'migrations', 'archive', folders[0], 'up.sql'), 'utf8'), /CREATE TABLE track/);
  assert.equal(await readFile(join(dir, 'migrations', 'archive', folders[0], 'down.sql'), 'utf8'), 'DROP TABLE track;\n');
  assert.deepEqual((await readdir(join(dir, 'migrations')).catch(() => [])).filter((f) => f !== 'archive'), [], 'nothing written for default');
  assert.deepEqual(await onSecond("SELECT to_regclass('public.track') IS NOT NULL AS made"), [{ made: true }]);
  const version = folders[0].split('_')[0];
  assert.deepEqual(await onSecond(`SELECT version::text, dirty FROM hdb_catalog.schema_migrations WHERE version = ${version}`), [{ version, dirty: false }], 'recorded as applied in the second database');

  // Track it from the tree's page: the metadata folder is written again with both databases.
  await go(proxy.url, 'data/archive');
  await page.getByRole('button', { name: 'Track public.track' }).click();
  await page.getByRole('link', { name: 'track', exact: true }).waitFor();
  const databases = await readFile(join(dir, 'metadata', 'databases', 'databases.yaml'), 'utf8');
  assert.match(databases, /name: archive/);
  assert.match(databases, /name: default/);
  const files = await readdir(join(dir, 'metadata', 'databases', 'archive', 'tables'));
  assert.ok(files.includes('public_track.yaml'), files.join(', '));
});

test('no console errors and no uncaught exceptions in the page (before the log-in 401, the refusals above 400, on purpose)', () => {
  const unexpected = pageErrors.filter((m) => !/Failed to load resource: the server responded with a status of (400|401) /.test(m));
  assert.deepEqual(unexpected, []);
});
