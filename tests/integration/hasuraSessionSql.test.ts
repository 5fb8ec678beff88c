/**
 * SQL written for Hasura reads current_setting('hasura.user'); the engine tells the operator at
 * start (function and trigger bodies in the database) and when run_sql applies such SQL.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { pino } from 'pino';
import { createTestDatabase, startTestEngine } from './harness.js';

test('functions and run_sql reading hasura.user are reported: one line at start naming them, a warning when applied', async (t) => {
  const db = await createTestDatabase('hsess');
  t.after(() => db.drop());
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(`CREATE FUNCTION public.current_user_id() RETURNS text LANGUAGE sql STABLE AS $$ SELECT current_setting('hasura.user', true)::json->>'x-hasura-user-id' $$;
                 CREATE FUNCTION public.unrelated() RETURNS int LANGUAGE sql AS 'SELECT 1'`);
  await c.end();

  const lines: any[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) });
  const engine = await startTestEngine({ databaseUrl: db.url, startOptions: { logger } });
  t.after(() => engine.stop());

  const atStart = lines.filter((l) => l.kind === 'hasura-session');
  assert.equal(atStart.length, 1);
  assert.deepEqual(atStart[0].functions, ['public.current_user_id']);
  assert.match(atStart[0].msg, /public\.current_user_id.*reads Hasura's session \(current_setting\('hasura\.user'\).*svc\.user/);

  await engine.runSql("CREATE FUNCTION public.is_owner(o text) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT o = current_setting('hasura.user', true)::json->>'x-hasura-user-id' $$");
  await engine.runSql('SELECT 1');
  const applied = lines.filter((l) => l.type === 'hasura-session');
  assert.equal(applied.length, 1);
  assert.match(applied[0].msg, /^run_sql reads Hasura's session/);
});
