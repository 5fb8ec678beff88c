#!/usr/bin/env node
/**
 * Cold start: `node dist/bin/svc-graphql-engine.js` against a running database (its metadata already stored),
 * from process spawn to the first answered GraphQL query (HTTP 200 with data): wall time and the engine's
 * CPU time (from /proc) up to that answer, medians of REPEAT (7).
 *
 *   node scripts/benchColdStart.mjs [DATABASE_URL] [GRAPHQL_QUERY]
 *
 * Defaults: the bench database after `npm run bench` tracked it
 * (postgres://postgres@127.0.0.1:55432/bench) and `{ track_by_pk(id: 1) { id name } }`.
 * Port BENCH_COLD_PORT (18625). Run it under the measurement lock (flock .tmp/measure.lock ...).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DB_URL = process.argv[2] ?? 'postgres://postgres@127.0.0.1:55432/bench';
const QUERY = process.argv[3] ?? '{ track_by_pk(id: 1) { id name } }';
// The engine as users start it; BENCH_ENGINE=dist/src/main.js runs the per-file build instead (module loading compared).
const ENGINE = process.env.BENCH_ENGINE ?? 'dist/bin/svc-graphql-engine.js';
const PORT = Number(process.env.BENCH_COLD_PORT ?? 18625);
const REPEAT = Number(process.env.REPEAT ?? 7);
const SECRET = 'bench-cold-secret';

/** The engine's own CPU time so far (user + system, from /proc; 10 ms ticks). */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(stat[11]) + Number(stat[12])) * 10;
}

async function once() {
  const t0 = performance.now();
  const child = spawn(process.execPath, [ENGINE, 'serve'], {
    cwd: ROOT,
    env: {
      ...process.env, NODE_ENV: 'production', SVC_GRAPHQL_DATABASE_URL: DB_URL, SVC_GRAPHQL_SERVER_PORT: String(PORT),
      SVC_GRAPHQL_SERVER_HOST: '127.0.0.1', SVC_GRAPHQL_ADMIN_SECRET: SECRET,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the engine exited with ${child.exitCode}`);
      try {
        const res = await fetch(`http://127.0.0.1:${PORT}/v1/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET },
          body: JSON.stringify({ query: QUERY }),
        });
        const text = await res.text();
        if (res.status === 200 && text.startsWith('{"data"')) return { wall: performance.now() - t0, cpu: cpuMs(child.pid) };
        throw new Error(`unexpected answer: ${text.slice(0, 300)}`);
      } catch (e) {
        if (!/ECONNREFUSED|fetch failed/.test(String(e.cause?.code ?? e.message))) throw e;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const runs = [];
for (let i = 0; i < REPEAT; i++) runs.push(await once());
const line = (what, xs) => { xs.sort((a, b) => a - b); return `${what} median ${xs[Math.floor(REPEAT / 2)].toFixed(0)} ms, min ${xs[0].toFixed(0)} ms, max ${xs[REPEAT - 1].toFixed(0)} ms`; };
console.log(`cold start to the first answered query (${ENGINE}, ${DB_URL}, ${REPEAT} runs): ${line('wall', runs.map((r) => r.wall))}; ` +
  `${line('engine CPU', runs.map((r) => r.cpu))}; load ${loadavg().map((x) => x.toFixed(1)).join(' ')}`);
