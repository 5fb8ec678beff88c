/**
 * A primary and a real hot standby from the machine's PostgreSQL packages (both from the same
 * /usr/lib/postgresql/<v>/bin: a standby replays only its own major version's WAL): the primary as
 * systemPostgres.ts starts it, with pg_stat_statements loaded on both servers (what each one
 * executed is how tests check routing), and the standby made by `pg_basebackup -R` (streaming,
 * `standby.signal` + `primary_conninfo` written by pg_basebackup), on its own port.
 */
import { mkdtempSync, rmSync, chownSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { freePort } from '../../src/lib/index.js';
import { run, startSystemPostgres } from './systemPostgres.js';

export interface Standby {
  port: number;
  /** postgres://postgres@127.0.0.1:<port>/<database> */
  url(database?: string): string;
  start(): void;
  /** Fast shutdown; `start()` brings it back (it catches up by streaming). */
  stop(): void;
  remove(): void;
}

export interface ReplicatedPostgres {
  major: number;
  primaryUrl(database?: string): string;
  standby: Standby;
  stop(): void;
}

const SETTINGS = ['shared_preload_libraries=pg_stat_statements', 'pg_stat_statements.track=all', 'wal_level=replica', 'max_wal_senders=10', 'hot_standby=on', 'wal_receiver_status_interval=1s'];

/** Runs one statement on `url` with a fresh client and returns its rows. */
export async function sqlOn(url: string, text: string, values: unknown[] = []): Promise<any[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** Starts the primary and a standby of it. */
export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const primary = await startSystemPostgres(SETTINGS);
  try {
    const standby = await makeStandby(primary);
    return {
      major: primary.major,
      primaryUrl: (database = 'postgres') => `postgres://postgres@127.0.0.1:${primary.port}/${database}`,
      standby,
      stop() {
        try {
          standby.remove();
        } finally {
          primary.stop();
        }
      },
    };
  } catch (e) {
    primary.stop();
    throw e;
  }
}

/** `pg_basebackup -R` of `primary` into a new folder, started on a free port. */
export async function makeStandby(primary: { port: number; bin: string; asPostgres: boolean }): Promise<Standby> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-standby-'));
  if (primary.asPostgres) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  run(join(primary.bin, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-D', data, '-R', '-X', 'stream', '--no-sync', '-c', 'fast'], primary.asPostgres);
  const port = await freePort();
  const opts = [`-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, ...SETTINGS.map((x) => `-c ${x}`)].join(' ');
  const ctl = (...args: string[]) => run(join(primary.bin, 'pg_ctl'), ['-D', data, ...args], primary.asPostgres);
  const standby: Standby = {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    start: () => ctl('-o', opts, '-w', '-l', join(dir, 'log'), 'start'),
    stop: () => ctl('-m', 'fast', '-w', 'stop'),
    remove() {
      try {
        ctl('-m', 'immediate', '-w', 'stop');
      } catch {
        /* already stopped */
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  standby.start();
  return standby;
}
