#!/usr/bin/env node
/**
 * `node scripts/withPostgres.mjs <command> [args...]`
 *
 * Runs one command with SVC_TEST_DATABASE_URL set to a Postgres maintenance URL: the server named by
 * SVC_GRAPHQL_DATABASE_URL when set, otherwise a throwaway embedded Postgres (fresh temp folder, free
 * port, fsync off) that is stopped and deleted afterwards. CI uses it for the conformance runs that
 * need engines of their own (JWT, allow-list). Exits with the command's status.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tsImport } from 'tsx/esm/api';

const [cmd, ...args] = process.argv.slice(2);
if (!cmd) {
  console.error('usage: node scripts/withPostgres.mjs <command> [args...]');
  process.exit(1);
}

const env = { ...process.env };
let pg;
let dataDir;
if (process.env.SVC_GRAPHQL_DATABASE_URL) {
  env.SVC_TEST_DATABASE_URL = process.env.SVC_GRAPHQL_DATABASE_URL;
} else {
  const { startEmbeddedPostgres } = await tsImport('../src/execution/embeddedPostgres.ts', import.meta.url);
  dataDir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  try {
    pg = await startEmbeddedPostgres({
      dataDir,
      database: 'postgres',
      onLog: () => undefined,
      postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'max_connections=300'],
    });
  } catch (err) {
    console.error(String(err?.message ?? err));
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(1);
  }
  env.SVC_TEST_DATABASE_URL = pg.maintenanceUrl;
}
delete env.SVC_GRAPHQL_DATABASE_URL;

const child = spawn(cmd, args, { env, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
const code = await new Promise((res) => child.on('close', (c, signal) => res(c ?? (signal ? 1 : 0))));
if (pg) await pg.stop().catch(() => undefined);
if (dataDir) rmSync(dataDir, { recursive: true, force: true });
process.exit(code);
