/**
 * Starts Debian's Redis (`redis-server`, `apt-get install -y redis-server`) on a free port of
 * 127.0.0.1, in memory only (no RDB / AOF files), for the response-cache tests:
 *
 *   const r = await startRedis();   // r.url = redis://127.0.0.1:<port>
 *   await r.stop();
 *
 * Fails with a clear message when redis-server is not installed.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { freePort } from '../../src/lib/index.js';
import { waitPort } from './waitPort.js';

export const REDIS_SERVER = process.env.SVC_REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER)) throw new Error(`redis-server not found at ${REDIS_SERVER}: install it (apt-get install -y redis-server) or set SVC_REDIS_SERVER_BIN`);
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  await waitPort(port, child, 10_000, () => out, 'redis-server');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
