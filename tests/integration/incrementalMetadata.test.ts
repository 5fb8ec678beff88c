/**
 * Metadata operations build the schema cache incrementally (only the tables a change reaches) from a
 * copy-on-write draft of the metadata. Differentially, over HTTP against real Postgres: a seeded random
 * sequence of structural and permission operations on one engine, then a second engine started on the same
 * database (a full build at start-up) must give the same exported metadata, the same introspection (admin
 * and two roles) and the same answers. DDL through run_sql between the operations (columns added, dropped and
 * renamed, a foreign key, an enum label, a view redefined, a table dropped, a comment) is read back incrementally. Every refused operation must change nothing: the exported metadata
 * and the role's introspection are as before it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getIntrospectionQuery } from 'graphql';
import { startTestEngine, type TestEngine } from './harness.js';
import { prng } from '../support/prng.js';

const SECRET = 'incremental-secret';
const N = 10;
const name = (i: number) => `c${i}`;
const USER = { 'x-svc-role': 'user', 'x-svc-user-id': '1' };
const READER = { 'x-svc-role': 'reader' };

async function ok(e: TestEngine, body: unknown): Promise<void> {
  const r = await e.query(body);
  assert.equal(r.status, 200, `${JSON.stringify(body)} → ${r.text}`);
}

const exportMetadata = async (e: TestEngine) => (await e.query({ type: 'export_metadata', args: {} })).body;
const introspect = async (e: TestEngine, headers: Record<string, string> = {}) => (await e.graphql(getIntrospectionQuery(), undefined, headers)).body;

/** The rows of every tracked table the role may select, with what its relationships reach. */
async function answers(e: TestEngine, headers: Record<string, string>): Promise<unknown> {
  const schema = (await e.graphql('{ __schema { queryType { fields { name } } } }', undefined, headers)).body;
  const roots = (schema.data?.__schema.queryType.fields ?? []).map((f: { name: string }) => f.name).filter((n: string) => /^c\d+$/.test(n));
  const out: Record<string, unknown> = {};
  for (const root of roots) out[root] = (await e.graphql(`{ ${root}(order_by: {id: asc}) { id } }`, undefined, headers)).body;
  return out;
}

function randomOperation(rnd: () => number, step: number): unknown {
  const pick = (n: number) => Math.floor(rnd() * n);
  const i = pick(N);
  const t = name(i);
  switch (pick(15)) {
    case 0:
      return { type: 'track_table', args: { schema: 'public', name: t } };
    case 1:
      return { type: 'untrack_table', args: { table: t, ...(rnd() < 0.5 ? { cascade: true } : {}) } };
    case 2:
      return { type: 'create_object_relationship', args: { table: t, name: `half${pick(2)}`, using: { foreign_key_constraint_on: 'half_id' } } };
    case 3:
      return { type: 'create_array_relationship', args: { table: t, name: `halves${pick(2)}`, using: { foreign_key_constraint_on: { table: name(Math.min(N - 1, i * 2 + pick(2))), column: 'half_id' } } } };
    case 4:
      return { type: 'drop_relationship', args: { table: t, relationship: ['parent', 'children', 'half0', 'half1', 'halves0', 'halves1'][pick(6)] } };
    case 5: {
      const via = ['parent', 'half0', 'half1', 'nope'][pick(4)];
      return { type: 'create_select_permission', args: { table: t, role: 'user', permission: { columns: ['id', 'label'], filter: { [via]: { owner_id: { _eq: 'X-Svc-User-Id' } } } } } };
    }
    case 6:
      return { type: 'drop_select_permission', args: { table: t, role: rnd() < 0.7 ? 'user' : 'reader' } };
    case 7:
      return rnd() < 0.5
        ? { type: 'add_computed_field', args: { table: t, name: 'shout', definition: { function: `${t}_shout` } } }
        : { type: 'drop_computed_field', args: { table: t, name: 'shout' } };
    case 8:
      return { type: 'set_table_customization', args: { table: t, configuration: { custom_column_names: { label: `label_${step % 3}` } } } };
    case 10: {
      // A custom root field or a custom name, often another table's: a name clash (refused) or a rename.
      const other = name(pick(N));
      return rnd() < 0.5
        ? { type: 'set_table_customization', args: { table: t, configuration: { custom_root_fields: { select: rnd() < 0.5 ? other : `${other}_aggregate` } } } }
        : { type: 'set_table_customization', args: { table: t, configuration: { custom_name: rnd() < 0.6 ? other : `renamed_${t}` } } };
    }
    case 11:
      return { type: 'drop_relationship', args: { table: t, relationship: ['parent', 'children'][pick(2)], cascade: true } };
    case 12:
    case 13:
    case 14: {
      // DDL between operations (run_sql): the next build reads only the relations it changed.
      const k = pick(3);
      const ddl = [
        `ALTER TABLE ${t} ADD COLUMN IF NOT EXISTS extra${k} int`,
        `ALTER TABLE ${t} DROP COLUMN IF EXISTS extra${k}`,
        `ALTER TABLE ${t} RENAME COLUMN ${rnd() < 0.5 ? 'label' : 'owner_id'} TO renamed${k}`,
        `ALTER TABLE ${t} ADD CONSTRAINT ${t}_owner_fk${k} FOREIGN KEY (owner_id) REFERENCES ${name(0)}(id)`,
        `ALTER TYPE mood ADD VALUE IF NOT EXISTS 'm${step}'`,
        `CREATE OR REPLACE VIEW v${k} AS SELECT id, label${rnd() < 0.5 ? ', owner_id' : ''} FROM ${t}`,
        `DROP TABLE ${t} CASCADE`,
        `COMMENT ON TABLE ${t} IS 'step ${step}'`,
      ][pick(8)];
      return { type: 'run_sql', args: { sql: ddl, ...(rnd() < 0.8 ? { cascade: true } : {}) } };
    }
    default:
      return { type: 'create_select_permission', args: { table: t, role: 'reader', permission: { columns: '*', filter: { _exists: { _table: name(pick(N)), _where: { label: { _eq: 'a' } } } } } } };
  }
}

