#!/usr/bin/env node
/**
 * `npm run test:docs [files...]`: runs the commands of the docs (README.md, docs/**.md).
 *
 * A fenced ```sh block is run when the line before it is an HTML comment (see docs/README.md):
 *   <!-- doctest -->            run with bash -euo pipefail against this file's engine; the block fails
 *                               on a non-zero exit, after 120 s, or when a line `# → text` in it names
 *                               a text its output does not contain
 *   <!-- doctest: server -->    the block starts an engine and keeps running: it passes once
 *                               http://localhost:8080/healthz answers 200 (within 180 s); the blocks
 *                               after it in the file talk to it, until the next server block or the
 *                               end of the file stops it (SIGTERM to its process group)
 *   <!-- not run: reason -->    not run (docker, kubectl, a placeholder host…); the reason is required
 * Any other ```sh block fails the run, so every command in the docs is either run or says why not;
 * so does a relative link to a file that does not exist.
 *
 * Each file gets a fresh engine (`node dist/bin/svc-graphql-engine.js serve`, the bundle, no admin secret, console on) on its own database of
 * one embedded Postgres, on a free port: `localhost:8080` in a block is rewritten to that port, or to
 * the port of the latest server block (each gets a free port of its own). Blocks run in order from the repository root with
 * DATABASE_URL set to another fresh, empty database ("your database") and SVC_GRAPHQL_DATA_DIR to a
 * temporary folder. `svc-graphql-engine` is on their PATH as `npm link` puts it there: the run starts with
 * `npm link` into a temporary npm prefix (NPM_CONFIG_PREFIX, also set for the blocks, so `npm link` and
 * `npm install -g` in a block go there too, never to the machine's global folder); CI's
 * pack-install step (scripts/packInstallCheck.mjs) checks the same commands from the packed tarball.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BLOCK_TIMEOUT_MS = 120_000;
const SERVER_TIMEOUT_MS = 180_000;

/** The ```sh blocks of a markdown text: `{line, mode, reason, code}`; mode is run|server|skip|unmarked. */
export function shBlocks(text) {
  const lines = text.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    let j = i + 1;
    while (j < lines.length && !/^\s*```\s*$/.test(lines[j])) j++;
    if (fence[2] === 'sh') {
      let k = i - 1;
      while (k >= 0 && lines[k].trim() === '') k--;
      const marker = k >= 0 ? /^\s*<!--\s*(doctest(?::\s*server)?|not run:\s*(.*?))\s*-->\s*$/.exec(lines[k]) : null;
      const mode = !marker ? 'unmarked' : marker[1] === 'doctest' ? 'run' : marker[1].startsWith('doctest') ? 'server' : 'skip';
      blocks.push({ line: i + 1, mode, reason: marker?.[2] ?? '', code: lines.slice(i + 1, j).join('\n') });
    }
    i = j;
  }
  return blocks;
}

/** Relative links of a markdown text (`[x](path#anchor)`) whose file does not exist, seen from `dir`. */
export function brokenLinks(text, dir) {
  const out = [];
  for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1].split('#')[0];
    if (!target || /^[a-z]+:/i.test(target)) continue;
    if (!existsSync(resolve(dir, target))) out.push(m[1]);
  }
  return out;
}

/** The `# → text` expectations of a block. */
export const expectations = (code) => [...code.matchAll(/^\s*# → (.+)$/gm)].map((m) => m[1].trim());

/** The block with `localhost:8080` pointed at `port`. */
export const retarget = (code, port) => code.replace(/(localhost|127\.0\.0\.1):8080\b/g, `127.0.0.1:${port}`).replace(/\b(SVC_GRAPHQL_SERVER_PORT=|--server-port[ =])8080\b/g, `$1${port}`);

function markdownFiles() {
  const docs = readdirSync(join(root, 'docs'), { recursive: true }).map(String).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
  return ['README.md', ...docs.sort()];
}

function run(cmd, args, opts) {
  return new Promise((res) => {
    const child = spawn(cmd, args, { ...opts, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => {
      out += `\n(timed out after ${opts.timeout / 1000} s)`;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
    }, opts.timeout);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      res({ code: code ?? (signal ? 1 : 0), out });
    });
  });
}

async function healthy(port, child, until) {
  while (Date.now() < until) {
    if (child.exitCode !== null) return false;
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 300));
  }
  return false;
}

