/**
 * Where the embedded Postgres's binaries and data folder live, so that `npm start` works from any
 * folder, as any user:
 *
 * - As a normal user, Postgres runs as that user: the binaries stay in node_modules and the data
 *   stays in `--data-dir`.
 * - As root, Postgres refuses to run as root and runs as the `postgres` system user (created when
 *   missing). That user may not be able to enter the folder the engine was installed in (a clone
 *   under /root, any `mktemp -d`: mode 0700). Then:
 *   - the binaries are copied once per Postgres version to `/var/lib/svc-graphql-engine/postgres-<v>`
 *     (root-owned, 0755: a cache, safe to delete);
 *   - a NEW data folder whose parent the `postgres` user cannot enter is created as
 *     `/var/lib/svc-graphql-engine/data-<hash of the --data-dir path>` (owned by `postgres`, 0700),
 *     and `--data-dir` gets a file `SVC_DATA_LOCATION` naming it. The data persists exactly as
 *     `--data-dir` promises: the same `--data-dir` finds the same data on the next start.
 * - `--data-dir` must be new, empty, or a data folder made by this engine (it has `PG_VERSION` or
 *   `SVC_DATA_LOCATION`): any other non-empty folder is refused, and its owner is never changed.
 *
 * Anything that cannot work throws `EmbeddedPostgresError` with one line saying what to do.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { userInfo } from 'node:os';

/** A start-up failure of the embedded Postgres, with a message fit for one line on a terminal. */
export class EmbeddedPostgresError extends Error {
  override name = 'EmbeddedPostgresError';
}

/** Ids Postgres runs under: empty when the engine is not root (Postgres runs as the engine's user). */
export interface RunAs {
  uid?: number;
  gid?: number;
}

/** Where shared files go when root's own folders are out of the `postgres` user's reach. */
export const ROOT_SHARED_DIR = '/var/lib/svc-graphql-engine';
/** The file in `--data-dir` naming the real data folder when it had to live elsewhere. */
export const LOCATION_FILE = 'SVC_DATA_LOCATION';
const PG_USER = 'postgres';

export const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** As root, the ids of the `postgres` system user, creating it when missing; `{}` otherwise. */
export function postgresRunAs(): RunAs {
  if (!isRoot()) return {};
  const lookup = (): RunAs | undefined => {
    try {
      const id = (flag: string) => Number.parseInt(execFileSync('id', [flag, PG_USER], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }), 10);
      return { uid: id('-u'), gid: id('-g') };
    } catch {
      return undefined;
    }
  };
  const found = lookup();
  if (found) return found;
  try {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', PG_USER], { stdio: 'ignore' });
  } catch {
    try {
      execFileSync('adduser', ['-S', '-D', '-H', PG_USER], { stdio: 'ignore' }); // BusyBox (Alpine)
    } catch {
      /* reported below */
    }
  }
  const created = lookup();
  if (created) return created;
  throw new EmbeddedPostgresError(
    `running as root: Postgres will not run as root and the '${PG_USER}' system user could not be created; create it (useradd --system ${PG_USER}), run as a normal user, or set SVC_GRAPHQL_DATABASE_URL`,
  );
}

/** Whether the user `as` can use `path` (`-x`: enter a folder or run a file, `-r`: read). */
export function reachable(path: string, as: RunAs, test: '-x' | '-r' = '-x'): boolean {
  if (as.uid === undefined) return true;
  // Spawned with the same ids (and, like the postmaster, no supplementary groups) as Postgres.
  const r = spawnSync('test', [test, path], { uid: as.uid, gid: as.gid, stdio: 'ignore' });
  return r.status === 0;
}

function mkdirShared(): void {
  try {
    mkdirSync(ROOT_SHARED_DIR, { recursive: true, mode: 0o755 });
    chmodSync(ROOT_SHARED_DIR, 0o755);
  } catch (err) {
    throw new EmbeddedPostgresError(
      `running as root: the '${PG_USER}' user cannot enter the engine's folders and ${ROOT_SHARED_DIR} cannot be created (${(err as NodeJS.ErrnoException).code ?? String(err)}); run as a normal user or set SVC_GRAPHQL_DATABASE_URL`,
    );
  }
}

/**
 * The folder holding `bin/`, `lib/`, `share/` of the Postgres binaries the `postgres` user can run:
 * `nativeDir` itself, or (root only) a copy under ROOT_SHARED_DIR made once per version.
 */
