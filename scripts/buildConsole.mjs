#!/usr/bin/env node
/**
 * Builds the web console (console/src) into dist/console: a minified ESM bundle (pages loaded on demand,
 * GraphiQL, in their own chunks) + its CSS under assets/ with content-hashed names, and index.html pointing at them (no inline script, nothing from
 * the network). Prints the sizes (raw and gzipped). Run by `npm run build` and `npm start`; the
 * engine serves the result at /console (src/api/consoleAssets.ts).
 */
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'console');
rmSync(out, { recursive: true, force: true });
mkdirSync(join(out, 'assets'), { recursive: true });

const r = await build({
  entryPoints: { app: join(root, 'console', 'src', 'main.tsx') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  outdir: join(out, 'assets'),
  entryNames: '[name]-[hash]',
  // Pages loaded on demand (GraphiQL) become their own chunks.
  splitting: true,
  chunkNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  jsx: 'automatic',
  loader: { '.woff': 'file', '.woff2': 'file', '.ttf': 'file', '.svg': 'file', '.png': 'file' },
  define: { 'process.env.NODE_ENV': '"production"' },
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

const outputs = Object.keys(r.metafile.outputs).map((f) => relative(join(out, 'assets'), resolve(root, f)));
const js = outputs.find((f) => f.startsWith('app-') && f.endsWith('.js'));
const css = outputs.find((f) => f.startsWith('app-') && f.endsWith('.css'));
// The chunks the entry imports statically (React, shared code): preloaded with it, not one after another.
const entryOut = Object.entries(r.metafile.outputs).find(([f]) => relative(join(out, 'assets'), resolve(root, f)) === js)?.[1];
const preload = (entryOut?.imports ?? []).filter((i) => i.kind === 'import-statement').map((i) => relative(join(out, 'assets'), resolve(root, i.path)));
writeFileSync(join(out, 'index.html'), `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc-graphql-engine console</title>
<link rel="icon" href="data:,">
${css ? `<link rel="stylesheet" href="/console/assets/${css}">\n` : ''}${preload.map((p) => `<link rel="modulepreload" href="/console/assets/${p}">\n`).join('')}<script type="module" src="/console/assets/${js}"></script>
</head>
<body>
<div id="root"></div>
</body>
</html>
`);

let raw = 0;
let gz = 0;
for (const f of readdirSync(join(out, 'assets'))) {
  const b = readFileSync(join(out, 'assets', f));
  raw += statSync(join(out, 'assets', f)).size;
  gz += gzipSync(b).length;
}
console.log(`console: dist/console (${(raw / 1024).toFixed(0)} KiB, ${(gz / 1024).toFixed(0)} KiB gzipped)`);
