#!/usr/bin/env node
/**
 * Transpiles the engine (src/**\/*.ts) into dist/src, one file per file, with esbuild: no type check,
 * no declarations, well under a second. Run by `npm ci` (prepare) and `npm start`, so a fresh clone
 * installs and starts without a full `tsc` (which takes ~15 s here). Types are checked by `npm test`
 * (`npm run typecheck` first), and `npm run build` / `npm pack` (prepack) still run `tsc`, which also
 * writes the `.d.ts` files the package publishes. The output layout is tsc's (dist/src/...), and
 * esbuild reads tsconfig.json for the same class-field semantics as tsc and tsx (the tests run the
 * sources through tsx, i.e. the same per-file transform).
 */
import { build } from 'esbuild';
import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

await build({
  entryPoints: sources(join(root, 'src')),
  outdir: join(root, 'dist', 'src'),
  outbase: join(root, 'src'),
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  tsconfig: join(root, 'tsconfig.json'),
  logLevel: 'warning',
});
