#!/usr/bin/env node
/**
 * Cold start: `node dist/src/main.js` against a running database (its metadata already stored),
 * from process spawn to the first answered GraphQL query (HTTP 200 with data). Median of REPEAT (7).
 *
 *   node scripts/benchColdStart.mjs [DATABASE_URL] [GRAPHQL_QUERY]
 *
 * Defaults: the bench database after `npm run bench` tracked it
 * (postgres://postgres@127.0.0.1:55432/bench) and `{ track_by_pk(id: 1) { id name } }`.
 * Port BENCH_COLD_PORT (18625). Run it under the measurement lock (flock .tmp/measure.lock ...).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DB_URL = process.argv[2] ?? 'postgres://postgres@127.0.0.1:55432/bench';
const QUERY = process.argv[3] ?? '{ track_by_pk(id: 1) { id name } }';
const PORT = Number(process.env.BENCH_COLD_PORT ?? 18625);
const REPEAT = Number(process.env.REPEAT ?? 7);
const SECRET = 'bench-cold-secret';

async function once() {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['dist/src/main.js', 'serve'], {
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
        if (res.status === 200 && text.startsWith('{"data"')) return performance.now() - t0;
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

const times = [];
for (let i = 0; i < REPEAT; i++) times.push(await once());
times.sort((a, b) => a - b);
console.log(`cold start to the first answered query (${DB_URL}, ${REPEAT} runs): median ${times[Math.floor(REPEAT / 2)].toFixed(0)} ms, ` +
  `min ${times[0].toFixed(0)} ms, max ${times[REPEAT - 1].toFixed(0)} ms  [goal ≤ 1000 ms]`);
