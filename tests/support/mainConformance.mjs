#!/usr/bin/env node
/**
 * The main conformance run (every group the runner can run without capability flags) against one
 * engine started with the environment .ci/run gives its own engine, on a fresh database — so it can
 * run where the engine's database URL must be shaped (e.g. through PgBouncer, scripts/withPgbouncer.mjs).
 *
 *   node tests/support/mainConformance.mjs [--pg-url postgres://…/postgres] [--port N]
 *        [--runner tests/conformance/run.mjs] [--baseline F | --update-baseline F]
 *
 * The Postgres server: `--pg-url`, else SVC_TEST_DATABASE_URL / SVC_GRAPHQL_DATABASE_URL (a
 * maintenance URL), else a throwaway embedded Postgres. Exits with the runner's status (1 when the
 * engine does not start; without a ratchet flag, also 1 when any case fails).
 */
import { parseArgs, runOnFreshEngine } from './conformanceEngine.mjs';
import { enginePort, postgresUrl, withCleanups } from './fixtureServers.mjs';

const { arg, runner, ratchet, pgUrl: givenUrl } = parseArgs();
const ok = await withCleanups(async (cleanups) => {
  const pgUrl = await postgresUrl(givenUrl, cleanups);
  const port = await enginePort(arg('--port'));
  return runOnFreshEngine({
    name: 'main',
    pgUrl,
    port,
    runner,
    env: {
      ACTION_WEBHOOK_HANDLER: 'http://127.0.0.1:5593',
      EVENT_WEBHOOK_HANDLER: 'http://127.0.0.1:5592',
      SCHEDULED_TRIGGERS_WEBHOOK_DOMAIN: 'http://127.0.0.1:5594',
    },
    runnerArgs: ratchet,
    strict: ratchet.length === 0,
  });
});
process.exit(ok ? 0 : 1);
