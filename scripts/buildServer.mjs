#!/usr/bin/env node
/**
 * Builds the engine with esbuild (no type check, no declarations, a second or two), into two places:
 *
 * - **dist/bin/**: the engine as it is started: `svc-graphql-engine.js` (the package's `bin`, what
 *   `npm start`, the Dockerfile and the doc test run) turns on source maps and loads `main.js`, the
 *   bundle of `src/main.ts` and everything it imports from `src/` (node_modules stay outside, as the
 *   package's dependencies), split at its dynamic imports (`serve` loads the engine, each CLI command
 *   its own module: shared code in `chunk-*.js`), plus the modules run in worker threads
 *   (`new URL('./x.js', import.meta.url)`), each an entry of its own beside them. Every file has its
 *   source map, so stack traces name `src/…/*.ts` lines. One folder, written afresh each time.
 * - **dist/src/**: one file per source file, tsc's layout: the library the package exports
 *   (`dist/src/index.js`) and what the scripts import.
 *
 * `node scripts/buildServer.mjs --bin-only` builds dist/bin alone (after `tsc` wrote dist/src).
 * Run by `npm ci` (prepare) and `npm start`, so a fresh clone installs and starts without a full `tsc`
 * (which takes ~15 s here). Types are checked by `npm test` (`npm run typecheck` first), and
 * `npm run build` / `npm pack` (prepack) still run `tsc`, which also writes the `.d.ts` files the
 * package publishes. esbuild reads tsconfig.json for the same class-field semantics as tsc and tsx
 * (the tests run the sources through tsx, i.e. the same per-file transform).
 */
import { build } from 'esbuild';
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const binOnly = process.argv.includes('--bin-only');

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

const common = { format: 'esm', platform: 'node', target: 'node20', sourcemap: true, tsconfig: join(root, 'tsconfig.json'), logLevel: 'warning' };

if (!binOnly) {
  await build({ ...common, entryPoints: sources(src), outdir: join(root, 'dist', 'src'), outbase: src, bundle: false });
}

// The modules started as worker threads: a source naming `new URL('./x.js', import.meta.url)` next to it.
const workerModules = sources(src).flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/new URL\('\.\/(\w+)\.js', import\.meta\.url\)/g)].map((m) => join(dirname(file), `${m[1]}.ts`)).filter((f) => existsSync(f));
});

/**
 * The dependencies bundled with the engine (with everything they import): pure JavaScript, loaded at
 * every start, many files each (graphql alone ~100). The others are imported from node_modules at run
 * time: pg (the engine reaches into its modules by path: execution/pgSubmittable.ts, dataRowBytes.ts,
 * api/pgDumpBridge.ts, so there must be one copy), the embedded Postgres and pg_dump packages (binaries
 * and wasm beside their code), and what is loaded only when used (OpenTelemetry, redis, pino-pretty).
 */
const BUNDLED = new Set(['graphql', 'pino', 'ws', 'jose', 'prom-client', 'yaml', 'js-yaml', 'cron-parser']);

/** Imports of packages from src/ stay outside the bundle unless the package is in `bundled`. */
function dependenciesOutside(bundled) {
  return {
    name: 'dependencies-outside',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.importer.includes('/node_modules/')) return undefined;
        const name = args.path.startsWith('@') ? args.path.split('/').slice(0, 2).join('/') : args.path.split('/')[0];
        return bundled.has(name) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

const out = join(root, 'dist', 'bin');
rmSync(out, { recursive: true, force: true });
await build({
  ...common,
  entryPoints: [join(src, 'main.ts'), ...new Set(workerModules)],
  outdir: out,
  // Flat, so that a worker's URL, relative to whichever chunk names it, is the worker's entry.
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  plugins: [dependenciesOutside(BUNDLED)],
  // graphql's ES modules (index.mjs) rather than its CommonJS files.
  mainFields: ['module', 'main'],
  // For the CommonJS code bundled with them: `require` of Node's modules (and of what stays outside).
  banner: { js: "import { createRequire as __svcCreateRequire } from 'node:module'; const require = __svcCreateRequire(import.meta.url);" },
  // Stack traces need the mappings, not the sources' text (which would triple the maps to read at start).
  sourcesContent: false,
});
const launcher = join(out, 'svc-graphql-engine.js');
writeFileSync(
  launcher,
  `#!/usr/bin/env node
// The command: source maps on before the engine's bundle loads (stack traces name src/*.ts lines), then the bundle.
process.setSourceMapsEnabled(true);
await import('./main.js');
`,
);
chmodSync(launcher, 0o755);
if (process.argv.includes('--verbose')) console.log(`built ${relative(root, out)}: ${readdirSync(out).length} files`);
