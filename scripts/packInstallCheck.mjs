#!/usr/bin/env node
/**
 * `node scripts/packInstallCheck.mjs [tarball]` (a CI step): the package as a user installs it.
 *
 * `npm pack` (or the given tarball), then `npm install -g --prefix <empty temp folder> <tarball>` with
 * nothing of this repository on the way: the command must come from the prefix's `bin/` and run from
 * other folders. Then, with that `svc-graphql-engine`:
 *   - the command is the engine's bundle (dist/bin, with its worker modules and source maps);
 *   - `--version` prints the package's version; `--help` lists serve's options and the seed command;
 *   - `serve` with the embedded Postgres (a temp data dir, a free port, an admin secret) answers
 *     /healthz, serves the built console at /console and its assets, and answers a GraphQL query;
 *   - in a copy of a Hasura project folder (tests/support/fixtures/hasura-projects/nextjs-13: config v3,
 *     actions on `{{NEXTJS_SERVER_URL}}`, seeds), `migrate apply`, then `metadata apply` while the engine
 *     lacks NEXTJS_SERVER_URL (it must fail, apply nothing, and say to set it on the engine and restart
 *     it), then, the engine restarted with it, `metadata apply` and `seed apply`, and a query as the
 *     project's anonymous role;
 *   - SIGTERM stops the engine with exit 0.
 * Exits 1 naming the first step that failed, with the engine's last output.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const SECRET = 'pack-check-secret';
const work = mkdtempSync(join(tmpdir(), 'svc-pack-'));
const prefix = join(work, 'prefix');
const bin = join(prefix, 'bin', 'svc-graphql-engine');
let engine;
let failed = false;

const step = (line) => console.log(`::: ${line}`);
function fail(line, detail = '') {
  console.log(`not ok ${line}${detail ? `\n${detail.slice(-4000)}` : ''}`);
  failed = true;
  throw new Error(line);
}
const check = (ok, line, detail) => (ok ? console.log(`ok ${line}`) : fail(line, detail));

/** Runs a command to its end; the environment is the caller's with `env` on top and the prefix's bin first on PATH. */
function run(cmd, args, { cwd = work, env = {}, timeout = 300_000 } = {}) {
  const r = spawnSync(cmd, args, { cwd, env: { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, ...env }, encoding: 'utf8', timeout });
  return { code: r.status ?? 1, out: r.stdout ?? '', err: (r.stderr ?? '') + (r.error ? String(r.error) : '') };
}

const freePort = () =>
  new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });

