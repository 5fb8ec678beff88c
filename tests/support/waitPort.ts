/** Resolves once `port` on 127.0.0.1 accepts a connection; rejects when `child` (named `what`) exits or `ms` pass. */
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';

export async function waitPort(port: number, child: ChildProcess, ms: number, log: () => string, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`${what} exited (${child.exitCode}): ${log().slice(-1500)}`);
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
  throw new Error(`${what} not listening on ${port} after ${ms} ms: ${log().slice(-1500)}`);
}
