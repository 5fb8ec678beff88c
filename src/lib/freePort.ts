/**
 * Asks the OS for a free TCP port on the loopback interface (bind to port 0, read it, close).
 * Another process could take the port before it is used; callers that can should bind port 0 directly.
 */
import { createServer } from 'node:net';

export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error('freePort: no port assigned'))));
    });
  });
}