async function stop(child) {
  if (child.exitCode !== null) return;
  const closed = new Promise((r) => child.on('close', r));
  try { process.kill(-child.pid, 'SIGTERM'); } catch { return; }
  const t = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 15_000);
  await closed;
  clearTimeout(t);
}

/** Starts `bash -c code` in its own process group and waits for /healthz on `port`. */
async function startServer(code, port, env) {
  const child = spawn('bash', ['-euo', 'pipefail', '-c', code], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out = (out + d).slice(-4000)));
  child.stderr.on('data', (d) => (out = (out + d).slice(-4000)));
  const ok = await healthy(port, child, Date.now() + SERVER_TIMEOUT_MS);
  return { child, ok, out: () => out };
}

async function main() {
  const { tsImport } = await import('tsx/esm/api');
  const { startEmbeddedPostgres } = await tsImport('../src/execution/embeddedPostgres.ts', import.meta.url);
  const { freePort } = await tsImport('../src/lib/index.ts', import.meta.url);
  const pg = (await import('pg')).default;

  const wanted = process.argv.slice(2).map((f) => relative(root, resolve(f)));
  const files = wanted.length ? wanted : markdownFiles();
  const problems = [];
  const plan = files.map((file) => ({ file, blocks: shBlocks(readFileSync(join(root, file), 'utf8')) }));
  for (const { file, blocks } of plan) {
    for (const link of brokenLinks(readFileSync(join(root, file), 'utf8'), dirname(join(root, file)))) problems.push(`${file}: link to a missing file: ${link}`);
    for (const b of blocks.filter((x) => x.mode === 'unmarked')) problems.push(`${file}:${b.line}: a sh block with neither <!-- doctest --> nor <!-- not run: reason -->`);
  }
  const runnable = plan.filter((p) => p.blocks.some((b) => b.mode === 'run' || b.mode === 'server'));
  let passed = 0;
  if (runnable.length) {
    for (const script of ['scripts/buildServer.mjs', 'scripts/buildConsole.mjs']) {
      if (spawnSync(process.execPath, [script], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);
    }
    const work = mkdtempSync(join(tmpdir(), 'svc-doctest-'));
    // As root, Postgres runs as `postgres`, which must be able to enter the folder, or the data would go
    // to /var/lib/svc-graphql-engine (docs/getting-started.md) and outlive the run.
    chmodSync(work, 0o755);
    // The command as docs/getting-started.md installs it from a clone: `npm link`, into a temporary prefix.
    const npmPrefix = join(work, 'npm-global');
    mkdirSync(npmPrefix);
    const npmEnv = { ...process.env, NPM_CONFIG_PREFIX: npmPrefix };
    for (const k of Object.keys(npmEnv)) if (/^npm_config_(global_)?prefix$/i.test(k) && k !== 'NPM_CONFIG_PREFIX') delete npmEnv[k];
    const linked = spawnSync('npm', ['link', '--no-audit', '--no-fund'], { cwd: root, env: npmEnv, encoding: 'utf8' });
    if (linked.status !== 0 || !existsSync(join(npmPrefix, 'bin', 'svc-graphql-engine'))) throw new Error(`npm link into ${npmPrefix} failed:\n${linked.stdout}${linked.stderr}`);
    const server = await startEmbeddedPostgres({ dataDir: join(work, 'pg'), database: 'postgres', onLog: () => undefined, postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off'] });
    const admin = new pg.Client({ connectionString: server.maintenanceUrl });
    await admin.connect();
    const dbUrl = (name) => { const u = new URL(server.maintenanceUrl); u.pathname = `/${name}`; return u.toString(); };
    try {
      let n = 0;
      for (const { file, blocks } of runnable) {
        n++;
        await admin.query(`CREATE DATABASE doc_${n}`);
        await admin.query(`CREATE DATABASE doc_${n}_yours`);
        const port = await freePort();
        const base = {
          ...process.env,
          DATABASE_URL: dbUrl(`doc_${n}_yours`),
          SVC_GRAPHQL_DATA_DIR: join(work, `data-${n}`),
          NPM_CONFIG_PREFIX: npmPrefix,
          PATH: `${join(npmPrefix, 'bin')}:${process.env.PATH ?? ''}`,
        };
        for (const k of Object.keys(base)) if (k.startsWith('SVC_GRAPHQL_') && k !== 'SVC_GRAPHQL_DATA_DIR') delete base[k];
        // `npm run` hands its own prefix down as npm_config_prefix / npm_config_global_prefix, which win over
        // NPM_CONFIG_PREFIX: drop them, so `npm link` / `npm install -g` in a block use the temporary prefix.
        for (const k of Object.keys(base)) if (/^npm_config_(global_)?prefix$/i.test(k) && k !== 'NPM_CONFIG_PREFIX') delete base[k];
        const engineEnv = { ...base, SVC_GRAPHQL_DATABASE_URL: dbUrl(`doc_${n}`), SVC_GRAPHQL_SERVER_PORT: String(port), SVC_GRAPHQL_LOG_LEVEL: 'warn', SVC_GRAPHQL_ENABLE_CONSOLE: 'true' };
        const engine = await startServer('exec node --max-semi-space-size=4 dist/bin/svc-graphql-engine.js serve', port, engineEnv);
        if (!engine.ok) {
          problems.push(`${file}: its engine did not start:\n${engine.out()}`);
          await stop(engine.child);
          continue;
        }
        let target = port; // where `localhost:8080` points: the file's engine, then the latest server block's
        let own; // the running server block, kept until the next one or the end of the file
        try {
          for (const b of blocks) {
            if (b.mode !== 'run' && b.mode !== 'server') continue;
            const where = `${file}:${b.line}`;
            const t0 = Date.now();
            if (b.mode === 'server') {
              if (own) await stop(own.child);
              const p = await freePort();
              own = await startServer(retarget(b.code, p), p, { ...base, SVC_GRAPHQL_SERVER_PORT: String(p) });
              if (!own.ok) {
                problems.push(`${where}: the server did not answer /healthz within ${SERVER_TIMEOUT_MS / 1000} s:\n${own.out()}`);
                break;
              }
              target = p;
              passed++;
            } else {
              const r = await run('bash', ['-euo', 'pipefail', '-c', retarget(b.code, target)], { cwd: root, env: base, timeout: BLOCK_TIMEOUT_MS });
              const missing = expectations(b.code).filter((e) => !r.out.includes(e));
              if (r.code !== 0) problems.push(`${where}: exit ${r.code}:\n${r.out.slice(-3000)}`);
              else if (missing.length) problems.push(`${where}: output lacks ${missing.map((m) => JSON.stringify(m)).join(', ')}:\n${r.out.slice(-3000)}`);
              else passed++;
            }
            console.log(`# ${where} (${b.mode}) ${Date.now() - t0} ms`);
          }
        } finally {
          if (own) await stop(own.child);
          await stop(engine.child);
        }
      }
    } finally {
      await admin.end();
      await server.stop().catch(() => undefined);
      rmSync(work, { recursive: true, force: true });
    }
  }
  const skipped = plan.flatMap((p) => p.blocks.filter((b) => b.mode === 'skip'));
  for (const p of problems) console.log(`not ok ${p}`);
  console.log(`${passed} blocks passed, ${problems.length} failed, ${skipped.length} not run (each says why)`);
  process.exit(problems.length ? 1 : 0);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (!existsSync(join(root, 'node_modules'))) throw new Error('run npm ci first');
  await main();
}
