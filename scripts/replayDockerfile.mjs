#!/usr/bin/env node
/**
 * Replays the Dockerfile without Docker (no daemon or base image can be had here) and checks the
 * result starts and answers, as the image would:
 *
 *   node scripts/replayDockerfile.mjs [--keep] [--database-url postgres://…]
 *
 * Each FROM stage gets its own folder under a temporary directory, standing for the image's root;
 * the base image is this machine (its node, npm, sh). WORKDIR / COPY (from the build context, minus
 * .dockerignore's entries; or --from=<stage>) / RUN (sh -c, in the WORKDIR, with the ENV so far) / ENV
 * are followed in order; absolute paths under the Dockerfile's WORKDIRs and VOLUMEs (/app, /data) are
 * mapped into the stage's folder, in RUN lines and ENV values alike. Not replayed: USER (a `chown` to a
 * user this machine lacks is skipped, said so), VOLUME, EXPOSE. Then the last stage's ENTRYPOINT + CMD
 * is started in its WORKDIR with its ENV, on a free port (SVC_GRAPHQL_SERVER_PORT) and with
 * SVC_GRAPHQL_DATABASE_URL if given (else the image's default: the embedded Postgres in /data); the
 * HEALTHCHECK command is run until it passes, then a GraphQL query, run_sql and /console are checked,
 * and the process is stopped with SIGTERM (it must exit 0). Exit 1 with the reason otherwise.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const keep = args.includes('--keep');
const dbIdx = args.indexOf('--database-url');
const databaseUrl = dbIdx >= 0 ? args[dbIdx + 1] : undefined;
const say = (line) => process.stdout.write(`replay: ${line}\n`);
const fail = (line) => {
  process.stderr.write(`replay: FAILED: ${line}\n`);
  process.exit(1);
};

/** Instructions: continuation lines joined, comments and blank lines dropped. */
function instructions(text) {
  const out = [];
  let cur = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (cur === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.startsWith('#')) continue;
    if (line.endsWith('\\')) {
      cur += line.slice(0, -1) + ' ';
      continue;
    }
    cur += line;
    const m = /^(\w+)\s+([\s\S]*)$/.exec(cur);
    if (m) out.push({ op: m[1].toUpperCase(), rest: m[2].trim() });
    cur = '';
  }
  return out;
}

/** `["a", "b"]` (exec form) or shell form → argv. */
const argv = (rest) => (rest.startsWith('[') ? JSON.parse(rest) : ['sh', '-c', rest]);

/** `A=1 B="x y"` → entries. */
function envPairs(rest) {
  const pairs = [];
  const re = /(\w+)=("(?:[^"\\]|\\.)*"|\S*)/g;
  let m;
  while ((m = re.exec(rest))) pairs.push([m[1], m[2].startsWith('"') ? JSON.parse(m[2]) : m[2]]);
  return pairs;
}

const steps = instructions(readFileSync(join(root, 'Dockerfile'), 'utf8'));
// The container paths that live in a stage's folder: every WORKDIR and VOLUME.
const mounted = new Set();
for (const s of steps) {
  if (s.op === 'WORKDIR') mounted.add(s.rest);
  if (s.op === 'VOLUME') for (const v of argv(s.rest).filter((v) => v.startsWith('/'))) mounted.add(v);
}
const mapPaths = (text, stageRoot) =>
  [...mounted].reduce((t, p) => t.replace(new RegExp(`(^|[\\s=:"'])${p.replace(/[/]/g, '\\/')}(?=$|[\\s/"'])`, 'g'), `$1${stageRoot}${p}`), text);

const ignored = existsSync(join(root, '.dockerignore'))
  ? readFileSync(join(root, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
  : [];
const allowedFromContext = (rel) => !ignored.some((pat) => (pat.startsWith('*.') ? rel.endsWith(pat.slice(1)) : rel === pat || rel.startsWith(pat + '/')));

const work = mkdtempSync(join(tmpdir(), 'svc-dockerfile-'));
say(`replaying Dockerfile in ${work}`);
const stages = [];
let stage;
const t0 = Date.now();
for (const { op, rest } of steps) {
  if (op === 'FROM') {
    const name = /\sAS\s+(\S+)/i.exec(rest)?.[1];
    stage = { name, root: join(work, `stage${stages.length}`), cwd: '/', env: {}, entrypoint: [], cmd: [], healthcheck: undefined };
    mkdirSync(stage.root, { recursive: true });
    stages.push(stage);
    say(`FROM ${rest} → ${stage.root} (base image: this machine's node ${process.version})`);
  } else if (op === 'WORKDIR') {
    stage.cwd = rest;
    mkdirSync(join(stage.root, rest), { recursive: true });
  } else if (op === 'ENV') {
    for (const [k, v] of envPairs(rest)) stage.env[k] = v;
  } else if (op === 'COPY') {
    const words = rest.split(/\s+/);
    const from = words[0].startsWith('--from=') ? words.shift().slice('--from='.length) : undefined;
    const dest = words.pop();
    const source = from === undefined ? undefined : stages.find((s, i) => s.name === from || String(i) === from);
    if (from !== undefined && !source) fail(`COPY --from=${from}: no such stage`);
    const absDest = join(stage.root, dest.startsWith('/') ? dest : join(stage.cwd, dest));
    for (const src of words) {
      const absSrc = source ? join(source.root, src.startsWith('/') ? src : join(source.cwd, src)) : join(root, src);
      if (!existsSync(absSrc)) fail(`COPY ${src}: not found${source ? ` in stage ${from}` : ' in the build context'}`);
      if (!source && !allowedFromContext(src)) fail(`COPY ${src}: excluded by .dockerignore`);
      const target = dest.endsWith('/') || words.length > 1 ? join(absDest, src.split('/').pop()) : absDest;
      mkdirSync(dirname(target), { recursive: true });
      cpSync(absSrc, target, { recursive: true, verbatimSymlinks: true, filter: (p) => source || allowedFromContext(p.slice(root.length + 1)) || p === root });
    }
    say(`COPY ${rest}`);
  } else if (op === 'RUN') {
    const command = mapPaths(rest, stage.root);
    const chown = 'chown() { for a in "$@"; do case "$a" in -*) ;; *) u="${a%%:*}"; break;; esac; done; if id -u "$u" >/dev/null 2>&1; then command chown "$@"; else echo "replay: skipped chown $* (no user $u on this machine)"; fi; }; ';
    say(`RUN ${rest}`);
    const r = spawnSync('sh', ['-c', chown + command], { cwd: join(stage.root, stage.cwd), env: { ...process.env, ...mappedEnv(stage) }, stdio: 'inherit' });
    if (r.status !== 0) fail(`RUN ${rest}: exit ${r.status}`);
  } else if (op === 'ENTRYPOINT') {
    stage.entrypoint = argv(rest);
  } else if (op === 'CMD') {
    stage.cmd = argv(rest);
  } else if (op === 'HEALTHCHECK') {
    const m = /\bCMD\s+([\s\S]*)$/.exec(rest);
    stage.healthcheck = m ? argv(m[1]) : undefined;
  } else {
    say(`${op} ${rest} (not replayed)`);
  }
}
say(`built in ${Math.round((Date.now() - t0) / 1000)} s`);

function mappedEnv(s) {
  return Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, mapPaths(v, s.root)]));
}

