/**
 * The console as the engine serves it: on by default with the embedded Postgres only (here the
 * engine is given a database URL, so off unless enabled), the page and its built assets with the
 * right types and caching, `/` redirected, unknown files and paths outside the build 404.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { startTestEngine } from './harness.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
if (!existsSync(`${root}dist/console/index.html`)) execFileSync(process.execPath, [`${root}scripts/buildConsole.mjs`], { stdio: 'ignore' });

test('off by default with a database URL: /console and / are 404', async () => {
  const e = await startTestEngine({});
  try {
    assert.equal((await e.request('GET', '/console')).status, 404);
    assert.equal((await fetch(`${e.url}/`, { redirect: 'manual' })).status, 404);
  } finally {
    await e.stop();
  }
});

test('on: the page, hashed assets cached for a year, / redirected, nothing outside the build', async () => {
  const e = await startTestEngine({ enableConsole: true, adminSecret: 'k' });
  try {
    const page = await fetch(`${e.url}/console`);
    assert.equal(page.status, 200, 'the page needs no secret: it asks for one');
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    const html = await page.text();
    const js = /src="(\/console\/assets\/app-[^"]+\.js)"/.exec(html)?.[1];
    const css = /href="(\/console\/assets\/app-[^"]+\.css)"/.exec(html)?.[1];
    assert.ok(js && css, html);
    assert.doesNotMatch(html, /https?:\/\//, 'nothing is loaded from the network');
    const asset = await fetch(e.url + js);
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match((await fetch(e.url + css)).headers.get('content-type') ?? '', /^text\/css/);
    const root = await fetch(`${e.url}/`, { redirect: 'manual' });
    assert.equal(root.status, 307);
    assert.equal(root.headers.get('location'), '/console');
    for (const bad of ['/console/assets/nope.js', '/console/assets/..%2F..%2Fpackage.json', '/console/../package.json', '/console/index.html/x', '/console/assets/']) {
      assert.equal((await fetch(e.url + bad)).status, 404, bad);
    }
    assert.equal((await fetch(`${e.url}/console`, { method: 'POST' })).status, 405);
  } finally {
    await e.stop();
  }
});
