/**
 * Shared by the conformance scripts (mainConformance.mjs and the gated ones): their
 * command-line arguments, and one run of the conformance runner against an engine started for it
 * on a database of its own (created on the given Postgres server, dropped afterwards).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const ADMIN = 'conformance-admin-secret';

/**
 * The scripts' common flags: `--runner`, `--baseline` / `--update-baseline` (as the runner's ratchet
 * flags), `--pg-url` (default SVC_TEST_DATABASE_URL / SVC_GRAPHQL_DATABASE_URL), and `arg(name)`
 * for the rest.
 */
export function parseArgs(argv = process.argv.slice(2)) {
  const arg = (name, dflt) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : dflt;
  };
  const baseline = arg('--baseline');
  const updateBaseline = arg('--update-baseline');
  return {
    arg,
    runner: resolve(root, arg('--runner', 'tests/conformance/run.mjs')),
    baseline,
    ratchet: baseline ? ['--baseline', resolve(baseline)] : updateBaseline ? ['--update-baseline', resolve(updateBaseline)] : [],
    pgUrl: arg('--pg-url', process.env.SVC_TEST_DATABASE_URL ?? process.env.SVC_GRAPHQL_DATABASE_URL),
  };
}

async function withAdmin(pgUrl, fn) {
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

/**
 * Creates a fresh database on `pgUrl`, starts `src/main.ts` on it at `port` (its database URL through
 * SVC_TEST_ENGINE_PG_VIA=host:port when set: a pooler in front of that server) with the admin secret,
 * stringified numerics and `env`, runs `node <runner> --url … --admin-secret … <runnerArgs>`, prints
 * its output under `--- <name>`, stops the engine and drops the database. Resolves to true when the
 * runner exited 0 and printed its summary (and, when `strict`, reported no failed case).
 */
export async function runOnFreshEngine({ name, pgUrl, port, runner, env, runnerArgs, strict }) {
  const db = `conf_${name.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  await withAdmin(pgUrl, (c) => c.query(`CREATE DATABASE ${db}`));
  const u = new URL(pgUrl);
  u.pathname = `/${db}`;
  // Through a pooler (scripts/withPgbouncer.mjs): the engine connects there, this script stays direct.
  const via = process.env.SVC_TEST_ENGINE_PG_VIA;
  if (via) u.host = via;
  const log = [];
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: root,
    env: {
      ...process.env,
      SVC_GRAPHQL_DATABASE_URL: u.toString(),
      SVC_GRAPHQL_SERVER_PORT: String(port),
      SVC_GRAPHQL_ADMIN_SECRET: ADMIN,
      SVC_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => log.push(d));
  child.stderr.on('data', (d) => log.push(d));
  const url = `http://127.0.0.1:${port}`;
  try {
    if (!(await waitHealthy(url, child))) {
      console.error(`FAIL ${name}: engine did not start\n${Buffer.concat(log).toString().slice(-2000)}`);
      return false;
    }
    const r = spawnSync(process.execPath, [runner, '--url', url, '--admin-secret', ADMIN, ...runnerArgs], { encoding: 'utf8' });
    process.stdout.write(`--- ${name}\n${r.stdout}${r.stderr}`);
    const m = /conformance: (\d+) passed, (\d+) failed/.exec(r.stdout);
    return r.status === 0 && m !== null && !(strict && Number(m[2]) > 0);
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    await withAdmin(pgUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)).catch(() => undefined);
  }
}
