/**
 * The mutation compilers against a real Postgres, IR built by hand: one statement per insert,
 * update and delete, the JSON response built in Postgres, permission checks that reject the
 * whole statement, upserts, and nested inserts in parent → row → children order.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { adminSession, roleSession, isApiError } from '../../src/core/index.js';
import type { BoolExp, InsertIR, IrValue, MutationOutputIR, SelectField } from '../../src/ir/index.js';
import { runMutation, type MutationRunContext } from '../../src/sql/mutationRun.js';
import { CHECK_VIOLATION_FUNCTION_SQL } from '../../src/sql/index.js';
import { pgErrorToApiError } from '../../src/execution/index.js';

const v = (value: unknown, pgType: string): IrValue => ({ source: { kind: 'value', value }, pgType });
const col = (column: string, pgType = 'int4'): SelectField => ({ alias: column, kind: 'column', column, pgType });
const response = (...fields: SelectField[]): MutationOutputIR => ({
  kind: 'response',
  fields: [{ alias: 'affected_rows', kind: 'affected_rows' }, { alias: 'returning', kind: 'returning', fields }],
});
const eq = (column: string, value: unknown, pgType = 'int4'): BoolExp => ({ kind: 'compare', column: { column, pgType }, op: '_eq', value: v(value, pgType) });
const author = { schema: 'public', name: 'author' };
const article = { schema: 'public', name: 'article' };

let client: pg.Client;
let dbName: string;

function baseUrl(): string {
  const url = process.env.SVC_TEST_DATABASE_URL;
  if (!url) throw new Error('SVC_TEST_DATABASE_URL is not set (run through npm test)');
  return url;
}

before(async () => {
  dbName = 't_' + randomBytes(6).toString('hex');
  const admin = new pg.Client({ connectionString: baseUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const u = new URL(baseUrl());
  u.pathname = '/' + dbName;
  client = new pg.Client({ connectionString: u.toString() });
  await client.connect();
  await client.query(`
    CREATE TABLE author (id serial PRIMARY KEY, name text UNIQUE, is_registered boolean NOT NULL DEFAULT false, big bigint);
    CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author(id), details jsonb);
    CREATE SCHEMA hdb_catalog;
  `);
  await client.query(CHECK_VIOLATION_FUNCTION_SQL);
});

after(async () => {
  await client?.end();
  const admin = new pg.Client({ connectionString: baseUrl() });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

/** Runs `fn` in a transaction that is always rolled back (or that fails). */
async function inTx<T>(fn: (rc: MutationRunContext) => Promise<T>, session = adminSession()): Promise<T> {
  await client.query('BEGIN');
  try {
    const query = async (text: string, values: unknown[]) => {
      // As the engine's DbClient does: Postgres errors leave as ApiErrors (a failed check is a check_violation).
      try {
        const r = await client.query({ text, values, rowMode: 'array', types: { getTypeParser: () => (x: string) => x } as never });
        return (r.rows[0]?.[0] as string | null) ?? null;
      } catch (e) {
        throw pgErrorToApiError(e);
      }
    };
    return await fn({ query, session });
  } finally {
    await client.query('ROLLBACK');
  }
}

const row = (pairs: Record<string, IrValue>) => ({
  columns: Object.entries(pairs).map(([column, value]) => ({ column, value })),
  objectRelationships: [],
  arrayRelationships: [],
});