export function reachableBinaries(nativeDir: string, version: string, as: RunAs): string {
  const probe = (dir: string) => reachable(join(dir, 'bin', 'postgres'), as) && reachable(join(dir, 'share', 'postgresql', 'postgres.bki'), as, '-r');
  if (probe(nativeDir)) return nativeDir;
  mkdirShared();
  const target = join(ROOT_SHARED_DIR, `postgres-${version.replace(/[^\w.-]/g, '_')}`);
  if (!existsSync(join(target, '.complete'))) {
    const tmp = `${target}.tmp-${process.pid}`;
    rmSync(tmp, { recursive: true, force: true });
    cpSync(nativeDir, tmp, { recursive: true, verbatimSymlinks: true });
    chmodSync(tmp, 0o755);
    writeFileSync(join(tmp, '.complete'), `${version}\n`);
    rmSync(target, { recursive: true, force: true });
    try {
      renameSync(tmp, target);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another engine won the race
    }
  }
  if (!probe(target)) {
    throw new EmbeddedPostgresError(`running as root: the '${PG_USER}' user cannot run the Postgres binaries, not even the copy in ${target}; run as a normal user or set SVC_GRAPHQL_DATABASE_URL`);
  }
  return target;
}

export interface DataPlacement {
  /** The folder Postgres runs on (`-D`). */
  pgDataDir: string;
  /** Whether it still needs `initdb`. */
  fresh: boolean;
  /** Set when the data lives outside `--data-dir` (root, unreachable folder). */
  relocatedFrom?: string;
}

const isEmptyDir = (dir: string): boolean => readdirSync(dir).length === 0;

/**
 * Decides the data folder for `dataDir` (see module header) and, for a fresh one, creates it owned
 * by the user Postgres runs as. Refuses folders that are not ours.
 */
export function placeData(dataDir: string, as: RunAs): DataPlacement {
  const abs = resolve(dataDir);
  if (existsSync(abs) && !statSync(abs).isDirectory()) {
    throw new EmbeddedPostgresError(`--data-dir ${abs} is a file, not a folder; point it at a new or empty folder`);
  }
  const locationFile = join(abs, LOCATION_FILE);
  if (existsSync(locationFile)) {
    const real = readFileSync(locationFile, 'utf8').trim();
    return { pgDataDir: real, fresh: !existsSync(join(real, 'PG_VERSION')), relocatedFrom: abs };
  }
  if (existsSync(join(abs, 'PG_VERSION'))) {
    checkOwner(abs, as);
    if (!reachable(abs, as)) {
      throw new EmbeddedPostgresError(`the '${PG_USER}' user cannot enter the data folder ${abs} (a parent folder is private to root); move it, or run as a normal user`);
    }
    return { pgDataDir: abs, fresh: false };
  }
  if (existsSync(abs) && !isEmptyDir(abs)) {
    throw new EmbeddedPostgresError(
      `--data-dir ${abs} is not empty and is not a data folder made by svc-graphql-engine; refusing to use it (point --data-dir at a new or empty folder)`,
    );
  }
  if (as.uid === undefined || reachable(dirname(abs), as)) {
    try {
      mkdirSync(abs, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw new EmbeddedPostgresError(`cannot create --data-dir ${abs}: ${(err as NodeJS.ErrnoException).code === 'EACCES' ? 'permission denied' : (err as Error).message}; choose a folder you can write to`);
    }
    if (as.uid !== undefined) chownSync(abs, as.uid, as.gid ?? as.uid);
    return { pgDataDir: abs, fresh: true };
  }
  // Root, and `postgres` cannot enter the parent: keep the data in the shared folder instead.
  mkdirShared();
  const real = join(ROOT_SHARED_DIR, `data-${createHash('sha256').update(abs).digest('hex').slice(0, 16)}`);
  if (existsSync(real) && !isEmptyDir(real) && !existsSync(join(real, 'PG_VERSION'))) rmSync(real, { recursive: true, force: true }); // a failed initdb
  mkdirSync(real, { recursive: true, mode: 0o700 });
  chownSync(real, as.uid, as.gid ?? as.uid);
  mkdirSync(abs, { recursive: true, mode: 0o700 });
  writeFileSync(locationFile, `${real}\n`);
  return { pgDataDir: real, fresh: !existsSync(join(real, 'PG_VERSION')), relocatedFrom: abs };
}

/** As root, an existing data folder must already belong to `postgres`: it is never chowned. */
function checkOwner(dir: string, as: RunAs): void {
  if (as.uid === undefined) return;
  const owner = statSync(dir).uid;
  if (owner !== as.uid) {
    const name = owner === userInfo().uid ? 'root' : `uid ${owner}`;
    throw new EmbeddedPostgresError(`the data folder ${dir} belongs to ${name}, not to '${PG_USER}' (Postgres runs as '${PG_USER}' under root); refusing to change its owner`);
  }
}
