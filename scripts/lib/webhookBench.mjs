/**
 * What the webhook benchmarks (benchEvents.mjs, benchScheduled.mjs) share: a fresh database on a
 * Postgres server (SVC_GRAPHQL_DATABASE_URL as a maintenance URL, else a throwaway embedded one), a
 * webhook on 127.0.0.1 answering 200 that hands each JSON body and its arrival time to the caller,
 * engines run as `npm start` runs them (`dist/bin/svc-graphql-engine.js`, `NODE_ENV=production`) on that database,
 * an admin POST function and percentiles. `close()` stops all of it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const now = () => performance.timeOrigin + performance.now();
export const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
export const round = (x, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/** Builds dist/ (exits on failure). */
export function build() {
  if (spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' }).status !== 0) process.exit(1);
}

/**
 * Starts the bench: database `<prefix>_<time>`, the webhook (`onBody(body, arrivalMs)` per POST), and
 * an engine fleet whose processes get `engineEnv` on top of the database URL, port and admin secret.
 */
export async function startWebhookBench({ prefix, admin: ADMIN, engineEnv = {}, onBody }) {
  let maintenance = process.env.SVC_GRAPHQL_DATABASE_URL;
  let embedded;
  let embeddedDir;
  if (!maintenance) {
    const { startEmbeddedPostgres } = await tsImport('../../src/execution/embeddedPostgres.ts', import.meta.url);
    embeddedDir = mkdtempSync(join(tmpdir(), `svc-${prefix}-pg-`));
    embedded = await startEmbeddedPostgres({ dataDir: embeddedDir, database: 'postgres', onLog: () => undefined, postgresFlags: ['-c', 'max_connections=200'] });
    maintenance = embedded.maintenanceUrl;
  }
  const dbName = `${prefix}_${Date.now()}`;
  const adminClient = new pg.Client({ connectionString: maintenance });
  await adminClient.connect();
  await adminClient.query(`CREATE DATABASE ${dbName}`);
  const dbUrl = (() => {
    const u = new URL(maintenance);
    u.pathname = '/' + dbName;
    return u.toString();
  })();

  const hook = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      try {
        onBody(JSON.parse(Buffer.concat(chunks).toString()), at);
      } catch {
        /* not a delivery */
      }
      res.writeHead(200).end();
    });
  });
  hook.keepAliveTimeout = 60_000;
  await new Promise((r) => hook.listen(0, '127.0.0.1', r));

  const engines = new Map();
  /** Starts an engine on `port`; resolves to its URL once /healthz answers. */
  async function startEngine(port) {
    const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
    const child = spawn(process.execPath, ['--max-semi-space-size=4', ...nodeFlags, 'dist/bin/svc-graphql-engine.js', 'serve'], {
      cwd: root,
      env: {
        ...process.env,
        SVC_GRAPHQL_DATABASE_URL: dbUrl,
        SVC_GRAPHQL_SERVER_PORT: String(port),
        SVC_GRAPHQL_SERVER_HOST: '127.0.0.1',
        SVC_GRAPHQL_ADMIN_SECRET: ADMIN,
        NODE_ENV: 'production',
        ...engineEnv,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 300; i++) {
      if (child.exitCode !== null) throw new Error(`engine on ${port} exited`);
      try {
        if ((await fetch(url + '/healthz')).ok) break;
      } catch {
        /* not yet */
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    engines.set(port, child);
    return url;
  }
  /** Stops the engine on `port` (SIGKILL to simulate a crash). */
  function stopEngine(port, signal = 'SIGTERM') {
    const child = engines.get(port);
    engines.delete(port);
    if (!child || child.exitCode !== null) return Promise.resolve();
    return new Promise((r) => {
      child.once('exit', r);
      child.kill(signal);
    });
  }
  const stopAll = async () => {
    for (const port of [...engines.keys()]) await stopEngine(port);
  };

  /** POSTs `body` as admin; throws on a non-200 answer or GraphQL errors. */
  const post = async (url, path, body) => {
    const r = await fetch(url + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': ADMIN }, body: JSON.stringify(body) });
    const j = await r.json();
    if (r.status !== 200 || j.errors) throw new Error(`${path}: ${JSON.stringify(j).slice(0, 300)}`);
    return j;
  };

  return {
    dbUrl,
    hookUrl: `http://127.0.0.1:${hook.address().port}/`,
    startEngine,
    stopEngine,
    stopAll,
    post,
    async close() {
      await stopAll();
      hook.close();
      await adminClient.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
      await adminClient.end();
      if (embedded) await embedded.stop().catch(() => undefined);
      if (embeddedDir) rmSync(embeddedDir, { recursive: true, force: true });
    },
  };
}
