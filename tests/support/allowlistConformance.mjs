#!/usr/bin/env node
/**
 * Runs the conformance group metadata/allowlist against one engine started with the allow-list on
 * (SVC_GRAPHQL_ENABLE_ALLOWLIST=true, an admin secret, stringified numerics) on a fresh database.
 *
 *   node tests/support/allowlistConformance.mjs [--pg-url postgres://postgres:postgres@127.0.0.1:5432/postgres] \
 *        [--port 18631] [--runner tests/conformance/run.mjs] [--baseline F | --update-baseline F]
 *
 * The Postgres server: `--pg-url`, else SVC_TEST_DATABASE_URL / SVC_GRAPHQL_DATABASE_URL (a maintenance
 * URL: the script creates and drops its own database there), else a throwaway embedded Postgres.
 * The runner is called with `--only metadata/allowlist --with allowlist` and the ratchet flag given.
 * Exits with the runner's status (1 when the engine does not start; without a ratchet flag, also 1
 * when any case fails).
 */
import { parseArgs, runOnFreshEngine } from './conformanceEngine.mjs';
import { enginePort, postgresUrl, withCleanups } from './fixtureServers.mjs';

const { arg, runner, ratchet, pgUrl: givenUrl } = parseArgs();
const ok = await withCleanups(async (cleanups) => {
  const pgUrl = await postgresUrl(givenUrl, cleanups);
  const port = await enginePort(arg('--port'));
  return runOnFreshEngine({
    name: 'allowlist',
    pgUrl,
    port,
    runner,
    env: { SVC_GRAPHQL_ENABLE_ALLOWLIST: 'true' },
    runnerArgs: ['--only', 'metadata/allowlist', '--with', 'allowlist', ...ratchet],
    strict: ratchet.length === 0,
  });
});
process.exit(ok ? 0 : 1);
