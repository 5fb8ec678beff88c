#!/usr/bin/env node
/**
 * Runs the gated conformance groups remote_schemas/* and actions/remote_joins (an action whose
 * output joins a table with a remote relationship, which needs both features) against
 * one engine started for them, with the corpus's fixture servers (fixtureServers.mjs: remote GraphQL servers on
 * :5000/:4000/:4001 and the action webhook on :5593) running beside it.
 *
 *   node tests/support/remoteSchemaConformance.mjs [--pg-url URL] [--port N] [--servers DIR]
 *        [--runner tests/conformance/run.mjs] [--only remote_schemas,actions/remote_joins]
 *        [--baseline F | --update-baseline F]
 *
 * The Postgres server: `--pg-url`, else SVC_TEST_DATABASE_URL / SVC_GRAPHQL_DATABASE_URL (a
 * maintenance URL), as in allowlistConformance.mjs. Exits with the runner's status (1 when the
 * engine or the fixture servers do not start; without a ratchet flag, also 1 when any case fails).
 */
import { parseArgs, runOnFreshEngine } from './conformanceEngine.mjs';
import { enginePort, postgresUrl, serversDir, startFixtureServers, withCleanups } from './fixtureServers.mjs';

const { arg, runner, ratchet, pgUrl: givenUrl } = parseArgs();
const only = arg('--only', 'remote_schemas,actions/remote_joins');

const ok = await withCleanups(async (cleanups) => {
  const pgUrl = await postgresUrl(givenUrl, cleanups);
  const port = await enginePort(arg('--port'));
  await startFixtureServers(serversDir(arg('--servers'), cleanups), `http://127.0.0.1:${port}`, cleanups);
  return runOnFreshEngine({
    name: 'remote_schemas',
    pgUrl,
    port,
    runner,
    env: { ACTION_WEBHOOK_HANDLER: 'http://127.0.0.1:5593' },
    runnerArgs: ['--only', only, '--with', 'remote_schemas,actions', ...ratchet],
    strict: ratchet.length === 0,
  });
});
process.exit(ok ? 0 : 1);
