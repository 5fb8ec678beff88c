/**
 * Re-introspection after DDL (metadata/introspection/relationFingerprints.ts), differentially against real
 * Postgres: after each DDL statement, what `reintrospect` makes of the last snapshot must equal a whole
 * introspection taken in the same transaction, and the relations the statement did not reach must keep their
 * `DbTable` objects (what lets the schema-cache build keep their tables).
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestDatabase, sqlOn } from './harness.js';
import { createDb } from '../../src/execution/index.js';
import { introspectDatabase, introspectWithFingerprints, reintrospect, relationFingerprintsOf } from '../../src/metadata/index.js';
import type { DbSnapshot } from '../../src/metadata/index.js';

const SETUP = `
CREATE SCHEMA other;
CREATE TYPE mood AS ENUM ('calm', 'glad');
CREATE DOMAIN short_text AS text CHECK (length(VALUE) < 100);
CREATE FUNCTION stamp() RETURNS text LANGUAGE sql STABLE AS $$ SELECT 'x' $$;
CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL, mood mood, nick short_text);
CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int REFERENCES author(id), tag text DEFAULT stamp());
CREATE TABLE other.note (id int PRIMARY KEY, article_id int REFERENCES article(id) ON DELETE CASCADE, "Odd Name" text);
CREATE TABLE lonely (id int PRIMARY KEY, label text UNIQUE);
CREATE TABLE measure (id int, at date) PARTITION BY RANGE (at);
CREATE TABLE measure_2026 PARTITION OF measure FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');
CREATE VIEW author_names AS SELECT id, name FROM author;
COMMENT ON TABLE lonely IS 'alone';
CREATE FUNCTION author_shout(a author) RETURNS text LANGUAGE sql STABLE AS $$ SELECT upper(a.name) $$;
`;

/** Each statement, then a check (the relations it should not have reached named, to test they were kept). */
const STEPS: Array<{ sql: string; untouched: string[] }> = [
  { sql: 'ALTER TABLE author ADD COLUMN bio text', untouched: ['public.lonely', 'other.note'] },
  { sql: 'ALTER TABLE article DROP COLUMN tag', untouched: ['public.lonely', 'public.author'] },
  { sql: 'ALTER TABLE lonely RENAME COLUMN label TO caption', untouched: ['public.author', 'other.note'] },
  { sql: 'ALTER TABLE author RENAME COLUMN id TO author_id', untouched: ['public.lonely', 'other.note'] },
  { sql: 'ALTER TABLE lonely ADD COLUMN author_id int REFERENCES author(author_id)', untouched: ['other.note', 'public.article'] },
  { sql: `ALTER TYPE mood ADD VALUE 'sad'`, untouched: ['public.lonely', 'public.article'] },
  { sql: 'CREATE OR REPLACE VIEW author_names AS SELECT author_id AS id, name, bio FROM author', untouched: ['public.lonely', 'public.article'] },
  { sql: `COMMENT ON COLUMN lonely.caption IS 'what it says'`, untouched: ['public.author', 'public.article'] },
  { sql: 'CREATE TABLE fresh (id int PRIMARY KEY, lonely_id int REFERENCES lonely(id))', untouched: ['public.author', 'public.article'] },
  { sql: 'ALTER TABLE article RENAME TO post', untouched: ['public.lonely', 'public.fresh'] },
  { sql: 'ALTER TABLE other.note ALTER COLUMN "Odd Name" SET NOT NULL', untouched: ['public.lonely', 'public.author'] },
  { sql: 'CREATE FUNCTION lonely_count() RETURNS bigint LANGUAGE sql STABLE AS $$ SELECT count(*) FROM lonely $$', untouched: ['public.lonely', 'public.author', 'public.post'] },
  { sql: `CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
          CREATE TRIGGER lonely_touch BEFORE INSERT ON lonely FOR EACH ROW EXECUTE FUNCTION touch()`, untouched: ['public.author', 'public.post'] },
  { sql: 'ALTER TABLE lonely ENABLE ROW LEVEL SECURITY', untouched: ['public.author', 'public.post'] },
  { sql: 'CREATE TABLE measure_2027 PARTITION OF measure FOR VALUES FROM (\'2027-01-01\') TO (\'2028-01-01\')', untouched: ['public.author', 'public.lonely'] },
  { sql: 'ALTER SCHEMA other RENAME TO elsewhere', untouched: ['public.author', 'public.lonely'] },
  { sql: 'DROP TABLE fresh', untouched: ['public.author', 'public.post'] },
  { sql: 'ALTER TABLE author ALTER COLUMN nick TYPE text', untouched: ['public.lonely', 'elsewhere.note'] },
  { sql: 'CREATE INDEX author_name ON author (name)', untouched: ['public.author', 'public.lonely', 'public.post'] },
  { sql: 'CREATE TABLE plain (id int PRIMARY KEY, nick short_text)', untouched: ['public.author', 'public.post'] },
  { sql: 'CREATE FUNCTION shout(t text) RETURNS boolean LANGUAGE sql STABLE AS $$ SELECT t IS NOT NULL $$; ALTER DOMAIN short_text ADD CONSTRAINT shouted CHECK (shout(VALUE))', untouched: ['public.author', 'public.post'] },
  { sql: 'ALTER TABLE post ADD COLUMN stamped text DEFAULT stamp()', untouched: ['public.author', 'public.lonely'] },
];

test('after each DDL statement the re-introspection equals a whole one, and the relations it did not reach keep their objects', async (t) => {
  const database = await createTestDatabase('reintro');
  after(() => database.drop());
  await sqlOn(database.url, SETUP);
  const db = createDb(database.url, 2);
  t.after(() => db.close());
  let last: DbSnapshot = await db.transaction({}, (c) => introspectWithFingerprints(c));
  assert.ok(relationFingerprintsOf(last), 'fingerprints taken beside the whole introspection');
  for (const step of STEPS) {
    await sqlOn(database.url, step.sql);
    const [again, whole] = await db.transaction({ isolation: 'repeatable read' }, async (c) => [await reintrospect(c, last), await introspectDatabase(c)] as const);
    assert.deepStrictEqual(again.tables, whole.tables, step.sql);
    assert.deepStrictEqual([...again.tables.keys()], [...whole.tables.keys()], `${step.sql}: the order of a whole introspection`);
    assert.deepStrictEqual(again.functions, whole.functions, step.sql);
    for (const key of step.untouched) {
      assert.ok(last.tables.has(key), `${key} was there`);
      assert.equal(again.tables.get(key), last.tables.get(key), `${step.sql}: ${key} kept`);
    }
    if (!step.sql.includes('FUNCTION')) assert.equal(again.functions, last.functions, `${step.sql}: the functions kept`);
    assert.notEqual(again.tables, last.tables);
    last = again;
  }
  // Nothing changed: every object kept.
  // The domain's new CHECK calls a function that could read the session: writes to `plain` are no longer session-free.
  assert.equal(last.tables.get('public.plain')?.sessionFreeWrites, false);
  const same = await db.transaction({}, (c) => reintrospect(c, last));
  for (const [k, v] of last.tables) assert.equal(same.tables.get(k), v, k);
});
