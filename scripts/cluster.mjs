#!/usr/bin/env node
/**
 * A cluster on this machine: Postgres, PgBouncer in transaction mode, three engines and HAProxy in
 * front of them on one port.
 *
 *   npm run cluster            (node scripts/cluster.mjs start)   prints the URL and a JSON status line
 *   npm run cluster:stop       (node scripts/cluster.mjs stop)    stops everything, removes its folder
 *   node scripts/cluster.mjs status                               JSON: url, ports, pids, alive
 *
 * Postgres: Debian's PostgreSQL 15 binaries (/usr/lib/postgresql/15/bin, SVC_CLUSTER_PG_BIN to change)
 * with initdb + pg_ctl in a fresh data folder. PgBouncer (`pgbouncer`) with pool_mode = transaction,
 * HAProxy (`haproxy`) with health checks on GET /healthz every second; both are Debian packages: as root
 * they are installed when missing (apt-get install -y pgbouncer haproxy), otherwise that command is
 * printed. As root Postgres and PgBouncer run as the `postgres` user (they refuse root).
 * The engines (node dist/bin/svc-graphql-engine.js serve, built first) get SVC_GRAPHQL_DATABASE_URL pointing at
 * PgBouncer, SVC_GRAPHQL_USE_PREPARED_STATEMENTS=false, SVC_GRAPHQL_STRICT_SCHEMA_SYNC=true (unless set:
 * a metadata change through one engine is seen by the next request on every engine), and otherwise the caller's environment
 * (admin secret, webhook variables, …). The first engine is started alone (it migrates the catalog),
 * then the other two.
 *
 * Environment: SVC_CLUSTER_PORT (HAProxy's port; default 8080 when free, else a free port),
 * SVC_CLUSTER_ENGINES (3), SVC_CLUSTER_DIR (the folder: data, configs, logs, state.json).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dir = process.env.SVC_CLUSTER_DIR ?? join(tmpdir(), `svc-cluster-${createHash('sha1').update(root).digest('hex').slice(0, 8)}`);
const stateFile = join(dir, 'state.json');
const PG_BIN = process.env.SVC_CLUSTER_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const isRoot = process.getuid?.() === 0;
const say = (line) => process.stderr.write(`cluster: ${line}\n`);
const die = (line) => {
  say(line);
  process.exit(1);
};

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd} || test -x /usr/sbin/${cmd}`], { stdio: 'ignore' }).status === 0;
const bin = (cmd) => (existsSync(`/usr/sbin/${cmd}`) ? `/usr/sbin/${cmd}` : cmd);

function freePort(preferred) {
  return new Promise((res) => {
    const srv = createServer();
    srv.once('error', () => (preferred ? freePort().then(res) : res(0)));
    srv.listen(preferred ?? 0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

/** Runs as the postgres user when root (Postgres and PgBouncer refuse root). */
const asPg = (cmd, args) => (isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
/**
 * Runs from the cluster's folder: the caller's working directory may be closed to `postgres` (a
 * `mktemp -d` clone is 0700), and HAProxy's config check fails when it cannot get back to it.
 */
const run = (cmd, args, opts = {}) => execFileSync(...[asPg(cmd, args)].flat(), { stdio: ['ignore', 'pipe', 'pipe'], cwd: existsSync(dir) ? dir : '/', ...opts });
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function waitFor(what, probe, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > until) die(`${what}: not ready after ${timeoutMs / 1000} s (logs in ${dir})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
const healthy = (url) => fetch(`${url}/healthz`).then((r) => r.status === 200, () => false);

async function start() {
  if (existsSync(stateFile)) die(`already started (${stateFile}); npm run cluster:stop first`);
  const missing = ['pgbouncer', 'haproxy'].filter((c) => !has(c));
  if (missing.length > 0) {
    if (!isRoot) die(`missing ${missing.join(', ')}: run as root: apt-get update && apt-get install -y pgbouncer haproxy`);
    say(`installing ${missing.join(' ')} (apt-get)`);
    const r = spawnSync('sh', ['-c', `apt-get install -y -qq ${missing.join(' ')} >/dev/null || (apt-get update -qq && apt-get install -y -qq ${missing.join(' ')} >/dev/null)`], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (r.status !== 0) die('apt-get install failed');
  }
  if (!existsSync(join(PG_BIN, 'initdb'))) die(`no PostgreSQL binaries in ${PG_BIN} (apt-get install -y postgresql-15, or set SVC_CLUSTER_PG_BIN)`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  const pgUid = isRoot ? Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })) : undefined;
  const pgGid = isRoot ? Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })) : undefined;
  const owned = (p) => {
    if (isRoot) chownSync(p, pgUid, pgGid);
    return p;
  };
  owned(dir); // PgBouncer writes its pid file here
  const state = { dir, engines: [] };
  const save = () => writeFileSync(stateFile, JSON.stringify(state, null, 2));

  // Postgres
  const pgData = join(dir, 'pgdata');
  mkdirSync(pgData, { recursive: true, mode: 0o700 });
  owned(pgData);
  state.pgPort = await freePort();
  state.pgData = pgData;
  run(join(PG_BIN, 'initdb'), ['-D', pgData, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const pgLog = join(dir, 'postgres.log');
  writeFileSync(pgLog, '');
  owned(pgLog);
  run(join(PG_BIN, 'pg_ctl'), ['-D', pgData, '-l', pgLog, '-w', '-o', `-p ${state.pgPort} -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=200`, 'start']);
  save();
  say(`Postgres on 127.0.0.1:${state.pgPort}`);

  // PgBouncer, transaction mode
  state.bouncerPort = await freePort();
  const users = join(dir, 'userlist.txt');
  writeFileSync(users, '"postgres" ""\n');
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(ini, [
    '[databases]',
    `* = host=127.0.0.1 port=${state.pgPort}`,
    '[pgbouncer]',
    'listen_addr = 127.0.0.1',
    `listen_port = ${state.bouncerPort}`,
    'unix_socket_dir =',
    'auth_type = trust',
    `auth_file = ${users}`,
    'pool_mode = transaction',
    'max_client_conn = 1000',
    'default_pool_size = 60',
    'ignore_startup_parameters = extra_float_digits,options',
    // After a failed login to Postgres (restarted), try again after 1 s rather than 15 s.
    'server_login_retry = 1',
    `logfile = ${join(dir, 'pgbouncer.log')}`,
    `pidfile = ${join(dir, 'pgbouncer.pid')}`,
    '',
  ].join('\n'));
  for (const f of [users, ini]) owned(f);
  writeFileSync(join(dir, 'pgbouncer.log'), '');
  owned(join(dir, 'pgbouncer.log'));
  run(bin('pgbouncer'), ['-d', ini]);
  await waitFor('PgBouncer', () => existsSync(join(dir, 'pgbouncer.pid')));
  state.bouncerPid = Number(readFileSync(join(dir, 'pgbouncer.pid'), 'utf8'));
  save();
  say(`PgBouncer (transaction mode) on 127.0.0.1:${state.bouncerPort}`);

  // Engines: the first alone (catalog migration), then the others.
  execFileSync(process.execPath, [join(root, 'scripts', 'buildServer.mjs')], { stdio: 'inherit' });
  const count = Number(process.env.SVC_CLUSTER_ENGINES ?? 3);
  const startEngine = async (i) => {
    const port = await freePort();
    const log = openSync(join(dir, `engine${i}.log`), 'a');
    const child = spawn(process.execPath, ['--max-semi-space-size=4', join(root, 'dist', 'bin', 'svc-graphql-engine.js'), 'serve'], {
      cwd: root,
      detached: true,
      stdio: ['ignore', log, log],
      env: {
        ...process.env,
        SVC_GRAPHQL_DATABASE_URL: `postgres://postgres@127.0.0.1:${state.bouncerPort}/postgres`,
        SVC_GRAPHQL_USE_PREPARED_STATEMENTS: 'false',
        // A change made through one engine is seen by the next request on any other (read-your-metadata).
        SVC_GRAPHQL_STRICT_SCHEMA_SYNC: process.env.SVC_GRAPHQL_STRICT_SCHEMA_SYNC ?? 'true',
        SVC_GRAPHQL_SERVER_HOST: '127.0.0.1',
        SVC_GRAPHQL_SERVER_PORT: String(port),
      },
    });
    child.unref();
    const engine = { name: `engine${i}`, port, pid: child.pid, url: `http://127.0.0.1:${port}` };
    state.engines.push(engine);
    save();
    await waitFor(engine.name, () => {
      if (!alive(engine.pid)) die(`${engine.name} exited; see ${join(dir, `engine${i}.log`)}`);
      return healthy(engine.url);
    });
  };
  await startEngine(1);
  await Promise.all(Array.from({ length: count - 1 }, (_, k) => startEngine(k + 2)));
  say(`${count} engines: ${state.engines.map((e) => e.port).join(', ')}`);

  // HAProxy
  state.port = Number(process.env.SVC_CLUSTER_PORT ?? 0) || (await freePort(8080));
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  timeout tunnel 1h',
    '  option http-server-close',
    '  option redispatch',
    '  retries 3',
    '  retry-on conn-failure empty-response',
    'frontend graphql',
    `  bind 127.0.0.1:${state.port}`,
    '  default_backend engines',
    'backend engines',
    '  balance roundrobin',
    '  option httpchk GET /healthz',
    '  http-check expect status 200',
    ...state.engines.map((e) => `  server ${e.name} 127.0.0.1:${e.port} check inter 1s fall 2 rise 2`),
    '',
  ].join('\n'));
  run(bin('haproxy'), ['-c', '-q', '-f', cfg]);
  execFileSync(bin('haproxy'), ['-D', '-f', cfg, '-p', join(dir, 'haproxy.pid')], { stdio: ['ignore', 'ignore', 'pipe'] });
  await waitFor('HAProxy', () => existsSync(join(dir, 'haproxy.pid')));
  state.haproxyPid = Number(readFileSync(join(dir, 'haproxy.pid'), 'utf8').trim().split('\n')[0]);
  state.url = `http://127.0.0.1:${state.port}`;
  save();
  await waitFor('HAProxy → engines', () => healthy(state.url));
  say(`HAProxy on ${state.url}`);
  process.stdout.write(`${JSON.stringify(status())}\n`);
}

