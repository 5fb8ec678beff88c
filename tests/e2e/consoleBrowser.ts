/**
 * What every console end-to-end file starts with: headless Chromium (Debian's `chromium`, or
 * SVC_E2E_CHROMIUM) through playwright-core, one page whose console errors and uncaught exceptions are
 * collected (a file fails its run when any are), the screenshot folder when SVC_E2E_SCREENSHOTS=1, and
 * the log-in with an admin secret.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** docs/console/ when SVC_E2E_SCREENSHOTS=1 (the pages' screenshots are written there), else undefined. */
export const SHOTS = process.env.SVC_E2E_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../docs/console/', import.meta.url)) : undefined;
const CHROMIUM = process.env.SVC_E2E_CHROMIUM ?? '/usr/bin/chromium';

/** Chromium and one page; the page's console errors and uncaught exceptions are pushed to `pageErrors`. */
export async function openConsoleBrowser(
  pageErrors: string[],
  opts: { viewport?: { width: number; height: number }; acceptDownloads?: boolean } = {},
): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage({ viewport: opts.viewport ?? { width: 1366, height: 768 }, ...(opts.acceptDownloads ? { acceptDownloads: true } : {}) });
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (err) => pageErrors.push(`pageerror: ${err.message}`));
  if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  return { browser, page };
}

/** Opens the console at `url` and enters `secret` in its admin-secret form; resolves once the navigation shows. */
export async function logIn(page: Page, url: string, secret: string): Promise<void> {
  await page.goto(`${url}/console`);
  await page.getByLabel('Admin secret').fill(secret);
  await page.getByRole('button', { name: 'Enter' }).click();
  await page.getByRole('navigation', { name: 'console' }).waitFor();
}
