#!/usr/bin/env node
/**
 * `node scripts/withPgbouncer.mjs <command> [args...]` (inside scripts/withPostgres.mjs)
 *
 * Starts PgBouncer (Debian's, apt-get install -y pgbouncer) in transaction mode in front of the
 * Postgres server named by SVC_TEST_DATABASE_URL, then runs the command with
 * SVC_TEST_ENGINE_PG_VIA=127.0.0.1:<port> (the conformance scripts point their engines' database
 * URL there; their own CREATE / DROP DATABASE stays direct) and
 * SVC_GRAPHQL_USE_PREPARED_STATEMENTS=false (PgBouncer 1.18 does not manage prepared statements).
 * No LISTEN URL is given: schema sync and worker wake-ups must work by polling alone. Exits with
 * the command's status; 1 with a clear message when PgBouncer is missing.
 */
import { spawn } from 'node:child_process';
import { tsImport } from 'tsx/esm/api';

const { startPgbouncer } = await tsImport('../tests/support/pgbouncer.ts', import.meta.url);

const [cmd, ...args] = process.argv.slice(2);
const serverUrl = process.env.SVC_TEST_DATABASE_URL;
if (!cmd || !serverUrl) {
  console.error('usage: SVC_TEST_DATABASE_URL=postgres://… node scripts/withPgbouncer.mjs <command> [args...] (run it inside scripts/withPostgres.mjs)');
  process.exit(1);
}
let bouncer;
try {
  bouncer = await startPgbouncer({ serverUrl, poolMode: 'transaction', poolSize: 40 });
} catch (err) {
  console.error(String(err?.message ?? err));
  process.exit(1);
}
console.log(`${bouncer.version}: transaction mode on 127.0.0.1:${bouncer.port}`);
const env = { ...process.env, SVC_TEST_ENGINE_PG_VIA: `127.0.0.1:${bouncer.port}`, SVC_GRAPHQL_USE_PREPARED_STATEMENTS: 'false' };
delete env.SVC_GRAPHQL_LISTEN_DATABASE_URL;
const child = spawn(cmd, args, { env, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
const code = await new Promise((res) => child.on('close', (c, signal) => res(c ?? (signal ? 1 : 0))));
await bouncer.stop();
process.exit(code);
