/**
 * Starts Debian's PgBouncer (`/usr/sbin/pgbouncer`, `apt-get install -y pgbouncer`) in front of one
 * Postgres server, with its own config in a temp folder and a free port on 127.0.0.1:
 *
 *   const b = await startPgbouncer({ serverUrl: 'postgres://u:pw@127.0.0.1:5432/postgres', poolMode: 'transaction' });
 *   b.url('mydb')  // postgres://u:pw@127.0.0.1:<b.port>/mydb — any database name is routed to the server
 *   await b.restart(); await b.halt(); await b.start(); await b.stop();
 *
 * Clients are trusted (only users in its auth file); PgBouncer logs in to Postgres with the URL's
 * password. Run as root, it drops to `nobody` (PgBouncer refuses to run as root). Used by
 * scripts/withPgbouncer.mjs (CI), the sync/recovery benchmarks and the integration tests; fails with
 * a clear message when PgBouncer is not installed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { waitPort } from './waitPort.js';
import { join } from 'node:path';

export const PGBOUNCER = process.env.SVC_PGBOUNCER_BIN ?? '/usr/sbin/pgbouncer';

/** Throws a clear error when PgBouncer is missing. */
export function requirePgbouncer(): string {
  if (!existsSync(PGBOUNCER)) throw new Error(`PgBouncer not found at ${PGBOUNCER}: install it (apt-get install -y pgbouncer) or set SVC_PGBOUNCER_BIN`);
  const v = spawnSync(PGBOUNCER, ['--version'], { encoding: 'utf8' });
  return (v.stdout || v.stderr).trim().split('\n')[0];
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface PgbouncerOptions {
  /** The Postgres server (its user and password are PgBouncer's login). */
  serverUrl: string;
  poolMode?: 'transaction' | 'session' | 'statement';
  poolSize?: number;
  /** PgBouncer ≥ 1.21 only: protocol-level prepared statements. */
  maxPreparedStatements?: number;
  port?: number;
  onLog?: (line: string) => void;
}

export interface Pgbouncer {
  version: string;
  port: number;
  url(database?: string): string;
  restart(): Promise<void>;
  /** Stops PgBouncer (every client dropped) until `start()`. */
  halt(): Promise<void>;
  start(): Promise<void>;
  log(): string;
  stop(): Promise<void>;
}

export async function startPgbouncer(o: PgbouncerOptions): Promise<Pgbouncer> {
  const version = requirePgbouncer();
  const server = new URL(o.serverUrl);
  const user = decodeURIComponent(server.username || 'postgres');
  const password = decodeURIComponent(server.password || '');
  const dir = mkdtempSync(join(tmpdir(), 'svc-pgbouncer-'));
  chmodSync(dir, 0o755);
  const port = o.port ?? (await freePort());
  const ini = join(dir, 'pgbouncer.ini');
  const q = (s: string) => `"${s.replace(/"/g, '""')}"`;
  writeFileSync(join(dir, 'userlist.txt'), `${q(user)} ${q(password)}\n`, { mode: 0o644 });
  writeFileSync(ini, [
    '[databases]',
    `* = host=${server.hostname} port=${server.port || 5432}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${port}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${join(dir, 'userlist.txt')}`,
    `pool_mode = ${o.poolMode ?? 'transaction'}`,
    'max_client_conn = 5000',
    `default_pool_size = ${o.poolSize ?? 40}`,
    'max_db_connections = 0',
    'server_idle_timeout = 10',
    // After a failed login to Postgres, try again after 1 s rather than 15 s: back soon after Postgres is.
    'server_login_retry = 1',
    'ignore_startup_parameters = extra_float_digits,options',
    ...(o.maxPreparedStatements ? [`max_prepared_statements = ${o.maxPreparedStatements}`] : []),
    '',
  ].join('\n'), { mode: 0o644 });
  const asRoot = process.getuid?.() === 0;
  let child: ChildProcess | undefined;
  let out = '';
  const launch = async () => {
    out = '';
    const c = spawn(PGBOUNCER, [...(asRoot ? ['-u', 'nobody'] : []), ini], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    const onData = (d: Buffer) => {
      const s = d.toString();
      out = (out + s).slice(-20_000);
      if (o.onLog) for (const line of s.split('\n')) if (line) o.onLog(line);
    };
    c.stdout!.on('data', onData);
    c.stderr!.on('data', onData);
    await waitPort(port, c, 10_000, () => out, 'pgbouncer');
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGINT'); // immediate shutdown: every client connection is dropped
    const t = setTimeout(() => c.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(t);
  };
  await launch();
  return {
    version,
    port,
    /** A URL through PgBouncer for `database` (the server URL's user and password). */
    url(database = server.pathname.slice(1) || 'postgres') {
      const u = new URL(o.serverUrl);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      u.pathname = `/${database}`;
      return u.toString();
    },
    /** Stops PgBouncer (dropping every client) and starts it again on the same port. */
    async restart() {
      await kill();
      await launch();
    },
    halt: kill,
    start: launch,
    log: () => out,
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
