/**
 * The console's permissions editor and GraphiQL end to end: a real engine (console on, admin secret
 * and an HS256 JWT secret) and headless Chromium (playwright-core). A select permission is built
 * with the boolean-expression builder (a column compared with a session variable through a
 * relationship, and a column of the table), its JSON checked in the raw editor and in the preview,
 * saved, then seen at work in GraphiQL with the role and user id set in the request headers editor
 * (and with a JWT instead of the admin secret); the permission is cloned to another role and action;
 * an insert permission with a check and presets; an inherited role created, edited and dropped; the
 * explorer builds a query; Analyze shows the SQL and the plan tree; a subscription gets an insert.
 * Any console error or uncaught exception in the page fails the run.
 * `SVC_E2E_SCREENSHOTS=1 npm run test:e2e` also writes these pages to docs/console/*.png.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Browser, type Locator, type Page } from 'playwright-core';
import { SHOTS, logIn, openConsoleBrowser } from './consoleBrowser.js';
import { startTestEngine, type TestEngine } from '../integration/harness.js';
import { signJwt, svcClaims } from '../support/jwt.js';

const SECRET = 'e2e-secret';
const JWT_KEY = 'an-hs256-key-for-the-console-perms-e2e-run-0123456789';

let e: TestEngine;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  e = await startTestEngine({ adminSecret: SECRET, enableConsole: true, jwtSecret: { type: 'HS256', key: JWT_KEY } });
  await e.runSql(`CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, owner_id int, kind text);
CREATE TABLE article (id serial PRIMARY KEY, title text NOT NULL, published boolean NOT NULL DEFAULT false, author_id int REFERENCES author (id));
INSERT INTO author (name, owner_id) VALUES ('Alice', 7), ('Bob', 8);
INSERT INTO article (title, published, author_id) VALUES ('a1', true, 1), ('a2', false, 1), ('b1', true, 2);`);
  const r = await e.query({ type: 'bulk', args: [
    { type: 'track_table', args: { table: 'author' } },
    { type: 'track_table', args: { table: 'article' } },
    { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
    { type: 'create_array_relationship', args: { table: 'author', name: 'articles', using: { foreign_key_constraint_on: { table: 'article', column: 'author_id' } } } },
  ] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  ({ browser, page } = await openConsoleBrowser(pageErrors, { viewport: { width: 1366, height: 900 } }));
  await logIn(page, e.url, SECRET);
});

after(async () => {
  await browser?.close();
  await e?.stop();
});

const shot = async (name: string, target?: Locator) => {
  if (!SHOTS) return;
  if (target) await target.screenshot({ path: `${SHOTS}${name}.png` });
  else await page.screenshot({ path: `${SHOTS}${name}.png` });
};
const go = async (hash: string) => {
  // A fresh document each time (a change of the hash alone would keep the page's state).
  await page.goto('about:blank');
  await page.goto(`${e.url}/console#/${hash}`);
  await page.getByRole('navigation', { name: 'console' }).waitFor();
};
const exported = async () => (await e.query({ type: 'export_metadata', args: {} })).body;
const tableMd = async (name: string) => (await exported()).tables.find((t: any) => (t.table.name ?? t.table) === name);
const json = async (l: Locator) => JSON.parse(await l.innerText());
const TABLE = { schema: 'public', name: 'article' };
const FILTER = { author: { owner_id: { _eq: 'X-Svc-User-Id' } }, published: { _eq: true } };
const SELECT = { columns: ['id', 'title', 'published', 'author_id'], filter: FILTER, allow_aggregations: false };
/** As export_metadata gives it back (without the default). */
const SELECT_EXPORTED = { columns: SELECT.columns, filter: FILTER };

