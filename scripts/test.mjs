#!/usr/bin/env node
/**
 * `npm test [unit|integration] [files or folders...]`
 *
 * Runs the test files under tests/unit and tests/integration with Node's test runner (through
 * tsx). For integration tests it provides ONE Postgres for the whole run and exports
 * SVC_TEST_DATABASE_URL (a maintenance URL; tests create their own databases on that server):
 * the server named by SVC_GRAPHQL_DATABASE_URL when set, otherwise an embedded Postgres in a
 * fresh temp folder on a free port (fsync off: test data is disposable), stopped at the end.
 * Exits with the test runner's status.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const TIERS = { unit: 'tests/unit', integration: 'tests/integration' };

const args = process.argv.slice(2);
const tier = args[0] in TIERS ? args.shift() : undefined;
const targets = args.length > 0 ? args : tier ? [TIERS[tier]] : Object.values(TIERS);

function testFiles(target) {
  const abs = resolve(root, target);
  if (!existsSync(abs)) return [];
  if (statSync(abs).isFile()) return [abs];
  return readdirSync(abs, { recursive: true })
    .map((f) => join(abs, String(f)))
    .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules'))
    .sort();
}

const files = targets.flatMap(testFiles);
if (files.length === 0) {
  console.log(`no test files under ${targets.join(', ')}`);
  process.exit(0);
}
const needsDb = files.some((f) => relative(root, f).startsWith('tests/integration'));

let pg;
let dataDir;
const env = { ...process.env };
if (needsDb) {
  if (process.env.SVC_GRAPHQL_DATABASE_URL) {
    env.SVC_TEST_DATABASE_URL = process.env.SVC_GRAPHQL_DATABASE_URL;
  } else {
    const { startEmbeddedPostgres } = await tsImport('../src/execution/embeddedPostgres.ts', import.meta.url);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-test-pg-'));
    const t0 = Date.now();
    const log = [];
    try {
      pg = await startEmbeddedPostgres({
        dataDir,
        database: 'postgres',
        onLog: (line) => log.push(line),
        postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=300'],
      });
    } catch (err) {
      console.error(String(err?.message ?? err));
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(1);
    }
    env.SVC_TEST_DATABASE_URL = pg.maintenanceUrl;
    console.log(`# test Postgres on port ${pg.port} (${Date.now() - t0} ms)`);
  }
  // The engines under test must not pick up a developer's own database settings.
  delete env.SVC_GRAPHQL_DATABASE_URL;
}

let cleaned = false;
async function cleanup() {
  if (cleaned) return;
  cleaned = true;
  if (pg) await pg.stop().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}

const child = spawn(process.execPath, ['--import', 'tsx', '--test', ...files], { cwd: root, env, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => child.kill(sig));
}
const code = await new Promise((res) => child.on('close', (c, signal) => res(c ?? (signal ? 1 : 0))));
await cleanup();
process.exit(code);