/** `svc-graphql-engine serve` from the prefix, in its own folder; resolves once /healthz answers 200. */
async function serve(port, dataDir, env = {}) {
  const child = spawn('svc-graphql-engine', ['serve'], {
    cwd: work,
    env: { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}`, SVC_GRAPHQL_DATA_DIR: dataDir, SVC_GRAPHQL_SERVER_PORT: String(port), SVC_GRAPHQL_ADMIN_SECRET: SECRET, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out = (out + d).slice(-20000)));
  child.stderr.on('data', (d) => (out = (out + d).slice(-20000)));
  const e = { child, out: () => out, exited: new Promise((r) => child.on('exit', (code, signal) => r(code ?? signal))) };
  const until = Date.now() + 180_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) fail(`serve exited (${child.exitCode}) before answering /healthz`, out);
    if (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false)) return e;
    await new Promise((r) => setTimeout(r, 300));
  }
  child.kill('SIGKILL');
  fail('serve did not answer /healthz within 180 s', out);
}

async function stop(e) {
  if (!e || e.child.exitCode !== null) return e ? e.child.exitCode : 0;
  e.child.kill('SIGTERM');
  const t = setTimeout(() => e.child.kill('SIGKILL'), 30_000);
  const code = await e.exited;
  clearTimeout(t);
  return code;
}

const post = (port, path, body, headers = { 'x-svc-admin-secret': SECRET }) =>
  fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: await r.json() }));

async function main() {
  let tarball = process.argv[2] && resolve(process.argv[2]);
  if (!tarball) {
    step('npm pack');
    const r = run('npm', ['pack', '--pack-destination', work], { cwd: root });
    if (r.code !== 0) fail('npm pack failed', r.out + r.err);
    tarball = join(work, readdirSync(work).find((f) => f.endsWith('.tgz')));
  }

  step(`npm install -g --prefix ${prefix} ${tarball}`);
  const t0 = Date.now();
  const inst = run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: work, timeout: 600_000 });
  if (inst.code !== 0) fail('npm install -g of the tarball failed', inst.out + inst.err);
  check(existsSync(bin), `${bin} exists (${Math.round((Date.now() - t0) / 1000)} s to install)`);
  const installed = join(prefix, 'lib', 'node_modules', 'svc-graphql-engine');
  check(realpathSync(bin).startsWith(realpathSync(installed)), 'the command is the installed package, not this clone', realpathSync(bin));
  check(realpathSync(bin) === join(realpathSync(installed), 'dist', 'bin', 'svc-graphql-engine.js'), 'the command is the bundle (dist/bin/svc-graphql-engine.js)', realpathSync(bin));
  const bundle = readdirSync(join(installed, 'dist', 'bin'));
  check(['main.js', 'main.js.map', 'decodeBodyWorker.js', 'storedDocumentWorker.js', 'pgDumpWasmWorker.js'].every((f) => bundle.includes(f)), 'the bundle, its worker modules and source maps are in the package', bundle.join(' '));
  check(existsSync(join(installed, 'dist', 'console', 'index.html')), 'the built console is in the package');
  check(!existsSync(join(installed, 'src')) && !existsSync(join(installed, 'scripts')), 'no sources or build scripts in the package');
  const which = run('bash', ['-c', 'command -v svc-graphql-engine']);
  check(which.out.trim() === bin, `svc-graphql-engine on the PATH is ${which.out.trim()}`);

  const v = run('svc-graphql-engine', ['--version']);
  check(v.code === 0 && v.out.trim() === version, `svc-graphql-engine --version prints ${version}`, v.out + v.err);
  const h = run('svc-graphql-engine', ['--help']);
  check(h.code === 0 && /--server-port/.test(h.out) && /--log-format/.test(h.out) && /\bseed create\|apply/.test(h.out), 'svc-graphql-engine --help lists the options and the seed command', h.out + h.err);

  const port = await freePort();
  const dataDir = join(work, 'data');
  step(`svc-graphql-engine serve (embedded Postgres in ${dataDir}, port ${port})`);
  engine = await serve(port, dataDir);
  // /healthz can answer before the start-up line has come through the pipe: await the line.
  const consoleLine = /console at http:\/\/127\.0\.0\.1:\d+\/console/;
  for (const until = Date.now() + 15_000; !consoleLine.test(engine.out()) && Date.now() < until; ) await new Promise((r) => setTimeout(r, 50));
  check(consoleLine.test(engine.out()), 'the start-up line names the console URL', engine.out());
  const page = await fetch(`http://127.0.0.1:${port}/console`);
  const html = await page.text();
  check(page.status === 200 && html.includes('/console/assets/'), 'GET /console answers the built page', html.slice(0, 500));
  const asset = /\/console\/assets\/[^"']+\.js/.exec(html)?.[0];
  const js = asset ? await fetch(`http://127.0.0.1:${port}${asset}`) : undefined;
  check(js?.status === 200, `GET ${asset} answers 200`);

  const project = join(work, 'project');
  cpSync(join(root, 'tests', 'support', 'fixtures', 'hasura-projects', 'nextjs-13'), project, { recursive: true });
  const cliEnv = { SVC_GRAPHQL_ENDPOINT: `http://127.0.0.1:${port}`, SVC_GRAPHQL_ADMIN_SECRET: SECRET };
  step(`svc-graphql-engine migrate apply (in ${project})`);
  const m = run('svc-graphql-engine', ['migrate', 'apply'], { cwd: project, env: cliEnv });
  check(m.code === 0 && /applied 1 migration/.test(m.err), 'migrate apply applied the project migration', m.out + m.err);

  step('svc-graphql-engine metadata apply, the engine lacking NEXTJS_SERVER_URL');
  const bad = run('svc-graphql-engine', ['metadata', 'apply'], { cwd: project, env: { ...cliEnv, NEXTJS_SERVER_URL: 'http://127.0.0.1:3000' } });
  check(bad.code !== 0 && /NEXTJS_SERVER_URL must be set for the engine/.test(bad.err) && /restarted/.test(bad.err) && /nothing was applied/.test(bad.err),
    'metadata apply fails, saying the variable must be set for the engine and the engine restarted', bad.out + bad.err);
  const tables = await post(port, '/v1/query', { type: 'export_metadata', args: {} });
  check(tables.status === 200 && (tables.body.tables ?? []).length === 0, 'and nothing was applied', JSON.stringify(tables.body).slice(0, 500));

  step('restart with NEXTJS_SERVER_URL set for the engine; metadata apply, seed apply');
  check((await stop(engine)) === 0, 'SIGTERM stops the engine with exit 0', engine.out());
  engine = await serve(port, dataDir, { NEXTJS_SERVER_URL: 'http://127.0.0.1:3000' });
  const md = run('svc-graphql-engine', ['metadata', 'apply'], { cwd: project, env: cliEnv });
  check(md.code === 0 && /metadata applied/.test(md.err), 'metadata apply succeeds', md.out + md.err);
  const seed = run('svc-graphql-engine', ['seed', 'apply'], { cwd: project, env: cliEnv });
  check(seed.code === 0, 'seed apply succeeds', seed.out + seed.err);
  const ic = run('svc-graphql-engine', ['metadata', 'ic', 'list'], { cwd: project, env: cliEnv });
  check(ic.code === 0 && /metadata is consistent/.test(ic.err), 'metadata ic list: consistent', ic.out + ic.err);

  step('a query');
  const q = await post(port, '/v1/graphql', { query: '{ order_status(order_by: {status: asc}) { status } }' }, { 'x-svc-admin-secret': SECRET });
  check(q.status === 200 && Array.isArray(q.body.data?.order_status) && q.body.data.order_status.length > 0, 'a GraphQL query on a table of the project answers its rows', JSON.stringify(q.body));
  const anon = await post(port, '/v1/graphql', { query: '{ product { id } }' }, { 'x-svc-admin-secret': SECRET, 'x-svc-role': 'anonymous' });
  check(anon.status === 200 && Array.isArray(anon.body.data?.product), "the project's anonymous role reads products", JSON.stringify(anon.body));

  check((await stop(engine)) === 0, 'SIGTERM stops the engine with exit 0', engine.out());
  engine = undefined;
}

try {
  await main();
  console.log('pack-install check: all passed');
} catch (err) {
  if (!failed) console.log(`not ok ${err instanceof Error ? err.stack : String(err)}`);
  if (engine) console.log(engine.out().slice(-4000));
  process.exitCode = 1;
} finally {
  if (engine && engine.child.exitCode === null) engine.child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
}
