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

let ok = false;
try {
  ok = await runOnFreshEngine({
    name: 'allowlist',
    pgUrl,
    port,
    runner,
    env: { SVC_GRAPHQL_ENABLE_ALLOWLIST: 'true' },
    runnerArgs: ['--only', 'metadata/allowlist', '--with', 'allowlist', ...ratchet],
    strict: ratchet.length === 0,
  });
} finally {
  if (embedded) await embedded.stop().catch(() => undefined);
  if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
