#!/usr/bin/env node
/**
 * Runs the action / custom-type conformance groups (actions/* except actions/remote_joins, which
 * also needs remote schemas; metadata/custom_types; metadata/actions_introspection; metadata/actions)
 * against one engine on a fresh database, with the corpus's fixture servers
 * (../shared/conformance/servers/start.mjs: action webhook on 127.0.0.1:5593, which writes rows
 * back through this engine with the admin secret).
 *
 *   node tests/support/actionsConformance.mjs [--pg-url URL] [--port 18xxx] [--runner ../shared/conformance/run.mjs]
 *        [--servers ../shared/conformance/servers] [--baseline F | --update-baseline F]
 *
 * The fixture servers need their node_modules: when the folder has none (a clean CI clone), it is
 * copied to a temporary folder and `npm ci` is run there (../shared is never written to). A fixed
 * port already taken (another run) is retried for up to 60 s. Postgres as in allowlistConformance.mjs.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { ADMIN, parseArgs, root, runOnFreshEngine } from './conformanceEngine.mjs';

export const ACTION_GROUPS = [
  'actions/sync', 'actions/sync_responses', 'actions/sync_mutations', 'actions/query_actions', 'actions/response_headers',
  'actions/async', 'metadata/custom_types', 'metadata/actions_introspection', 'metadata/actions',
];

const { arg, runner, ratchet, pgUrl: givenUrl } = parseArgs();
const cleanups = [];

/** The servers folder with node_modules installed (a temp copy when the shared one has none). */
function serversDir() {
  const shared = resolve(root, arg('--servers', '../shared/conformance/servers'));
  if (existsSync(join(shared, 'node_modules', 'graphql'))) return shared;
  const copy = mkdtempSync(join(tmpdir(), 'svc-fixture-servers-'));
  cpSync(shared, copy, { recursive: true, filter: (src) => !src.includes('node_modules') });
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: copy, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm ci in the fixture servers copy failed');
  cleanups.push(() => rmSync(copy, { recursive: true, force: true }));
  return copy;
}

/** Starts start.mjs; resolves with the child once it printed "fixture servers ready" (retries while a port is taken). */
async function startServers(dir, engineUrl) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const child = spawn(process.execPath, ['start.mjs'], {
      cwd: dir, env: { ...process.env, SVC_ENGINE_URL: engineUrl, SVC_GRAPHQL_ADMIN_SECRET: ADMIN }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const ready = await new Promise((res) => {
      const on = (d) => {
        out += d;
        if (out.includes('fixture servers ready')) res(true);
      };
      child.stdout.on('data', on);
      child.stderr.on('data', on);
      child.once('exit', () => res(false));
    });
    if (ready) return child;
    if (Date.now() > deadline) throw new Error(`fixture servers did not start:\n${out}`);
    console.error(`fixture servers not started (a port is taken?), retrying:\n${out.trim()}`);
    await new Promise((r) => setTimeout(r, 3000));
  }
}

let pgUrl = givenUrl;
let ok = false;
try {
  if (!pgUrl) {
    const { startEmbeddedPostgres } = await tsImport('../../src/execution/embeddedPostgres.ts', import.meta.url);
    const dir = mkdtempSync(join(tmpdir(), 'svc-actions-pg-'));
    const embedded = await startEmbeddedPostgres({ dataDir: dir, database: 'postgres', onLog: () => undefined, postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off'] });
    cleanups.push(async () => {
      await embedded.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    });
    pgUrl = embedded.maintenanceUrl;
  }
  const { freePort } = await tsImport('../../src/lib/freePort.ts', import.meta.url);
  const port = Number(arg('--port', String(await freePort())));
  const servers = await startServers(serversDir(), `http://127.0.0.1:${port}`);
  cleanups.push(() => new Promise((r) => {
    if (servers.exitCode !== null) return r();
    servers.once('exit', r);
    servers.kill('SIGTERM');
  }));
  ok = await runOnFreshEngine({
    name: 'actions',
    pgUrl,
    port,
    runner,
    env: { ACTION_WEBHOOK_HANDLER: 'http://127.0.0.1:5593' },
    runnerArgs: ['--only', ACTION_GROUPS.join(','), '--with', 'actions', ...ratchet],
    strict: ratchet.length === 0,
  });
} catch (e) {
  console.error(e);
} finally {
  for (const c of cleanups.reverse()) await c();
}
process.exit(ok ? 0 : 1);