test('Permissions: a select filter built with the builder (a relationship path, a session variable), synced with the raw JSON, previewed, saved', async () => {
  await go('permissions/public/article');
  await page.getByLabel('New role').fill('user');
  await page.getByRole('button', { name: 'Add role' }).click();
  await page.getByRole('button', { name: 'select permission of user: none' }).click();
  const form = page.getByRole('form', { name: 'select permission for user' });
  await form.getByLabel('all columns').check();
  await form.getByLabel('Add a condition at filter', { exact: true }).selectOption('author');
  await form.getByLabel('Add a condition at filter.author', { exact: true }).selectOption('owner_id');
  // Operators are typed by the column: an int column has no _like, a text one has.
  const ops = await form.getByLabel('Operator for filter.author.owner_id').locator('option').allInnerTexts();
  assert.ok(ops.includes('_gte') && ops.includes('_in') && ops.includes('_ceq') && !ops.includes('_like'), ops.join(' '));
  // Session variables in use are offered as values.
  const value = form.getByLabel('Value for filter.author.owner_id._eq');
  assert.equal(await value.getAttribute('list') !== null, true);
  await value.fill('X-Svc-User-Id');
  await form.getByLabel('Add a condition at filter', { exact: true }).selectOption('published');
  await form.getByLabel('Value for filter.published._eq').fill('true');
  const raw = form.getByLabel('Row filter', { exact: true });
  assert.deepEqual(JSON.parse(await raw.inputValue()), FILTER);

  // The raw JSON drives the builder, and the builder the JSON.
  await raw.fill(JSON.stringify({ ...FILTER, title: { _ilike: '%1' } }));
  assert.equal(await form.getByLabel('Operator for filter.title').inputValue(), '_ilike');
  assert.ok((await form.getByLabel('Operator for filter.title').locator('option').allInnerTexts()).includes('_like'));
  await form.getByRole('button', { name: 'Remove filter.title', exact: true }).click();
  assert.deepEqual(JSON.parse(await raw.inputValue()), FILTER);

  const preview = form.getByLabel('Metadata JSON to send', { exact: true });
  assert.deepEqual(await json(preview), { type: 'bulk', args: [{ type: 'create_select_permission', args: { table: TABLE, role: 'user', permission: SELECT }, source: 'default' }] });
  await shot('permissions-editor', page.getByRole('region', { name: 'select permission for role user' }));
  await form.getByRole('button', { name: 'Save permission' }).click();
  await page.getByRole('button', { name: 'select permission of user: partial' }).waitFor();
  assert.deepEqual((await tableMd('article')).select_permissions, [{ role: 'user', permission: SELECT_EXPORTED }]);
});

test('Permissions: an error of the engine is shown next to the field, and nothing is saved', async () => {
  await go('permissions/public/author');
  await page.getByLabel('New role').fill('user');
  await page.getByRole('button', { name: 'Add role' }).click();
  await page.getByRole('button', { name: 'delete permission of user: none' }).click();
  const form = page.getByRole('form', { name: 'delete permission for user' });
  await form.getByLabel('Row filter', { exact: true }).fill('{"articles": {"nosuch": {"_eq": 1}}}');
  // A name the builder does not know stays visible, to be edited in the JSON.
  await form.getByText('(edit in the JSON)').waitFor();
  await form.getByRole('button', { name: 'Save permission' }).click();
  const field = page.locator('.field').filter({ has: page.getByLabel('Row filter', { exact: true }) });
  await field.getByRole('alert').waitFor();
  assert.match(await field.getByRole('alert').innerText(), /nosuch/);
  assert.equal((await tableMd('author')).delete_permissions, undefined);
  await form.getByRole('button', { name: 'Close' }).click();
});

