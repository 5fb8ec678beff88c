/**
 * The console's generated SQL (console/src/sqlGen.ts) run against Postgres: each change's up does
 * what it says, and its down brings the catalog back to exactly what it was (columns, types,
 * defaults, nullability, constraints, indexes, comments, views), including names that need quoting.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { createTestDatabase } from './harness.js';
import {
  addColumn, addConstraint, createIndex, createTable, createView, dropColumn, dropConstraint, dropIndex, dropTable, dropView,
  renameColumn, renameTable, replaceView, retypeColumn, setColumnComment, setDefault, setIdentity, setNullable, setTableComment, type SqlChange,
} from '../../console/src/sqlGen.js';
import { specOf } from '../../console/src/schema/catalogColumn.js';

let db: { url: string; drop(): Promise<void> };
let c: pg.Client;
const S = 'we"ird schema';
const author = { schema: S, name: 'Author' };
const article = { schema: S, name: "art'icle" };

/** The user schema's shape as one JSON document. */
async function snapshot(): Promise<unknown> {
  const r = await c.query(
    `SELECT json_build_object(
      'columns', (SELECT json_agg(json_build_object('t', table_name, 'c', column_name, 'type', format_type(a.atttypid, a.atttypmod), 'null', is_nullable, 'default', column_default, 'identity', is_identity, 'gen', identity_generation, 'comment', col_description(a.attrelid, a.attnum)) ORDER BY table_name, column_name)
                  FROM information_schema.columns ic JOIN pg_attribute a ON a.attrelid = (quote_ident(ic.table_schema) || '.' || quote_ident(ic.table_name))::regclass AND a.attname = ic.column_name WHERE table_schema = $1),
      'constraints', (SELECT json_agg(json_build_object('n', conname, 'def', pg_get_constraintdef(oid)) ORDER BY conname) FROM pg_constraint WHERE connamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1)),
      'indexes', (SELECT json_agg(indexdef ORDER BY indexname) FROM pg_indexes WHERE schemaname = $1),
      'tables', (SELECT json_agg(json_build_object('n', relname, 'k', relkind, 'comment', obj_description(oid, 'pg_class')) ORDER BY relname) FROM pg_class WHERE relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) AND relkind IN ('r', 'v'))
    ) AS s`,
    [S],
  );
  return r.rows[0].s;
}

/** Runs up, checks `effect`, runs down and expects the catalog as it was before. */
async function roundTrip(change: SqlChange, effect: () => Promise<void>): Promise<void> {
  const before = await snapshot();
  await c.query(change.up);
  await effect();
  assert.notDeepEqual(await snapshot(), before, 'the up changed the schema');
  assert.ok(change.down, 'reversible');
  await c.query(change.down);
  assert.deepEqual(await snapshot(), before);
}

const one = async (sql: string, params: unknown[] = []) => (await c.query(sql, params)).rows[0];

before(async () => {
  db = await createTestDatabase('sqlgen');
  c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query(`CREATE SCHEMA "we""ird schema"`);
  await c.query(createTable({
    ...author,
    columns: [{ name: 'id', type: 'integer', nullable: false, identity: 'always' }, { name: 'name', type: 'text', nullable: false }, { name: 'age', type: 'integer', nullable: true }],
    primaryKey: ['id'],
  }).up);
});

after(async () => {
  await c?.end();
  await db?.drop();
});

test('create table with every part, rows obey it, and its down drops it', async () => {
  const change = createTable({
    ...article,
    columns: [
      { name: 'id', type: 'bigserial', nullable: false },
      { name: 'title', type: 'varchar(50)', nullable: false, default: { kind: 'value', value: "it's new" }, comment: "the 'title'" },
      { name: 'author id', type: 'integer', nullable: true },
      { name: 'tags', type: 'text[]', nullable: true, unique: true },
      { name: 'at', type: 'timestamp with time zone', nullable: false, default: { kind: 'expression', sql: 'now()' } },
    ],
    primaryKey: ['id'],
    uniques: [['title', 'author id']],
    foreignKeys: [{ kind: 'foreign key', name: 'article_author', columns: ['author id'], references: author, refColumns: ['id'], onDelete: 'set null' }],
    checks: [{ kind: 'check', checkSql: 'length(title) > 0' }],
    comment: 'Articles',
  });
  await roundTrip(change, async () => {
    const a = await one(`INSERT INTO "we""ird schema"."Author" (name) VALUES ('Ann') RETURNING id`);
    const r = await one(`INSERT INTO "we""ird schema"."art'icle" ("author id") VALUES ($1) RETURNING title, at IS NOT NULL AS has_at, id`, [a.id]);
    assert.deepEqual(r, { title: "it's new", has_at: true, id: '1' });
    await assert.rejects(c.query(`INSERT INTO "we""ird schema"."art'icle" (title) VALUES ('')`), /check constraint/);
    await assert.rejects(c.query(`INSERT INTO "we""ird schema"."art'icle" ("author id") VALUES (999)`), /article_author/);
    await c.query(`DELETE FROM "we""ird schema"."Author"`);
    assert.equal((await one(`SELECT "author id" FROM "we""ird schema"."art'icle"`))['author id'], null, 'ON DELETE SET NULL');
    assert.equal((await one(`SELECT obj_description('"we""ird schema"."art''icle"'::regclass, 'pg_class') AS d`)).d, 'Articles');
  });
});

