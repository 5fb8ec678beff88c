/**
 * The cluster of scripts/cluster.mjs (Postgres, PgBouncer in transaction mode, three engines,
 * HAProxy) with one engine SIGKILLed under load: inserts keep arriving through HAProxy from 8
 * clients; after the kill no request fails (only ones in flight at the kill may), and every row that
 * was committed has its event-trigger event delivered to a real webhook receiver at least once.
 *
 * Events the killed engine had claimed are claimed again once its heartbeat is older than
 * --instance-heartbeat-timeout (3 s here instead of the 20 s default). The engines run with
 * --strict-schema-sync (the cluster script's default): the trigger created through the first engine
 * is served by the others from their next request, with no reload.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { freePort } from '../../src/lib/index.js';
import { eventually, startEventReceiver, type EventReceiver } from '../support/eventReceiver.js';

const exec = promisify(execFile);
const script = fileURLToPath(new URL('../../scripts/cluster.mjs', import.meta.url));
const SECRET = 'cluster-secret';
interface Status {
  url: string;
  engines: Array<{ name: string; pid: number; url: string }>;
}
let dir: string;
let cluster: Status;
let receiver: EventReceiver;
const env = () => ({ ...process.env, SVC_CLUSTER_DIR: dir, SVC_GRAPHQL_ADMIN_SECRET: SECRET, SVC_GRAPHQL_INSTANCE_HEARTBEAT_TIMEOUT: '3', SVC_GRAPHQL_LOG_LEVEL: 'warn' });

async function post(base: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-admin-secret': SECRET }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

before(async () => {
  const parent = await mkdtemp(join(tmpdir(), 'svc-cluster-test-'));
  await chmod(parent, 0o755); // as root, Postgres and PgBouncer run as `postgres` and must reach the folder
  dir = join(parent, 'cluster');
  receiver = await startEventReceiver();
  const { stdout } = await exec(process.execPath, [script, 'start'], { env: { ...env(), SVC_CLUSTER_PORT: String(await freePort()) }, timeout: 240_000 });
  cluster = JSON.parse(stdout) as Status;
});

after(async () => {
  await exec(process.execPath, [script, 'stop'], { env: env(), timeout: 120_000 }).catch(() => undefined);
  await receiver?.stop();
  await rm(join(dir, '..'), { recursive: true, force: true });
});

test('an engine SIGKILLed under load: later requests succeed, every committed row is delivered', async (t) => {
  const [first, victim, ...rest] = cluster.engines;
  assert.equal(rest.length, 1);
  const setup = await post(first.url, '/v1/query', { type: 'bulk', args: [
    { type: 'run_sql', args: { sql: 'create table fo_item (id int primary key)' } },
    { type: 'track_table', args: { schema: 'public', name: 'fo_item' } },
    { type: 'create_event_trigger', args: { name: 'fo_insert', table: { schema: 'public', name: 'fo_item' }, webhook: receiver.url, insert: { columns: '*' }, retry_conf: { num_retries: 5, interval_sec: 1, timeout_sec: 2 } } },
  ] });
  assert.equal(setup.status, 200, JSON.stringify(setup.body));

  let next = 0;
  let killAt = Infinity;
  const results: Array<{ id: number; start: number; ok: boolean; detail: string }> = [];
  const stopAt = Date.now() + 8_000;
  const client = async () => {
    while (Date.now() < stopAt) {
      const id = ++next;
      const start = Date.now();
      try {
        const r = await post(cluster.url, '/v1/graphql', { query: 'mutation ($id: Int!) { insert_fo_item_one(object: { id: $id }) { id } }', variables: { id } });
        results.push({ id, start, ok: r.status === 200 && r.body?.data?.insert_fo_item_one?.id === id, detail: JSON.stringify(r.body) });
      } catch (err) {
        results.push({ id, start, ok: false, detail: String(err) });
      }
    }
  };
  const killer = (async () => {
    await eventually(() => results.length, (n) => n >= 50, 30_000, 'load running');
    killAt = Date.now();
    process.kill(victim.pid, 'SIGKILL');
  })();
  await Promise.all([killer, ...Array.from({ length: 8 }, client)]);

  const before = results.filter((r) => r.start < killAt);
  const afterKill = results.filter((r) => r.start >= killAt);
  assert.ok(afterKill.length >= 50, `only ${afterKill.length} requests after the kill`);
  assert.deepEqual(afterKill.filter((r) => !r.ok).map((r) => r.detail), []);
  assert.ok(before.filter((r) => !r.ok).length <= 8, 'at most the requests in flight at the kill failed');

  const rows = await post(first.url, '/v1/query', { type: 'run_sql', args: { sql: 'select id from fo_item order by id' } });
  const ids = (rows.body.result as string[][]).slice(1).map((r) => Number(r[0]));
  assert.ok(ids.length >= results.filter((r) => r.ok).length);
  const delivered = () => new Set(receiver.deliveries.map((d) => d.body?.event?.data?.new?.id as number));
  await eventually(() => ids.filter((id) => !delivered().has(id)), (missing) => missing.length === 0, 90_000, 'every committed row delivered');
  const duplicates = receiver.deliveries.length - delivered().size;
  t.diagnostic(`${results.length} inserts, ${afterKill.length} after the kill, ${before.filter((r) => !r.ok).length} failed in flight; ${ids.length} rows, all delivered ${((Date.now() - killAt) / 1000).toFixed(1)} s after the kill, ${duplicates} duplicate deliveries`);
});
