/**
 * The engine as a user starts it: the `svc-graphql-engine` command linked into a bin folder (as `npm link`
 * or `npm install -g` does) pointing at the bundle `scripts/buildServer.mjs` writes (dist/bin), built
 * afresh here. From another folder, through PATH: --version, `serve` answering a GraphQL query on a
 * table it tracked, a CLI command (a chunk of the bundle loaded when it runs), the worker-thread modules
 * beside the bundle, and stack traces through the source maps.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { after, before, test } from 'node:test';
import { freePort } from '../../src/lib/index.js';
import { createTestDatabase, sqlOn } from './harness.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const binDir = join(root, 'dist', 'bin');
const SECRET = 'installed-bin-secret';
let work: string;
let prefixBin: string;
let db: { url: string; drop(): Promise<void> };

before(async () => {
  const built = spawnSync(process.execPath, ['scripts/buildServer.mjs', '--bin-only'], { cwd: root, encoding: 'utf8' });
  assert.equal(built.status, 0, built.stderr);
  work = mkdtempSync(join(tmpdir(), 'svc-installed-bin-'));
  // What npm puts in <prefix>/bin: a symlink to the package's `bin` file.
  prefixBin = join(work, 'prefix', 'bin');
  mkdirSync(prefixBin, { recursive: true });
  const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  symlinkSync(join(root, bin['svc-graphql-engine']!), join(prefixBin, 'svc-graphql-engine'));
  db = await createTestDatabase('installed_bin');
  await sqlOn(db.url, 'CREATE TABLE item (id int PRIMARY KEY, name text); INSERT INTO item VALUES (1, $$one$$), (2, $$two$$);');
});
after(async () => {
  await db?.drop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const env = (extra: Record<string, string> = {}) => ({ ...process.env, PATH: `${prefixBin}:${process.env.PATH ?? ''}`, ...extra });
const run = (args: string[], extra: Record<string, string> = {}) => spawnSync('svc-graphql-engine', args, { cwd: work, env: env(extra), encoding: 'utf8', timeout: 60_000 });

test('the package bin is the bundle', () => {
  const { bin } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  assert.equal(bin['svc-graphql-engine'], 'dist/bin/svc-graphql-engine.js');
  assert.equal(realpathSync(join(prefixBin, 'svc-graphql-engine')), join(binDir, 'svc-graphql-engine.js'));
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const v = run(['--version']);
  assert.equal(v.status, 0, v.stderr);
  assert.equal(v.stdout.trim(), version);
});

test('serve from the installed command answers a query; a CLI command runs from it', async () => {
  const port = await freePort();
  const child = spawn('svc-graphql-engine', ['serve'], {
    cwd: work,
    env: env({ SVC_GRAPHQL_DATABASE_URL: db.url, SVC_GRAPHQL_SERVER_PORT: String(port), SVC_GRAPHQL_SERVER_HOST: '127.0.0.1', SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_LOG_LEVEL: 'info', SVC_GRAPHQL_LOG_FORMAT: 'json' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the engine did not start: ${out}`)), 60_000);
      child.stdout.on('data', () => {
        if (!out.includes('listening on')) return;
        clearTimeout(timer);
        resolve();
      });
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`the engine exited (${code}): ${out}`));
      });
    });
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const tracked = await post('/v1/metadata', { type: 'pg_track_table', args: { source: 'default', table: 'item' } });
    assert.equal(tracked.status, 200, JSON.stringify(tracked.body));
    const q = await post('/v1/graphql', { query: '{ item(order_by: {id: asc}) { id name } }' });
    assert.deepEqual(q.body, { data: { item: [{ id: 1, name: 'one' }, { id: 2, name: 'two' }] } });

    const dir = join(work, 'exported');
    const exported = run(['metadata', 'export', '--dir', dir, '--endpoint', `http://127.0.0.1:${port}`, '--admin-secret', SECRET]);
    assert.equal(exported.status, 0, exported.stderr);
    const tables = readFileSync(join(dir, 'tables.yaml'), 'utf8');
    assert.match(tables, /name: item/);
  } finally {
    child.kill('SIGTERM');
  }
  assert.equal(await exited, 0, out);
});

test('the worker-thread modules beside the bundle answer jobs', async () => {
  const entries = readdirSync(binDir);
  for (const worker of ['decodeBodyWorker.js', 'storedDocumentWorker.js', 'pgDumpWasmWorker.js']) assert.ok(entries.includes(worker), `${worker} in dist/bin`);
  const w = new Worker(join(binDir, 'decodeBodyWorker.js'));
  try {
    const answer = await new Promise<unknown>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
      w.postMessage({ id: 7, job: { body: new TextEncoder().encode('{"type":"run_sql","args":{"sql":"SELECT 1"}}'), endpoint: 'query' } });
    });
    const reply = answer as { id: number; answer: { ok: boolean; decoded?: { query: { type: string } } } };
    assert.equal(reply.id, 7);
    assert.equal(reply.answer.ok, true);
    assert.equal(reply.answer.decoded?.query.type, 'run_sql');
  } finally {
    await w.terminate();
  }
});

test('stack traces from the bundle name the TypeScript sources', () => {
  // Loaded by the command before its bundle (NODE_OPTIONS=--import): once the command is done, it asks Node
  // where a line of the bundle's main.js comes from, as a stack trace through it would.
  const probe = join(work, 'probe.mjs');
  const main = pathToFileURL(join(binDir, 'main.js')).href;
  writeFileSync(
    probe,
    `import { findSourceMap } from 'node:module';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
process.on('exit', () => {
  const text = readFileSync(fileURLToPath(${JSON.stringify(main)}), 'utf8').split('\\n');
  const line = text.findIndex((l) => l.includes('Other commands (against a running engine'));
  const map = findSourceMap(${JSON.stringify(main)});
  const origin = map?.findOrigin(line + 1, text[line].indexOf('Other commands') + 1);
  process.stderr.write('PROBE ' + JSON.stringify({ line, origin }) + '\\n');
});
`,
  );
  const r = run(['--help'], { NODE_OPTIONS: `--import=${pathToFileURL(probe).href}` });
  assert.equal(r.status, 0, r.stderr);
  const probed = JSON.parse(/PROBE (.*)/.exec(r.stderr)?.[1] ?? 'null') as { line: number; origin?: { fileName: string; lineNumber: number } } | null;
  assert.ok(probed && probed.line >= 0, r.stderr);
  assert.ok(probed.origin, `no source map for the bundle's main.js: ${r.stderr}`);
  assert.equal(probed.origin.fileName, pathToFileURL(join(root, 'src', 'main.ts')).href);
  const srcLine = readFileSync(join(root, 'src', 'main.ts'), 'utf8').split('\n').findIndex((l) => l.includes('Other commands (against a running engine'));
  assert.equal(probed.origin.lineNumber, srcLine + 1);
});
