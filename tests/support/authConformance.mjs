#!/usr/bin/env node
/**
 * Runs the conformance groups of the authentication area — auth/jwt, config_api, explain/basic —
 * each against an engine started for it (JWT needs its own server settings), on fresh databases.
 *
 *   node tests/support/authConformance.mjs --pg-url postgres://postgres:postgres@127.0.0.1:5432/postgres \
 *        [--port 18155] [--runner tests/conformance/run.mjs] [--baseline F | --update-baseline F]
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
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseArgs, runOnFreshEngine } from './conformanceEngine.mjs';

const { arg, runner, baseline, ratchet, pgUrl } = parseArgs();
const port = Number(arg('--port', '18155'));
if (!pgUrl) {
  console.error('usage: authConformance.mjs --pg-url <postgres maintenance URL> [--port N] [--runner path/to/run.mjs]');
  process.exit(1);
}

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

let failed = false;
for (const run of RUNS) {
  const ok = await runOnFreshEngine({
    name: run.name,
    pgUrl,
    port,
    runner,
    env: { SVC_GRAPHQL_JWT_SECRET: JSON.stringify(run.secret) },
    runnerArgs: ['--jwt-key', KEY, ...run.runner, ...ratchet],
    strict: !baseline,
  });
  if (!ok) failed = true;
}
process.exit(failed ? 1 : 0);
