#!/usr/bin/env node
/**
 * What the live-query change trigger costs a writer: the same writes on two equal tables, one with
 * the `svc_live_change` statement-level trigger (installed as the engine installs it once a live
 * query or stream reads the table), one without, alternating rounds so both see the same machine.
 *
 *   node scripts/benchLiveTriggers.mjs [--pg <url>] [--seconds 3] [--rounds 3] [--clients 1,8]
 *
 * Without --pg: a throwaway embedded Postgres (fsync off), the catalog function created from the
 * engine's own definition. With --pg: a database the engine already runs on (its
 * hdb_catalog.svc_live_change() must exist); the script adds two tables and drops them at the end.
 * Each write is one autocommit statement (as one mutation is one transaction): UPDATE by primary
 * key, INSERT of one row, INSERT of 100 rows. Prints one JSON line per (workload, clients): writes
 * per second without and with the trigger (median of the rounds), the ratio, and the load average.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { tsImport } from 'tsx/esm/api';

const { values: opt } = parseArgs({
  options: {
    pg: { type: 'string' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    clients: { type: 'string', default: '1,8' },
  },
});
const SECONDS = Number(opt.seconds);
const ROUNDS = Number(opt.rounds);
const CLIENTS = opt.clients.split(',').map(Number);
const ROWS = 10_000;

const WORKLOADS = {
  update_by_pk: (t) => ({ text: `UPDATE ${t} SET n = n + 1 WHERE id = $1`, values: () => [1 + Math.floor(Math.random() * ROWS)] }),
  insert_one: (t) => ({ text: `INSERT INTO ${t} (n, body) VALUES ($1, 'inserted')`, values: () => [Math.floor(Math.random() * 1000)] }),
  insert_100: (t) => ({ text: `INSERT INTO ${t} (n, body) SELECT g, 'inserted' FROM generate_series(1, 100) g WHERE $1::int IS NOT NULL`, values: () => [1] }),
};

let embedded;
let dataDir;
let url = opt.pg;
if (!url) {
  const { startEmbeddedPostgres } = await tsImport('../src/execution/embeddedPostgres.ts', import.meta.url);
  dataDir = mkdtempSync(join(tmpdir(), 'svc-trigger-bench-'));
  embedded = await startEmbeddedPostgres({ dataDir, database: 'postgres', onLog: () => undefined, postgresFlags: ['-c', 'fsync=off', '-c', 'max_connections=100'] });
  url = embedded.url;
}

const admin = new pg.Client({ connectionString: url });
await admin.connect();
try {
  if (embedded) {
    const { LIVE_CHANGE_STEPS } = await tsImport('../src/metadata/catalog/liveChanges.ts', import.meta.url);
    await admin.query('CREATE SCHEMA IF NOT EXISTS hdb_catalog');
    for (const step of LIVE_CHANGE_STEPS) await admin.query(step);
  }
  const fn = await admin.query(`SELECT to_regprocedure('hdb_catalog.svc_live_change()') IS NOT NULL AS ok`);
  if (!fn.rows[0].ok) throw new Error('hdb_catalog.svc_live_change() is missing: start the engine on this database once');
  for (const t of ['svc_trigger_bench_off', 'svc_trigger_bench_on']) {
    await admin.query(`DROP TABLE IF EXISTS ${t}; CREATE TABLE ${t} (id serial PRIMARY KEY, n int NOT NULL, body text NOT NULL);
      INSERT INTO ${t} (n, body) SELECT g, 'row ' || g FROM generate_series(1, ${ROWS}) g; ANALYZE ${t};`);
  }
  await admin.query(`CREATE TRIGGER svc_live_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON svc_trigger_bench_on
    FOR EACH STATEMENT EXECUTE FUNCTION hdb_catalog.svc_live_change()`);

  const pool = [];
  for (let i = 0; i < Math.max(...CLIENTS); i++) {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    pool.push(c);
  }
  /** Writes per second by `clients` connections for SECONDS. */
  const run = async (workload, table, clients) => {
    const w = WORKLOADS[workload](table);
    const name = `${workload}_${table}`;
    let n = 0;
    const end = performance.now() + SECONDS * 1000;
    await Promise.all(pool.slice(0, clients).map(async (c) => {
      while (performance.now() < end) {
        await c.query({ name, text: w.text, values: w.values() });
        n++;
      }
    }));
    return n / SECONDS;
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  for (const workload of Object.keys(WORKLOADS)) {
    for (const clients of CLIENTS) {
      const off = [];
      const on = [];
      await run(workload, 'svc_trigger_bench_off', clients); // warm-up (plans, caches)
      await run(workload, 'svc_trigger_bench_on', clients);
      for (let r = 0; r < ROUNDS; r++) {
        off.push(await run(workload, 'svc_trigger_bench_off', clients));
        on.push(await run(workload, 'svc_trigger_bench_on', clients));
      }
      const [a, b] = [median(off), median(on)];
      console.log(JSON.stringify({
        workload, clients, writes_per_s_without: Math.round(a), writes_per_s_with: Math.round(b), with_over_without: Math.round((b / a) * 1000) / 1000,
        ms_per_write_without: Math.round((clients / a) * 1e6) / 1e3, ms_per_write_with: Math.round((clients / b) * 1e6) / 1e3,
        rounds: { without: off.map(Math.round), with: on.map(Math.round) }, load_average: loadavg().map((x) => Math.round(x * 100) / 100),
      }));
    }
  }
  for (const c of pool) await c.end();
  await admin.query(`DELETE FROM hdb_catalog.svc_live_change WHERE relid = 'svc_trigger_bench_on'::regclass`);
  await admin.query('DROP TABLE svc_trigger_bench_off, svc_trigger_bench_on');
} finally {
  await admin.end();
  if (embedded) {
    await embedded.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
