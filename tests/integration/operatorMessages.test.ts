/**
 * What the engine tells the person running it, from real processes (`node --import tsx src/main.ts`)
 * and real HTTP: a busy port names --server-port / SVC_GRAPHQL_SERVER_PORT; the start-up line names
 * the console's URL or says it is off, and /console when off names --enable-console; --log-format
 * pretty writes readable lines and JSON is the default when stdout is not a terminal; /healthz and
 * /v1/metrics are logged at debug only; --help lists every command (seed too); `--workers` workers
 * say the embedded Postgres serves them; `metadata apply` with an action's variable unset on the engine
 * says where to set it; `npm run replica:stop` says when nothing runs.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { freePort } from '../../src/lib/index.js';
import { CLI_COMMANDS } from '../../src/cli/index.js';
import { createTestDatabase, startTestEngine } from './harness.js';
import { eventually } from '../support/eventReceiver.js';

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

interface Proc {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exited: Promise<number | null>;
  stop(): Promise<number | null>;
}

/** `svc-graphql-engine <args>` in a process of its own, stdout/stderr piped (not a terminal). */
function engineProcess(args: string[], env: Record<string, string | undefined> = {}): Proc {
  const full = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete full[k];
  delete full.SVC_GRAPHQL_LOG_FORMAT;
  if (!('SVC_GRAPHQL_LOG_LEVEL' in env)) delete full.SVC_GRAPHQL_LOG_LEVEL;
  const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], { cwd: root, env: full, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((res) => child.on('exit', (code) => res(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

const listening = (p: Proc, what = 'listening on'): Promise<string> =>
  eventually(() => (p.child.exitCode !== null ? `exited ${p.child.exitCode}: ${p.err()}` : p.out()), (o) => o.includes(what) || o.startsWith('exited'), 120_000, `"${what}"`).then((o) => {
    assert.ok(!o.startsWith('exited'), o);
    return o;
  });

let db: { url: string; drop(): Promise<void> };
before(async () => {
  db = await createTestDatabase('messages');
});
after(async () => {
  await db?.drop();
});

test('a port in use stops the start with one line naming --server-port and SVC_GRAPHQL_SERVER_PORT', { timeout: 120_000 }, async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  after(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const p = engineProcess(['serve', '--server-host', '127.0.0.1', '--server-port', String(port)], { SVC_GRAPHQL_DATABASE_URL: db.url });
  assert.equal(await p.exited, 1, p.out());
  assert.match(p.err(), new RegExp(`failed to start: port ${port} is already in use \\(127\\.0\\.0\\.1:${port}\\)`));
  assert.match(p.err(), /--server-port <port> \(or SVC_GRAPHQL_SERVER_PORT=<port>\)/);
  assert.doesNotMatch(p.err(), /EADDRINUSE/);
});

test('console off: the start-up line says so and /console names --enable-console; on: the line names its URL', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const off = engineProcess(['serve', '--server-host', '127.0.0.1', '--server-port', String(port)], { SVC_GRAPHQL_DATABASE_URL: db.url });
  after(() => off.stop());
  await listening(off);
  const start = JSON.parse(off.out().split('\n').find((l) => l.includes('"kind":"server"'))!);
  assert.equal(start.console, false);
  assert.equal(start.msg.endsWith(` listening on http://127.0.0.1:${port} (console off: --enable-console turns it on)`), true, start.msg);
  const r = await fetch(`http://127.0.0.1:${port}/console`);
  assert.equal(r.status, 404);
  const body = await r.json();
  assert.equal(body.code, 'not-found');
  assert.match(body.error, /the console is off: start the engine with --enable-console \(or SVC_GRAPHQL_ENABLE_CONSOLE=true\)/);
  assert.equal(await off.stop(), 0);

  const on = engineProcess(['serve', '--server-host', '127.0.0.1', '--server-port', String(port), '--enable-console'], { SVC_GRAPHQL_DATABASE_URL: db.url });
  after(() => on.stop());
  await listening(on);
  const line = JSON.parse(on.out().split('\n').find((l) => l.includes('"kind":"server"'))!);
  assert.equal(line.console, `http://127.0.0.1:${port}/console`);
  assert.match(line.msg, new RegExp(`listening on http://127\\.0\\.0\\.1:${port} \\(console at http://127\\.0\\.0\\.1:${port}/console\\)$`));
  assert.equal(await on.stop(), 0);
});

test('--log-format pretty writes readable lines; piped output is JSON by default; /healthz and /v1/metrics only at debug', { timeout: 120_000 }, async () => {
  const port = await freePort();
  const pretty = engineProcess(['serve', '--server-host', '127.0.0.1', '--server-port', String(port), '--log-format', 'pretty'], { SVC_GRAPHQL_DATABASE_URL: db.url, SVC_GRAPHQL_LOG_LEVEL: 'info' });
  after(() => pretty.stop());
  await listening(pretty);
  const startLine = pretty.out().split('\n').find((l) => l.includes('listening on'))!;
  assert.throws(() => JSON.parse(startLine), 'not JSON');
  assert.match(startLine, /^\[?\d\d:\d\d:\d\d\.\d{3}\]? INFO: svc-graphql-engine \S+ listening on http:\/\/127\.0\.0\.1:\d+ \(console off: --enable-console turns it on\)/);
  for (const path of ['/healthz', '/v1/metrics', '/v1/version']) assert.equal((await fetch(`http://127.0.0.1:${port}${path}`)).status, 200, path);
  const out = await eventually(() => pretty.out(), (o) => o.includes('GET /v1/version 200'), 10_000, 'the /v1/version request line');
  assert.match(out, /INFO: GET \/v1\/version 200 .*"type":"http-log"/);
  assert.doesNotMatch(out, /\/healthz|\/v1\/metrics/, 'health checks and scrapes are not logged at info');
  assert.equal(await pretty.stop(), 0);

  const json = engineProcess(['serve', '--server-host', '127.0.0.1', '--server-port', String(port)], { SVC_GRAPHQL_DATABASE_URL: db.url, SVC_GRAPHQL_LOG_LEVEL: 'debug' });
  after(() => json.stop());
  await listening(json);
  for (const path of ['/healthz', '/v1/metrics', '/v1/version']) assert.equal((await fetch(`http://127.0.0.1:${port}${path}`)).status, 200, path);
  const lines = await eventually(
    () => json.out().split('\n').filter((l) => l.includes('"http-log"')).map((l) => JSON.parse(l)),
    (ls) => ls.some((l) => l.path === '/v1/version'),
    10_000,
    'the /v1/version request line',
  );
  const levelOf = (path: string) => lines.find((l) => l.path === path)?.level;
  assert.equal(levelOf('/healthz'), 'debug');
  assert.equal(levelOf('/v1/metrics'), 'debug');
  assert.equal(levelOf('/v1/version'), 'info');
  // Every stdout line is one JSON object (no pretty output when stdout is a pipe).
  for (const l of json.out().split('\n').filter((x) => x !== '')) assert.doesNotThrow(() => JSON.parse(l), l);
  assert.equal(await json.stop(), 0);
});

test('--help lists every command, seed included, and --log-format', () => {
  const r = spawnSync(process.execPath, ['--import', 'tsx', main, '--help'], { cwd: root, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  for (const c of CLI_COMMANDS) assert.match(r.stdout, new RegExp(`^  ${c} \\w`, 'm'), `--help lists ${c}`);
  assert.match(r.stdout, /^  seed create\|apply$/m);
  assert.match(r.stdout, /--log-format/);
});

test('each --workers worker says the embedded Postgres serves it', { timeout: 240_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-workers-embedded-'));
  // As root Postgres runs as `postgres`, which must be able to enter the folder (docs/getting-started.md).
  chmodSync(dir, 0o755);
  after(() => rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  const p = engineProcess(['serve', '--workers', '2', '--server-host', '127.0.0.1', '--server-port', String(port), '--data-dir', join(dir, 'data')], { SVC_GRAPHQL_DATABASE_URL: undefined, SVC_GRAPHQL_DATA_DIR: undefined });
  after(() => p.stop());
  await listening(p, '2 workers listening on');
  // Each worker writes its own line (batched for up to 100 ms in its process).
  const starts = await eventually(() => p.out().split('\n').filter((l) => l.includes('"kind":"server"')).map((l) => JSON.parse(l)), (s) => s.length >= 2, 10_000, "both workers' start-up lines");
  assert.equal(starts.length, 2, p.out());
  for (const s of starts) {
    assert.equal(s.embedded_postgres, true);
    assert.equal(s.console, `http://127.0.0.1:${port}/console`, 'the console follows the embedded Postgres');
  }
  assert.equal(await p.stop(), 0, p.err());
});

test("metadata apply with an action's variable unset on the engine says to set it there and restart the engine", { timeout: 120_000 }, async () => {
  delete process.env.SVC_MESSAGES_ACTION_URL;
  const e = await startTestEngine();
  after(() => e.stop());
  const dir = mkdtempSync(join(tmpdir(), 'svc-md-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'metadata.json');
  writeFileSync(file, JSON.stringify({
    version: 2,
    tables: [],
    custom_types: { objects: [{ name: 'Greeting', fields: [{ name: 'text', type: 'String!' }] }] },
    actions: [{ name: 'greet', definition: { kind: 'synchronous', type: 'query', handler: '{{SVC_MESSAGES_ACTION_URL}}/greet', arguments: [], output_type: 'Greeting' } }],
  }));
  // Set in the CLI's own environment: not where the engine reads it. (Asynchronous: the engine runs in this process.)
  const cli = engineProcess(['metadata', 'apply', '--file', file, '--endpoint', e.url], { SVC_MESSAGES_ACTION_URL: 'http://127.0.0.1:1' });
  assert.equal(await cli.exited, 1, cli.out() + cli.err());
  assert.match(cli.out(), /SVC_MESSAGES_ACTION_URL/, 'the inconsistent action is listed');
  assert.match(cli.err(), /nothing was applied\. environment variable SVC_MESSAGES_ACTION_URL must be set for the engine \(in the environment of `svc-graphql-engine serve`, not of this command\) and the engine restarted/);
  const exported = await e.query({ type: 'export_metadata', args: {} });
  assert.equal((exported.body.actions ?? []).length, 0, 'nothing applied');
});

test('npm run replica:stop with nothing running says so', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-replica-none-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'replica.mjs'), 'stop'], { encoding: 'utf8', env: { ...process.env, SVC_REPLICA_DIR: dir } });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^replica: not running \(no .*state\.json\); nothing to stop$/m);
});
