/**
 * What the gated conformance scripts share beyond conformanceEngine.mjs: the Postgres they run on
 * (given, or a throwaway embedded one), the engine's port, cleanups, and the corpus's fixture
 * servers (tests/conformance/servers/start.mjs: action webhook on 127.0.0.1:5593, remote
 * GraphQL servers on :5000/:4000/:4001) for actionsConformance.mjs and remoteSchemaConformance.mjs.
 *
 * The servers need their node_modules: when the folder has none (a clean CI clone), it is copied to
 * a temporary folder and `npm ci` runs there (parallel runs never install into the same folder). Their ports are fixed by
 * the corpus: while one is taken (another run uses them) the start is retried.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { ADMIN, root } from './conformanceEngine.mjs';

/** Runs `fn(ctx)` with cleanups run in reverse order afterwards; resolves to fn's result (false when it threw). */
export async function withCleanups(fn) {
  const cleanups = [];
  try {
    return await fn(cleanups);
  } catch (e) {
    console.error(e);
    return false;
  } finally {
    for (const c of cleanups.reverse()) await c();
  }
}

/** The servers folder with node_modules installed (a temp copy when `given` has none). */
export function serversDir(given, cleanups) {
  const servers = resolve(root, given ?? 'tests/conformance/servers');
  if (existsSync(join(servers, 'node_modules', 'graphql'))) return servers;
  const copy = mkdtempSync(join(tmpdir(), 'svc-fixture-servers-'));
  cpSync(servers, copy, { recursive: true, filter: (src) => !src.includes('node_modules') });
  cleanups.push(() => rmSync(copy, { recursive: true, force: true }));
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: copy, stdio: 'inherit' });
  if (r.status !== 0) throw new Error('npm ci in the fixture servers copy failed');
  return copy;
}

/** Starts start.mjs (writes go back through `engineUrl` with the admin secret); stops it at cleanup. */
export async function startFixtureServers(dir, engineUrl, cleanups, retryForMs = 120_000) {
  const deadline = Date.now() + retryForMs;
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
    if (ready) {
      cleanups.push(() => new Promise((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', r);
        child.kill('SIGTERM');
      }));
      return child;
    }
    if (Date.now() > deadline) throw new Error(`fixture servers did not start:\n${out}`);
    console.error(`fixture servers not started (a port is taken?), retrying:\n${out.trim()}`);
    await new Promise((r) => setTimeout(r, 3000));
  }
}

/** `given`, or a throwaway embedded Postgres (stopped at cleanup): a maintenance URL. */
export async function postgresUrl(given, cleanups) {
  if (given) return given;
  const { startEmbeddedPostgres } = await tsImport('../../src/execution/embeddedPostgres.ts', import.meta.url);
  const dir = mkdtempSync(join(tmpdir(), 'svc-fixture-pg-'));
  const embedded = await startEmbeddedPostgres({
    dataDir: dir, database: 'postgres', onLog: () => undefined, postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off'],
  });
  cleanups.push(async () => {
    await embedded.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });
  return embedded.maintenanceUrl;
}

/** A free port for the engine (or `given`). */
export async function enginePort(given) {
  if (given) return Number(given);
  const { freePort } = await tsImport('../../src/lib/freePort.ts', import.meta.url);
  return freePort();
}
