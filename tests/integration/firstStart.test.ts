/**
 * The first start works anywhere and says why when it cannot: the CLI with no database URL from a
 * folder other users cannot enter (as root: Postgres runs as `postgres`, which cannot enter it),
 * data that persists across restarts, foreign `--data-dir` folders refused untouched, and
 * pgcrypto created with the catalog.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/lib/index.js';
import { startTestEngine } from './harness.js';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const isRoot = process.getuid?.() === 0;

/** A copy of the engine (sources + node_modules, hard-linked when possible) inside `dir`. */
function copyEngine(dir: string): string {
  const app = join(dir, 'app');
  mkdirSync(app);
  for (const f of ['package.json', 'tsconfig.json']) cpSync(join(root, f), join(app, f));
  cpSync(join(root, 'src'), join(app, 'src'), { recursive: true });
  // Hard links keep the copy cheap; the files then sit inside the private folder like a real clone.
  const linked = spawnSync('cp', ['-al', join(root, 'node_modules'), join(app, 'node_modules')]);
  if (linked.status !== 0) cpSync(join(root, 'node_modules'), join(app, 'node_modules'), { recursive: true, verbatimSymlinks: true });
  return app;
}

interface Cli {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
}

/** Runs the CLI (through tsx) in `cwd` with `args`; no database URL, no data-dir from the environment. */
function runCli(cwd: string, args: string[]): Cli {
  const env = { ...process.env };
  delete env.SVC_GRAPHQL_DATABASE_URL;
  delete env.SVC_GRAPHQL_DATA_DIR;
  const child = spawn(process.execPath, ['--import', 'tsx', join(cwd, 'src', 'main.ts'), ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return { child, out: () => out, err: () => err, exited };
}

/** Resolves with the URL the engine listens on; rejects with its output when it exits first. */
async function listening(cli: Cli, deadlineMs = 150_000): Promise<string> {
  const end = Date.now() + deadlineMs;
  while (Date.now() < end) {
    const m = /listening on (http:\/\/[^"\s]+)/.exec(cli.out());
    if (m) return m[1]!;
    if (cli.child.exitCode !== null) throw new Error(`engine exited ${cli.child.exitCode}: ${cli.err()}${cli.out()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`engine did not start: ${cli.err()}${cli.out()}`);
}

async function runSql(url: string, sql: string): Promise<any> {
  const res = await fetch(url + '/v1/query', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ type: 'run_sql', args: { sql } }) });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body;
}

async function stop(cli: Cli): Promise<void> {
  if (cli.child.exitCode !== null) return;
  cli.child.kill('SIGTERM');
  assert.equal(await cli.exited, 0, cli.err());
}

test('npm start with no database URL works from a folder only its owner can enter, and the data persists', { timeout: 400_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-private-'));
  chmodSync(dir, 0o700);
  const app = copyEngine(dir);
  const dataDir = join(app, '.svc-data'); // the default --data-dir, relative to the working folder
  let relocated: string | undefined;
  try {
    const port = String(await freePort());
    let cli = runCli(app, ['serve', '--server-port', port, '--server-host', '127.0.0.1']);
    try {
      const url = await listening(cli);
      const gql = await fetch(url + '/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
      assert.deepEqual(await gql.json(), { data: { __typename: 'query_root' } });
      await runSql(url, 'CREATE TABLE kept (id int PRIMARY KEY); INSERT INTO kept VALUES (42)');
      assert.doesNotMatch(cli.err(), /EACCES|\n\s+at /, 'no stack trace');
    } finally {
      await stop(cli);
    }

    if (isRoot) {
      // Postgres runs as `postgres`, which cannot enter `dir`: its data lives in the shared folder,
      // named by --data-dir/SVC_DATA_LOCATION, owned by postgres; the binaries run from a copy there.
      const location = join(dataDir, 'SVC_DATA_LOCATION');
      assert.ok(existsSync(location), 'the data folder names where the data is');
      relocated = readFileSync(location, 'utf8').trim();
      assert.match(relocated, /^\/var\/lib\/svc-graphql-engine\/data-[0-9a-f]{16}$/);
      assert.ok(existsSync(join(relocated, 'PG_VERSION')));
      const pgUid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout);
      assert.equal(statSync(relocated).uid, pgUid);
      assert.ok(readdirSync('/var/lib/svc-graphql-engine').some((f) => /^postgres-/.test(f)), 'the binaries were copied where postgres can run them');
      assert.equal(statSync(dir).mode & 0o777, 0o700, 'the private folder was not opened up');
    } else {
      // As a normal user Postgres runs as that user: the data stays where --data-dir says.
      assert.ok(existsSync(join(dataDir, 'PG_VERSION')));
      assert.ok(!existsSync(join(dataDir, 'SVC_DATA_LOCATION')));
    }

    // Started again with the same --data-dir, the same data is there.
    cli = runCli(app, ['serve', '--server-port', port, '--server-host', '127.0.0.1']);
    try {
      const url = await listening(cli);
      const r = await runSql(url, 'SELECT id FROM kept');
      assert.deepEqual(r.result, [['id'], ['42']]);
    } finally {
      await stop(cli);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    if (relocated) rmSync(relocated, { recursive: true, force: true });
  }
});

test('a --data-dir that is not empty and not ours is refused in one line, its files and owner untouched', { timeout: 120_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-foreign-'));
  try {
    const foreign = join(dir, 'photos');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'cat.jpg'), 'not a database');
    const before = statSync(foreign);
    const cli = runCli(root, ['serve', '--data-dir', foreign, '--server-port', String(await freePort())]);
    assert.equal(await cli.exited, 1);
    const lines = cli.err().trim().split('\n');
    assert.equal(lines.length, 1, cli.err());
    assert.match(lines[0]!, /--data-dir .*photos is not empty and is not a data folder made by svc-graphql-engine/);
    const after = statSync(foreign);
    assert.equal(after.uid, before.uid);
    assert.equal(after.gid, before.gid);
    assert.equal(after.mode, before.mode);
    assert.deepEqual(readdirSync(foreign), ['cat.jpg']);

    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const onFile = runCli(root, ['serve', '--data-dir', file, '--server-port', String(await freePort())]);
    assert.equal(await onFile.exited, 1);
    assert.match(onFile.err().trim(), /^svc-graphql-engine: failed to start: --data-dir .*a-file is a file, not a folder/);

    // A symlink to a foreign folder is refused the same way.
    const link = join(dir, 'link');
    symlinkSync(foreign, link);
    const viaLink = runCli(root, ['serve', '--data-dir', link, '--server-port', String(await freePort())]);
    assert.equal(await viaLink.exited, 1);
    assert.match(viaLink.err(), /is not empty and is not a data folder/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the catalog setup creates pgcrypto, so Hasura migrations can call its functions from public', async () => {
  const e = await startTestEngine();
  try {
    const r = await e.runSql("SELECT extnamespace::regnamespace::text FROM pg_extension WHERE extname = 'pgcrypto'");
    assert.deepEqual(r.result, [['extnamespace'], ['public']]);
    const hashed = await e.runSql("SELECT crypt('secret', gen_salt('bf')) LIKE '$2a$%' AS ok, length(digest('x', 'sha256')) AS n");
    assert.deepEqual(hashed.result, [['ok', 'n'], ['t', '32']]);
  } finally {
    await e.stop();
  }
});
