#!/usr/bin/env node
/**
 * Runs the action / custom-type conformance groups (actions/* except actions/remote_joins, which
 * also needs remote schemas and runs in remoteSchemaConformance.mjs; metadata/custom_types;
 * metadata/actions_introspection; metadata/actions) against one engine on a fresh database, with the
 * corpus's fixture servers (fixtureServers.mjs: the action webhook on 127.0.0.1:5593 writes rows back
 * through this engine with the admin secret).
 *
 *   node tests/support/actionsConformance.mjs [--pg-url URL] [--port 18xxx] [--runner tests/conformance/run.mjs]
 *        [--servers tests/conformance/servers] [--baseline F | --update-baseline F]
 */
import { parseArgs, runOnFreshEngine } from './conformanceEngine.mjs';
import { enginePort, postgresUrl, serversDir, startFixtureServers, withCleanups } from './fixtureServers.mjs';

export const ACTION_GROUPS = [
  'actions/sync', 'actions/sync_responses', 'actions/sync_mutations', 'actions/query_actions', 'actions/response_headers',
  'actions/async', 'metadata/custom_types', 'metadata/actions_introspection', 'metadata/actions',
];

const { arg, runner, ratchet, pgUrl: givenUrl } = parseArgs();
const ok = await withCleanups(async (cleanups) => {
  const pgUrl = await postgresUrl(givenUrl, cleanups);
  const port = await enginePort(arg('--port'));
  await startFixtureServers(serversDir(arg('--servers'), cleanups), `http://127.0.0.1:${port}`, cleanups);
  return runOnFreshEngine({
    name: 'actions',
    pgUrl,
    port,
    runner,
    env: { ACTION_WEBHOOK_HANDLER: 'http://127.0.0.1:5593' },
    runnerArgs: ['--only', ACTION_GROUPS.join(','), '--with', 'actions', ...ratchet],
    strict: ratchet.length === 0,
  });
});
process.exit(ok ? 0 : 1);