function status() {
  if (!existsSync(stateFile)) return { running: false };
  const s = JSON.parse(readFileSync(stateFile, 'utf8'));
  return {
    running: true,
    url: s.url,
    dir: s.dir,
    postgres: { port: s.pgPort },
    pgbouncer: { port: s.bouncerPort, pid: s.bouncerPid, alive: s.bouncerPid ? alive(s.bouncerPid) : false },
    haproxy: { port: s.port, pid: s.haproxyPid, alive: s.haproxyPid ? alive(s.haproxyPid) : false },
    engines: s.engines.map((e) => ({ ...e, alive: alive(e.pid) })),
  };
}

async function stop() {
  if (!existsSync(stateFile)) {
    say('not running');
    return;
  }
  const s = JSON.parse(readFileSync(stateFile, 'utf8'));
  const stopPid = async (pid, signal = 'SIGTERM', ms = 20_000) => {
    if (!pid || !alive(pid)) return;
    process.kill(pid, signal);
    const until = Date.now() + ms;
    while (alive(pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  };
  await stopPid(s.haproxyPid);
  await Promise.all(s.engines.map((e) => stopPid(e.pid)));
  await stopPid(s.bouncerPid, 'SIGINT');
  if (s.pgData && existsSync(join(s.pgData, 'postmaster.pid'))) {
    try {
      run(join(PG_BIN, 'pg_ctl'), ['-D', s.pgData, '-m', 'fast', '-w', 'stop']);
    } catch (err) {
      say(`pg_ctl stop: ${err.stderr?.toString().trim() ?? err.message}`);
    }
  }
  rmSync(s.dir, { recursive: true, force: true });
  say('stopped');
}

const command = process.argv[2] ?? 'start';
if (command === 'start') await start();
else if (command === 'stop') await stop();
else if (command === 'status') process.stdout.write(`${JSON.stringify(status(), null, 2)}\n`);
else die(`unknown command ${command}: start | stop | status`);