test('GraphiQL: the role and user id set in the request headers editor limit the rows; a JWT instead of the admin secret', async () => {
  await go('graphiql');
  const headers = page.getByRole('region', { name: 'Request headers' });
  await headers.getByLabel('Header 1 name').waitFor();
  assert.equal(await headers.getByLabel('Header 1 name').inputValue(), 'x-svc-role');
  await headers.getByLabel('Header 1 value').fill('user');
  await headers.getByLabel('Header 2 value').fill('7');
  const editor = page.locator('.graphiql-query-editor .CodeMirror').first();
  await editor.waitFor();
  const setEditor = async (locator: Locator, text: string) => {
    await locator.evaluate((el, t) => (el as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue(t), text);
  };
  const getEditor = (locator: Locator) => locator.evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
  // GraphiQL's JSON headers tab mirrors the table.
  const jsonTab = page.locator('.graphiql-editor-tool .CodeMirror').last();
  await page.waitForFunction(() => (document.querySelectorAll('.graphiql-editor-tool .CodeMirror') as NodeListOf<any>)[1]?.CodeMirror?.getValue().includes('"user"'));
  assert.deepEqual(JSON.parse(await getEditor(jsonTab)), { 'x-svc-role': 'user', 'x-svc-user-id': '7' });
  await setEditor(editor, '{ article(order_by: {id: asc}) { title } }');
  await page.getByRole('button', { name: /Execute query/ }).click();
  const result = page.locator('.graphiql-response');
  await result.getByText('"a1"').waitFor();
  assert.deepEqual(JSON.parse(await getEditor(page.locator('.graphiql-response .CodeMirror'))), { data: { article: [{ title: 'a1' }] } });
  // Kept across reloads in localStorage (never the admin secret).
  const stored = await page.evaluate(() => localStorage.getItem('svc-graphiql-headers'));
  assert.match(stored ?? '', /"user"/);
  assert.doesNotMatch(stored ?? '', new RegExp(SECRET));
  await shot('graphiql-headers');

  // A JWT instead: the admin secret off, the token's claims give the role and user id.
  const token = signJwt(svcClaims({ allowed: ['user'], default: 'user', vars: { 'x-svc-user-id': '8' } }), { alg: 'HS256', key: JWT_KEY });
  await headers.getByLabel('send the admin secret').uncheck();
  await headers.getByLabel('Header 1 on').uncheck();
  await headers.getByLabel('Header 2 on').uncheck();
  await headers.getByRole('button', { name: 'Add JWT (Authorization: Bearer)' }).click();
  await headers.getByLabel('Header 3 value').fill(`Bearer ${token}`);
  await headers.getByText('JWT claims (not verified here)').click();
  await headers.getByText('"x-svc-default-role": "user"').waitFor();
  await page.getByRole('button', { name: /Execute query/ }).click();
  await result.getByText('"b1"').waitFor();
  assert.doesNotMatch(await getEditor(page.locator('.graphiql-response .CodeMirror')), /a1/);

  // Back to the admin secret with the role headers.
  await headers.getByRole('button', { name: 'Remove header 3' }).click();
  await headers.getByLabel('send the admin secret').check();
  await headers.getByLabel('Header 1 on').check();
  await headers.getByLabel('Header 2 on').check();
  await page.reload();
  await headers.getByLabel('Header 1 value').waitFor();
  assert.equal(await headers.getByLabel('Header 1 value').inputValue(), 'user', 'kept in localStorage');
  await page.getByRole('button', { name: /Execute query/ }).click();
  await result.getByText('"a1"').waitFor();

  // The history lists what was run (GraphiQL's own, in localStorage).
  await page.getByRole('button', { name: 'Show History' }).click();
  await page.locator('.graphiql-history-item').first().waitFor();
  assert.ok((await page.evaluate(() => localStorage.getItem('graphiql:queries')))?.includes('article(order_by'));
});

test('Permissions: clone the select permission to another role and as a delete permission', async () => {
  await go('permissions/public/article');
  await page.getByRole('button', { name: 'select permission of user: partial' }).click();
  const clone = page.getByRole('form', { name: 'Clone this permission' });
  await clone.getByLabel('Clone to role (name)').fill('editor');
  await clone.getByLabel('as delete').check();
  const preview = clone.getByLabel('Metadata JSON to send for the clone');
  assert.deepEqual(await json(preview), { type: 'bulk', args: [
    { type: 'create_select_permission', args: { table: TABLE, role: 'editor', permission: SELECT }, source: 'default' },
    { type: 'create_delete_permission', args: { table: TABLE, role: 'editor', permission: { filter: FILTER } }, source: 'default' },
  ] });
  await clone.getByRole('button', { name: 'Clone permission' }).click();
  await page.getByRole('button', { name: 'delete permission of editor: partial' }).waitFor();
  const md = await tableMd('article');
  assert.deepEqual(md.select_permissions.find((p: any) => p.role === 'editor').permission, SELECT_EXPORTED);
  assert.deepEqual(md.delete_permissions, [{ role: 'editor', permission: { filter: FILTER } }]);

  // Deleting a permission shows what it sends, then sends it.
  await page.getByRole('button', { name: 'delete permission of editor: partial' }).click();
  const form = page.getByRole('form', { name: 'delete permission for editor' });
  await form.getByRole('button', { name: 'Delete permission' }).click();
  assert.deepEqual(await json(form.getByLabel('Metadata JSON to send for the delete')), { type: 'bulk', args: [{ type: 'drop_delete_permission', args: { table: TABLE, role: 'editor' }, source: 'default' }] });
  await form.getByRole('button', { name: 'Confirm delete' }).click();
  await page.getByRole('button', { name: 'delete permission of editor: none' }).waitFor();
  assert.equal((await tableMd('article')).delete_permissions, undefined);
});

test('Permissions: an insert permission with a check and presets (a session variable, a static value), then an insert as the role', async () => {
  await go('permissions/public/author');
  await page.getByLabel('New role').fill('user');
  await page.getByRole('button', { name: 'Add role' }).click();
  await page.getByRole('button', { name: 'insert permission of user: none' }).click();
  const form = page.getByRole('form', { name: 'insert permission for user' });
  await form.getByLabel('name', { exact: true }).check();
  await form.getByLabel('Add a condition at check', { exact: true }).selectOption('owner_id');
  await form.getByLabel('Value for check.owner_id._eq').fill('X-Svc-User-Id');
  await form.getByRole('button', { name: 'Add preset' }).click();
  await form.getByLabel('Preset 1 column').selectOption('owner_id');
  assert.equal(await form.getByLabel('Preset 1 value').inputValue(), 'X-Svc-User-Id');
  await form.getByRole('button', { name: 'Add preset' }).click();
  await form.getByLabel('Preset 2 column').selectOption('kind');
  await form.getByLabel('Preset 2 kind').selectOption('static');
  await form.getByLabel('Preset 2 value').fill('writer');
  const permission = { columns: ['name'], check: { owner_id: { _eq: 'X-Svc-User-Id' } }, set: { owner_id: 'X-Svc-User-Id', kind: 'writer' } };
  assert.deepEqual(await json(form.getByLabel('Metadata JSON to send', { exact: true })), { type: 'bulk', args: [{ type: 'create_insert_permission', args: { table: { schema: 'public', name: 'author' }, role: 'user', permission }, source: 'default' }] });
  await form.getByRole('button', { name: 'Save permission' }).click();
  await page.getByRole('button', { name: 'insert permission of user: partial' }).waitFor();
  assert.deepEqual((await tableMd('author')).insert_permissions, [{ role: 'user', permission }]);
  const r = await e.graphql('mutation { insert_author(objects: [{name: "Zoe"}]) { affected_rows } }', undefined, { 'x-svc-role': 'user', 'x-svc-user-id': '9' });
  assert.deepEqual(r.body, { data: { insert_author: { affected_rows: 1 } } });
  assert.deepEqual((await e.runSql("SELECT owner_id, kind FROM author WHERE name = 'Zoe'")).result.slice(1), [['9', 'writer']]);
});

test('Permissions: an update permission with an _or group, a check and backend-only; a computed field in select', async () => {
  await e.runSql(`CREATE FUNCTION article_shout(a article) RETURNS text LANGUAGE sql STABLE AS $$ SELECT upper(a.title) $$`);
  const cf = await e.query({ type: 'add_computed_field', args: { table: 'article', name: 'shout', definition: { function: 'article_shout' } } });
  assert.equal(cf.status, 200, JSON.stringify(cf.body));
  await go('permissions/public/article');
  await page.getByRole('button', { name: 'update permission of user: none' }).click();
  const form = page.getByRole('form', { name: 'update permission for user' });
  await form.getByLabel('title', { exact: true }).check();
  await form.getByLabel('Add a condition at filter', { exact: true }).selectOption('_or');
  await form.getByLabel('Add a condition at filter._or[0]', { exact: true }).selectOption('author_id');
  await form.getByLabel('Operator for filter._or[0].author_id').selectOption('_in');
  await form.getByLabel('Value for filter._or[0].author_id._in').fill('1, 2');
  await form.getByRole('button', { name: '+ group' }).click();
  await form.getByLabel('Add a condition at filter._or[1]', { exact: true }).selectOption('title');
  await form.getByLabel('Operator for filter._or[1].title').selectOption('_ilike');
  await form.getByLabel('Value for filter._or[1].title._ilike').fill('%draft%');
  await form.getByLabel('Check', { exact: true }).fill('{"title": {"_neq": ""}}');
  await form.getByLabel(/backend only/).check();
  const permission = { columns: ['title'], filter: { _or: [{ author_id: { _in: [1, 2] } }, { title: { _ilike: '%draft%' } }] }, check: { title: { _neq: '' } }, backend_only: true };
  assert.deepEqual(await json(form.getByLabel('Metadata JSON to send', { exact: true })), { type: 'bulk', args: [{ type: 'create_update_permission', args: { table: TABLE, role: 'user', permission }, source: 'default' }] });
  await form.getByRole('button', { name: 'Save permission' }).click();
  await page.getByRole('button', { name: 'update permission of user: partial' }).waitFor();
  assert.deepEqual((await tableMd('article')).update_permissions, [{ role: 'user', permission }]);
  // Backend-only: the role's update exists only with the admin secret and the header.
  const as = { 'x-svc-role': 'user', 'x-svc-user-id': '7' };
  const hidden = await e.graphql('mutation { update_article(where: {id: {_eq: 2}}, _set: {title: "a2b"}) { affected_rows } }', undefined, as);
  assert.match(JSON.stringify(hidden.body), /update_article/);
  assert.ok(hidden.body.errors, JSON.stringify(hidden.body));
  const shown = await e.graphql('mutation { update_article(where: {id: {_eq: 2}}, _set: {title: "a2b"}) { affected_rows } }', undefined, { ...as, 'x-svc-admin-secret': SECRET, 'x-svc-use-backend-only-permissions': 'true' });
  assert.deepEqual(shown.body, { data: { update_article: { affected_rows: 1 } } });

  // The select permission offers the computed field.
  await page.getByRole('button', { name: 'select permission of user: partial' }).click();
  const select = page.getByRole('form', { name: 'select permission for user' });
  await select.getByLabel('shout', { exact: true }).check();
  const preview = await json(select.getByLabel('Metadata JSON to send', { exact: true }));
  assert.deepEqual(preview.args[1].args.permission.computed_fields, ['shout']);
  await select.getByRole('button', { name: 'Save permission' }).click();
  await select.waitFor({ state: 'detached' });
  assert.deepEqual((await tableMd('article')).select_permissions.find((p: any) => p.role === 'user').permission.computed_fields, ['shout']);
  const r = await e.graphql('{ article(order_by: {id: asc}) { shout } }', undefined, as);
  assert.deepEqual(r.body, { data: { article: [{ shout: 'A1' }] } });
});

test('Permissions: an inherited role created from member roles, edited, dropped', async () => {
  await go('permissions/public/article');
  const section = page.getByRole('region', { name: 'Inherited roles' });
  const form = section.getByRole('form', { name: 'Create or edit an inherited role' });
  await form.getByLabel('Inherited role name').fill('reader');
  const members = form.getByRole('group', { name: 'Member roles' });
  await members.getByLabel('user', { exact: true }).check();
  await members.getByLabel('editor', { exact: true }).check();
  assert.deepEqual(await json(form.getByLabel('Metadata JSON to send for the inherited role')), { type: 'add_inherited_role', args: { role_name: 'reader', role_set: ['user', 'editor'] } });
  await form.getByRole('button', { name: 'Create inherited role' }).click();
  await section.getByRole('cell', { name: 'user, editor' }).waitFor();
  assert.deepEqual((await exported()).inherited_roles, [{ role_name: 'reader', role_set: ['user', 'editor'] }]);
  await shot('permissions-inherited', section);
  // The role works: as reader, Alice's published article through user's filter.
  const r = await e.graphql('{ article { title } }', undefined, { 'x-svc-role': 'reader', 'x-svc-user-id': '7' });
  assert.deepEqual(r.body, { data: { article: [{ title: 'a1' }] } });

  await section.getByRole('button', { name: 'Edit inherited role reader' }).click();
  await members.getByLabel('editor', { exact: true }).uncheck();
  await form.getByRole('button', { name: 'Save inherited role' }).click();
  await section.getByRole('cell', { name: 'user', exact: true }).waitFor();
  assert.deepEqual((await exported()).inherited_roles, [{ role_name: 'reader', role_set: ['user'] }]);

  await section.getByRole('button', { name: 'Drop inherited role reader' }).click();
  assert.deepEqual(await json(section.getByLabel('Metadata JSON to send for the drop')), { type: 'drop_inherited_role', args: { role_name: 'reader' } });
  await section.getByRole('button', { name: 'Confirm drop' }).click();
  await section.getByRole('cell', { name: 'no rows' }).waitFor();
  assert.equal((await exported()).inherited_roles, undefined);
});

test('GraphiQL: the explorer builds a query with arguments; Analyze shows the SQL and the plan tree', async () => {
  await go('graphiql');
  const headers = page.getByRole('region', { name: 'Request headers' });
  await headers.getByLabel('Header 1 value').fill('admin');
  // The schema follows the headers: as admin the explorer offers article.author (user may not read author).
  const explorer = page.locator('.explorer');
  const editor = page.locator('.graphiql-query-editor .CodeMirror').first();
  await editor.waitFor();
  const setQuery = (t: string) => editor.evaluate((el, v) => (el as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue(v), t);
  // What is typed checks the boxes…
  await setQuery('{ article(order_by: {id: desc}) { title } }');
  await explorer.getByLabel('field article.title', { exact: true }).waitFor();
  assert.equal(await explorer.getByLabel('field article.title', { exact: true }).isChecked(), true);
  assert.equal(await explorer.getByLabel('field article.id', { exact: true }).isChecked(), false);
  assert.equal(await explorer.getByLabel('value of article(order_by.id', { exact: true }).inputValue(), 'desc');
  await setQuery('');
  await explorer.getByLabel('field article.title', { exact: true }).waitFor({ state: 'detached' });
  // …and the boxes write the query.
  await explorer.getByLabel('field article', { exact: true }).check();
  await explorer.getByLabel('field article.title', { exact: true }).check();
  await explorer.getByLabel('field article.author', { exact: true }).check();
  await explorer.getByLabel('field article.author.name', { exact: true }).check();
  await explorer.getByLabel('argument article(where', { exact: true }).check();
  await explorer.getByLabel('argument article(where.published', { exact: true }).check();
  await explorer.getByLabel('argument article(where.published._eq', { exact: true }).check();
  await explorer.getByLabel('value of article(where.published._eq', { exact: true }).fill('true');
  const text = await editor.evaluate((el) => (el as unknown as { CodeMirror: { getValue(): string } }).CodeMirror.getValue());
  assert.equal(text, 'query MyQuery {\n  article(where: {published: {_eq: true}}) {\n    author {\n      id\n      name\n    }\n    id\n    title\n  }\n}\n');
  await page.getByRole('button', { name: /Execute query/ }).click();
  const result = page.locator('.graphiql-response');
  await result.getByText('"b1"').waitFor();
  assert.doesNotMatch(await result.innerText(), /"a2"/);
  await shot('graphiql-explorer');

  await page.getByRole('button', { name: 'Analyze (generated SQL and plan)' }).click();
  const analysis = page.getByRole('region', { name: 'Analysis' });
  const sql = analysis.getByLabel('SQL of article');
  await sql.waitFor();
  assert.match(await sql.innerText(), /SELECT[\s\S]*"public"\."article"/);
  const plan = analysis.getByRole('figure', { name: 'Plan of article' });
  const scan = plan.getByLabel(/plan node .* on article/).first();
  await scan.waitFor();
  // EXPLAIN ANALYZE: each node shows its actual time and rows.
  assert.match(await scan.innerText(), /\d+\.\d+ ms · \d+ rows/);
  assert.ok((await plan.locator('.plan-node').count()) >= 2, 'a tree, not a single box');
  await shot('graphiql-analyze', analysis);
});

test('GraphiQL: a subscription as the role in the headers editor receives a row inserted afterwards', async () => {
  await go('graphiql');
  const headers = page.getByRole('region', { name: 'Request headers' });
  await headers.getByLabel('Header 1 value').fill('user');
  await headers.getByLabel('Header 2 value').fill('7');
  const editor = page.locator('.graphiql-query-editor .CodeMirror').first();
  await editor.waitFor();
  // Named as the explorer names operations: GraphiQL restores the last tab's operation name and
  // updates it from the editor only after a short debounce.
  await editor.evaluate((el) => (el as unknown as { CodeMirror: { setValue(v: string): void } }).CodeMirror.setValue('subscription MyQuery { article(order_by: {id: asc}) { title } }'));
  await page.getByRole('button', { name: /Execute query/ }).click();
  const result = page.locator('.graphiql-response');
  await result.getByText('"a1"').waitFor().catch(async (err) => {
    throw new Error(`${err}\nresponse: ${await result.innerText()}\nheaders: ${await page.evaluate(() => localStorage.getItem('svc-graphiql-headers'))}`);
  });
  await e.runSql("INSERT INTO article (title, published, author_id) VALUES ('a3 live', true, 1), ('b2 hidden', true, 2)");
  await result.getByText('"a3 live"').waitFor();
  assert.doesNotMatch(await result.innerText(), /b2 hidden|"b1"/);
  await page.getByRole('button', { name: /Stop query|Stop subscription/ }).click();
});

test('no console errors in the page', () => {
  const unexpected = pageErrors.filter((m) => !/Failed to load resource: the server responded with a status of (400|401) /.test(m));
  assert.deepEqual(unexpected, []);
});
