/**
 * Starts Debian's Redis (`redis-server`, `apt-get install -y redis-server`) on a free port of
 * 127.0.0.1, in memory only (no RDB / AOF files), for the response-cache tests:
 *
 *   const r = await startRedis();   // r.url = redis://127.0.0.1:<port>
 *   await r.stop();
 *
 * Fails with a clear message when redis-server is not installed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { freePort } from '../../src/lib/index.js';

export const REDIS_SERVER = process.env.SVC_REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** Resolves once `port` accepts a connection, or rejects when the child exits or `ms` pass. */
async function waitPort(port: number, child: ChildProcess, ms: number, log: () => string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}): ${log().slice(-1500)}`);
    const ok = await new Promise<boolean>((r) => {
      const c = net.connect(port, '127.0.0.1', () => {
        c.destroy();
        r(true);
      });
      c.once('error', () => r(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`redis-server did not listen on ${port} within ${ms} ms: ${log().slice(-1500)}`);
}

export async function startRedis(): Promise<RedisServer> {
  if (!existsSync(REDIS_SERVER)) throw new Error(`redis-server not found at ${REDIS_SERVER}: install it (apt-get install -y redis-server) or set SVC_REDIS_SERVER_BIN`);
  const port = await freePort();
  const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  await waitPort(port, child, 10_000, () => out);
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
