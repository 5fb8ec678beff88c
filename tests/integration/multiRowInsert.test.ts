/**
 * Multi-row inserts over real HTTP: rows that all give the same columns are bound as one array
 * per column (`INSERT … SELECT … FROM unnest(…)`), the others as VALUES with DEFAULT for a column a
 * row leaves out. Whatever the form, a row stores what inserting it alone stores (every kind of
 * type: text with quotes and braces, arrays, json/jsonb, enums, domains, composites, big numbers,
 * NULLs), defaults fill what a row omits and never what it sets to null, presets and the session
 * fill every row, the permission check and on_conflict apply to each row, and a bad value answers
 * the error a single-row insert answers.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEngine, type TestEngine } from './harness.js';

let e: TestEngine;
const user = (id: number) => ({ 'x-svc-role': 'user', 'x-svc-user-id': String(id) });

async function ok(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const r = await e.graphql(query, variables, headers);
  assert.equal(r.status, 200);
  assert.equal(r.body.errors, undefined, JSON.stringify(r.body.errors));
  return r.body.data;
}

async function fails(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
  const r = await e.graphql(query, variables, headers);
  assert.equal(r.status, 200);
  assert.ok(Array.isArray(r.body.errors), `expected errors, got ${r.text}`);
  assert.equal(r.body.data, undefined);
  return r.body.errors[0] as { message: string; extensions: { code: string; path: string } };
}

async function count(): Promise<number> {
  const r = await e.query({ type: 'count', args: { table: 'item' } });
  assert.equal(r.status, 200, r.text);
  return r.body.count;
}

const FIELDS = 'name score note tags grid meta doc m code z big price u owner';
const INSERT_MANY = `mutation ($objs: [item_insert_input!]!) { insert_item(objects: $objs) { affected_rows returning { ${FIELDS} } } }`;
const INSERT_ONE = `mutation ($obj: item_insert_input!) { insert_item_one(object: $obj) { ${FIELDS} } }`;

before(async () => {
  e = await startTestEngine({ adminSecret: 'adm' });
  await e.runSql(`
    CREATE TYPE mood AS ENUM ('happy', 'sad', 'so "so", {ok}');
    CREATE DOMAIN short_text AS text CHECK (length(VALUE) <= 5);
    CREATE TYPE complex AS (r float8, i float8);
    CREATE TABLE item (
      id serial PRIMARY KEY, name text NOT NULL, score int NOT NULL DEFAULT 5, note text DEFAULT 'none',
      tags text[], grid int[], meta jsonb, doc json, m mood, code short_text, z complex, big bigint, price numeric,
      u uuid, owner text, created timestamptz NOT NULL DEFAULT now()
    );
  `);
  const r = await e.query({
    type: 'bulk',
    args: [
      { type: 'track_table', args: { name: 'item' } },
      { type: 'create_select_permission', args: { table: 'item', role: 'user', permission: { columns: '*', filter: {} } } },
      {
        type: 'create_insert_permission',
        args: {
          table: 'item', role: 'user',
          permission: { check: { score: { _lt: 100 } }, columns: ['id', 'name', 'score', 'note', 'tags', 'meta', 'm', 'code'], set: { owner: 'X-Svc-User-Id', price: 1.5 } },
        },
      },
      { type: 'create_update_permission', args: { table: 'item', role: 'user', permission: { columns: ['score', 'note'], filter: { owner: 'X-Svc-User-Id' }, check: { score: { _lt: 1000 } } } } },
    ],
  });
  assert.equal(r.status, 200, r.text);
});

after(async () => {
  await e?.stop();
});

/** Objects giving every column, with values that are hard to carry in an array literal. */
const hardRows = [
  {
    name: 'quote " backslash \\ comma , braces {} NULL', score: 1, note: '', tags: ['a,b', 'c"d', null, 'NULL', '{x}', 'e\\f', ''],
    grid: [1, 2, 3], meta: { a: [1, 'x"y'], b: null, c: '\\' }, doc: [1, { k: 'v' }], m: 'so "so", {ok}', code: 'ab,{"', z: '(1.5,2)',
    big: '9007199254740993', price: '12345678901234567890.123456789', u: 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', owner: 'ünïcode ✓',
  },
  {
    name: 'NULL', score: -7, note: null, tags: '{x,"y z",NULL}', grid: '{}', meta: 'just a string', doc: 'str', m: 'happy', code: null, z: null,
    big: 9007199254740991, price: 0.1, u: null, owner: null,
  },
  {
    name: '  spaced  ', score: 2147483647, note: 'x', tags: [], grid: null, meta: null, doc: null, m: null, code: '', z: '(,)',
    big: null, price: null, u: 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A12', owner: '"',
  },
];

