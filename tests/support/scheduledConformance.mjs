#!/usr/bin/env node
/**
 * Runs the conformance groups scheduled_triggers/* and metadata/cron_triggers with
 * `--with scheduled_triggers --include-slow` (the runner is the webhook on 127.0.0.1:5594) against one
 * engine started with the environment the corpus README lists under "Webhook deliveries", on a fresh
 * database. (Modelled on eventsConformance.mjs.)
 *
 *   node tests/support/scheduledConformance.mjs [--pg-url postgres://…/postgres] [--port 18632]
 *        [--runner tests/conformance/run.mjs] [--baseline F | --update-baseline F]
 *
 * The Postgres server: `--pg-url`, else SVC_TEST_DATABASE_URL / SVC_GRAPHQL_DATABASE_URL (a maintenance
 * URL: the script creates and drops its own database there), else a throwaway embedded Postgres.
 * Needs no fixture servers (no node_modules under tests/conformance/servers).
 * Exits with the runner's status (1 when the engine does not start; without a ratchet flag, also 1
 * when any case fails).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { parseArgs, runOnFreshEngine } from './conformanceEngine.mjs';

const { arg, runner, ratchet, pgUrl: givenUrl } = parseArgs();
let pgUrl = givenUrl;
let embedded;
let embeddedDir;
if (!pgUrl) {
  const { startEmbeddedPostgres } = await tsImport('../../src/execution/embeddedPostgres.ts', import.meta.url);
  embeddedDir = mkdtempSync(join(tmpdir(), 'svc-scheduled-pg-'));
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

let ok = false;
try {
  ok = await runOnFreshEngine({
    name: 'scheduled',
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
    runnerArgs: ['--only', 'scheduled_triggers,metadata/cron_triggers', '--with', 'scheduled_triggers', '--include-slow', ...ratchet],
    strict: ratchet.length === 0,
  });
} finally {
  if (embedded) await embedded.stop().catch(() => undefined);
  if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
