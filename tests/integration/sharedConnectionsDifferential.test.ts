/**
 * Differential test of the hot path's shared connections (execution/sharedConnections.ts,
 * pipelineQuery.ts) against node-postgres used the plain way: a generated workload of queries and
 * mutation pipelines — prepared and not, with session variables, with failing statements — runs
 * all at once through the engine's Db on a pool of 2 (so units are written behind each other on a
 * connection), and one unit at a time through a plain `pg.Client` (BEGIN, set_config, statements,
 * COMMIT or ROLLBACK). Each unit must get the same answer or the same error, and the tables must end
 * the same (the workload's writes commute and its failures do not depend on order, so the order in
 * which units run does not matter).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ApiError, roleSession } from '../../src/core/index.js';
import { createDb, type Db, type PipelinedStatement } from '../../src/execution/index.js';
import { createTestDatabase } from './harness.js';
import { pipelinedSomewhere, startPgMessageProxy, type PgMessageProxy } from '../support/pgMessageProxy.js';
import { prng } from '../support/prng.js';

type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>;
let shared: TestDatabase;
let plain: TestDatabase;
let db: Db;
let client: pg.Client;
let proxy: PgMessageProxy;

const SCHEMA = `
  CREATE TABLE account (id int PRIMARY KEY, balance int NOT NULL CHECK (balance >= 0), touched_by text);
  INSERT INTO account SELECT g, 100000, NULL FROM generate_series(1, 20) g;
  CREATE TABLE audit (n serial PRIMARY KEY, account int, who text);
  CREATE FUNCTION audit_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO audit (account, who) VALUES (NEW.id, current_setting('svc.user', true)::json->>'x-svc-user-id'); RETURN NEW; END $$;
  CREATE TRIGGER account_audit AFTER UPDATE ON account FOR EACH ROW EXECUTE FUNCTION audit_change();
`;

before(async () => {
  shared = await createTestDatabase('shared_diff');
  plain = await createTestDatabase('plain_diff');
  proxy = await startPgMessageProxy(shared.url);
  db = createDb(proxy.url, 2);
  await db.queryRaw(SCHEMA);
  client = new pg.Client({ connectionString: plain.url });
  await client.connect();
  await client.query(SCHEMA);
});

after(async () => {
  await db?.close();
  await proxy?.close();
  await client?.end();
  await shared?.drop();
  await plain?.drop();
});

type Unit =
  | { kind: 'query'; text: string; values: unknown[]; prepare: boolean }
  | { kind: 'mutation'; statements: PipelinedStatement[]; user: string; prepare: boolean };

const READ = `SELECT json_build_object('id', $1::int, 'label', $2::text, 'ratio', 100 / $3::int)::text`;
// nullif: once a connection has set the variable in a transaction, it reads '' (not NULL) outside one.
const READ_SESSION = `SELECT json_build_object('n', $1::int, 'user', nullif(current_setting('svc.user', true), '')::json->>'x-svc-user-id')::text`;
const MOVE = `UPDATE account SET balance = balance + $2::int, touched_by = current_setting('svc.user', true)::json->>'x-svc-user-id'
  WHERE id = $1::int RETURNING json_build_object('id', id, 'delta', $2::int)::text`;

const GUARD = `SELECT json_build_object('ok', 1 / $1::int)::text`;

/** A workload: reads (some dividing by zero), and transfers whose last statement sometimes fails (the pipeline rolls back). */
function workload(seed: number, n: number): Unit[] {
  const rand = prng(seed);
  const int = (max: number): number => Math.floor(rand() * max);
  return Array.from({ length: n }, (): Unit => {
    const prepare = rand() < 0.7;
    if (rand() < 0.5) {
      return rand() < 0.5
        ? { kind: 'query', text: READ, values: [int(1000), `l${int(100)}`, int(5)], prepare }
        : { kind: 'query', text: READ_SESSION, values: [int(1000)], prepare };
    }
    const from = 1 + int(20);
    const to = 1 + int(20);
    const amount = 1 + int(20);
    return {
      kind: 'mutation', user: `u${int(50)}`, prepare,
      statements: [{ text: MOVE, values: [from, -amount] }, { text: MOVE, values: [to, amount] }, { text: GUARD, values: [rand() < 0.15 ? 0 : 1] }],
    };
  });
}

