/**
 * An engine in a process of its own (`node --import tsx src/main.ts serve` on a free port of
 * 127.0.0.1), for tests that SIGKILL it: resolves once it logged `listening on`.
 *
 *   const a = await spawnEngine(db.url, ['--instance-heartbeat-timeout', '2']);
 *   a.child.kill('SIGKILL');   a.stop() in t.after (SIGKILL when still running)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../src/lib/index.js';

export interface EngineProcess {
  child: ChildProcess;
  url: string;
  /** POSTs `body` to /v1/query (no admin secret: the engine runs without one). */
  query(body: unknown): Promise<Response>;
  stop(): void;
}

const main = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export async function spawnEngine(databaseUrl: string, args: readonly string[] = []): Promise<EngineProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve', '--server-port', String(port), '--server-host', '127.0.0.1', ...args], {
    env: { ...process.env, SVC_GRAPHQL_DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  let out = '';
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('listening on')) resolve();
      });
      child.on('exit', (code) => reject(new Error(`engine exited (${code}): ${out}`)));
      setTimeout(() => reject(new Error(`engine did not start: ${out}`)), 60_000);
    });
  } catch (err) {
    stop();
    throw err;
  }
  const url = `http://127.0.0.1:${port}`;
  const query = (body: unknown) => fetch(url + '/v1/query', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { child, url, query, stop };
}