describe('insert', () => {
  it('inserts rows with defaults and builds {affected_rows, returning} in Postgres', async () => {
    const ir: InsertIR = {
      kind: 'insert', table: author, check: { kind: 'true' },
      rows: [row({ name: v('A', 'text') }), row({ name: v('B', 'text'), is_registered: v(true, 'bool') })],
      output: response(col('name', 'text'), col('is_registered', 'bool')),
    };
    const out = await inTx((rc) => runMutation(ir, rc));
    assert.deepEqual(JSON.parse(out!), {
      affected_rows: 2,
      returning: [{ name: 'A', is_registered: false }, { name: 'B', is_registered: true }],
    });
  });

  it('an empty objects list inserts nothing and answers 0 rows', async () => {
    const ir: InsertIR = { kind: 'insert', table: author, check: { kind: 'true' }, rows: [], output: response(col('id')) };
    assert.deepEqual(JSON.parse((await inTx((rc) => runMutation(ir, rc)))!), { affected_rows: 0, returning: [] });
  });

  it('a failing check rejects the whole insert with permission-error', async () => {
    const ir: InsertIR = {
      kind: 'insert', table: author, check: eq('is_registered', false, 'bool'),
      rows: [row({ name: v('ok', 'text') }), row({ name: v('bad', 'text'), is_registered: v(true, 'bool') })],
      output: response(col('id')),
    };
    await inTx(async (rc) => {
      await assert.rejects(runMutation(ir, rc), (e) => isApiError(e) && e.code === 'permission-error'
        && e.message === 'Check constraint violation. insert/update check constraint failed');
    });
  });

  it('checks may use session variables', async () => {
    const ir: InsertIR = {
      kind: 'insert', table: author,
      check: { kind: 'compare', column: { column: 'id', pgType: 'int4' }, op: '_eq', value: { source: { kind: 'session', name: 'x-svc-user-id' }, pgType: 'int4' } },
      rows: [row({ id: v(7, 'int4'), name: v('seven', 'text') })],
      output: response(col('id')),
    };
    const out = await inTx((rc) => runMutation(ir, rc), roleSession('user', { 'x-svc-user-id': '7' }));
    assert.deepEqual(JSON.parse(out!), { affected_rows: 1, returning: [{ id: 7 }] });
    await inTx((rc) => assert.rejects(runMutation(ir, rc)), roleSession('user', { 'x-svc-user-id': '8' }));
  });

  it('on conflict do nothing skips the conflicting row; do update applies the update filter', async () => {
    await client.query("INSERT INTO author (id, name) VALUES (100, 'existing') ON CONFLICT DO NOTHING");
    const nothing: InsertIR = {
      kind: 'insert', table: author, check: { kind: 'true' },
      rows: [row({ id: v(100, 'int4'), name: v('x', 'text') })],
      onConflict: { action: 'nothing', target: { kind: 'constraint', name: 'author_pkey' } },
      output: response(col('id')),
    };
    assert.deepEqual(JSON.parse((await inTx((rc) => runMutation(nothing, rc)))!), { affected_rows: 0, returning: [] });
    const update: InsertIR = {
      ...nothing,
      onConflict: { action: 'update', target: { kind: 'constraint', name: 'author_pkey' }, columns: ['name'], presets: [], where: { kind: 'true' } },
      output: response(col('id'), col('name', 'text')),
    };
    assert.deepEqual(JSON.parse((await inTx((rc) => runMutation(update, rc)))!), { affected_rows: 1, returning: [{ id: 100, name: 'x' }] });
    const filtered: InsertIR = {
      ...update,
      onConflict: { action: 'update', target: { kind: 'constraint', name: 'author_pkey' }, columns: ['name'], presets: [], where: eq('name', 'nope', 'text') },
    };
    assert.deepEqual(JSON.parse((await inTx((rc) => runMutation(filtered, rc)))!), { affected_rows: 0, returning: [] });
    const updChecked: InsertIR = { ...update, updateCheck: eq('name', 'other', 'text') };
    await inTx((rc) => assert.rejects(runMutation(updChecked, rc), (e) => isApiError(e) && e.message.endsWith('update check constraint failed')));
  });

  it('stringifies big numbers when asked', async () => {
    const ir: InsertIR = {
      kind: 'insert', table: author, check: { kind: 'true' },
      rows: [row({ name: v('big', 'text'), big: v('9007199254740993', 'int8') })],
      output: response({ alias: 'big', kind: 'column', column: 'big', pgType: 'int8', stringify: true }),
    };
    const out = await inTx((rc) => runMutation(ir, rc));
    assert.deepEqual(JSON.parse(out!), { affected_rows: 1, returning: [{ big: '9007199254740993' }] });
  });

  it('nested inserts put parents first and children after, counting every row', async () => {
    const authorJoin = { remoteTable: author, mapping: [{ local: 'author_id', remote: 'id' }] };
    const articlesJoin = { remoteTable: article, mapping: [{ local: 'id', remote: 'author_id' }] };
    const nestedAuthor = (name: string): InsertIR => ({ kind: 'insert', table: author, check: { kind: 'true' }, rows: [row({ name: v(name, 'text') })], output: response() });
    const ir: InsertIR = {
      kind: 'insert', table: article, check: { kind: 'true' },
      rows: [
        { ...row({ title: v('t1', 'text') }), objectRelationships: [{ name: 'author', join: authorJoin, insert: nestedAuthor('n1') }] },
        { ...row({ title: v('t2', 'text') }), objectRelationships: [{ name: 'author', join: authorJoin, insert: nestedAuthor('n2') }] },
      ],
      output: response(col('title', 'text'), {
        alias: 'author', kind: 'object_rel', join: authorJoin,
        select: { table: author, where: { kind: 'true' }, fields: [col('name', 'text')] },
      }),
    };
    const out = await inTx((rc) => runMutation(ir, rc));
    assert.deepEqual(JSON.parse(out!), {
      affected_rows: 4,
      returning: [{ title: 't1', author: { name: 'n1' } }, { title: 't2', author: { name: 'n2' } }],
    });

    const withArticles: InsertIR = {
      kind: 'insert', table: author, check: { kind: 'true' },
      rows: [{
        ...row({ name: v('parent', 'text') }),
        arrayRelationships: [{
          name: 'articles', join: articlesJoin,
          insert: { kind: 'insert', table: article, check: { kind: 'true' }, rows: [row({ title: v('c1', 'text') }), row({ title: v('c2', 'text') })], output: response() },
        }],
      }],
      output: response(col('name', 'text'), {
        alias: 'articles', kind: 'array_rel', join: articlesJoin,
        select: { table: article, where: { kind: 'true' }, fields: [col('title', 'text')] },
      }),
    };
    const out2 = await inTx((rc) => runMutation(withArticles, rc));
    assert.deepEqual(JSON.parse(out2!), { affected_rows: 3, returning: [{ name: 'parent', articles: [{ title: 'c1' }, { title: 'c2' }] }] });
  });
});