/** A unit's outcome, comparable across both paths: its answers, or its error's code and message. */
type Outcome = { ok: true; results: Array<string | null> } | { ok: false; at?: number; code: string; message: string };

async function viaEngine(u: Unit): Promise<Outcome> {
  if (u.kind === 'query') {
    try {
      return { ok: true, results: [await db.queryJsonText(u.text, u.values, { prepare: u.prepare })] };
    } catch (e) {
      assert.ok(e instanceof ApiError, String(e));
      return { ok: false, code: String(e.internal && (e.internal as { error?: { status_code?: string } }).error?.status_code), message: e.message };
    }
  }
  const r = await db.pipeline(u.statements, { session: roleSession('user', { 'x-svc-user-id': u.user }), prepare: u.prepare });
  if (r.ok) return { ok: true, results: r.results };
  return { ok: false, at: r.index, code: String((r.error.internal as { error?: { status_code?: string } } | undefined)?.error?.status_code), message: r.error.message };
}

async function viaPlainClient(u: Unit): Promise<Outcome> {
  const first = (r: pg.QueryResult): string | null => (r.rows[0] ? (Object.values(r.rows[0])[0] as string | null) : null);
  if (u.kind === 'query') {
    try {
      return { ok: true, results: [first(await client.query(u.text, u.values))] };
    } catch (e) {
      return { ok: false, code: String((e as pg.DatabaseError).code), message: '' };
    }
  }
  await client.query('BEGIN');
  await client.query(`SELECT set_config('svc.user', $1, true)`, [JSON.stringify({ 'x-svc-role': 'user', 'x-svc-user-id': u.user })]);
  const results: Array<string | null> = [];
  for (let i = 0; i < u.statements.length; i++) {
    try {
      results.push(first(await client.query(u.statements[i].text, [...u.statements[i].values])));
    } catch (e) {
      await client.query('ROLLBACK');
      return { ok: false, at: i, code: String((e as pg.DatabaseError).code), message: '' };
    }
  }
  await client.query('COMMIT');
  return { ok: true, results };
}

const tableState = async (q: (text: string) => Promise<unknown[]>): Promise<unknown> => ({
  accounts: await q('SELECT id, balance, touched_by IS NOT NULL AS touched FROM account ORDER BY id'),
  audit: await q('SELECT who, count(*)::int AS n FROM audit GROUP BY who ORDER BY who'),
});

test('a generated workload of 300 queries and mutation pipelines: the same answers, errors and tables as plain node-postgres', async () => {
  const units = workload(20261127, 300);
  // Engine: everything at once on a pool of 2. Plain client: one unit at a time, in order.
  proxy.flow.length = 0;
  const engine = await Promise.all(units.map(viaEngine));
  assert.ok(pipelinedSomewhere(proxy), 'units were written behind each other on a connection');
  const reference: Outcome[] = [];
  for (const u of units) reference.push(await viaPlainClient(u));
  units.forEach((u, i) => {
    const e = engine[i];
    const r = reference[i];
    const what = `unit ${i} (${u.kind}): ${JSON.stringify(e)} vs ${JSON.stringify(r)}`;
    assert.equal(e.ok, r.ok, what);
    if (e.ok && r.ok) assert.deepEqual(e.results.map((t) => JSON.parse(t!)), r.results.map((t) => JSON.parse(t!)), what);
    if (!e.ok && !r.ok) {
      assert.equal(e.code, r.code, what);
      assert.equal(e.at, r.at, what);
    }
  });
  assert.ok(engine.some((o) => !o.ok) && engine.some((o, i) => o.ok && units[i].kind === 'mutation'), 'the workload has failing and committed units');
  const ours = await tableState(async (t) => (await db.query(t)).rows);
  const theirs = await tableState(async (t) => (await client.query(t)).rows);
  assert.deepEqual(ours, theirs, 'the same balances and the same audit rows per user: every committed transfer, no rolled-back one');
});
