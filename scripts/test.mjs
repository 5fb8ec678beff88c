#!/usr/bin/env node
/**
 * `npm test [unit|integration] [files or folders...]`
 *
 * Runs the test files under tests/unit and tests/integration with Node's test runner (through
 * tsx). For integration tests it provides ONE Postgres for the whole run and exports
 * SVC_TEST_DATABASE_URL (a maintenance URL; tests create their own databases on that server):
 * the server named by SVC_GRAPHQL_DATABASE_URL when set, otherwise an embedded Postgres in a
 * fresh temp folder on a free port (fsync off: test data is disposable), stopped at the end.
 * The runner's TAP output streams through unchanged; the run then ends with a short list of what
 * failed (file, test, first line of the error) and the plain closing line `N passed, N failed`.
 * Exits with the test runner's status.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
// `npm test` runs unit + integration; `e2e` (the console in headless Chromium) runs on its own: npm run test:e2e.
const TIERS = { unit: 'tests/unit', integration: 'tests/integration', e2e: 'tests/e2e' };
const DEFAULT_TIERS = ['tests/unit', 'tests/integration'];

const args = process.argv.slice(2);
const tier = args[0] in TIERS ? args.shift() : undefined;
const targets = args.length > 0 ? args : tier ? [TIERS[tier]] : DEFAULT_TIERS;

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
const needsDb = files.some((f) => /^tests\/(integration|e2e)/.test(relative(root, f)));

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

const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=tap', ...files], { cwd: root, env, stdio: ['inherit', 'pipe', 'inherit'] });
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => child.kill(sig));
}
const tap = tapSummary();
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tap.push(chunk.toString('utf8'));
});
const code = await new Promise((res) => child.on('close', (c, signal) => res(c ?? (signal ? 1 : 0))));
await cleanup();
const { failures, passed, failed } = tap.end();
if (failures.length > 0) {
  console.log(`\n# ${failures.length} failed:`);
  for (const f of failures) console.log(`#   ${f.file ? f.file + ' › ' : ''}${f.name}${f.error ? ' — ' + f.error : ''}`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(code);

/**
 * Reads TAP (node --test-reporter=tap) as it streams: every `not ok` test with the file and first
 * error line from its YAML block (suites failing only because a subtest did are left out), and the
 * run's `# pass` / `# fail` totals (the last, outermost ones).
 */
function tapSummary() {
  let buffer = '';
  const failures = [];
  let current; // the failure whose YAML block is being read
  let passed = 0;
  let failed = 0;
  const line = (text) => {
    const notOk = /^(\s*)not ok \d+ - (.*?)(?: # .*)?$/.exec(text);
    if (notOk) {
      current = { indent: notOk[1].length, name: notOk[2], file: '', error: '', type: '', readingError: false };
      failures.push(current);
      return;
    }
    const total = /^# (pass|fail) (\d+)$/.exec(text);
    if (total) {
      if (total[1] === 'pass') passed = Number(total[2]);
      else failed = Number(total[2]);
      return;
    }
    if (!current) return;
    const body = text.slice(current.indent).trim();
    if (body === '...') {
      current = undefined;
      return;
    }
    if (current.readingError) {
      if (/^[a-zA-Z]+:( |$)/.test(body) && text.length - text.trimStart().length <= current.indent + 2) current.readingError = false;
      else if (!current.error && body) {
        current.error = body;
        return;
      } else return;
    }
    const kv = /^([a-zA-Z]+): ?(.*)$/.exec(body);
    if (!kv) return;
    if (kv[1] === 'location' && !current.file) current.file = relative(root, kv[2].replace(/^'|'$/g, '').replace(/:\d+:\d+$/, ''));
    else if (kv[1] === 'failureType') current.type = kv[2].replace(/^'|'$/g, '');
    else if (kv[1] === 'error') {
      if (/^[|>]-?$/.test(kv[2])) current.readingError = true;
      else current.error = kv[2].replace(/^'|'$/g, '');
    }
  };
  return {
    push(chunk) {
      buffer += chunk;
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        line(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    },
    end() {
      if (buffer) line(buffer);
      return { failures: failures.filter((f) => f.type !== 'subtestsFailed'), passed, failed };
    },
  };
}
