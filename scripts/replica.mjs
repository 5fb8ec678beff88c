#!/usr/bin/env node
/**
 * A Postgres primary and a real hot standby of it on this machine, for trying read replicas.
 *
 *   npm run replica             (node scripts/replica.mjs start)   prints the two URLs and the engine's command
 *   npm run replica:stop        (node scripts/replica.mjs stop)    stops both, removes the folder
 *   node scripts/replica.mjs pause | resume                         pauses / resumes the standby's replay (lag on demand)
 *   node scripts/replica.mjs start --of 127.0.0.1:55432             only a standby, of that running primary (same binaries' version)
 *
 * Both servers come from the same PostgreSQL binaries (a standby replays only its own major
 * version's WAL): /usr/lib/postgresql/15/bin (SVC_REPLICA_PG_BIN to change; as root the package
 * postgresql-15 is installed when missing). The primary is initdb'd in a fresh folder; the standby
 * is `pg_basebackup -R -X stream` of it (standby.signal + primary_conninfo), on the next free port.
 * As root both run as the `postgres` user. Environment: SVC_REPLICA_DIR (the folder; default under
 * the temp folder), SVC_REPLICA_PORT (the primary's port; default a free one).
 */
import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = process.env.SVC_REPLICA_DIR ?? join(tmpdir(), 'svc-replica');
const stateFile = join(dir, 'state.json');
const PG_BIN = process.env.SVC_REPLICA_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const isRoot = process.getuid?.() === 0;
const die = (line) => {
  process.stderr.write(`replica: ${line}\n`);
  process.exit(1);
};

function run(cmd, args) {
  const full = isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(full[0], full[1], { encoding: 'utf8', cwd: '/' }); // the caller's folder may be closed to postgres
  if (r.status !== 0) die(`${cmd} ${args[0] ?? ''} failed: ${(r.stderr || r.stdout || r.error?.message || '').trim()}`);
  return r.stdout;
}

const freePort = () => new Promise((resolve, reject) => {
  const s = createServer();
  s.once('error', reject);
  s.listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});

const psql = (port, sql) => run(join(PG_BIN, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-Atc', sql]).trim();

async function start() {
  if (existsSync(stateFile)) die(`already running (${stateFile}); npm run replica:stop first`);
  if (!existsSync(join(PG_BIN, 'pg_basebackup'))) {
    if (!isRoot) die(`no PostgreSQL at ${PG_BIN}: apt-get install -y postgresql-15`);
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    const r = spawnSync('apt-get', ['install', '-y', '-qq', 'postgresql-15'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) die('apt-get install -y postgresql-15 failed');
  }
  mkdirSync(dir, { recursive: true });
  if (isRoot) {
    const id = (flag) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  const of = process.argv.indexOf('--of');
  const existing = of > 0 ? process.argv[of + 1] : undefined;
  if (existing !== undefined && !/^127\.0\.0\.1:\d+$/.test(existing)) die('--of: expected 127.0.0.1:<port> of a running primary');
  const primaryPort = existing ? Number(existing.split(':')[1]) : Number(process.env.SVC_REPLICA_PORT ?? (await freePort()));
  const standbyPort = await freePort();
  const settings = (port) => `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c wal_level=replica -c hot_standby=on -c shared_preload_libraries=pg_stat_statements`;
  const primary = join(dir, 'primary');
  const standby = join(dir, 'standby');
  if (!existing) {
    run(join(PG_BIN, 'initdb'), ['-D', primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8']);
    run(join(PG_BIN, 'pg_ctl'), ['-D', primary, '-o', settings(primaryPort), '-w', '-l', join(dir, 'primary.log'), 'start']);
  }
  writeFileSync(stateFile, JSON.stringify({ primary: existing ? undefined : primary, standby, primaryPort, standbyPort }));
  run(join(PG_BIN, 'pg_basebackup'), ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standby, '-R', '-X', 'stream', '-c', 'fast']);
  run(join(PG_BIN, 'pg_ctl'), ['-D', standby, '-o', settings(standbyPort), '-w', '-l', join(dir, 'standby.log'), 'start']);
  if (psql(standbyPort, 'SELECT pg_is_in_recovery()') !== 't') die('the standby is not in recovery');
  const p = `postgres://postgres@127.0.0.1:${primaryPort}/postgres`;
  const s = `postgres://postgres@127.0.0.1:${standbyPort}/postgres`;
  process.stdout.write(`primary  ${p}\nstandby  ${s}\n\nSVC_GRAPHQL_DATABASE_URL=${p} SVC_GRAPHQL_READ_REPLICA_URLS=${s} npm start\n`);
}

function state() {
  if (!existsSync(stateFile)) die('not running (npm run replica starts it)');
  return JSON.parse(readFileSync(stateFile, 'utf8'));
}

function stop() {
  if (!existsSync(stateFile)) {
    process.stdout.write(`replica: not running (no ${stateFile}); nothing to stop\n`);
    return;
  }
  const st = state();
  for (const data of [st.standby, st.primary]) {
    if (data !== undefined && existsSync(join(data, 'postmaster.pid'))) spawnSync(...(isRoot ? ['runuser', ['-u', 'postgres', '--', join(PG_BIN, 'pg_ctl'), '-D', data, '-m', 'fast', '-w', 'stop']] : [join(PG_BIN, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']]));
  }
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write('stopped\n');
}

const command = process.argv[2] ?? 'start';
if (command === 'start') await start();
else if (command === 'stop') stop();
else if (command === 'pause') process.stdout.write(`${psql(state().standbyPort, 'SELECT pg_wal_replay_pause()')}replay paused\n`);
else if (command === 'resume') process.stdout.write(`${psql(state().standbyPort, 'SELECT pg_wal_replay_resume()')}replay resumed\n`);
else die(`unknown command ${command}: start | stop | pause | resume`);
