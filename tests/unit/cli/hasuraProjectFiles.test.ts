/**
 * What Hasura CLI projects put in their files, read as Hasura's CLI reads it: seeds and migrations
 * that wrap themselves in BEGIN … COMMIT, config v1's flat `<version>_<name>.up.yaml` migrations,
 * and `kind: ""` on query actions.
 */
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { splitSql } from '../../../src/cli/index.js';
import { withoutTransactionControl } from '../../../src/cli/sqlStatements.js';
import { localMigrations, yamlOperations } from '../../../src/cli/migrationFiles.js';
import { importHasuraMetadata } from '../../../src/metadata/index.js';

test("a file's own BEGIN/COMMIT is left out (the CLI's one transaction stays whole); ROLLBACK is refused", () => {
  const sql = '--\n-- dump\n--\nBEGIN TRANSACTION;\n\ninsert into t values (1);\n\nCOMMIT;\n\nSELECT setval(pg_get_serial_sequence(\'t\', \'id\'), 1);\n';
  const r = withoutTransactionControl(splitSql(sql));
  assert.deepEqual(r.stmts.map((s) => s.text), ['insert into t values (1);', "SELECT setval(pg_get_serial_sequence('t', 'id'), 1);"]);
  assert.deepEqual(r.skipped, [4, 8]);
  assert.equal(r.rollback, undefined);
  for (const wrapper of ['begin', 'BEGIN WORK;', 'start transaction isolation level serializable;', 'commit work;', 'END;', 'COMMIT AND NO CHAIN']) {
    assert.deepEqual(withoutTransactionControl(splitSql(wrapper)).stmts, [], wrapper);
  }
  // Not transaction control: a function body with BEGIN … END, a COMMIT inside a string.
  const body = "CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END; $$;\nINSERT INTO notes VALUES ('COMMIT');";
  assert.equal(withoutTransactionControl(splitSql(body)).stmts.length, 2);
  assert.equal(withoutTransactionControl(splitSql('BEGIN;\nDELETE FROM t;\nROLLBACK;')).rollback, 3);
  assert.equal(withoutTransactionControl(splitSql('SAVEPOINT a;\nROLLBACK TO SAVEPOINT a;')).rollback, undefined);
});

test('config v1 flat migrations and v2/v3 folders: per version, SQL before YAML operations', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-migfiles-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, '100_init.up.yaml'), '- type: add_existing_table_or_view\n  args: {name: t, schema: public}\n');
  await writeFile(join(dir, '100_init.up.sql'), 'CREATE TABLE t (id int);');
  await writeFile(join(dir, '100_init.down.sql'), 'DROP TABLE t;');
  await mkdir(join(dir, '200_more'));
  await writeFile(join(dir, '200_more', 'up.sql'), 'SELECT 1;');
  await writeFile(join(dir, 'README.md'), 'not a migration');
  const ms = await localMigrations(dir);
  assert.deepEqual(ms.map((m) => [String(m.version), m.name]), [['100', 'init'], ['200', 'more']]);
  assert.deepEqual(ms[0]!.files.up.map((f) => f.slice(dir.length + 1)), ['100_init.up.sql', '100_init.up.yaml']);
  assert.deepEqual(ms[0]!.files.down.map((f) => f.slice(dir.length + 1)), ['100_init.down.sql']);
  assert.deepEqual(ms[1]!.files.up.map((f) => f.slice(dir.length + 1)), ['200_more/up.sql']);
});

test('YAML migration operations: X-Hasura-* mapped and listed; anything but a list of {type, args} refused', () => {
  const perm = '- type: create_select_permission\n  args:\n    table: t\n    role: user\n    permission: {columns: "*", filter: {owner: {_eq: X-Hasura-User-Id}}}\n';
  const r = yamlOperations('m.up.yaml', perm);
  assert.deepEqual((r.ops[0]!.args as any).permission.filter, { owner: { _eq: 'x-svc-user-id' } });
  assert.equal(r.mapped.length, 1);
  assert.throws(() => yamlOperations('m.up.yaml', 'type: run_sql\n'), /m\.up\.yaml: expected a list of operations/);
  assert.deepEqual(yamlOperations('m.up.yaml', '').ops, []);
});

test('kind: "" on a query action (Hasura CLI v2 writes it) reads as synchronous; a mutation keeps what it has', () => {
  const r = importHasuraMetadata({
    version: 3,
    sources: [],
    actions: [
      { name: 'q', definition: { type: 'query', kind: '', handler: 'http://h' } },
      { name: 'm', definition: { type: 'mutation', kind: '', handler: 'http://h' } },
    ],
  });
  assert.deepEqual(r.metadata.actions.map((a: any) => a.definition.kind), ['synchronous', '']);
  assert.ok(r.mapped.some((m) => m.includes('$.actions[0].definition.kind')));
});