describe('rows that give the same columns', () => {
  it('store exactly what inserting each row alone stores, for every kind of type', async () => {
    const many = await ok(INSERT_MANY, { objs: hardRows });
    assert.equal(many.insert_item.affected_rows, hardRows.length);
    const one = [];
    for (const obj of hardRows) one.push((await ok(INSERT_ONE, { obj })).insert_item_one);
    assert.deepEqual(many.insert_item.returning, one);
    assert.equal(many.insert_item.returning[0].name, hardRows[0]!.name);
    assert.deepEqual(many.insert_item.returning[0].tags, hardRows[0]!.tags);
    assert.deepEqual(many.insert_item.returning[1].tags, ['x', 'y z', null]);
    assert.deepEqual(many.insert_item.returning[0].meta, hardRows[0]!.meta);
    assert.equal(many.insert_item.returning[1].note, null);
  });

  it('the same rows written as literals in the query store the same', async () => {
    const literal = `mutation { insert_item(objects: [
      {name: "lit \\" 1", score: 3, tags: ["p,q", "r"], meta: {k: "v"}, m: "happy"},
      {name: "lit 2", score: 4, tags: [], meta: null, m: "sad"}
    ]) { returning { name score tags meta m note } } }`;
    const data = await ok(literal);
    assert.deepEqual(data.insert_item.returning, [
      { name: 'lit " 1', score: 3, tags: ['p,q', 'r'], meta: { k: 'v' }, m: 'happy', note: 'none' },
      { name: 'lit 2', score: 4, tags: [], meta: null, m: 'sad', note: 'none' },
    ]);
  });

  it('one query, any number of rows: each request stores its own rows in order', async () => {
    const q = 'mutation ($objs: [item_insert_input!]!) { insert_item(objects: $objs) { affected_rows returning { name score } } }';
    for (const n of [2, 7, 3]) {
      const objs = Array.from({ length: n }, (_, i) => ({ name: `n${n}-${i}`, score: i }));
      const data = await ok(q, { objs });
      assert.deepEqual(data.insert_item, { affected_rows: n, returning: objs });
    }
  });

  it('a column set to null stays null; the columns no row gives take their defaults', async () => {
    const data = await ok('mutation ($objs: [item_insert_input!]!) { insert_item(objects: $objs) { returning { name score note created } } }',
      { objs: [{ name: 'd1', note: null }, { name: 'd2', note: null }] });
    for (const r of data.insert_item.returning) {
      assert.equal(r.note, null);
      assert.equal(r.score, 5);
      assert.ok(r.created);
    }
  });
});

describe('rows that give different columns', () => {
  it('each row takes the default of each column it leaves out, and null where it says null', async () => {
    const data = await ok(INSERT_MANY.replace(FIELDS, 'name score note tags'), {
      objs: [{ name: 'v1' }, { name: 'v2', score: 9, note: null }, { name: 'v3', note: 'x', tags: ['t'] }, { name: 'v4', score: 1 }],
    });
    assert.deepEqual(data.insert_item.returning, [
      { name: 'v1', score: 5, note: 'none', tags: null },
      { name: 'v2', score: 9, note: null, tags: null },
      { name: 'v3', score: 5, note: 'x', tags: ['t'] },
      { name: 'v4', score: 1, note: 'none', tags: null },
    ]);
  });
});

