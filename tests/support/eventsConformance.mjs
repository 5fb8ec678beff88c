#!/usr/bin/env node
/**
 * Runs the conformance groups event_triggers/* and metadata/event_triggers with `--with events`
 * (the runner is the webhook on 127.0.0.1:5592) against one engine started with the environment the
 * corpus README lists under "Webhook deliveries", on a fresh database.
 *
 *   node tests/support/eventsConformance.mjs [--pg-url postgres://…/postgres] [--port 18632]
 *        [--runner tests/conformance/run.mjs] [--baseline F | --update-baseline F]
 *
 * The Postgres server: `--pg-url`, else SVC_TEST_DATABASE_URL / SVC_GRAPHQL_DATABASE_URL (a maintenance
 * URL: the script creates and drops its own database there), else a throwaway embedded Postgres.
 * Needs no fixture servers (no node_modules under tests/conformance/servers).
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
    name: 'events',
    pgUrl,
    port,
    runner,
    env: {
      EVENT_WEBHOOK_HANDLER: 'http://127.0.0.1:5592',
      WEBHOOK_FROM_ENV: 'http://127.0.0.1:5592',
      EVENT_WEBHOOK_HEADER: 'MyEnvValue',
      SCHEDULED_TRIGGERS_WEBHOOK_DOMAIN: 'http://127.0.0.1:5594',
      ACTION_WEBHOOK_HANDLER: 'http://127.0.0.1:5593',
    },
    runnerArgs: ['--only', 'event_triggers,metadata/event_triggers', '--with', 'events', ...ratchet],
    strict: ratchet.length === 0,
  });
});
process.exit(ok ? 0 : 1);
