/**
 * Migrations mode end to end: `svc-graphql-engine console --project DIR` (its server started as the
 * command starts it) in front of a real engine, driven in headless Chromium. A table is created on the
 * SQL page with "This is a migration" (its name and down SQL), tracked on the Data page, given a select
 * permission on the Permissions page; the project folder (a git repository) then holds one new
 * migration, recorded as applied, and the metadata of those clicks, and nothing else; `migrate apply` +
 * `metadata apply` of the folder on a second, fresh engine give the same exported metadata.
 * Any console error or uncaught exception in the page fails the run.
 * `SVC_E2E_SCREENSHOTS=1 npm run test:e2e` also writes docs/console/migrations-mode.png.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { SHOTS, openConsoleBrowser } from './consoleBrowser.js';
import { metadataToFiles, runCli, startProjectConsole, type CliIo, type ConsoleProxy } from '../../src/cli/index.js';
import { startTestEngine, type TestEngine } from '../integration/harness.js';

const SECRET = 'e2e-project-secret';

let e: TestEngine;
let proxy: ConsoleProxy;
let browser: Browser;
let page: Page;
let tmp: string;
let dir: string;
const pageErrors: string[] = [];

const io = (): CliIo => ({ out: () => {}, err: () => {}, progress: () => {}, env: {}, color: false });
const git = (...args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });

before(async () => {
  e = await startTestEngine({ adminSecret: SECRET });
  tmp = await mkdtemp(join(tmpdir(), 'svc-e2e-project-'));
  dir = join(tmp, 'project');
  await runCli('migrate', ['create', 'init', '--dir', join(dir, 'migrations')], io());
  await rm(join(dir, 'migrations'), { recursive: true });
  await writeFile(join(dir, 'config.yaml'), `version: 3\nendpoint: ${e.url}\nadmin_secret: ${SECRET}\n`);
  assert.equal(await runCli('metadata', ['export', '--project', dir], io()), 0);
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'project');
  proxy = await startProjectConsole(['--project', dir, '--port', '0'], io());
  ({ browser, page } = await openConsoleBrowser(pageErrors));
});

after(async () => {
  await browser?.close();
  await proxy?.stop();
  await e?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const go = async (hash: string) => {
  await page.goto(`${proxy.url}/console#/${hash}`);
  await page.getByRole('navigation', { name: 'console' }).waitFor();
};

test('the console opens without asking for the secret and says it is in migrations mode', async () => {
  await go('sql');
  await page.getByText('migrations mode · default').waitFor();
  assert.equal(await page.getByLabel('Admin secret').count(), 0);
});

test('create a table as a migration, track it, add a permission: the project gets exactly those changes', async () => {
  await go('sql');
  await page.getByLabel('SQL', { exact: true }).fill("CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, owner_id int);\nINSERT INTO author (name, owner_id) VALUES ('Alice', 7), ('Bob', 8);");
  // Ticked by itself for SQL that changes the schema.
  const box = page.getByLabel('This is a migration');
  assert.equal(await box.isChecked(), true);
  await page.getByLabel('Migration name').fill('create_table_author');
  await page.getByLabel('Down SQL (optional)').fill('DROP TABLE author;');
  if (SHOTS) await page.screenshot({ path: `${SHOTS}migrations-mode.png` });
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByText('command completed').waitFor();

  // A read, with the box unticked by itself: no migration.
  await page.getByLabel('SQL', { exact: true }).fill('SELECT count(*) FROM author');
  assert.equal(await box.isChecked(), false);
  await page.getByRole('button', { name: 'Run', exact: true }).click();
  await page.getByRole('cell', { name: '2' }).waitFor();

  await go('data');
  await page.getByRole('button', { name: 'Track public.author' }).click();
  await page.getByRole('link', { name: 'author' }).waitFor();

  await go('permissions/public/author');
  await page.getByLabel('New role').fill('user');
  await page.getByRole('button', { name: 'Add role' }).click();
  await page.getByRole('button', { name: 'select permission of user: none' }).click();
  const form = page.getByRole('form', { name: 'select permission for user' });
  for (const c of ['id', 'name']) await form.getByLabel(c, { exact: true }).check();
  await form.getByLabel('Row filter').fill('{"owner_id": {"_eq": "X-Svc-User-Id"}}');
  await form.getByRole('button', { name: 'Save permission' }).click();
  await page.getByRole('button', { name: 'select permission of user: partial' }).waitFor();

  const ms = await readdir(join(dir, 'migrations', 'default'));
  assert.equal(ms.length, 1);
  assert.match(ms[0]!, /^\d{13}_create_table_author$/);
  const folder = join(dir, 'migrations', 'default', ms[0]!);
  assert.match(await readFile(join(folder, 'up.sql'), 'utf8'), /^CREATE TABLE author .*;\nINSERT INTO author/);
  assert.equal(await readFile(join(folder, 'down.sql'), 'utf8'), 'DROP TABLE author;\n');

  git('add', '-A');
  const changed = git('diff', '--cached', '--name-status').trim().split('\n').sort();
  assert.deepEqual(changed, [`A\tmigrations/default/${ms[0]}/down.sql`, `A\tmigrations/default/${ms[0]}/up.sql`, 'M\tmetadata/tables.yaml']);
  const diff = git('diff', '--cached', '--', 'metadata/tables.yaml');
  assert.match(diff, /^\+\s+name: author$/m);
  assert.match(diff, /^\+\s+- role: user$/m);
  assert.match(diff, /^\+\s+_eq: X-Svc-User-Id$/m);

  const status: string[] = [];
  assert.equal(await runCli('migrate', ['status', '--project', dir], { ...io(), out: (t) => void status.push(t) }), 0);
  assert.match(status.join(''), new RegExp(`^${ms[0]!.split('_')[0]}\\tcreate_table_author\\tPresent\\tApplied$`, 'm'));
});

test('the project applied to a second, fresh engine gives the same metadata', async () => {
  const b = await startTestEngine({ adminSecret: SECRET });
  try {
    assert.equal(await runCli('migrate', ['apply', '--project', dir, '--endpoint', b.url], io()), 0);
    assert.equal(await runCli('metadata', ['apply', '--project', dir, '--endpoint', b.url], io()), 0);
    const exportOf = async (x: TestEngine) => (await x.query({ type: 'export_metadata', args: {} })).body;
    const [first, second] = [await exportOf(e), await exportOf(b)];
    assert.equal(first.tables.length, 1);
    assert.deepEqual(second, first);
    assert.deepEqual(metadataToFiles(second), metadataToFiles(first));
    const q = await b.graphql('{ author { name } }', undefined, { 'x-svc-role': 'user', 'x-svc-user-id': '8' });
    assert.deepEqual(q.body, { data: { author: [{ name: 'Bob' }] } });
  } finally {
    await b.stop();
  }
});

test('no console errors in the page', () => {
  assert.deepEqual(pageErrors, []);
});
