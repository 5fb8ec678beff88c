#!/usr/bin/env node
/**
 * Runs the conformance group metadata/allowlist against one engine started with the allow-list on
 * (SVC_GRAPHQL_ENABLE_ALLOWLIST=true, an admin secret, stringified numerics) on a fresh database.
 *
 *   node tests/support/allowlistConformance.mjs [--pg-url postgres://postgres:postgres@127.0.0.1:5432/postgres] \
 *        [--port 18631] [--runner ../shared/conformance/run.mjs] [--baseline F | --update-baseline F]
 *
 * The Postgres server: `--pg-url`, else SVC_TEST_DATABASE_URL / SVC_GRAPHQL_DATABASE_URL (a maintenance
 * URL: the script creates and drops its own database there), else a throwaway embedded Postgres.
 * The runner is called with `--only metadata/allowlist --with allowlist` and the ratchet flag given.
 * Exits with the runner's status (1 when the engine does not start; without a ratchet flag, also 1
 * when any case fails).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const runner = resolve(root, arg('--runner', '../shared/conformance/run.mjs'));
const baseline = arg('--baseline');
const updateBaseline = arg('--update-baseline');
const ratchet = baseline ? ['--baseline', resolve(baseline)] : updateBaseline ? ['--update-baseline', resolve(updateBaseline)] : [];
const ADMIN = 'conformance-admin-secret';

let pgUrl = arg('--pg-url', process.env.SVC_TEST_DATABASE_URL ?? process.env.SVC_GRAPHQL_DATABASE_URL);
let embedded;
let embeddedDir;
if (!pgUrl) {
  const { startEmbeddedPostgres } = await tsImport('../../src/execution/embeddedPostgres.ts', import.meta.url);
  embeddedDir = mkdtempSync(join(tmpdir(), 'svc-allowlist-pg-'));
  embedded = await startEmbeddedPostgres({
    dataDir: embeddedDir,
    database: 'postgres',
    onLog: () => undefined,
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off'],
  });
  pgUrl = embedded.maintenanceUrl;
}
const { freePort } = await tsImport('../../src/lib/freePort.ts', import.meta.url);
const port = Number(arg('--port', String(await freePort())));

async function withAdmin(fn) {
  const c = new pg.Client({ connectionString: pgUrl });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function waitHealthy(url, child, ms = 60_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) return false;
    try {
      if ((await fetch(`${url}/healthz`)).ok) return true;
    } catch {}
    await new Promise((r) => setTimeout(r, 300));
  }
  return false;
}

let status = 1;
const db = `conf_allowlist_${randomBytes(4).toString('hex')}`;
await withAdmin((c) => c.query(`CREATE DATABASE ${db}`));
const u = new URL(pgUrl);
u.pathname = `/${db}`;
const log = [];
const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
  cwd: root,
  env: {
    ...process.env,
    SVC_GRAPHQL_DATABASE_URL: u.toString(),
    SVC_GRAPHQL_SERVER_PORT: String(port),
    SVC_GRAPHQL_ADMIN_SECRET: ADMIN,
    SVC_GRAPHQL_ENABLE_ALLOWLIST: 'true',
    SVC_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'true',
  },
  stdio: ['ignore', 'pipe', 'pipe'],
});
child.stdout.on('data', (d) => log.push(d));
child.stderr.on('data', (d) => log.push(d));
const url = `http://127.0.0.1:${port}`;
try {
  if (!(await waitHealthy(url, child))) {
    console.error(`FAIL allowlist: engine did not start\n${Buffer.concat(log).toString().slice(-2000)}`);
  } else {
    const r = spawnSync(process.execPath, [runner, '--url', url, '--admin-secret', ADMIN, '--only', 'metadata/allowlist', '--with', 'allowlist', ...ratchet], { encoding: 'utf8' });
    process.stdout.write(`--- allowlist\n${r.stdout}${r.stderr}`);
    const m = /conformance: (\d+) passed, (\d+) failed/.exec(r.stdout);
    status = r.status ?? 1;
    if (status === 0 && (!m || (ratchet.length === 0 && Number(m[2]) > 0))) status = 1;
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
  await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)).catch(() => undefined);
  if (embedded) await embedded.stop().catch(() => undefined);
  if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
}
process.exit(status);