test('add column ↔ drop column, rename ↔ rename back, retype ↔ retype back', async () => {
  await roundTrip(addColumn(author, { name: 'bio "x"', type: 'text', nullable: false, default: { kind: 'value', value: '' }, comment: 'about' }), async () => {
    assert.equal((await one(`SELECT count(*)::int AS n FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'bio "x"'`, [S])).n, 1);
  });
  await roundTrip(renameColumn(author, 'name', 'full name'), async () => {
    await c.query(`SELECT "full name" FROM "we""ird schema"."Author"`);
  });
  await roundTrip(retypeColumn(author, 'age', 'numeric(5,1)', 'integer'), async () => {
    assert.equal((await one(`SELECT data_type FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'age'`, [S])).data_type, 'numeric');
  });
  await roundTrip(renameTable(author, 'Writer'), async () => {
    await c.query(`SELECT 1 FROM "we""ird schema"."Writer"`);
  });
});

test('nullability, default and comments go back to what they were', async () => {
  await roundTrip(setNullable(author, 'name', true), async () => undefined);
  await roundTrip(setDefault(author, 'age', { kind: 'expression', sql: '18 + 1' }, undefined), async () => undefined);
  await c.query(setDefault(author, 'age', { kind: 'value', value: '7' }, undefined).up);
  await roundTrip(setDefault(author, 'age', undefined, (await one(`SELECT column_default AS d FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'age'`, [S])).d), async () => undefined);
  await roundTrip(setTableComment(author, "who's who", undefined), async () => undefined);
  await roundTrip(setColumnComment(author, 'age', 'years', undefined), async () => undefined);
});

test('identity: add ↔ drop and always ↔ by default', async () => {
  await c.query(addColumn(author, { name: 'n', type: 'bigint', nullable: false, default: { kind: 'value', value: '0' } }).up);
  await c.query(setDefault(author, 'n', undefined, undefined).up);
  await roundTrip(setIdentity(author, 'n', 'by default', undefined), async () => {
    assert.equal((await one(`SELECT is_identity FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'n'`, [S])).is_identity, 'YES');
  });
  await roundTrip(setIdentity(author, 'id', 'by default', 'always'), async () => undefined);
  await c.query(dropColumn(author, 'n').up);
});

test('a dropped serial column comes back as serial, with a sequence of its own', async () => {
  await c.query(addColumn(author, { name: 'seq', type: 'serial', nullable: false }).up);
  const col = await one(`SELECT column_default AS d FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'seq'`, [S]);
  const drop = dropColumn(author, 'seq', specOf({ name: 'seq', type: 'integer', nullable: false, default: col.d, identity: '', comment: null }));
  assert.equal(drop.down, 'ALTER TABLE "we""ird schema"."Author" ADD COLUMN "seq" serial NOT NULL;');
  await c.query(drop.up);
  await c.query(drop.down!);
  assert.match((await one(`SELECT column_default AS d FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'seq'`, [S])).d, /^nextval/);
  await c.query(dropColumn(author, 'seq').up);
});

test('a dropped column comes back (empty) from its known definition', async () => {
  await c.query(addColumn(author, { name: 'score', type: 'integer', nullable: false, default: { kind: 'value', value: '0' } }).up);
  await roundTrip(dropColumn(author, 'score', { name: 'score', type: 'integer', nullable: false, default: { kind: 'expression', sql: '0' } }), async () => undefined);
  await c.query(dropColumn(author, 'score').up);
});

test('constraints: add ↔ drop, and a drop is reversible from pg_get_constraintdef', async () => {
  await roundTrip(addConstraint(author, { kind: 'unique', columns: ['name'] }), async () => undefined);
  await roundTrip(addConstraint(author, { kind: 'check', name: 'adult', checkSql: 'age >= 18' }), async () => {
    await assert.rejects(c.query(`INSERT INTO "we""ird schema"."Author" (name, age) VALUES ('kid', 3)`), /adult/);
  });
  await c.query(addConstraint(author, { kind: 'check', name: 'positive', checkSql: 'age > 0' }).up);
  const def = (await one(`SELECT pg_get_constraintdef(oid) AS d FROM pg_constraint WHERE conname = 'positive'`)).d;
  await roundTrip(dropConstraint(author, 'positive', def), async () => undefined);
});

test('indexes: create ↔ drop, and a drop is reversible from pg_indexes', async () => {
  await roundTrip(createIndex({ table: author, name: 'by "name"', columns: ['name', 'age'], unique: true }), async () => undefined);
  await c.query(createIndex({ table: author, name: 'by_age', columns: ['age'], method: 'hash' }).up);
  const def = (await one(`SELECT indexdef AS d FROM pg_indexes WHERE indexname = 'by_age'`)).d;
  await roundTrip(dropIndex(S, 'by_age', def), async () => undefined);
});

test('views: create ↔ drop, and a drop is reversible from pg_get_viewdef; a table drop is not reversible', async () => {
  const v = { schema: S, name: 'adults' };
  await roundTrip(createView(v, `SELECT id, name FROM "we""ird schema"."Author" WHERE age >= 18;`), async () => {
    await c.query(`SELECT * FROM "we""ird schema"."adults"`);
  });
  await c.query(createView(v, `SELECT id FROM "we""ird schema"."Author"`).up);
  const def = (await one(`SELECT pg_get_viewdef('"we""ird schema".adults'::regclass) AS d`)).d;
  await roundTrip(dropView(v, def), async () => undefined);
  await roundTrip(replaceView(v, `SELECT id, name FROM "we""ird schema"."Author"`, def), async () => {
    assert.deepEqual((await c.query(`SELECT * FROM "we""ird schema"."adults" LIMIT 0`)).fields.map((f) => f.name), ['id', 'name']);
  });
  const d = dropTable(v);
  assert.equal(d.down, null);
});