const final = stages.at(-1);
const freePort = () =>
  new Promise((res, rej) => {
    const srv = createServer().on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
const port = await freePort();
const env = { ...process.env, ...mappedEnv(final), SVC_GRAPHQL_SERVER_PORT: String(port), SVC_GRAPHQL_ADMIN_SECRET: 'replay-secret' };
delete env.SVC_GRAPHQL_DATABASE_URL;
if (databaseUrl) env.SVC_GRAPHQL_DATABASE_URL = databaseUrl;
mkdirSync(env.SVC_GRAPHQL_DATA_DIR ?? join(final.root, 'data'), { recursive: true });
const [cmd, ...cmdArgs] = [...final.entrypoint, ...final.cmd];
const cwd = join(final.root, final.cwd);
say(`starting ${[cmd, ...cmdArgs].join(' ')} in ${cwd} on port ${port} (${databaseUrl ? 'database URL given' : 'embedded Postgres in the /data volume'})`);
let logText = '';
const child = spawn(cmd, cmdArgs, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
child.stdout.on('data', (d) => (logText += d));
child.stderr.on('data', (d) => (logText += d));
const exited = new Promise((res) => child.on('exit', (code, signal) => res({ code, signal })));

const stopAndClean = async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await exited;
  if (!keep) rmSync(work, { recursive: true, force: true });
};
try {
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the engine exited (${child.exitCode}) before it was healthy:\n${logText.slice(-3000)}`);
    const probe = final.healthcheck ? spawnSync(final.healthcheck[0], final.healthcheck.slice(1), { cwd, env, timeout: 5000 }) : { status: 1 };
    if (probe.status === 0) break;
    if (Date.now() > deadline) throw new Error(`not healthy after 120 s:\n${logText.slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  say('HEALTHCHECK passed');
  const base = `http://127.0.0.1:${port}`;
  const headers = { 'content-type': 'application/json', 'x-svc-admin-secret': 'replay-secret' };
  const sql = await (await fetch(`${base}/v1/query`, { method: 'POST', headers, body: JSON.stringify({ type: 'run_sql', args: { sql: 'select 6 * 7 as answer' } }) })).json();
  if (JSON.stringify(sql.result) !== '[["answer"],["42"]]') throw new Error(`run_sql answered ${JSON.stringify(sql)}`);
  const gql = await (await fetch(`${base}/v1/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ __schema { queryType { name } } }' }) })).json();
  if (gql?.data?.__schema?.queryType?.name !== 'query_root') throw new Error(`GraphQL answered ${JSON.stringify(gql)}`);
  const consolePage = await fetch(`${base}/console`, { headers: { 'x-svc-admin-secret': 'replay-secret' } });
  const html = await consolePage.text();
  const consoleOn = env.SVC_GRAPHQL_ENABLE_CONSOLE !== 'false' && !databaseUrl;
  if (consoleOn && !(consolePage.status === 200 && html.includes('<script'))) throw new Error(`/console answered ${consolePage.status}: ${html.slice(0, 200)}`);
  say(`run_sql, GraphQL${consoleOn ? ' and /console' : ''} answered`);
  child.kill('SIGTERM');
  const { code, signal } = await exited;
  if (code !== 0) throw new Error(`SIGTERM: exit ${code ?? signal}:\n${logText.slice(-2000)}`);
  say('stopped with SIGTERM, exit 0');
} catch (err) {
  await stopAndClean();
  fail(err instanceof Error ? err.message : String(err));
}
const listing = readdirSync(join(final.root, final.cwd)).join(', ');
await stopAndClean();
say(`OK (the image's ${final.cwd}: ${listing})`);