describe('a role: presets, session variables and checks on every row', () => {
  it('fills the presets from the permission and the session in every row', async () => {
    const data = await ok('mutation ($objs: [item_insert_input!]!) { insert_item(objects: $objs) { returning { name owner price score } } }',
      { objs: [{ name: 'r1', score: 1 }, { name: 'r2', score: 2 }, { name: 'r3', score: 3 }] }, user(7));
    assert.deepEqual(data.insert_item.returning, [
      { name: 'r1', owner: '7', price: 1.5, score: 1 },
      { name: 'r2', owner: '7', price: 1.5, score: 2 },
      { name: 'r3', owner: '7', price: 1.5, score: 3 },
    ]);
  });

  it('one row failing the check fails the request and stores nothing', async () => {
    const before = await count();
    const err = await fails('mutation ($objs: [item_insert_input!]!) { insert_item(objects: $objs) { affected_rows } }',
      { objs: [{ name: 'c1', score: 1 }, { name: 'c2', score: 150 }, { name: 'c3', score: 2 }] }, user(7));
    assert.equal(err.extensions.code, 'permission-error');
    assert.equal(err.message, 'Check constraint violation. insert/update check constraint failed');
    assert.equal(await count(), before);
  });

  it('on_conflict updates the listed columns of each conflicting row, within the update permission', async () => {
    const first = await ok('mutation ($objs: [item_insert_input!]!) { insert_item(objects: $objs) { returning { id } } }',
      { objs: [{ name: 'u1', score: 1 }, { name: 'u2', score: 2 }] }, user(8));
    const [a, b] = first.insert_item.returning.map((r: { id: number }) => r.id);
    const upsert = `mutation ($objs: [item_insert_input!]!) {
      insert_item(objects: $objs, on_conflict: {constraint: item_pkey, update_columns: [score, note]}) { affected_rows returning { id name score note owner } } }`;
    const data = await ok(upsert, { objs: [{ id: a, name: 'ignored', score: 10, note: 'n1' }, { id: b, name: 'ignored', score: 20, note: 'n2' }, { id: 100000, name: 'u3', score: 30, note: 'n3' }] }, user(8));
    assert.deepEqual(data.insert_item, {
      affected_rows: 3,
      returning: [
        { id: a, name: 'u1', score: 10, note: 'n1', owner: '8' },
        { id: b, name: 'u2', score: 20, note: 'n2', owner: '8' },
        { id: 100000, name: 'u3', score: 30, note: 'n3', owner: '8' },
      ],
    });
    // Another user's rows are outside the update filter: the upsert updates nothing of them.
    const other = await ok(upsert, { objs: [{ id: a, name: 'x', score: 99, note: 'x' }, { id: b, name: 'x', score: 99, note: 'x' }] }, user(9));
    assert.deepEqual(other.insert_item, { affected_rows: 0, returning: [] });
    const ignore = await ok(`mutation ($objs: [item_insert_input!]!) {
      insert_item(objects: $objs, on_conflict: {constraint: item_pkey, update_columns: []}) { affected_rows } }`,
    { objs: [{ id: a, name: 'x', score: 1 }, { id: 100001, name: 'new', score: 1 }] }, user(8));
    assert.deepEqual(ignore.insert_item, { affected_rows: 1 });
  });
});

describe('bad values', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['a domain check', { code: 'too long' }],
    ['a uuid', { u: 'not-a-uuid' }],
    ['an integer array', { grid: '{1,x}' }],
    ['a composite', { z: '(1,2,3)' }],
    ['a bigint', { big: '99999999999999999999' }],
  ];
  for (const [what, bad] of cases) {
    it(`${what}: the error of the same row inserted alone, nothing stored`, async () => {
      const before = await count();
      const good = { name: 'ok', score: 1, code: 'c', u: null, grid: null, z: null, big: null };
      const many = await fails(INSERT_MANY, { objs: [good, { ...good, ...bad }, good] });
      const one = await fails(INSERT_ONE, { obj: { ...good, ...bad } });
      assert.equal(many.extensions.code, one.extensions.code);
      assert.equal(many.message, one.message);
      assert.notEqual(many.extensions.code, 'unexpected');
      assert.equal(await count(), before);
    });
  }
});