describe('update and delete', () => {
  before(async () => {
    await client.query("INSERT INTO author (id, name) VALUES (1, 'one'), (2, 'two') ON CONFLICT DO NOTHING");
    await client.query(`INSERT INTO article (id, title, author_id, details) VALUES (1, 'a', 1, '{"k": 1, "arr": [1,2]}') ON CONFLICT DO NOTHING`);
  });

  it('applies _set, _inc and the jsonb operators', async () => {
    const out = await inTx((rc) => runMutation({
      kind: 'update', table: article, where: eq('id', 1),
      set: [
        { column: 'title', op: { kind: 'set', value: v('b', 'text') } },
        { column: 'author_id', op: { kind: 'inc', value: v(1, 'int4') } },
        { column: 'details', op: { kind: 'append', value: v({ z: true }, 'jsonb') } },
      ],
      output: response(col('title', 'text'), col('author_id'), col('details', 'jsonb')),
    }, rc));
    assert.deepEqual(JSON.parse(out!), { affected_rows: 1, returning: [{ title: 'b', author_id: 2, details: { k: 1, arr: [1, 2], z: true } }] });
    const out2 = await inTx((rc) => runMutation({
      kind: 'update', table: article, where: eq('id', 1),
      set: [{ column: 'details', op: { kind: 'delete_at_path', value: v(['arr', '0'], '_text') } }],
      output: { kind: 'single', fields: [col('details', 'jsonb')] },
    }, rc));
    assert.deepEqual(JSON.parse(out2!), { details: { k: 1, arr: [2] } });
  });

  it('an update check failure rejects the update', async () => {
    await inTx((rc) => assert.rejects(runMutation({
      kind: 'update', table: author, where: eq('id', 1), check: eq('name', 'one', 'text'),
      set: [{ column: 'name', op: { kind: 'set', value: v('zzz', 'text') } }], output: response(),
    }, rc), (e) => isApiError(e) && e.code === 'permission-error'));
  });

  it('by_pk with no matching row answers null', async () => {
    const out = await inTx((rc) => runMutation({ kind: 'delete', table: article, where: eq('id', 999), output: { kind: 'single', fields: [col('id')] } }, rc));
    assert.equal(out, null);
  });

  it('deletes and returns the deleted rows', async () => {
    const out = await inTx((rc) => runMutation({ kind: 'delete', table: article, where: eq('id', 1), output: response(col('id'), col('title', 'text')) }, rc));
    assert.deepEqual(JSON.parse(out!), { affected_rows: 1, returning: [{ id: 1, title: 'a' }] });
  });
});
