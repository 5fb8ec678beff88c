#!/usr/bin/env node
/**
 * Runs the conformance groups of the authentication area — auth/jwt, config_api, explain/basic —
 * each against an engine started for it (JWT needs its own server settings), on fresh databases.
 *
 *   node tests/support/authConformance.mjs --pg-url postgres://postgres:postgres@127.0.0.1:5432/postgres \
 *        [--port 18155] [--runner ../shared/conformance/run.mjs] [--baseline F | --update-baseline F]
 *
 * Three engines, one after the other (all with SVC_GRAPHQL_ADMIN_SECRET):
 *   1. JWT HS256, no audience/issuer: auth/jwt (9 cases; the 4 aud/iss ones are skipped), config_api, explain
 *   2. JWT with `audience`: auth/jwt/jwt_valid_audience + jwt_invalid_audience
 *   3. JWT with `issuer`:   auth/jwt/jwt_valid_issuer + jwt_invalid_issuer
 * (2 and 3 are separate because a configured audience/issuer makes tokens without `aud`/`iss`
 * fail, DECISIONS 17, while the basic cases send tokens without them.)
 * Each run names exactly the cases it can run (`--only group/case,...`), so no case of the run is
 * "skipped" and the runner's own `--baseline` ratchet applies to them (`--update-baseline` runs in
 * order and adds what passes). Without either flag, exits 1 when any case fails; with `--baseline`,
 * exits 1 on a regression. Exits 1 when an engine does not start; prints each runner's summary.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
};
const pgUrl = arg('--pg-url', process.env.SVC_TEST_DATABASE_URL ?? process.env.SVC_GRAPHQL_DATABASE_URL);
const port = Number(arg('--port', '18155'));
const runner = resolve(root, arg('--runner', '../shared/conformance/run.mjs'));
const baseline = arg('--baseline');
const updateBaseline = arg('--update-baseline');
const ratchet = baseline ? ['--baseline', resolve(baseline)] : updateBaseline ? ['--update-baseline', resolve(updateBaseline)] : [];
if (!pgUrl) {
  console.error('usage: authConformance.mjs --pg-url <postgres maintenance URL> [--port N] [--runner path/to/run.mjs]');
  process.exit(1);
}

const ADMIN = 'conformance-admin-secret';
const KEY = randomBytes(32).toString('hex');
const AUD = 'hasura-test-suite';
const ISS = 'https://issuer.svc.test';
const AUD_ISS = ['jwt_valid_audience', 'jwt_invalid_audience', 'jwt_valid_issuer', 'jwt_invalid_issuer'];
const basicJwt = readdirSync(resolve(dirname(runner), 'cases/auth/jwt'))
  .filter((f) => f.startsWith('jwt_') && f.endsWith('.json'))
  .map((f) => f.slice(0, -5))
  .filter((n) => !AUD_ISS.includes(n))
  .map((n) => `auth/jwt/${n}`);
const RUNS = [
  { name: 'jwt', secret: { type: 'HS256', key: KEY }, runner: ['--only', [...basicJwt, 'config_api', 'explain'].join(',')] },
  { name: 'jwt+audience', secret: { type: 'HS256', key: KEY, audience: AUD }, runner: ['--jwt-audience', AUD, '--only', 'auth/jwt/jwt_valid_audience,auth/jwt/jwt_invalid_audience'] },
  { name: 'jwt+issuer', secret: { type: 'HS256', key: KEY, issuer: ISS }, runner: ['--jwt-issuer', ISS, '--only', 'auth/jwt/jwt_valid_issuer,auth/jwt/jwt_invalid_issuer'] },
];

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

let failed = false;
for (const run of RUNS) {
  const db = `conf_auth_${randomBytes(4).toString('hex')}`;
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
      SVC_GRAPHQL_JWT_SECRET: JSON.stringify(run.secret),
      SVC_GRAPHQL_STRINGIFY_NUMERIC_TYPES: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => log.push(d));
  child.stderr.on('data', (d) => log.push(d));
  const url = `http://127.0.0.1:${port}`;
  try {
    if (!(await waitHealthy(url, child))) {
      console.error(`FAIL ${run.name}: engine did not start\n${Buffer.concat(log).toString().slice(-2000)}`);
      failed = true;
      continue;
    }
    const r = spawnSync(process.execPath, [runner, '--url', url, '--admin-secret', ADMIN, '--jwt-key', KEY, ...run.runner, ...ratchet], { encoding: 'utf8' });
    process.stdout.write(`--- ${run.name}\n${r.stdout}${r.stderr}`);
    const m = /conformance: (\d+) passed, (\d+) failed/.exec(r.stdout);
    if (r.status !== 0 || !m || (!baseline && Number(m[2]) > 0)) failed = true;
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));
    await withAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`));
  }
}
process.exit(failed ? 1 : 0);
