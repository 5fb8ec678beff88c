/**
 * The `svc-graphql-engine metadata|migrate` commands as a real process: exit codes and the one
 * stderr line a user sees for a wrong flag, an unreachable endpoint, and a good export.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { startTestEngine, type TestEngine } from './harness.js';

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
let e: TestEngine;
let tmp: string;
before(async () => {
  e = await startTestEngine({ adminSecret: 'cli-secret' });
  tmp = await mkdtemp(join(tmpdir(), 'svc-cli-proc-'));
});
after(async () => {
  await e?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', main, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as { port: number }).port;
  await new Promise((r) => s.close(r));
  return port;
}

test('export through the binary writes the directory; errors are one line with exit 1', async () => {
  const dir = join(tmp, 'md');
  const ok = await run(['metadata', 'export', '--dir', dir, '--endpoint', e.url], { SVC_GRAPHQL_ADMIN_SECRET: 'cli-secret' });
  assert.equal(ok.code, 0, ok.stderr);
  assert.ok((await readdir(dir)).includes('tables.yaml'));

  const flag = await run(['metadata', 'export', '--frobnicate']);
  assert.equal(flag.code, 1);
  assert.equal(flag.stderr, "svc-graphql-engine metadata: Unknown option '--frobnicate'\n");

  const port = await closedPort();
  const down = await run(['migrate', 'status', '--endpoint', `http://127.0.0.1:${port}`]);
  assert.equal(down.code, 1);
  assert.equal(down.stderr, `svc-graphql-engine migrate: cannot reach http://127.0.0.1:${port}: ECONNREFUSED\n`);

  const help = await run(['migrate', 'apply', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--down N/);
});
