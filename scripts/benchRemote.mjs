#!/usr/bin/env node
/**
 * Remote-schema figures for docs/benchmarks.md:
 *  1. a query over 1,000 rows with a remote relationship: remote requests per query (goal 1) and its
 *     latency against the same query without the relationship plus one direct call to the remote
 *     carrying the same batched request (goal ≤ 1.2×);
 *  2. delegation overhead of a remote root field over calling the remote directly (p50 added, goal ≤ 1 ms).
 *
 *   node scripts/withPostgres.mjs node scripts/benchRemote.mjs [--rounds 60] [--calls 2000]
 *
 * Engine in-process on a fresh database (tests/integration/harness.ts, log silent), remote = a
 * graphql-js server on 127.0.0.1 in a child process (tests/support/remoteGraphqlServer.ts). Requests are sequential and
 * interleaved (with, without, direct) so load from other processes hits every series alike.
 */
import { spawn } from 'node:child_process';
import { tsImport } from 'tsx/esm/api';

const argv = process.argv.slice(2);
const arg = (n, d) => (argv.includes(n) ? Number(argv[argv.indexOf(n) + 1]) : d);
const ROUNDS = arg('--rounds', 60);
const CALLS = arg('--calls', 2000);

const { startTestEngine } = await tsImport('../tests/integration/harness.ts', import.meta.url);

// The remote runs in a process of its own (as a real remote would), so its graphql-js work does not
// share the engine's event loop; it reports every request it gets (to count them) on stdout.
const REMOTE_MAIN = `
  const { startRemoteGraphqlServer } = await import(${JSON.stringify(new URL('../tests/support/remoteGraphqlServer.ts', import.meta.url).href)});
  const r = await startRemoteGraphqlServer('type Query { user(id: Int!): User } type User { id: Int! name: String }', { user: ({ id }) => ({ id, name: 'u' + id }) });
  // Reports only when asked (a line on stdin), so no logging competes with the requests being timed.
  process.stdin.on('data', () => console.log('count ' + r.queries().length + ' ' + JSON.stringify(r.queries().at(-1)?.body ?? null)));
  console.log('url ' + r.url);
`;
const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', REMOTE_MAIN], { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = [];
let buf = '';
child.stdout.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\n')) >= 0) {
    lines.push(buf.slice(0, i));
    buf = buf.slice(i + 1);
  }
});
const waitLine = async (prefix) => {
  for (let k = 0; k < 500; k++) {
    const l = [...lines].reverse().find((x) => x.startsWith(prefix));
    if (l) return l.slice(prefix.length);
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`remote: no ${prefix}line`);
};
const remote = {
  url: await waitLine('url '),
  stop: async () => child.kill('SIGTERM'),
  async lastCount() {
    lines.length = 0;
    child.stdin.write('report\n');
    const l = await waitLine('count ');
    const sp = l.indexOf(' ');
    return { count: Number(l.slice(0, sp)), body: JSON.parse(l.slice(sp + 1)) };
  },
};
const e = await startTestEngine({ adminSecret: 'bench' });
const H = { 'content-type': 'application/json', 'x-svc-admin-secret': 'bench' };
const post = async (url, body, headers = H) => {
  const t = performance.now();
  const r = await fetch(url, { method: 'POST', headers, body });
  const text = await r.text();
  return { ms: performance.now() - t, text };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

try {
  await e.runSql('CREATE TABLE profile (id int PRIMARY KEY, name text); INSERT INTO profile SELECT g, $$p$$ || g FROM generate_series(1, 1000) g;');
  for (const q of [
    { type: 'track_table', args: { name: 'profile' } },
    { type: 'add_remote_schema', args: { name: 'users', definition: { url: remote.url } } },
    { type: 'create_remote_relationship', args: { name: 'account', table: 'profile', hasura_fields: ['id'], remote_schema: 'users', remote_field: { user: { arguments: { id: '$id' } } } } },
  ]) {
    const r = await e.query(q);
    if (r.status !== 200) throw new Error(r.text);
  }
  const gql = `${e.url}/v1/graphql`;
  const WITH = JSON.stringify({ query: '{ profile(order_by: {id: asc}) { id account { name } } }' });
  const WITHOUT = JSON.stringify({ query: '{ profile(order_by: {id: asc}) { id } }' });
  await post(gql, WITH);
  const before = (await remote.lastCount()).count;
  const check = JSON.parse((await post(gql, WITH)).text);
  const last = await remote.lastCount();
  const sentPerQuery = last.count - before;
  if (check.data.profile.length !== 1000 || check.data.profile[999].account.name !== 'u1000') throw new Error('bad answer');
  const DIRECT = JSON.stringify(last.body);
  const series = { with: [], without: [], direct: [] };
  for (let i = 0; i < ROUNDS + 10; i++) {
    const a = await post(gql, WITH);
    const b = await post(gql, WITHOUT);
    const c = await post(remote.url, DIRECT, { 'content-type': 'application/json' });
    if (i >= 10) {
      series.with.push(a.ms);
      series.without.push(b.ms);
      series.direct.push(c.ms);
    }
  }
  const mw = median(series.with);
  const mo = median(series.without);
  const md = median(series.direct);

  const ROOT = JSON.stringify({ query: '{ user(id: 7) { id name } }' });
  const engineMs = [];
  const directMs = [];
  for (let i = 0; i < CALLS + 200; i++) {
    const a = await post(gql, ROOT);
    const b = await post(remote.url, ROOT, { 'content-type': 'application/json' });
    if (i >= 200) {
      engineMs.push(a.ms);
      directMs.push(b.ms);
    }
  }
  const out = {
    rows: 1000,
    remoteRequestsPerQuery: sentPerQuery,
    withRelationshipMs: +mw.toFixed(2),
    withoutRelationshipMs: +mo.toFixed(2),
    directRemoteCallMs: +md.toFixed(2),
    ratio: +(mw / (mo + md)).toFixed(3),
    delegation: {
      calls: CALLS,
      engineP50Ms: +median(engineMs).toFixed(3),
      directP50Ms: +median(directMs).toFixed(3),
      addedP50Ms: +(median(engineMs) - median(directMs)).toFixed(3),
      engineP90Ms: +pct(engineMs, 0.9).toFixed(3),
      directP90Ms: +pct(directMs, 0.9).toFixed(3),
    },
  };
  console.log(JSON.stringify(out, null, 2));
} finally {
  await e.stop();
  await remote.stop();
}
