/**
 * A throwaway Postgres server from the machine's own PostgreSQL packages
 * (/usr/lib/postgresql/<v>/bin), for tests that need a server whose client tools (pg_dump) are
 * installed — the embedded Postgres ships none. Run as the `postgres` user when we are root
 * (Postgres refuses root). `findSystemPostgres()` is undefined when no server package exists.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../src/lib/index.js';

export interface SystemPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres (trust auth). */
  url: string;
  major: number;
  /** `pg_ctl restart -m fast`: every connection is terminated, the server is back on the same port. */
  restart(): void;
  /** `pg_ctl stop -m fast` (every connection terminated; `start()` brings it back on the same port). */
  halt(): void;
  /** `pg_ctl start` after `halt()`. */
  start(): void;
  stop(): void;
}

/** The bin folder of the newest installed PostgreSQL server package, with its major version. */
export function findSystemPostgres(): { bin: string; major: number } | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const found = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'postgres')) && existsSync(join(root, v, 'bin', 'initdb')))
    .map(Number)
    .sort((a, b) => b - a);
  return found.length > 0 ? { bin: join(root, String(found[0]), 'bin'), major: found[0]! } : undefined;
}

export function run(cmd: string, args: string[], asPostgres: boolean): void {
  // From /: the caller's folder (a mktemp -d clone is 0700) may be closed to postgres.
  const r = asPostgres ? spawnSync('runuser', ['-u', 'postgres', '--', cmd, ...args], { encoding: 'utf8', cwd: '/' }) : spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr || r.stdout || r.error?.message}`);
}

/** Initialises and starts a server in a temp folder (fsync off; `settings` as extra `-c` flags); `stop()` stops it and removes the folder. */
export async function startSystemPostgres(settings: readonly string[] = []): Promise<SystemPostgres & { dir: string; port: number; bin: string; asPostgres: boolean }> {
  const found = findSystemPostgres();
  if (!found) throw new Error('no PostgreSQL server package under /usr/lib/postgresql');
  const asPostgres = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'svc-syspg-'));
  const data = join(dir, 'data');
  if (asPostgres) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    chownSync(dir, Number(ids.stdout.trim()), Number(gid.stdout.trim()));
  }
  const port = await freePort();
  run(join(found.bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8'], asPostgres);
  const opts = [`-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, ...settings.map((x) => `-c ${x}`)].join(' ');
  run(join(found.bin, 'pg_ctl'), ['-D', data, '-o', opts, '-w', '-l', join(dir, 'log'), 'start'], asPostgres);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    major: found.major,
    dir,
    port,
    bin: found.bin,
    asPostgres,
    restart() {
      run(join(found.bin, 'pg_ctl'), ['-D', data, '-o', opts, '-m', 'fast', '-w', '-l', join(dir, 'log'), 'restart'], asPostgres);
    },
    halt() {
      run(join(found.bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], asPostgres);
    },
    start() {
      run(join(found.bin, 'pg_ctl'), ['-D', data, '-o', opts, '-w', '-l', join(dir, 'log'), 'start'], asPostgres);
    },
    stop() {
      try {
        run(join(found.bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], asPostgres);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
