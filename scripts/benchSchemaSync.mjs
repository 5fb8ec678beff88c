#!/usr/bin/env node
/**
 * `node scripts/benchSchemaSync.mjs`: how long a metadata change made through engine 1 takes to be
 * visible on engines 2..N, with every engine behind PgBouncer (Debian's, transaction mode, prepared
 * statements off) — so schema sync works by polling the version row alone (a LISTEN through the
 * pooler hears nothing).
 *
 *   build → Postgres (SVC_GRAPHQL_DATABASE_URL as a maintenance URL, else a throwaway embedded one) →
 *   PgBouncer on a free port → ENGINES engines (`dist/bin/svc-graphql-engine.js`, default sync interval unless
 *   SVC_GRAPHQL_SCHEMA_SYNC_INTERVAL is set) → CHANGES times: a table created through engine 1
 *   (run_sql, not timed), then `track_table` through engine 1; from its answer, every other engine is
 *   queried every 10 ms for the new root field until it answers with data. Between changes a random
 *   pause (0–1 s) so changes land at every phase of the poll.
 *
 * Prints p50 / p99 / max of the per-engine delay (ms), over CHANGES × (ENGINES - 1) samples.
 * Env: ENGINES (5), CHANGES (30), BENCH_SYNC_PORT (18861, +i per engine).
 */
import { tsImport } from 'tsx/esm/api';
import { build, now, pct, round, startWebhookBench } from './lib/webhookBench.mjs';

const ENGINES = Number(process.env.ENGINES ?? 5);
const CHANGES = Number(process.env.CHANGES ?? 30);
const PORT = Number(process.env.BENCH_SYNC_PORT ?? 18861);
const ADMIN = 'bench-sync-secret';

build();
const { startPgbouncer } = await tsImport('../tests/support/pgbouncer.ts', import.meta.url);
const engineEnv = { SVC_GRAPHQL_USE_PREPARED_STATEMENTS: 'false', SVC_GRAPHQL_PG_CONNECTIONS: '10' };
const bench = await startWebhookBench({ prefix: 'bench_sync', admin: ADMIN, engineEnv, onBody: () => undefined });
const bouncer = await startPgbouncer({ serverUrl: bench.dbUrl, poolMode: 'transaction', poolSize: 40 });
try {
  engineEnv.SVC_GRAPHQL_DATABASE_URL = bouncer.url(new URL(bench.dbUrl).pathname.slice(1));
  console.log(`${bouncer.version} (transaction mode) on :${bouncer.port}; ${ENGINES} engines`);
  const urls = [];
  for (let i = 0; i < ENGINES; i++) urls.push(await bench.startEngine(PORT + i));
  const [first, ...others] = urls;
  const graphqlHasData = async (url, query) => {
    const r = await fetch(url + '/v1/graphql', { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': ADMIN }, body: JSON.stringify({ query }) });
    const j = await r.json();
    return j.data !== undefined && j.errors === undefined;
  };
  const delays = [];
  for (let c = 0; c < CHANGES; c++) {
    const name = `sync_t${c}`;
    await bench.post(first, '/v1/query', { type: 'run_sql', args: { sql: `CREATE TABLE ${name} (id int PRIMARY KEY)` } });
    await new Promise((r) => setTimeout(r, Math.random() * 1000));
    await bench.post(first, '/v1/query', { type: 'track_table', args: { table: name } });
    const t0 = now();
    await Promise.all(others.map(async (url) => {
      while (!(await graphqlHasData(url, `{ ${name} { id } }`))) {
        if (now() - t0 > 30_000) throw new Error(`${name} not visible on ${url} after 30 s`);
        await new Promise((r) => setTimeout(r, 10));
      }
      delays.push(now() - t0);
    }));
  }
  delays.sort((a, b) => a - b);
  console.log(`metadata change through engine 1 visible on engines 2..${ENGINES}: ${delays.length} samples, ` +
    `p50 ${round(pct(delays, 50), 0)} ms, p99 ${round(pct(delays, 99), 0)} ms, max ${round(delays[delays.length - 1], 0)} ms`);
} finally {
  await bench.close();
  await bouncer.stop();
}
