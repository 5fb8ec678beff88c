#!/usr/bin/env node
/**
 * Runs the gated conformance groups remote_schemas/* against one engine started for them, with the
 * corpus's fixture servers (../shared/conformance/servers: remote GraphQL servers on :5000/:4000/
 * :4001 and the action webhook on :5593) running beside it.
 *
 *   node tests/support/remoteSchemaConformance.mjs [--pg-url URL] [--port N] [--servers DIR]
 *        [--runner ../shared/conformance/run.mjs] [--only remote_schemas] [--baseline F | --update-baseline F]
 *
 * The fixture servers need graphql-js: when DIR has no node_modules, DIR is copied to a temp folder
 * and `npm ci` runs there (the shared folder is never written). Their ports are fixed by the corpus:
 * when one is taken (another run uses them) the start is retried for up to 2 minutes.
 * The Postgres server: `--pg-url`, else SVC_TEST_DATABASE_URL / SVC_GRAPHQL_DATABASE_URL (a
 * maintenance URL), as in allowlistConformance.mjs. Exits with the runner's status (1 when the
 * engine or the fixture servers do not start; without a ratchet flag, also 1 when any case fails).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { ADMIN, parseArgs, root, runOnFreshEngine } from './conformanceEngine.mjs';

const { arg, runner, ratchet, pgUrl: givenUrl } = parseArgs();
const only = arg('--only', 'remote_schemas');

/** The servers folder, with its dependencies installed (in a temp copy when missing). */
function serversDir() {
  const dir = resolve(root, arg('--servers', '../shared/conformance/servers'));
  if (existsSync(join(dir, 'node_modules', 'graphql'))) return { dir, temp: null };
  const temp = mkdtempSync(join(tmpdir(), 'svc-fixture-servers-'));
  cpSync(dir, temp, { recursive: true, filter: (src) => !src.includes('node_modules') });
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: temp, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm ci in ${temp} failed`);
  return { dir: temp, temp };
}

/** Starts `start.mjs`; resolves with the child once it printed its ready line (null if it exited). */
function startServers(dir, engineUrl) {
  return new Promise((done) => {
    const child = spawn(process.execPath, ['start.mjs'], {
      cwd: dir,
      env: { ...process.env, SVC_ENGINE_URL: engineUrl, SVC_GRAPHQL_ADMIN_SECRET: ADMIN },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let ready = false;
    child.stdout.on('data', (d) => {
      out += d;
      if (!ready && out.includes('fixture servers ready')) {
        ready = true;
        done(child);
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.once('exit', () => {
      if (!ready) process.stderr.write(out);
      done(null);
    });
  });
}

let pgUrl = givenUrl;
let embedded;
let embeddedDir;
if (!pgUrl) {
  const { startEmbeddedPostgres } = await tsImport('../../src/execution/embeddedPostgres.ts', import.meta.url);
  embeddedDir = mkdtempSync(join(tmpdir(), 'svc-remote-pg-'));
  embedded = await startEmbeddedPostgres({
    dataDir: embeddedDir, database: 'postgres', onLog: () => undefined,
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off'],
  });
  pgUrl = embedded.maintenanceUrl;
}
const { freePort } = await tsImport('../../src/lib/freePort.ts', import.meta.url);
const port = Number(arg('--port', String(await freePort())));

let ok = false;
let servers = null;
let temp = null;
try {
  const s = serversDir();
  temp = s.temp;
  const deadline = Date.now() + 120_000;
  while (!(servers = await startServers(s.dir, `http://127.0.0.1:${port}`)) && Date.now() < deadline) {
    console.error('fixture servers did not start (a port is taken?); retrying in 5 s');
    await new Promise((r) => setTimeout(r, 5000));
  }
  if (!servers) throw new Error('fixture servers did not start');
  ok = await runOnFreshEngine({
    name: 'remote_schemas',
    pgUrl,
    port,
    runner,
    env: {},
    runnerArgs: ['--only', only, '--with', 'remote_schemas', ...ratchet],
    strict: ratchet.length === 0,
  });
} catch (e) {
  console.error(`FAIL remote_schemas: ${e.message}`);
} finally {
  if (servers) {
    servers.kill('SIGTERM');
    await new Promise((r) => (servers.exitCode !== null ? r() : servers.once('exit', r)));
  }
  if (temp) rmSync(temp, { recursive: true, force: true });
  if (embedded) await embedded.stop().catch(() => undefined);
  if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