test('random metadata operations: refused ones change nothing, and the result equals a fresh full build', async (t) => {
  const a = await startTestEngine({ adminSecret: SECRET });
  t.after(() => a.stop());
  let sql = `CREATE TYPE mood AS ENUM ('calm');\n`;
  for (let i = 0; i < N; i++) {
    sql += `CREATE TABLE ${name(i)} (id int PRIMARY KEY, label text, owner_id int, parent_id int ${i > 0 ? `REFERENCES ${name(i - 1)}(id)` : ''}, half_id int ${i > 0 ? `REFERENCES ${name(Math.floor(i / 2))}(id)` : ''}, mood mood DEFAULT 'calm');\n`;
    sql += `INSERT INTO ${name(i)} VALUES (1, 'a', 1, ${i > 0 ? 1 : 'NULL'}, ${i > 0 ? 1 : 'NULL'}), (2, 'b', 2, NULL, NULL);\n`;
    sql += `CREATE FUNCTION ${name(i)}_shout(r ${name(i)}) RETURNS text LANGUAGE sql STABLE AS $$ SELECT upper(r.label) $$;\n`;
  }
  await a.runSql(sql);
  for (let i = 0; i < N - 2; i++) {
    await ok(a, { type: 'track_table', args: { schema: 'public', name: name(i) } });
    if (i > 0) await ok(a, { type: 'create_object_relationship', args: { table: name(i), name: 'parent', using: { foreign_key_constraint_on: 'parent_id' } } });
    if (i > 0) await ok(a, { type: 'create_array_relationship', args: { table: name(i - 1), name: 'children', using: { foreign_key_constraint_on: { table: name(i), column: 'parent_id' } } } });
    await ok(a, { type: 'create_select_permission', args: { table: name(i), role: 'reader', permission: { columns: '*', filter: {} } } });
  }

  const rnd = prng(42);
  let refused = 0;
  let applied = 0;
  let ddl = 0;
  for (let step = 0; step < 100; step++) {
    const op = randomOperation(rnd, step);
    const before = await exportMetadata(a);
    const r = await a.query(op);
    if (r.status === 200) {
      applied++;
      if ((op as { type: string }).type === 'run_sql') ddl++;
      continue;
    }
    refused++;
    assert.ok(r.status === 400 && typeof r.body.code === 'string' && typeof r.body.error === 'string', `${JSON.stringify(op)} → ${r.status} ${r.text}`);
    assert.deepEqual(await exportMetadata(a), before, `refused ${JSON.stringify(op)} changed the metadata`);
  }
  assert.ok(applied >= 15 && refused >= 10 && ddl >= 5, `applied ${applied} (DDL ${ddl}), refused ${refused}`);

  // A refused operation leaves the schema as it was too.
  const userSchema = await introspect(a, USER);
  const bad = await a.query({ type: 'create_select_permission', args: { table: name(1), role: 'user', permission: { columns: ['id', 'nope'], filter: {} } } });
  assert.equal(bad.status, 400, bad.text);
  assert.deepEqual(await introspect(a, USER), userSchema);

  // A second engine on the same database builds everything in full at start-up: the same metadata,
  // schemas and answers as the engine that built incrementally.
  const b = await startTestEngine({ adminSecret: SECRET, databaseUrl: a.databaseUrl });
  t.after(() => b.stop());
  assert.deepEqual(await exportMetadata(b), await exportMetadata(a));
  assert.deepEqual((await b.query({ type: 'get_inconsistent_metadata', args: {} })).body, (await a.query({ type: 'get_inconsistent_metadata', args: {} })).body);
  for (const headers of [{}, USER, READER]) {
    assert.deepEqual(await introspect(a, headers), await introspect(b, headers), JSON.stringify(headers));
    assert.deepEqual(await answers(a, headers), await answers(b, headers), JSON.stringify(headers));
  }
});
