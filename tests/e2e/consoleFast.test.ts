/**
 * The console fast and keyboard-reachable, end to end in headless Chromium against a real engine with
 * 500 tracked tables: every page's first paint (its heading) within 1 s of opening it, measured with the
 * browser's own clock (navigation start → the frame painting the heading; first-contentful-paint and the
 * time of the engine's last answer are printed beside it);
 * on a slow engine (its answers held back until the page painted) each page still paints at once and
 * shows a spinner while it waits;
 * the login and the navigation are reached with Tab and a page opened with Enter.
 * Any console error or uncaught exception in the page fails the run.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Browser, type Page } from 'playwright-core';
import { openConsoleBrowser } from './consoleBrowser.js';
import { startTestEngine, type TestEngine } from '../integration/harness.js';

const SECRET = 'e2e-fast-secret';
const TABLES = 500;
/** Every page of App.tsx's routes, and a table's rows. */
const PAGES = ['graphiql', 'data', 'data/public/t_250', 'sql', 'permissions', 'permissions/public/t_250', 'events', 'scheduled', 'actions', 'remote-schemas', 'metadata'];

let e: TestEngine;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

before(async () => {
  e = await startTestEngine({ adminSecret: SECRET, enableConsole: true });
  await e.runSql(`DO $$ BEGIN FOR i IN 1..${TABLES} LOOP
    EXECUTE format('CREATE TABLE t_%s (id serial PRIMARY KEY, name text, parent_id int %s, created_at timestamptz DEFAULT now())', i, CASE WHEN i > 1 THEN format('REFERENCES t_%s (id)', i - 1) ELSE '' END);
  END LOOP; END $$`);
  const track = await e.query({ type: 'bulk', args: Array.from({ length: TABLES }, (_, i) => ({ type: 'track_table', args: { table: { schema: 'public', name: `t_${i + 1}` } } })) });
  assert.equal(track.status, 200, track.text.slice(0, 300));
  ({ browser, page } = await openConsoleBrowser(pageErrors));
  // The page's first paint, by the browser's clock: the frame in which the page's heading (main h1) is
  // first on screen (the requestAnimationFrame callback right after it entered the document).
  await page.addInitScript(() => {
    const w = window as unknown as { __headingPaint?: number };
    const obs = new MutationObserver(() => {
      if (!document.querySelector('main#content h1')) return;
      obs.disconnect();
      requestAnimationFrame(() => (w.__headingPaint = performance.now()));
    });
    obs.observe(document, { subtree: true, childList: true });
  });
});

after(async () => {
  await browser?.close();
  await e?.stop();
});

test('the login and the navigation by keyboard: Tab reaches each in order, Enter logs in and opens a page', async () => {
  await page.goto(`${e.url}/console`);
  const focused = () => page.evaluate(() => {
    const a = document.activeElement as HTMLElement | null;
    if (!a) return '';
    const label = a.id ? document.querySelector(`label[for="${a.id}"]`)?.textContent : undefined;
    return `${a.tagName.toLowerCase()}:${label ?? a.getAttribute('aria-label') ?? a.textContent ?? ''}`.trim();
  });
  await page.getByLabel('Admin secret').waitFor();
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'input:Admin secret');
  await page.keyboard.type(SECRET);
  await page.keyboard.press('Tab');
  assert.equal(await focused(), 'button:Enter');
  await page.keyboard.press('Enter');
  await page.getByRole('navigation', { name: 'console' }).waitFor();
  // From the top of the page, Tab walks the navigation's links in their order.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  const seen: string[] = [];
  for (let i = 0; i < 12 && !seen.includes('a:SQL'); i++) {
    await page.keyboard.press('Tab');
    seen.push(await focused());
  }
  assert.deepEqual(seen.filter((s) => s.startsWith('a:')), ['a:GraphiQL', 'a:Data', 'a:SQL']);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'SQL', exact: true }).waitFor();
  assert.match(page.url(), /#\/sql$/);
  // The page's own controls come next: the SQL editor, reachable without a mouse.
  await page.keyboard.press('Tab');
  const next = await focused();
  assert.ok(next !== '' && !next.startsWith('body'), next);
});

test(`every page paints within 1 s with ${TABLES} tracked tables`, async () => {
  const figures: string[] = [];
  const slow: string[] = [];
  for (const hash of PAGES) {
    // A new document each time (a change of the hash alone would not load the page).
    await page.goto('about:blank');
    await page.goto(`${e.url}/console#/${hash}`, { waitUntil: 'commit' });
    await page.waitForFunction(() => (window as unknown as { __headingPaint?: number }).__headingPaint !== undefined);
    // The browser's clock: navigation start → the page's heading painted, and first-contentful-paint.
    const t = await page.evaluate(() => ({ heading: (window as unknown as { __headingPaint: number }).__headingPaint, fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime }));
    // Content: the last answer of the engine the page asked for (after the network settled and the spinners went).
    await page.waitForLoadState('networkidle');
    await page.waitForFunction(() => document.querySelectorAll('main#content .spinner').length === 0);
    const content = await page.evaluate(() => Math.max(0, ...performance.getEntriesByType('resource').filter((r) => /\/v1\//.test(r.name)).map((r) => (r as PerformanceResourceTiming).responseEnd)));
    figures.push(`${hash}: heading ${Math.round(t.heading)} ms, fcp ${t.fcp === undefined ? '-' : Math.round(t.fcp)} ms, last engine answer ${Math.round(content)} ms`);
    if (t.heading >= 1000) slow.push(`${hash}: the heading painted after ${Math.round(t.heading)} ms`);
  }
  console.log(`# first paint with ${TABLES} tables:\n# ${figures.join('\n# ')}`);
  assert.deepEqual(slow, []);
});

test('on a slow engine every page still paints at once and shows a spinner while it waits', async () => {
  // The engine's answers to the pages (/v1/…) are held until the page has painted and shows its spinner.
  let release!: () => void;
  let held = new Promise<void>((r) => (release = r));
  await page.route(/\/v1\/(query|metadata|graphql)$/, async (route) => {
    await held;
    await route.continue();
  });
  try {
    for (const hash of PAGES.filter((h) => h !== 'sql')) {
      await page.goto('about:blank');
      await page.goto(`${e.url}/console#/${hash}`, { waitUntil: 'commit' });
      await page.waitForFunction(() => (window as unknown as { __headingPaint?: number }).__headingPaint !== undefined);
      const painted = await page.evaluate(() => (window as unknown as { __headingPaint: number }).__headingPaint);
      assert.ok(painted < 1000, `${hash}: the heading painted after ${Math.round(painted)} ms`);
      await page.getByRole('status').filter({ hasText: /waiting for the engine|loading/ }).first().waitFor();
      release();
      await page.waitForLoadState('networkidle');
      await page.waitForFunction(() => document.querySelectorAll('.spinner').length === 0);
      held = new Promise<void>((r) => (release = r));
    }
  } finally {
    release();
    await page.unroute(/\/v1\/(query|metadata|graphql)$/);
  }
});

test('no console errors in the page', () => {
  // Chromium logs the 401 of the login check (before the secret is typed) as a failed resource: asked for.
  const unexpected = pageErrors.filter((m) => !/Failed to load resource: the server responded with a status of 401 /.test(m));
  assert.deepEqual(unexpected, []);
});
