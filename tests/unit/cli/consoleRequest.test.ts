/**
 * consoleRequest.ts: which console requests are migrations (schema-changing, non-read-only run_sql,
 * or any non-read-only run_sql the console marked), the body sent (one bulk with the version's
 * record) and the answer mapped back; which are metadata changes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { changesSchema, irreversibleDown, migrationName, planRequest } from '../../../src/cli/consoleRequest.js';

const opts = { database: 'default', nextVersion: () => 1700000000000n };
const runSql = (sql: string, extra: Record<string, unknown> = {}) => ({ type: 'run_sql', args: { sql, ...extra } });

test('schema changes are told by the first word of each statement, comments and strings aside', () => {
  assert.equal(changesSchema('create table a (id int)'), true);
  assert.equal(changesSchema("-- note\n/* x */ ALTER TABLE a ADD COLUMN b text"), true);
  assert.equal(changesSchema("INSERT INTO a VALUES ('drop table x'); SELECT 1"), false);
  assert.equal(changesSchema("SELECT 1; COMMENT ON TABLE a IS 'x'"), true);
  assert.equal(changesSchema('DO $$ BEGIN EXECUTE $q$CREATE TABLE t()$q$; END $$'), true);
  assert.equal(changesSchema('UPDATE a SET b = 1'), false);
});

test('a DDL run_sql is a migration sent with its record in one bulk; the answer is run_sql\'s', () => {
  const p = planRequest('/v1/query', runSql('CREATE TABLE a (id int)'), {}, opts);
  assert.equal(p.migration?.name, 'console_run_sql');
  assert.equal(p.migration?.up, 'CREATE TABLE a (id int);\n');
  assert.equal(p.migration?.down, irreversibleDown('CREATE TABLE a (id int);\n'));
  assert.equal(p.metadata, true);
  const body = p.body as any;
  assert.equal(body.type, 'bulk');
  assert.deepEqual(body.args[0], runSql('CREATE TABLE a (id int)'));
  assert.match(body.args[1].args.sql, /^INSERT INTO hdb_catalog\.schema_migrations \(version, dirty\) VALUES \(1700000000000, false\)/);
  assert.deepEqual(p.answer(200, [{ result_type: 'CommandOk', result: null }, { result_type: 'CommandOk', result: null }]), { result_type: 'CommandOk', result: null });
  assert.deepEqual(p.answer(400, { path: '$.args[0].args', error: 'x', code: 'postgres-error' }), { path: '$.args', error: 'x', code: 'postgres-error' });
});

test('headers: the name (made folder-safe), the base64 down, and x-svc-migration: false', () => {
  const p = planRequest('/v2/query', runSql("INSERT INTO a VALUES (1)", { source: 'other' }), { 'x-svc-migration-name': 'Seed A!', 'x-svc-migration-down': Buffer.from('DELETE FROM a').toString('base64') }, opts);
  assert.equal(p.migration?.name, 'seed_a');
  assert.equal(p.migration?.down, 'DELETE FROM a\n');
  assert.equal(p.migration?.database, 'other');
  assert.equal((p.body as any).args[1].args.source, 'other');
  // Another database gets its own hdb_catalog.schema_migrations with its first migration.
  assert.match((p.body as any).args[1].args.sql, /^CREATE SCHEMA IF NOT EXISTS hdb_catalog; CREATE TABLE IF NOT EXISTS hdb_catalog\.schema_migrations .*; INSERT INTO hdb_catalog\.schema_migrations/);
  const onDefault = planRequest('/v1/query', runSql('CREATE TABLE a (id int)', { source: 'default' }), {}, opts);
  assert.equal(onDefault.migration?.database, 'default');
  assert.match((onDefault.body as any).args[1].args.sql, /^INSERT INTO hdb_catalog\.schema_migrations/);
  const refused = planRequest('/v1/query', runSql('CREATE TABLE a ()'), { 'x-svc-migration': 'false' }, opts);
  assert.equal(refused.migration, undefined);
  assert.equal(refused.metadata, true);
  assert.equal(migrationName(undefined), 'console_run_sql');
  assert.equal(migrationName('___'), 'console_run_sql');
});

test('a bulk is one migration of its non-read-only SQL; its answer loses the record', () => {
  const p = planRequest('/v1/query', { type: 'bulk', args: [runSql('CREATE TABLE a ()'), { type: 'track_table', args: { table: 'a' } }, runSql("UPDATE a SET x = 1")] }, {}, opts);
  assert.equal(p.migration?.up, 'CREATE TABLE a ();\nUPDATE a SET x = 1;\n');
  assert.equal((p.body as any).args.length, 4);
  assert.deepEqual(p.answer(200, [1, 2, 3, 4]), [1, 2, 3]);
});

test('reads and row writes change nothing; metadata operations re-export; other paths pass through', () => {
  for (const body of [runSql('SELECT 1', { read_only: true }), runSql('INSERT INTO a VALUES (1)'), { type: 'export_metadata', args: {} }, { type: 'select', args: {} }, { type: 'pg_get_source_tables', args: {} }]) {
    const p = planRequest('/v1/query', body, {}, opts);
    assert.equal(p.migration, undefined, JSON.stringify(body));
    assert.equal(p.metadata, body.type === 'run_sql' && !(body.args as any).read_only, JSON.stringify(body));
    assert.equal(p.body, body);
  }
  assert.equal(planRequest('/v1/metadata', { type: 'pg_create_select_permission', args: {} }, {}, opts).metadata, true);
  assert.equal(planRequest('/v1/graphql', runSql('CREATE TABLE a ()'), {}, opts).metadata, false);
  assert.equal(planRequest('/v1/metadata', runSql('CREATE TABLE a ()'), {}, opts).migration, undefined);
});
